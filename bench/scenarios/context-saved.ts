// SPEC §11: on the bundled example workload, the bytes that reach the model through
// execute_program against the text of every tool result if the model called each tool itself.
// ptc-mcp only: the example programs are Python.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {connect, resultText} from '../lib/client.js'
import {FINANCE_SERVER, ROOT} from '../lib/paths.js'
import {startPtc} from '../lib/ptc-mcp.js'
import {addFigure, addRow, series} from '../lib/results.js'
import {type Scenario} from '../lib/scenario.js'

const PROGRAMS = ['revenue-trend.py', 'ledger-summary.py']
const DIRECT_CALLS: Array<[string, Record<string, number | string>]> = [
  ...['ACME', 'GLOBEX', 'INITECH'].map((ticker): [string, Record<string, number | string>] => [
    'get_income_statements',
    {ticker, quarters: 8},
  ]),
  ...['2025-Q3', '2025-Q4'].map((quarter): [string, Record<string, number | string>] => [
    'get_transactions',
    {ticker: 'ACME', quarter},
  ]),
]

export const contextSaved: Scenario = {
  name: 'context',
  async run(bench) {
    const finance = {command: process.execPath, args: [FINANCE_SERVER]}
    const example = await startPtc({
      label: 'example',
      downstreams: [{...finance, name: 'finance'}],
      dir: bench.dir('example'),
    })
    let viaProgram = 0
    for (const file of PROGRAMS) {
      const run = await example.run(readFileSync(join(ROOT, 'examples', 'programs', file), 'utf8'))
      viaProgram += Buffer.byteLength(run.text)
    }
    await example.close()
    const direct = await connect('bench-context', finance)
    let directBytes = 0
    for (const [name, args] of DIRECT_CALLS)
      directBytes += Buffer.byteLength(resultText(await direct.client.callTool({name, arguments: args})))
    await direct.close()
    bench.results.extra.context = {
      programs: PROGRAMS,
      calls: DIRECT_CALLS.length,
      directBytes,
      programBytes: viaProgram,
    }
    const row = addRow(bench.results, {
      key: 'context',
      scenario: `context saved: ${PROGRAMS.length} example programs vs their ${DIRECT_CALLS.length} tool results`,
      downstream: 'finance',
      reference: {label: 'tool results', value: directBytes, unit: 'B'},
    })
    addFigure(
      row,
      'ptc-mcp',
      series(row.scenario, '%', [(1 - viaProgram / directBytes) * 100]),
      `${viaProgram} B`,
    )
    bench.log('context done')
  },
}
