import {
  auth,
  type AuthProvider,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  type FetchLike,
  SdkErrorCode,
  SdkHttpError,
} from '@modelcontextprotocol/client'

import type {RemoteServerConfig, ServerConfig} from '../config/schema.js'
import type {Logger} from '../shared/log.js'

import {isRemoteServer} from '../config/transports.js'
import {oauthFetch} from '../shared/bounded-fetch.js'
import {Memo} from '../shared/memo.js'
import {NeedsSignInError, RefreshUnavailableError} from './errors.js'
import {StoreProvider, UserNeededError} from './provider.js'
import {routeSdkWarnings} from './sdk-warnings.js'
import {expiresAt, type TokenStore} from './store.js'

/** What the transport passes to `onUnauthorized` (the SDK does not export its name). */
type UnauthorizedContext = Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0]

/** Refresh this long before the access token expires, or a quarter of its lifetime if that is shorter. */
export const REFRESH_MARGIN_MS = 60_000

/**
 * The transport's auth for one OAuth server in `serve` (the SDK's `AuthProvider`): the stored
 * access token on every request, refreshed shortly before it expires and after a 401, through the
 * SDK's `auth()`. When only the user can help (no tokens, a refused refresh token), it throws
 * `NeedsSignInError` without asking the authorization server again; the supervisor then waits
 * for the store to change (`watch`).
 */
export class OAuthSession implements AuthProvider {
  private readonly provider: StoreProvider
  private loaded: Promise<void> | undefined
  /** One refresh at a time: concurrent requests wait for the same one. */
  private readonly refreshing = new Memo(() => this.refreshOnce(), {forget: 'settled'})
  /** The access token last handed to the transport, to tell a stale 401 from a refused token. */
  private lastSent: string | undefined
  private resourceMetadataUrl: URL | undefined

  constructor(
    readonly server: RemoteServerConfig,
    private readonly store: TokenStore,
    private readonly log: Logger,
    /** Told every token value as it is read or obtained, for redaction (SPEC §15). */
    onSecrets?: (values: string[]) => void,
  ) {
    this.provider = new StoreProvider(server, store, undefined, onSecrets)
    routeSdkWarnings(log)
  }

  async token(): Promise<string | undefined> {
    this.loaded ??= this.provider.load().then(() => {})
    await this.loaded
    const {record} = this.provider
    const tokens = record?.tokens
    if (!tokens) return undefined
    const expiry = expiresAt(record)
    if (
      expiry !== null &&
      tokens.refresh_token &&
      Date.now() >= expiry - margin(record?.tokens?.expires_in)
    ) {
      try {
        await this.refresh()
      } catch (error) {
        // Not fatal before the server says so: the token may still be accepted.
        if (!(error instanceof RefreshUnavailableError)) throw error
        this.log.debug(`could not refresh the access token before it expires: ${error.message}`)
      }
    }
    this.lastSent = this.provider.record?.tokens?.access_token
    return this.lastSent
  }

  async onUnauthorized(ctx: UnauthorizedContext): Promise<void> {
    const challenge = extractWWWAuthenticateParams(ctx.response)
    if (challenge.resourceMetadataUrl) this.resourceMetadataUrl = challenge.resourceMetadataUrl
    const record = await this.provider.load()
    this.loaded = Promise.resolve()
    if (!record?.tokens) {
      if (this.server.oauth || challenge.resourceMetadataUrl || (await this.advertisesOAuth(ctx)))
        throw new NeedsSignInError(this.server.name)
      throw await plainUnauthorized(ctx.response)
    }
    // Tokens written since this request left (by a refresh here, or `ptc-mcp auth`): just retry.
    if (record.tokens.access_token !== this.lastSent) return
    await this.refresh()
  }

  /** Whether the last request carried a stored access token (a failure then may be the token's). */
  get sentToken(): boolean {
    return this.lastSent !== undefined
  }

