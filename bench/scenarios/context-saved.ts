// SPEC §11: on the bundled example workload, the bytes that reach the model through a gateway's
// program tool against the text of every tool result if the model called each tool itself. The
// example programs are Python (examples/programs); slop-mcp and my-cool-proxy run the same two
// written in SLOP and Lua (bench/programs).
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import type {Gateway} from '../lib/gateway.js'

import {connect, resultText} from '../lib/client.js'
import {FINANCE_SERVER, ROOT} from '../lib/paths.js'
import {addFigure, addMissing, addRow, firstLine, type GatewayName, series} from '../lib/results.js'
import {type Scenario} from '../lib/scenario.js'

const PROGRAMS = ['revenue-trend', 'ledger-summary']
/** The example programs in each gateway's language; the SDK floor runs none. */
const PROGRAM_FILE: Partial<Record<GatewayName, (name: string) => string>> = {
  'ptc-mcp': (name) => join(ROOT, 'examples', 'programs', `${name}.py`),
  'slop-mcp': (name) => join(ROOT, 'bench', 'programs', `${name}.slop`),
  'my-cool-proxy': (name) => join(ROOT, 'bench', 'programs', `${name}.lua`),
}
type Call = [string, Record<string, number | string>]
const DIRECT_CALLS: Call[] = [
  ...['ACME', 'GLOBEX', 'INITECH'].map((ticker): Call => ['get_income_statements', {ticker, quarters: 8}]),
  ...['2025-Q3', '2025-Q4'].map((quarter): Call => ['get_transactions', {ticker: 'ACME', quarter}]),
]

export const contextSaved: Scenario = {
  name: 'context',
  async run(bench) {
    const finance = {name: 'finance', command: process.execPath, args: [FINANCE_SERVER]}
    const direct = await connect('bench-context', finance)
    let directBytes = 0
    for (const [name, args] of DIRECT_CALLS)
      directBytes += Buffer.byteLength(resultText(await direct.client.callTool({name, arguments: args})))
    await direct.close()
    const row = addRow(bench.results, {
      key: 'context',
      scenario: `context saved, ${PROGRAMS.length} example programs`,
      downstream: 'finance',
      reference: {label: 'tool results', value: directBytes, unit: 'B'},
    })
    for (const kind of bench.kinds) {
      const programFile = PROGRAM_FILE[kind.name]
      if (!programFile) {
        addMissing(row, kind.name, 'it runs no program')
        continue
      }
      let gateway: Gateway | undefined
      try {
        const dir = bench.dir(`${kind.name}-example`)
        gateway = await kind.start({label: `${kind.name}-example`, downstreams: [finance], dir})
        let viaProgram = 0
        for (const name of PROGRAMS) {
          const run = await gateway.run(readFileSync(programFile(name), 'utf8'))
          viaProgram += Buffer.byteLength(run.text)
        }
        const saved = (1 - viaProgram / directBytes) * 100
        addFigure(row, kind.name, series(row.scenario, '%', [saved]), `${viaProgram} B`)
      } catch (error) {
        if (kind.name === 'ptc-mcp') throw error
        const reason = firstLine(error)
        bench.note(`${kind.name}: context not measured: ${reason}`)
        addMissing(row, kind.name, reason)
      } finally {
        await gateway?.close()
      }
    }
    bench.log('context done')
  },
}
