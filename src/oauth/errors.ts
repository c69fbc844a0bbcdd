/** The command that signs in to a server, as every message about sign-in names it. */
export function authCommand(server: string): string {
  return `ptc-mcp auth ${server}`
}

/**
 * A server that wants OAuth has no usable tokens (never signed in, signed out, or its refresh token
 * was refused): only the user can fix it, so nothing retries until the token store changes.
 */
export class NeedsSignInError extends Error {
  constructor(
    readonly server: string,
    options?: {cause?: unknown},
  ) {
    super(`needs sign-in: run \`${authCommand(server)}\``, options)
    this.name = 'NeedsSignInError'
  }
}

/** The authorization server could not be reached to refresh the tokens: worth retrying later. */
export class RefreshUnavailableError extends Error {
  constructor(message: string, options?: {cause?: unknown}) {
    super(message, options)
    this.name = 'RefreshUnavailableError'
  }
}

/** The message of the NeedsSignInError an error is or was caused by, else undefined. */
export function signInMessage(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof NeedsSignInError) return current.message
    current = current.cause
  }
  return undefined
}
