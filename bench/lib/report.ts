// The bench's table: each SPEC §11 figure per gateway, with its reference, ratio and target;
// then the details that explain them.
import {
  type Figure,
  GATEWAY_NAMES,
  type Results,
  type Row,
  type Target,
  type TierResult,
  type Unit,
} from './results.js'

export function formatValue(value: number | undefined, unit: Unit): string {
  if (value === undefined || Number.isNaN(value)) return ''
  switch (unit) {
    case 'ms': {
      if (value >= 1000) return `${(value / 1000).toFixed(2)} s`
      return `${value.toFixed(value < 10 ? 2 : 1)} ms`
    }
    case 'MiB': {
      return `${value.toFixed(1)} MiB`
    }
    case 'B': {
      return `${Math.round(value).toLocaleString('en-US')} B`
    }
    case '%': {
      return `${value.toFixed(1)} %`
    }
  }
}

export function formatRatio(ratio: number | undefined): string {
  if (ratio === undefined || Number.isNaN(ratio)) return ''
  // Three digits below 1, so a figure just over a target such as 0.15× does not print as 0.15×.
  let digits = 1
  if (ratio < 10) digits = 2
  if (ratio < 1) digits = 3
  return `${ratio.toFixed(digits)}×`
}

function formatTarget(target: Target | undefined, unit: Unit | undefined): string {
  if (!target) return ''
  const op = target.comparison === '<' ? '<' : '≤'
  return target.of === 'ratio' ? `${op} ${target.value}×` : `${op} ${formatValue(target.value, unit ?? 'ms')}`
}

function verdict(figure: Figure | undefined): string {
  if (figure?.pass === true) return 'PASS'
  if (figure?.pass === false) return 'FAIL'
  return ''
}

/** Columns padded to their widest cell; the first `leftColumns` left-aligned, the rest right-aligned. */
export function renderTable(rows: string[][], leftColumns = 1): string {
  const header = rows[0] ?? []
  const widths = header.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)))
  const line = (row: string[]): string =>
    widths
      .map((width, i) => (i < leftColumns ? (row[i] ?? '').padEnd(width) : (row[i] ?? '').padStart(width)))
      .join('  ')
      .trimEnd()
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n')
}

function mainTable(results: Results, footnotes: string[]): string {
  const gateways = GATEWAY_NAMES.filter((name) =>
    results.rows.some((row) => row.figures[name] ?? row.missing?.[name]),
  )
  const header = ['scenario', 'downstream', 'reference']
  for (const name of gateways) header.push(name, 'ratio')
  header.push('target', 'ptc-mcp')
  const cell = (row: Row, name: (typeof gateways)[number]): string[] => {
    const figure = row.figures[name]
    const missing = row.missing?.[name]
    if (!figure && missing) {
      footnotes.push(`${name}, ${row.scenario} (${row.downstream}): ${missing}`)
      return [`— [${footnotes.length}]`, '']
    }
    if (!figure) return ['—', '']
    let value = formatValue(figure.value, figure.series.unit)
    if (figure.note) {
      footnotes.push(`${name}, ${row.scenario} (${row.downstream}): ${figure.note}`)
      value = `${value} [${footnotes.length}]`
    }
    return [value, formatRatio(figure.ratio)]
  }
  const rows = [header]
  for (const row of results.rows) {
    const unit = row.figures['ptc-mcp']?.series.unit
    const reference = row.reference
      ? `${row.reference.label} ${formatValue(row.reference.value, row.reference.unit)}`
      : ''
    rows.push([
      row.scenario,
      row.downstream,
      reference,
      ...gateways.flatMap((name) => cell(row, name)),
      formatTarget(row.target, unit),
      verdict(row.figures['ptc-mcp']),
    ])
  }
  return renderTable(rows, 3)
}

function detailTable(results: Results): string {
  const rows = [['detail', 'n', 'median', 'p90', 'min', 'max']]
  for (const entry of Object.values(results.details))
    rows.push([
      entry.label,
      String(entry.n),
      ...[entry.median, entry.p90, entry.min, entry.max].map((value) => formatValue(value, entry.unit)),
    ])
  return renderTable(rows)
}

export function report(results: Results): string {
  const footnotes: string[] = []
  const parts = [mainTable(results, footnotes)]
  for (const [i, note] of footnotes.entries()) parts.push(`[${i + 1}] ${note}`)
  if (Object.keys(results.details).length > 0) parts.push('', detailTable(results))
  const rss = results.extra.rssAfterPrograms as Record<string, number> | undefined
  if (rss)
    parts.push(
      '',
      `ptc-mcp serve RSS: ${Object.entries(rss)
        .map(([count, mib]) => `after ${count} programs ${mib.toFixed(1)} MiB`)
        .join(', ')}`,
    )
  const tiers = results.extra.tiers as Record<string, TierResult> | undefined
  if (tiers) {
    const rows = [
      ['sandbox tier (execution.sandbox)', 'reported as', 'warm median', 'cold median', 'cold − warm'],
    ]
    for (const tier of Object.values(tiers))
      rows.push([
        tier.label,
        tier.sandbox,
        formatValue(tier.warmMedian, 'ms'),
        formatValue(tier.coldMedian, 'ms'),
        formatValue(tier.coldMedian - tier.warmMedian, 'ms'),
      ])
    parts.push('', renderTable(rows, 2))
  }
  if (Object.keys(results.settings).length > 0)
    parts.push('', ...Object.entries(results.settings).map(([key, why]) => `setting: ${key} (${why})`))
  for (const note of results.notes) parts.push(`note: ${note}`)
  return parts.join('\n')
}
