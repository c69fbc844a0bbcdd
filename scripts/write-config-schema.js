// Writes config.schema.json at the repository root from the compiled zod schema (run after tsc).
import {writeFileSync} from 'node:fs'

import {renderConfigJsonSchema} from '../dist/config/json-schema.js'

const target = new URL('../config.schema.json', import.meta.url)
writeFileSync(target, renderConfigJsonSchema())
