import type {OAuthSession} from '../../oauth/session.js'

/**
 * Only the user can help a server that needs sign-in, so nothing is retried on a timer (no retry
 * storm against the authorization server): the next attempt starts when tokens appear in the store.
 */
export class SignInWait {
  private waiting = false
  private stopWatching: (() => void) | undefined

  constructor(
    private readonly oauth: OAuthSession,
    /** Called when tokens appeared while waiting; it says whether it is still wanted. */
    private readonly onSignedIn: () => boolean,
  ) {}

  /** Waits for tokens; the store is watched from the first wait until stop(). */
  start(): void {
    this.waiting = true
    this.stopWatching ??= this.oauth.watch(() => {
      if (!this.waiting) return
      this.oauth.hasTokens().then(
        (has) => {
          if (has && this.waiting && this.onSignedIn()) this.waiting = false
        },
        () => {},
      )
    })
  }

  /** Stops waiting (an attempt is under way, or the supervisor closed); the watch stays. */
  cancel(): void {
    this.waiting = false
  }

  stop(): void {
    this.waiting = false
    this.stopWatching?.()
    this.stopWatching = undefined
  }
}
