import type {RunOutcome, SessionState} from '../execution/index.js'

/**
 * Who an MCP server instance answers, when it is not the one client of a stdio serve: the gateway
 * (`serve --http`, SPEC §18) makes one per request or session, for one principal.
 */
export interface Caller {
  /** The authenticated principal: a requestState minted for it is refused to anyone else (SPEC §12). */
  principal: string
  /** The state its programs keep (SPEC §6.2), in place of the runtime's one session. */
  state(): Promise<SessionState>
  /** Told when one of its programs starts. */
  onStart?(): void
  /** Told when one of its programs ended (undefined: it threw); awaited before the answer goes out. */
  onEnd?(outcome: RunOutcome | undefined): Promise<void>
  /** Told of each requestState handed out for one of its paused programs, before the answer goes out. */
  onPaused?(requestState: string): Promise<void>
}
