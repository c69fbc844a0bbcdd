import type {RemoteServerConfig, ServerConfig} from '../config/schema.js'

import {isRemoteServer} from '../config/transports.js'
import {authCommand} from './errors.js'
import {askWithoutToken} from './no-token-probe.js'
import {expiresAt, type OAuthRecord, type TokenStore} from './store.js'

export type OAuthState = 'signed-in' | 'expired' | 'needs-sign-in'

/** What `auth --list`, `list` and `doctor` say about one OAuth server (never a token). */
export interface OAuthServerState {
  server: string
  url: string
  /** signed-in: a usable token (or one that refreshes); expired: past expiry, no refresh token; needs-sign-in: none. */
  state: OAuthState
  /** ISO time the access token expires, or null. */
  expires: string | null
  /** Whether the access token is refreshed without the user. */
  refreshable: boolean
  scopes: string[]
  /** What to do, when something is needed. */
  fix?: string
}

/**
 * The servers whose sign-in state is worth showing: remote ones with `oauth`, with a stored
 * record, or known to want OAuth (`detected`: a 401 with OAuth metadata seen by the connection,
 * or asked now), so a server found from its 401 is still listed once its tokens are gone.
 */
export async function oauthStates(
  servers: readonly ServerConfig[],
  store: TokenStore,
  detected: (server: RemoteServerConfig) => boolean | Promise<boolean> = () => false,
): Promise<OAuthServerState[]> {
  const remote = servers.filter(isRemoteServer)
  const states = await Promise.all(
    remote.map(async (server) => {
      const record = await store.read(server.url)
      const shown = server.oauth || record || (!hasAuthorization(server) && (await detected(server)))
      return shown ? describeState(server, record) : undefined
    }),
  )
  return states.filter((state): state is OAuthServerState => state !== undefined)
}

export function describeState(
  server: RemoteServerConfig,
  record?: OAuthRecord,
  now = Date.now(),
): OAuthServerState {
  const tokens = record?.tokens
  const expiry = expiresAt(record)
  const refreshable = Boolean(tokens?.refresh_token)
  const base = {
    server: server.name,
    url: server.url,
    expires: expiry === null ? null : new Date(expiry).toISOString(),
    refreshable,
    scopes: tokens?.scope?.split(' ').filter(Boolean) ?? [],
  }
  if (!tokens) return {...base, state: 'needs-sign-in', fix: `run \`${authCommand(server.name)}\``}
  if (expiry !== null && expiry <= now && !refreshable)
    return {...base, state: 'expired', fix: `run \`${authCommand(server.name)}\``}
  return {...base, state: 'signed-in'}
}

/** One line for people: "signed in, expires 2026-12-01T10:00:00Z (refreshed automatically)". */
export function describeStateLine(state: OAuthServerState): string {
  if (state.state === 'needs-sign-in') return `needs sign-in: ${state.fix}`
  if (state.state === 'expired') return `sign-in expired: ${state.fix}`
  const expires = state.expires ? `, expires ${state.expires}` : ''
  return `signed in${expires}${state.refreshable ? ' (refreshed automatically)' : ''}`
}

function hasAuthorization(server: RemoteServerConfig): boolean {
  return Object.keys(server.headers).some((name) => name.toLowerCase() === 'authorization')
}

/**
 * Whether the server answers a request without a token with a 401 that asks for OAuth: a Bearer
 * challenge naming its protected-resource metadata (RFC 9728), or one whose well-known metadata
 * exists. Bounded in time; any failure is "no".
 */
export async function wantsOAuth(server: RemoteServerConfig, timeoutMs = 5000): Promise<boolean> {
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    const response = await askWithoutToken(server, signal)
    const challenge = response.headers.get('www-authenticate') ?? ''
    if (response.status !== 401 || !/^\s*bearer\b/i.test(challenge)) return false
    if (/resource_metadata=/i.test(challenge)) return true
    const url = new URL(server.url)
    const wellKnown = new URL(
      `/.well-known/oauth-protected-resource${url.pathname === '/' ? '' : url.pathname}`,
      url,
    )
    const metadata = await fetch(wellKnown, {signal})
    await metadata.body?.cancel().catch(() => {})
    return metadata.ok
  } catch {
    return false
  }
}
