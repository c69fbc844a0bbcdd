// Regenerates the config reference table in README.md from the zod schema (run after the build).
import {readFileSync, writeFileSync} from 'node:fs'

import {replaceReadmeBlock} from '../dist/config/readme-block.js'
import {configReferenceMarkdown} from '../dist/config/reference.js'

const path = new URL('../README.md', import.meta.url)
writeFileSync(
  path,
  replaceReadmeBlock(readFileSync(path, 'utf8'), 'config-reference', configReferenceMarkdown()),
)
console.log('README.md: config reference updated')
