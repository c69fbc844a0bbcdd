// @tier unit
import {describe, expect, test} from 'vitest'

import {renderTable, report} from './report.js'
import {addFigure, addMissing, addRow, newResults, series} from './results.js'
import {summarize} from './stats.js'

describe('bench statistics and report', () => {
  test('median of an even count is the mean of the middle two; p90 is nearest-rank', () => {
    expect(summarize([4, 1, 3, 2])).toEqual({n: 4, median: 2.5, p90: 4, min: 1, max: 4})
    expect(summarize([5, 1, 9])).toMatchObject({median: 5, p90: 9})
  })

  test('a figure is divided by its reference and held against the target; a missing peer shows a dash', () => {
    const results = newResults({})
    const row = addRow(results, {
      key: 'pause/bench',
      scenario: 'print(1), after a 300 ms pause',
      downstream: 'bench',
      reference: {label: 'floor', value: 2.5, unit: 'ms'},
      target: {value: 1.5, comparison: '<=', of: 'ratio'},
    })
    const figure = addFigure(row, 'ptc-mcp', series('trivial', 'ms', [2, 4, 6]))
    expect(figure).toMatchObject({value: 4, ratio: 1.6, pass: false})
    addRow(results, {key: 'other', scenario: 'other', downstream: 'everything'})
    addFigure(results.rows[1]!, 'slop-mcp', series('other', 'ms', [1]))
    const [header, , first] = report(results).split('\n')
    expect(header).toMatch(/ptc-mcp +ratio +slop-mcp +ratio +target +ptc-mcp$/)
    expect(first).toMatch(/4\.00 ms +1\.60× +— +≤ 1\.5× +FAIL$/)
  })

  test('tables pad left columns right and the rest left', () => {
    expect(
      renderTable([
        ['a', 'bb'],
        ['ccc', 'd'],
      ]),
    ).toBe('a    bb\n---  --\nccc   d')
  })

  test('a peer left out of a row shows a dash with a footnote saying why; one with a figure keeps it', () => {
    const results = newResults({})
    const row = addRow(results, {key: 'big/bench', scenario: '16 MiB result', downstream: 'bench'})
    addFigure(row, 'ptc-mcp', series('big', 'ms', [300]))
    addMissing(row, 'my-cool-proxy', 'Lua script failed: Connection closed')
    addMissing(row, 'my-cool-proxy', 'a later reason')
    addMissing(row, 'ptc-mcp', 'not shown: it has a figure')
    const lines = report(results).split('\n')
    expect(lines[2]).toMatch(/300\.0 ms +— \[1\]$/)
    expect(lines).toContain('[1] my-cool-proxy, 16 MiB result (bench): Lua script failed: Connection closed')
    expect(row.missing).toEqual({'my-cool-proxy': 'Lua script failed: Connection closed'})
  })
})
