// What the bench measured, as written to bench/results.json: one row per SPEC §11 figure (each
// gateway's figure beside its reference and target), and details that explain them.
import {summarize, type Summary} from './stats.js'

export type GatewayName = 'my-cool-proxy' | 'ptc-mcp' | 'sdk-floor' | 'slop-mcp'
export const GATEWAY_NAMES: readonly GatewayName[] = ['ptc-mcp', 'slop-mcp', 'my-cool-proxy', 'sdk-floor']

export type Unit = 'B' | 'MiB' | 'ms' | '%'

export interface Series extends Summary {
  label: string
  unit: Unit
  samples: number[]
}

export function series(label: string, unit: Unit, samples: readonly number[]): Series {
  return {label, unit, ...summarize(samples), samples: samples.map((s) => Math.round(s * 1000) / 1000)}
}

/** What a row's figures are divided by: a series measured in the same run, or a fixed amount. */
export interface Reference {
  label: string
  value: number
  unit: Unit
  series?: Series
}

/** A SPEC §11 target: on the ratio to the reference, or on the figure itself (in its unit). */
export interface Target {
  value: number
  comparison: '<' | '<='
  of: 'ratio' | 'value'
}

export interface Figure {
  series: Series
  /** The row's statistic of the series (its median, or its max where the row says so). */
  value: number
  /** value ÷ reference, when both have the same unit. */
  ratio?: number
  pass?: boolean
  note?: string
}

export interface Row {
  key: string
  scenario: string
  downstream: string
  statistic: 'max' | 'median'
  reference?: Reference
  target?: Target
  figures: Partial<Record<GatewayName, Figure>>
  /** Why a gateway has no figure here (it cannot express the program, or it failed). */
  missing?: Partial<Record<GatewayName, string>>
}

/** One sandbox tier's trivial-program medians, warm and cold (the tiers extra). */
export interface TierResult {
  label: string
  sandbox: string
  warmMedian: number
  coldMedian: number
}

export interface Results {
  machine: Record<string, number | string | undefined>
  /** Config values set beside the shipped defaults, and why. */
  settings: Record<string, string>
  rows: Row[]
  details: Record<string, Series>
  extra: Record<string, unknown>
  notes: string[]
  totalSeconds?: number
}

export function newResults(machine: Results['machine']): Results {
  return {machine, settings: {}, rows: [], details: {}, extra: {}, notes: []}
}

/** Adds (or returns) the row `key`; its figures are filled in by `addFigure`. */
export function addRow(results: Results, row: Omit<Row, 'figures' | 'statistic'> & Partial<Row>): Row {
  const existing = results.rows.find((r) => r.key === row.key)
  if (existing) return existing
  const created: Row = {statistic: 'median', figures: {}, ...row}
  results.rows.push(created)
  return created
}

export function addFigure(row: Row, gateway: GatewayName, measured: Series, note?: string): Figure {
  const value = row.statistic === 'max' ? measured.max : measured.median
  const ratio =
    row.reference && row.reference.unit === measured.unit ? value / row.reference.value : undefined
  const figure: Figure = {series: measured, value, ratio, note}
  if (row.target) {
    const compared = row.target.of === 'ratio' ? ratio : value
    if (compared !== undefined)
      figure.pass = row.target.comparison === '<' ? compared < row.target.value : compared <= row.target.value
  }
  row.figures[gateway] = figure
  return figure
}

/** An error's first line: what a note or a footnote says of it. */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!
}

/** Says why `gateway` has no figure in `row` (kept only while it has none; the first reason wins). */
export function addMissing(row: Row, gateway: GatewayName, reason: string): void {
  if (row.figures[gateway] || row.missing?.[gateway]) return
  row.missing = {...row.missing, [gateway]: reason}
}

/** A reference measured in this run: the median of its series. */
export function measuredReference(label: string, measured: Series): Reference {
  return {label, value: measured.median, unit: measured.unit, series: measured}
}
