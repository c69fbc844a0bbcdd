// downstream/ and execution/ are entered through their index.ts only, and no file imports round a
// circle, `import type` included: eslint.config.js (GATED, ptc/no-cycle) refuses both. ESLint lints
// planted text as if it were a file of src/; a cycle needs the path of a real file, whose importers
// ptc/no-cycle reads from disk.
import {ESLint} from 'eslint'
import {describe, expect, it} from 'vitest'

const RULES = new Set(['import/no-restricted-paths', 'ptc/no-cycle'])
const eslint = new ESLint({ruleFilter: ({ruleId}) => RULES.has(ruleId)})

async function refusals(filePath: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, {filePath})
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`)
}

describe('the gates of downstream/ and execution/', () => {
  it('refuse an import past downstream/index.ts from another folder (mcp importing the registry module)', async () => {
    const errors = await refusals(
      'src/mcp/planted.ts',
      "import {ToolRegistry} from '../downstream/registry.js'\n\nexport const planted = ToolRegistry\n",
    )
    expect(errors).toEqual([
      expect.stringMatching(
        /^import\/no-restricted-paths: .*src\/downstream is entered through its index\.ts only/,
      ),
    ])
  })

  it('refuse an import past execution/index.ts from a file at the top of src/ (runtime.ts)', async () => {
    const errors = await refusals(
      'src/runtime.ts',
      "import type {ProgramState} from './execution/state/program-state.js'\n\nexport type Planted = ProgramState\n",
    )
    expect(errors).toEqual([
      expect.stringMatching(
        /^import\/no-restricted-paths: .*src\/execution is entered through its index\.ts only/,
      ),
    ])
  })

  it('let other folders import the index.ts, and the sub-folders import each other', async () => {
    expect(
      await refusals(
        'src/mcp/planted.ts',
        "import {ToolError} from '../downstream/index.js'\nimport {fitAnswer} from '../execution/index.js'\n\nexport const planted = [ToolError, fitAnswer]\n",
      ),
    ).toEqual([])
    expect(
      await refusals(
        'src/execution/calls/planted.ts',
        "import {ProgramState} from '../state/program-state.js'\n\nexport const planted = ProgramState\n",
      ),
    ).toEqual([])
  })
})

describe('ptc/no-cycle', () => {
  it('refuses a circle closed by a type-only import (program-helpers.ts reaching back for ProgramState)', async () => {
    // program-state.ts → session-state.ts → kept-files.ts → protocol.ts → program-helpers.ts
    const errors = await refusals(
      'src/execution/calls/program-helpers.ts',
      "import type {ProgramState} from '../state/program-state.js'\n\nexport type Planted = ProgramState\n",
    )
    expect(errors).toEqual([
      expect.stringMatching(
        /^ptc\/no-cycle: import cycle: src\/execution\/calls\/program-helpers\.ts → src\/execution\/state\/program-state\.ts → .* → src\/execution\/calls\/program-helpers\.ts\./,
      ),
    ])
  })

  it('refuses a file inside a gated folder that imports its own index.ts (a circle through it)', async () => {
    const errors = await refusals(
      'src/downstream/tools/tool-search.ts',
      "import {lookupTool} from '../index.js'\n\nexport const planted = lookupTool\n",
    )
    expect(errors).toEqual([
      expect.stringMatching(
        /^ptc\/no-cycle: import cycle: src\/downstream\/tools\/tool-search\.ts → src\/downstream\/index\.ts → src\/downstream\/tools\/tool-search\.ts\./,
      ),
    ])
  })

  it('lets a file import what does not import it back', async () => {
    const errors = await refusals(
      'src/execution/state/program-state.ts',
      "import type {HelperState} from '../calls/program-helpers.js'\n\nexport type Planted = HelperState\n",
    )
    expect(errors).toEqual([])
  })
})
