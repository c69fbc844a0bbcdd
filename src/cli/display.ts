import chalk from 'chalk'

import type {CheckResult} from '../doctor/check.js'
import type {ServerStatus, ToolDescription, ToolInfo} from '../downstream/index.js'
import type {RunOutcome} from '../execution/index.js'

import {traceLines} from '../execution/index.js'
import {cutWithin} from '../shared/cut.js'
import {terminalSafe as safe} from '../shared/terminal-safe.js'

// What servers send (names, descriptions, schemas, error texts) is shown through `safe`: a server's
// escape sequences must not drive the user's terminal.

/** Plain text table: columns padded to their widest cell, header underlined. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()
  return [chalk.bold(line(headers)), ...rows.map(line)].join('\n')
}

export function firstLine(text: string, max = 80): string {
  const line = text.split('\n', 1)[0]?.trim() ?? ''
  return cutWithin(line, max)
}

const ASKS = '[asks] '

export function formatToolTable(tools: Array<ToolInfo & {needs_approval?: string}>): string {
  if (tools.length === 0) return chalk.dim('(no tools)')
  return table(
    ['TOOL', 'SERVER', 'DESCRIPTION'],
    tools.map((t) => [
      t.name,
      t.server,
      // The mark counts against the 80 columns the description has.
      t.needs_approval
        ? `${chalk.yellow(ASKS)}${safe(firstLine(t.description, 80 - ASKS.length))}`
        : safe(firstLine(t.description)),
    ]),
  )
}

/** Tools a rule hides: the CLI says so, while programs are told only that the tool does not exist. */
export function formatHiddenTools(hidden: {name: string; server: string; reason: string}[]): string {
  return table(
    ['HIDDEN TOOL', 'SERVER', 'WHY'],
    hidden.map((t) => [t.name, t.server, safe(t.reason)]),
  )
}

export function formatServerStatus(servers: ServerStatus[]): string {
  if (servers.length === 0) return chalk.dim('(no servers configured)')
  return table(
    ['SERVER', 'TRANSPORT', 'STATE', 'TOOLS', 'DETAIL'],
    servers.map((s) => [
      s.name,
      s.transport,
      s.connected ? chalk.green('connected') : chalk.red('unavailable'),
      String(s.tools),
      s.connected ? `since ${s.since}` : `${safe(s.lastError ?? 'connecting')} (attempt ${s.attempts})`,
    ]),
  )
}

const json = (value: unknown) => safe(JSON.stringify(value, null, 2))

export function formatToolDescription(tool: ToolDescription): string {
  return [
    chalk.bold(tool.name),
    chalk.dim(`${tool.original_name} on server ${tool.server}`),
    '',
    safe(tool.description) || chalk.dim('(no description)'),
    '',
    chalk.bold('Signature'),
    `  ${safe(tool.signature)}`,
    '',
    chalk.bold('Input schema'),
    json(tool.inputSchema),
    '',
    chalk.bold('Output schema'),
    tool.outputSchema === null ? `null — ${tool.note ?? ''}` : json(tool.outputSchema),
    ...(tool.observed_result === undefined
      ? []
      : ['', chalk.bold('Observed result'), json(tool.observed_result)]),
    ...(tool.needs_approval ? ['', chalk.bold('Needs approval'), `  ${tool.needs_approval}`] : []),
  ].join('\n')
}

const STATUS_MARK = {
  pass: chalk.green('✔ pass'),
  warn: chalk.yellow('! warn'),
  fail: chalk.red('✖ fail'),
} as const

export function formatCheckDetail(result: CheckResult): string {
  return safe(result.fix ? `${result.detail} — fix: ${result.fix}` : result.detail)
}

/** One line per check, for terminals without a live view and for logs. */
export function formatCheck(result: CheckResult): string {
  return `${STATUS_MARK[result.status]}  ${result.title}: ${formatCheckDetail(result)}`
}

export const CANCELLED_HEADER = '[Script execution cancelled]'

/**
 * What `run` prints after Ctrl-C: what the program had printed, the cancellation, then the trace
 * line when calls were made. `elapsedMs` is measured by the caller (the engine reports none).
 */
export function formatCancelled(outcome: RunOutcome, elapsedMs: number, waited?: string): string {
  const output = outcome.output.endsWith('\n') ? outcome.output.slice(0, -1) : outcome.output
  return [
    ...(output === '' ? [] : [output]),
    CANCELLED_HEADER,
    ...(waited === undefined ? [] : [waited]),
    ...traceLines(outcome.tool_calls, elapsedMs),
  ].join('\n')
}
