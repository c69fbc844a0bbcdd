// A gateway under test (ptc-mcp, or a peer such as slop-mcp): started over stdio with some
// downstream servers, it runs the scenarios' programs, each written in its own language.
import type {Connection, Launch} from './client.js'
import type {Downstream, ServerLaunch, ToolCall} from './downstreams.js'
import type {GatewayName} from './results.js'

/** The scenarios' programs, independent of the language a gateway runs. */
export type Program =
  | {kind: 'big'; call: ToolCall}
  | {kind: 'calls'; call: ToolCall; n: number}
  | {kind: 'fanout'; call: ToolCall; n: number}
  | {kind: 'trivial'}

export interface ProgramRun {
  /** The whole tool call, as the client sees it. */
  ms: number
  text: string
  /** What the program timed itself (the last number it printed), where it can. */
  innerMs?: number
}

export interface Code {
  code: string
  /** How this gateway's version differs from the others' (for example, no concurrency). */
  note?: string
}

export interface Gateway {
  name: GatewayName
  connection: Connection
  /** Launch until the first tools/list answer. */
  startMs: number
  /** What its language cannot express, said where `code` gives no program. */
  cannot?: string
  /** The program in this gateway's language; undefined when it cannot be written there. */
  code(program: Program, downstream: Downstream): Code | undefined
  /** Runs a program; rejects when the gateway reports it failed. */
  run(code: string): Promise<ProgramRun>
  /**
   * A tool call the gateway answers itself, running no program (ptc-mcp: `list_callable_tools`
   * with `server`, SPEC §11's floor): what the SDK, the stdio hop and a handler cost anyway.
   */
  roundTrip(downstream: Downstream): Promise<number>
  close(): Promise<void>
}

export interface GatewayOptions {
  label: string
  downstreams: readonly ServerLaunch[]
  /** A fresh directory for this gateway's config and state. */
  dir: string
}

export interface GatewayKind {
  name: GatewayName
  /** Why it cannot run here (not installed, ...), or undefined. */
  unavailable(): string | undefined
  start(options: GatewayOptions): Promise<Gateway>
  /** The command line that starts it, for a scenario that speaks to it raw (discover). */
  launch?(options: GatewayOptions): Launch
}

/** A Python/SLOP keyword argument list: `text="x", ms=50` (JSON strings and numbers are both). */
export function keywordArgs(args: ToolCall['args'], separator: string): string {
  return Object.entries(args)
    .map(([key, value]) => `${key}${separator}${JSON.stringify(value)}`)
    .join(', ')
}
