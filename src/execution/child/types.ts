import type {ProgramBounds, PythonInfo, SandboxBackend} from '../../sandbox/backend.js'
import type {Logger} from '../../shared/log.js'
import type {Steps} from '../../shared/steps.js'
import type {KeptFiles} from '../files/kept-files.js'
import type {ReceivedSessionFiles} from '../files/session-files.js'
import type {ChildLimits, HelperName, PlanEntry, ShownImage} from '../protocol/protocol.js'
import type {ChildSpawner} from './spawner.js'

export interface ChildOptions {
  python: PythonInfo
  backend: SandboxBackend
  /** How the child process comes to exist. Default: a new interpreter through `backend`. */
  spawner?: ChildSpawner
  limits: ChildLimits
  /**
   * Largest line the child may send; a longer one ends the run. Also the bound on answers waiting
   * for the child to read them: over it, the child's next requests are not read until it catches up.
   */
  maxMessageBytes: number
  /** Cap on captured fd 1 + fd 2 output (UTF-8 bytes), and on the `done` result's JSON. */
  maxOutputBytes: number
  /** execution.artifacts_dir resolved: output over the cap is kept whole in a run directory there. */
  artifactsRoot?: string
  /** How long answers may wait over the backlog bound before the run ends. Default ANSWER_STALL_MS. */
  answerStallMs?: number
  /** Bound on spawn + confinement + runner load. */
  startTimeoutMs: number
  /** Scratch and thread bounds for the backend to enforce. Default: DEFAULT_BOUNDS. */
  bounds?: ProgramBounds
  logger: Logger
}

/** How a run ended, from the child's point of view. */
export type ChildEnd =
  | {kind: 'done'; ok: boolean; error: string | null; hasResult: boolean; result: unknown}
  | {kind: 'timeout'}
  | {kind: 'cancelled'}
  | {kind: 'crashed'; reason: string}

export interface ChildRunResult {
  end: ChildEnd
  output: string
  /** What the program passed to show(), in order. */
  images: ShownImage[]
  /** The file that keeps the whole output, when it went over the cap. */
  outputFile?: string
  /** The files kept from ./out/ (SPEC §14). */
  kept?: KeptFiles
  /** What the program left in ./session/ (SPEC §6.2), when the run took it back. */
  session?: ReceivedSessionFiles
  /** From hand-over of the program to its end. */
  elapsedMs: number
}

/** What the engine does with the child's requests; it answers with `ProgramChild.reply`. */
export interface ChildRequestHandlers {
  /** `bytes`: the size of the call's message, what its arguments cost the server (about). */
  onCall(id: number, tool: string, args: Record<string, unknown>, bytes: number): void
  onHelper(id: number, name: HelperName, args: Record<string, unknown>): void
  onCancel(id: number): void
  /** The calls the program's text shows, sent before it runs (SPEC §12). */
  onPlan?(calls: PlanEntry[]): void
}

export interface ChildRunOptions {
  /** The session's ./session/ files, written into the child's before the program starts, and the bounds of those taken back. */
  session?: {files: ReadonlyMap<string, Buffer>; limits: {files: number; bytes: number}}
  timeoutMs: number
  signal?: AbortSignal
  handlers: ChildRequestHandlers
  /** Timed steps (shared/steps.ts): the run message asks the child for its own, added at `done`. */
  steps?: Steps
  /** Each piece of the program's output (fd 1 and 2) as it arrives, before the cap (`run` on a terminal). */
  onOutput?: (chunk: Buffer) => void
}
