import type {RunOutcome} from '../execution/index.js'

/**
 * What `/metrics` tells (SPEC §18), in Prometheus's text format: programs by outcome, tool calls by
 * server and outcome, program durations, programs running and queued. Counted in this replica.
 */
export class GatewayMetrics {
  private readonly programs = new Map<string, number>()
  private readonly toolCalls = new Map<string, number>()
  private readonly requests = new Map<string, number>()
  private seconds = 0
  private ended = 0
  running = 0

  /** A program started. */
  started(): void {
    this.running++
  }

  /** A program ended (undefined: the engine threw). */
  finished(outcome: RunOutcome | undefined, ms: number): void {
    this.running = Math.max(0, this.running - 1)
    this.ended++
    this.seconds += ms / 1000
    bump(this.programs, `outcome="${outcome === undefined ? 'failed' : outcomeLabel(outcome)}"`)
    for (const call of outcome?.tool_calls ?? []) {
      bump(this.toolCalls, `server="${escapeLabel(serverOf(call.tool))}",ok="${call.ok}"`)
    }
  }

  /** An HTTP answer of /mcp, by status (401s included). */
  answered(status: number): void {
    bump(this.requests, `status="${status}"`)
  }

  /** The exposition text; `queued` is read from the engine when it has started. */
  text(queued: number): string {
    const lines = [
      '# HELP ptc_programs_total Programs ended, by outcome.',
      '# TYPE ptc_programs_total counter',
      ...series('ptc_programs_total', this.programs),
      '# HELP ptc_tool_calls_total Tool calls made by programs, by downstream server.',
      '# TYPE ptc_tool_calls_total counter',
      ...series('ptc_tool_calls_total', this.toolCalls),
      '# HELP ptc_program_seconds Time programs took, from start to answer.',
      '# TYPE ptc_program_seconds summary',
      `ptc_program_seconds_sum ${this.seconds}`,
      `ptc_program_seconds_count ${this.ended}`,
      '# HELP ptc_programs_running Programs running now.',
      '# TYPE ptc_programs_running gauge',
      `ptc_programs_running ${this.running}`,
      '# HELP ptc_programs_queued Programs waiting for a slot (execution.max_concurrent_programs).',
      '# TYPE ptc_programs_queued gauge',
      `ptc_programs_queued ${queued}`,
      '# HELP ptc_http_requests_total Answers of /mcp, by HTTP status.',
      '# TYPE ptc_http_requests_total counter',
      ...series('ptc_http_requests_total', this.requests),
    ]
    return `${lines.join('\n')}\n`
  }
}

/** ok, timeout, busy (refused: the queue was full), cancelled, or error (it raised, a limit). */
function outcomeLabel(outcome: RunOutcome): string {
  if (outcome.ok) return 'ok'
  const error = outcome.error ?? ''
  if (/ProgramsBusyError/.test(error)) return 'busy'
  if (/timed out|timeout|wall[- ]clock/i.test(error)) return 'timeout'
  if (/AbortError|cancel/i.test(error)) return 'cancelled'
  return 'error'
}

/** `mcp__fin__query` → `fin`. */
function serverOf(tool: string): string {
  const match = /^mcp__(.+?)__/.exec(tool)
  return match ? match[1]! : 'unknown'
}

function bump(map: Map<string, number>, labels: string): void {
  map.set(labels, (map.get(labels) ?? 0) + 1)
}

function series(name: string, map: Map<string, number>): string[] {
  return [...map].map(([labels, count]) => `${name}{${labels}} ${count}`)
}

function escapeLabel(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n').slice(0, 100)
}
