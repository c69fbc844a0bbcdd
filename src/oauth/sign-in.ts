import {auth, extractWWWAuthenticateParams, OAuthError, OAuthErrorCode} from '@modelcontextprotocol/client'
import {randomBytes} from 'node:crypto'

import type {RemoteServerConfig} from '../config/schema.js'

import {oauthFetch} from '../shared/bounded-fetch.js'
import {errnoOf, PtcError} from '../shared/errors.js'
import {MAX_REFUSAL_BYTES, REFUSAL_TIMEOUT_MS, SIGN_IN_TIMEOUT_MS} from '../shared/limits.js'
import {answerText} from './answer-text.js'
import {openBrowser} from './browser.js'
import {CALLBACK_PATH, listenForCallback} from './callback.js'
import {askWithoutToken} from './no-token-probe.js'
import {StoreProvider} from './provider.js'
import {expiresAt, type TokenStore} from './store.js'

export interface SignInOptions {
  server: RemoteServerConfig
  store: TokenStore
  /** Open the authorization URL in a browser (default true); it is passed to `onUrl` either way. */
  openBrowser?: boolean
  /** Receives the authorization URL (to print it) and, when no browser could be opened, why. */
  onUrl(url: string, browserProblem?: string): void
  /** How long to wait for the browser to come back. Default 5 minutes. */
  timeoutMs?: number
  /** Stops waiting (Ctrl-C). */
  signal?: AbortSignal
  env?: NodeJS.ProcessEnv
  /** Told what ptc-mcp does by itself on the way (registering again with a server that forgot it). */
  onNotice?(message: string): void
}

export interface SignInResult {
  server: string
  url: string
  /** ISO time the access token expires, or null when the server did not say. */
  expires: string | null
  scopes: string[]
  /** Whether a refresh token was issued: the access token is then renewed without the user. */
  refreshable: boolean
  /** The file the tokens are in. */
  path: string
}

/** The authorization server does not know the client ptc-mcp registered with it (it forgot it, or never had it). */
class ClientRejectedError extends Error {
  override name = 'ClientRejectedError'
}

/**
 * `ptc-mcp auth NAME` (SPEC §13): OAuth 2.1 authorization code with PKCE through the SDK's `auth()`
 * (discovery from the server's 401, dynamic registration when the config names no client_id), the
 * user's browser for consent, a loopback redirect on `callback_port` or a free port, and the tokens
 * saved in the store.
 */
export async function signIn(options: SignInOptions): Promise<SignInResult> {
  const {server, store} = options
  const state = randomBytes(16).toString('base64url')
  const callback = await listenForCallback(await preferredPort(options), state)
  const redirectUrl = `http://127.0.0.1:${callback.port}${CALLBACK_PATH}`
  /** The stored registration this attempt reuses (checked before the browser is sent to it). */
  let reused: string | undefined
  const provider = new StoreProvider(server, store, {
    redirectUrl,
    state,
    async onAuthorizationUrl(url) {
      if (reused !== undefined) {
        const refusal = await clientRefusal(url, redirectUrl)
        if (refusal) throw new ClientRejectedError(refusal)
      }
      const problem = options.openBrowser === false ? '' : await openBrowser(url.href, options.env)
      options.onUrl(url.href, problem || undefined)
    },
  })
  try {
    const record = await provider.load()
    // A client registered for another redirect port cannot receive this code: register again.
    const registered = (record?.client as {redirect_uris?: string[]} | undefined)?.redirect_uris
    if (record?.client && !server.oauth?.client_id && !registered?.includes(redirectUrl))
      await provider.invalidateCredentials('client')

    const challenge = await probe(server)
    const scope = server.oauth?.scopes?.join(' ') ?? challenge.scope
    const common = {
      serverUrl: server.url,
      resourceMetadataUrl: challenge.resourceMetadataUrl,
      scope,
      fetchFn: oauthFetch,
    }
    const waitForCode = () => callback.wait(options.timeoutMs ?? SIGN_IN_TIMEOUT_MS, options.signal)
    await authorizeRegisteringAgain(provider, options, {
      common,
      waitForCode,
      reusing(client) {
        reused = client
      },
    })
    const saved = await provider.load()
    const expiry = expiresAt(saved)
    return {
      server: server.name,
      url: server.url,
      expires: expiry === null ? null : new Date(expiry).toISOString(),
      scopes: saved?.tokens?.scope?.split(' ').filter(Boolean) ?? [],
      refreshable: Boolean(saved?.tokens?.refresh_token),
      path: store.pathFor(server.url),
    }
  } finally {
    await callback.close()
  }
}

/**
 * Authorizes; when the authorization server turns out not to know the stored registration (an
 * in-memory server restarted), tells the user, drops it, registers again and authorizes once more.
 */
