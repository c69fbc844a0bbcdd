#!/usr/bin/env node
import {execute, settings} from '@oclif/core'

// The installed bin always runs the compiled commands, whatever NODE_ENV says (bin/dev.js is for src/).
settings.enableAutoTranspile = false

await execute({dir: import.meta.url})
