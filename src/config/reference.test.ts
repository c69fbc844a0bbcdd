// @tier unit
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'

import {replaceReadmeBlock} from './readme-block.js'
import {configReferenceMarkdown} from './reference.js'
import {executionSchema} from './schema.js'

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

describe('the README config reference', () => {
  it('is the table generated from the schema (run `npm run build && npm run docs` to update it)', () => {
    expect(replaceReadmeBlock(readme, 'config-reference', configReferenceMarkdown())).toBe(readme)
  })

  it('has a row for every execution key and every server key', () => {
    const table = configReferenceMarkdown()
    for (const key of Object.keys(executionSchema.shape)) {
      expect(table).toContain(`| \`execution.${key}\` |`)
    }
    for (const key of ['name', 'transport', 'command', 'args', 'env', 'cwd', 'url', 'headers']) {
      expect(table).toContain(`| \`servers[].${key}\` |`)
    }
  })
})
