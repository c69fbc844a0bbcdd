import chalk from 'chalk'

import type {CheckResult} from '../doctor/checks.js'
import type {ToolDescription} from '../downstream/inspect.js'
import type {ServerStatus, ToolInfo} from '../downstream/types.js'
import type {RunOutcome} from '../execution/engine.js'

import {traceLines} from '../execution/format.js'

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
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

export function formatToolTable(tools: Array<ToolInfo & {needs_approval?: string}>): string {
  if (tools.length === 0) return chalk.dim('(no tools)')
  return table(
    ['TOOL', 'SERVER', 'DESCRIPTION'],
    tools.map((t) => [
      t.name,
      t.server,
      `${t.needs_approval ? chalk.yellow('[asks] ') : ''}${firstLine(t.description)}`,
    ]),
  )
}

/** Tools a rule hides: the CLI says so, while programs are told only that the tool does not exist. */
export function formatHiddenTools(hidden: {name: string; server: string; reason: string}[]): string {
  return table(
    ['HIDDEN TOOL', 'SERVER', 'WHY'],
    hidden.map((t) => [t.name, t.server, t.reason]),
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
      s.connected ? `since ${s.since}` : `${s.lastError ?? 'connecting'} (attempt ${s.attempts})`,
    ]),
  )
}

const json = (value: unknown) => JSON.stringify(value, null, 2)

export function formatToolDescription(tool: ToolDescription): string {
  return [
    chalk.bold(tool.name),
    chalk.dim(`${tool.original_name} on server ${tool.server}`),
    '',
    tool.description || chalk.dim('(no description)'),
    '',
    chalk.bold('Signature'),
    `  ${tool.signature}`,
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
  return result.fix ? `${result.detail} — fix: ${result.fix}` : result.detail
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
export function formatCancelled(outcome: RunOutcome, elapsedMs: number): string {
  const output = outcome.output.endsWith('\n') ? outcome.output.slice(0, -1) : outcome.output
  return [
    ...(output === '' ? [] : [output]),
    CANCELLED_HEADER,
    ...traceLines(outcome.tool_calls, elapsedMs),
  ].join('\n')
}

/** C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides and isolates. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/gu

/**
 * Program output made safe for a terminal: a program must not drive the user's terminal (OSC 52
 * writes the clipboard, CSI moves the cursor and rewrites lines, a lone CR hides what was printed
 * before it, bidi overrides reorder text). Each control character is shown instead of obeyed: C0
 * ones as their Unicode control pictures (ESC → ␛, BEL → ␇), the others as `\u{...}`. Newlines,
 * tabs and CRLF line ends are kept.
 */
export function terminalSafe(text: string): string {
  return text.replaceAll(CONTROL, (char, offset: number) => {
    const code = char.codePointAt(0)!
    if (char === '\r' && text[offset + 1] === '\n') return char
    if (code < 0x20) return String.fromCodePoint(0x24_00 + code)
    if (code === 0x7f) return '\u2421'
    return `\\u{${code.toString(16)}}`
  })
}
