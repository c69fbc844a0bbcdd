import type {KeptState, RunOutcome} from '../execution/index.js'

/**
 * Who an MCP server instance answers, when it is not the one client of a stdio serve: the gateway
 * (`serve --http`, SPEC §18) makes one per request or session, for one principal.
 */
export interface Caller {
  /** The authenticated principal: a requestState minted for it is refused to anyone else (SPEC §12). */
  principal: string
  /** The state its programs keep (SPEC §6.2), in place of the runtime's own kept state. */
  state(): Promise<KeptState>
  /**
   * Whose "allow for the rest of the session" answers its programs' approvals keep (SPEC §12): the
   * principal, or in the 2025 era the principal's session. Default: the principal.
   */
  scope?(): string
  /**
   * Asked before each new program (not a resume): a refusal the model reads when the principal is
   * over a limit of gateway.per_principal, and nothing runs; undefined when it may run, and then
   * onStart and onEnd follow.
   */
  admit?(): Promise<string | undefined>
  /** Told when one of its programs starts. */
  onStart?(): void
  /** Told when one of its programs ended (undefined: it threw); awaited before the answer goes out. */
  onEnd?(outcome: RunOutcome | undefined): Promise<void>
  /** Told of each requestState handed out for one of its paused programs, before the answer goes out. */
  onPaused?(requestState: string): Promise<void>
}