async function authorizeRegisteringAgain(
  provider: StoreProvider,
  options: SignInOptions,
  flow: {
    common: {serverUrl: string; resourceMetadataUrl?: URL; scope?: string}
    waitForCode: () => Promise<{code: string; iss?: string}>
    /** Told which stored client id this attempt reuses (undefined: a new or configured one). */
    reusing(client: string | undefined): void
  },
): Promise<void> {
  const {server} = options
  const configured = Boolean(server.oauth?.client_id)
  for (let attempt = 0; ; attempt++) {
    const reused = configured ? undefined : provider.record?.client?.client_id
    flow.reusing(reused)
    try {
      await authorize(provider, flow.common, flow.waitForCode)
      return
    } catch (error) {
      const rejected = error instanceof ClientRejectedError || clientError(error)
      if (!rejected || attempt > 0 || configured) throw error
      const why = error instanceof Error ? error.message : String(error)
      options.onNotice?.(
        `The authorization server of "${server.name}" does not know ptc-mcp's stored registration (${why}); registering again.`,
      )
      // The SDK may have dropped it already (and registered anew) on an invalid_client at the token endpoint.
      if (provider.record?.client?.client_id === reused) await provider.invalidateCredentials('client')
    }
  }
}

/** One authorization: the browser's round trip, then the code exchanged for tokens. */
async function authorize(
  provider: StoreProvider,
  common: {serverUrl: string; resourceMetadataUrl?: URL; scope?: string},
  waitForCode: () => Promise<{code: string; iss?: string}>,
): Promise<void> {
  const started = await auth(provider, {...common, forceReauthorization: true})
  if (started !== 'REDIRECT') return
  const {code, iss} = await waitForCode()
  const finished = await auth(provider, {...common, authorizationCode: code, iss})
  if (finished !== 'AUTHORIZED')
    throw new PtcError('USAGE', `Sign-in to "${provider.server.name}" did not finish.`)
}

/** An OAuth answer that the client is unknown or not allowed (at the token endpoint). */
function clientError(error: unknown): boolean {
  return (
    error instanceof OAuthError &&
    (error.code === OAuthErrorCode.InvalidClient || error.code === OAuthErrorCode.UnauthorizedClient)
  )
}

/**
 * Asks the authorization endpoint (without following redirects) whether it knows the stored client
 * before the user is sent there: a server that forgot it answers `invalid_client` ("Client ID not
 * found") on a page no browser comes back from. Returns the refusal, or undefined (anything else,
 * including no answer: the browser then goes as before).
 */
async function clientRefusal(url: URL, redirectUrl: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, {redirect: 'manual', signal: AbortSignal.timeout(REFUSAL_TIMEOUT_MS)})
    const location = response.headers.get('location')
    if (location && location.startsWith(redirectUrl)) {
      await response.body?.cancel().catch(() => {})
      const q = new URL(location).searchParams
      const error = q.get('error')
      return error === 'invalid_client' || error === 'unauthorized_client'
        ? [error, q.get('error_description')].filter(Boolean).join(': ')
        : undefined
    }
    if (response.status < 400 || response.status >= 500) {
      await response.body?.cancel().catch(() => {})
      return undefined
    }
    const text = await answerText(response, MAX_REFUSAL_BYTES)
    const refused =
      /invalid_client|unauthorized_client|unknown client|client(?:[ _-]?id)?\b[^.\n]{0,30}\b(?:not found|unknown|invalid|not registered)/i
    return refused.test(text) ? `HTTP ${response.status}: ${text}` : undefined
  } catch {
    return undefined
  }
}

/** `callback_port`, else the port the stored registration was made for (so it stays valid), else any. */
async function preferredPort(options: SignInOptions): Promise<{port: number; fixed: boolean}> {
  const configured = options.server.oauth?.callback_port
  if (configured !== undefined) return {port: configured, fixed: true}
  const record = await options.store.read(options.server.url)
  const uri = (record?.client as {redirect_uris?: string[]} | undefined)?.redirect_uris?.[0]
  const port = uri && URL.canParse(uri) ? Number(new URL(uri).port) : 0
  return {port: Number.isInteger(port) ? port : 0, fixed: false}
}

/**
 * Asks the server without a token, to read its 401 challenge: the protected-resource metadata URL
 * it names (RFC 9728) and the scope it wants. A server that does not say keeps the defaults.
 */
async function probe(server: RemoteServerConfig): Promise<{resourceMetadataUrl?: URL; scope?: string}> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), 15_000)
  try {
    const response = await askWithoutToken(server, controller.signal)
    if (response.status !== 401 && !server.oauth) {
      throw new PtcError(
        'USAGE',
        `Server "${server.name}" did not ask for a sign-in (HTTP ${response.status}).`,
        {
          suggestion:
            'Sign-in is for servers that answer 401 with OAuth metadata, or have "oauth:" in the config.',
        },
      )
    }
    if (response.status !== 401) return {}
    const {resourceMetadataUrl, scope} = extractWWWAuthenticateParams(response)
    return {resourceMetadataUrl, scope}
  } catch (error) {
    if (error instanceof PtcError) throw error
    throw new PtcError(
      'SERVER_UNREACHABLE',
      `Cannot reach "${server.name}" at ${server.url}: ${describe(error)}`,
      {suggestion: unreachableFix(error), exitCode: 1},
    )
  } finally {
    clearTimeout(timer)
  }
}

/** The fix for a server that could not be reached, by the network error's errno. */
function unreachableFix(error: unknown): string {
  switch (errnoOf(error)) {
    case 'EAI_AGAIN':
    case 'ENOTFOUND': {
      return 'The host name does not resolve: check the url in the config.'
    }
    case 'ECONNREFUSED': {
      return 'Nothing is listening at that URL: start the server, or fix the url in the config.'
    }
    default: {
      return 'Check the url in the config, and that the server is up; then run this again.'
    }
  }
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return error instanceof Error ? `${error.message}${cause}` : String(error)
}
