// The layer rules of eslint.config.js really refuse what ARCHITECTURE.md forbids: an import that
// points up a layer, and a cycle. ESLint lints planted text as if it were a file of src/.
import {ESLint} from 'eslint'
import {existsSync} from 'node:fs'
import {describe, expect, it} from 'vitest'

// Only the layer rules run. Rules that read the linted file from disk (no-cycle among them) get a
// planted file only under the path of a real one.
const LAYER_RULES = new Set(['import/no-restricted-paths', 'ptc/no-cycle'])
const onDisk = new ESLint({ruleFilter: ({ruleId}) => LAYER_RULES.has(ruleId)})
const planted = new ESLint({ruleFilter: ({ruleId}) => ruleId === 'import/no-restricted-paths'})

async function layerErrors(filePath: string, text: string): Promise<string[]> {
  const eslint = existsSync(filePath) ? onDisk : planted
  const [result] = await eslint.lintText(text, {filePath})
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'import/no-restricted-paths' || message.ruleId === 'ptc/no-cycle')
    .map((message) => `${message.ruleId}: ${message.message}`)
}

describe('the layer rules', () => {
  it('refuse an import from a layer above (shared importing config)', async () => {
    const errors = await layerErrors(
      'src/shared/planted.ts',
      "import {configSchema} from '../config/schema.js'\n\nexport const planted = configSchema\n",
    )
    expect(errors).toEqual([
      expect.stringMatching(/^import\/no-restricted-paths: .*src\/shared is below this/),
    ])
  })

  it('refuse an import between folders on one floor (oauth importing init)', async () => {
    const errors = await layerErrors(
      'src/oauth/planted.ts',
      "import {planInit} from '../init/plan.js'\n\nexport const planted = planInit\n",
    )
    expect(errors).toEqual([
      expect.stringMatching(/^import\/no-restricted-paths: .*src\/oauth is below this/),
    ])
  })

  it('let a layer import the layers below it', async () => {
    const errors = await layerErrors(
      'src/execution/planted.ts',
      "import {configSchema} from '../config/schema.js'\nimport {isRecord} from '../shared/guards.js'\n\nexport const planted = [configSchema, isRecord]\n",
    )
    expect(errors).toEqual([])
  })

  it('refuse an upward import in a real file twice: up a layer, and round a cycle (config imports guards)', async () => {
    const errors = await layerErrors(
      'src/shared/guards.ts',
      "import {configSchema} from '../config/schema.js'\n\nexport const planted = configSchema\n",
    )
    expect(errors.toSorted()).toEqual([
      expect.stringMatching(/^import\/no-restricted-paths: /),
      expect.stringMatching(/^ptc\/no-cycle: /),
    ])
  })

  it('refuse a cycle, even inside a folder', async () => {
    // guards.ts is imported by json-rpc.ts: json-rpc.ts importing a module that imports it closes a circle.
    const errors = await layerErrors(
      'src/shared/guards.ts',
      "import {parseMessage} from './json-rpc.js'\n\nexport const planted = parseMessage\n",
    )
    expect(errors).toEqual([expect.stringMatching(/^ptc\/no-cycle: /)])
  })
})