  /** Calls `onChange` when this server's record in the token store changes. */
  watch(onChange: () => void): () => void {
    return this.store.watch(this.server.url, () => {
      this.loaded = undefined
      onChange()
    })
  }

  /** Whether the store has tokens for this server now (read from disk). */
  async hasTokens(): Promise<boolean> {
    const record = await this.provider.load()
    this.loaded = Promise.resolve()
    return record?.tokens !== undefined
  }

  private refresh(): Promise<void> {
    return this.refreshing.get()
  }

  private async refreshOnce(): Promise<void> {
    const before = this.provider.record?.tokens
    if (!before?.refresh_token) {
      await this.provider.invalidateCredentials('tokens')
      throw new NeedsSignInError(this.server.name)
    }
    const network = recordingFetch()
    try {
      const result = await auth(this.provider, {
        serverUrl: this.server.url,
        resourceMetadataUrl: this.resourceMetadataUrl,
        scope: this.server.oauth?.scopes?.join(' '),
        fetchFn: network.fetch,
      })
      if (result !== 'AUTHORIZED') throw new UserNeededError()
      this.log.debug('access token refreshed')
    } catch (error) {
      if (network.failure) {
        throw new RefreshUnavailableError(`cannot reach the authorization server: ${network.failure}`, {
          cause: error,
        })
      }
      // Refused (or nothing left to refresh with): drop the tokens, so every ptc-mcp and
      // `auth --list` see the same state, and nothing asks the authorization server again.
      this.log.info('the refresh token was refused; sign in again')
      await this.provider.invalidateCredentials('tokens').catch(() => {})
      throw new NeedsSignInError(this.server.name, {cause: error})
    }
  }

  private async advertisesOAuth(ctx: UnauthorizedContext): Promise<boolean> {
    const challenge = ctx.response.headers.get('www-authenticate') ?? ''
    if (!/^\s*bearer\b/i.test(challenge)) return false
    try {
      await discoverOAuthProtectedResourceMetadata(this.server.url, {}, ctx.fetchFn)
      return true
    } catch {
      return false
    }
  }
}

function margin(expiresIn: number | undefined): number {
  return Math.min(REFRESH_MARGIN_MS, ((expiresIn ?? 0) * 1000) / 4)
}

/**
 * A fetch that remembers whether the authorization server could not be reached (a network error
 * or a 5xx): then a failed refresh is worth retrying, and is not a reason to sign in again.
 */
function recordingFetch(): {fetch: FetchLike; readonly failure: string | undefined} {
  let failure: string | undefined
  const recorder: FetchLike = async (url, init) => {
    try {
      const response = await oauthFetch(url, init)
      if (response.status >= 500) failure = `HTTP ${response.status} from ${new URL(String(url)).host}`
      return response
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error)
      throw error
    }
  }
  return {
    fetch: recorder,
    get failure() {
      return failure
    },
  }
}

/** The 401 a server without OAuth answered, as the transport would have reported it. */
async function plainUnauthorized(response: Response): Promise<SdkHttpError> {
  const text = await response.text().catch(() => '')
  return new SdkHttpError(SdkErrorCode.ClientHttpAuthentication, text, {
    status: response.status,
    statusText: response.statusText,
    text,
  })
}

/**
 * The session for a remote server that may sign in with OAuth: one with `oauth` in the config, or
 * without an Authorization header (its 401 may carry OAuth metadata). Servers given a header keep it.
 */
export function createOAuthSession(
  server: ServerConfig,
  store: TokenStore,
  log: Logger,
  onSecrets?: (values: string[]) => void,
): OAuthSession | undefined {
  if (!isRemoteServer(server)) return undefined
  const hasAuthorization = Object.keys(server.headers).some((name) => name.toLowerCase() === 'authorization')
  if (hasAuthorization && !server.oauth) return undefined
  return new OAuthSession(server, store, log, onSecrets)
}
