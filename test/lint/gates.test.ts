// @tier integration
// downstream/ and execution/ are entered through their index.ts only, and no file imports round a
// circle, `import type` included: eslint.config.js (GATED, ptc/no-cycle) refuses both. ESLint lints
// planted text as if it were a file of src/; a cycle needs the path of a real file, whose importers
// ptc/no-cycle reads from disk.
import {ESLint} from 'eslint'
import {readFileSync, statSync} from 'node:fs'
import {dirname, relative, resolve} from 'node:path'
import ts from 'typescript'
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
    // program-state.ts → kept-state.ts → kept-files.ts → protocol.ts → program-helpers.ts
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

/** The files loading `entry` loads: its imports that stay in the built JavaScript, not `import type` or `import()`. */
function loadedWith(entry: string): string[] {
  const loaded = new Set<string>()
  const visit = (file: string) => {
    if (loaded.has(file)) return
    loaded.add(file)
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest)
    for (const statement of source.statements) {
      const specifier = ts.isImportDeclaration(statement)
        ? !statement.importClause?.isTypeOnly && statement.moduleSpecifier
        : ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier
      if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue
      const target = resolve(dirname(file), specifier.text.replace(/\.js$/, '.ts'))
      if (statSync(target, {throwIfNoEntry: false})?.isFile()) visit(target)
    }
  }
  visit(resolve(entry))
  return [...loaded].map((file) => relative(process.cwd(), file))
}

describe('the index files', () => {
  it('leave the registry and the engine to load on first use (serve answers before either starts)', () => {
    const downstream = loadedWith('src/downstream/index.ts')
    const execution = loadedWith('src/execution/index.ts')
    expect(downstream).toContain('src/downstream/tools/inspect.ts')
    expect(execution).toContain('src/execution/outcome/outcome.ts')
    const heavy =
      /^src\/(downstream\/(registry|connection\/supervisor|transport\/transports)|execution\/(engine\/engine|child\/))/
    expect([...downstream, ...execution].filter((file) => heavy.test(file))).toEqual([])
  })
})
