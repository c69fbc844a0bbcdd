import type {ToolInfo} from '../downstream/index.js'
import type {RunOutcome} from '../execution/index.js'

/** The spans of programs and their tool calls (SPEC §18), as tracer.ts and otel.ts share them. */

/** What a program span records at its start. */
export interface ProgramStart {
  /** The client's `traceparent` from the request's `_meta`: the span joins its trace. */
  parent?: string
  /** The MCP tool that runs the program: execute_program, or a saved program's tool. */
  tool: string
  /** Who called, through the gateway. */
  principal?: string
  /** The program's code: recorded only with telemetry.arguments. */
  code: string
}

export interface ProgramSpan {
  /** This span's context as a `traceparent`. */
  readonly traceparent: string
  /** A child span for one tool call; `info` is the tool when the host knows it. */
  call(name: string, info: ToolInfo | undefined, args: Record<string, unknown>): CallSpan
  /** `outcome` undefined: the run threw. */
  end(outcome: RunOutcome | undefined): void
}

export interface CallSpan {
  /** The call's context, passed on to the server. */
  readonly traceparent: string
  /** Bytes of the result that reached the program. */
  resultBytes(bytes: number): void
  /** `error` undefined: the call succeeded. */
  end(error?: unknown): void
}

export interface ProgramTracer {
  start(program: ProgramStart): ProgramSpan
  /** Sends what is still buffered, within `timeoutMs`; then records nothing more. */
  shutdown(timeoutMs: number): Promise<void>
}

export interface ExportSettings {
  /** The OTLP/HTTP traces URL; undefined: the exporter reads OTEL_EXPORTER_OTLP_* itself. */
  url?: string
  /** Put code and tool arguments in the spans. */
  arguments: boolean
}
