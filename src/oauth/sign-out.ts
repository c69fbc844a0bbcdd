import {
  type AuthorizationServerMetadata,
  discoverOAuthServerInfo,
  selectClientAuthMethod,
} from '@modelcontextprotocol/client'

import type {RemoteServerConfig} from '../config/schema.js'

import {oauthFetch} from '../shared/bounded-fetch.js'
import {answerText} from './answer-text.js'
import {type OAuthRecord, type TokenStore} from './store.js'

export interface SignOutResult {
  server: string
  /** revoked: the authorization server took the tokens back; unsupported: it has no revocation endpoint. */
  revocation: 'failed' | 'nothing' | 'revoked' | 'unsupported'
  /** Why revocation failed, when it did (never a token). */
  detail?: string
  deleted: boolean
}

/** RFC 8414 fields for RFC 7009 revocation (in OAuth metadata, not in OpenID discovery's type). */
interface RevocationMetadata {
  revocation_endpoint?: string
  revocation_endpoint_auth_methods_supported?: string[]
  token_endpoint_auth_methods_supported?: string[]
}

interface Client {
  client_id: string
  client_secret?: string
}

/**
 * `auth NAME --logout`: revokes the refresh and access tokens where the authorization server
 * has a revocation endpoint (RFC 7009; the SDK has no helper for it), then deletes the record.
 */
export async function signOut(server: RemoteServerConfig, store: TokenStore): Promise<SignOutResult> {
  const record = await store.read(server.url)
  let revocation: SignOutResult['revocation'] = 'nothing'
  let detail: string | undefined
  if (record?.tokens) {
    try {
      revocation = await revokeTokens(server, record)
    } catch (error) {
      revocation = 'failed'
      detail = error instanceof Error ? error.message : String(error)
    }
  }
  const deleted = await store.delete(server.url)
  return {server: server.name, revocation, ...(detail ? {detail} : {}), deleted}
}

async function revokeTokens(
  server: RemoteServerConfig,
  record: OAuthRecord,
): Promise<'revoked' | 'unsupported'> {
  const metadata = (record.discovery?.authorizationServerMetadata ?? (await discover(server))) as
    (AuthorizationServerMetadata & RevocationMetadata) | undefined
  const endpoint = metadata?.revocation_endpoint
  if (!endpoint || !metadata) return 'unsupported'
  const client: Client | undefined = server.oauth?.client_id
    ? {client_id: server.oauth.client_id, client_secret: server.oauth.client_secret}
    : record.client
  const methods =
    metadata.revocation_endpoint_auth_methods_supported ??
    metadata.token_endpoint_auth_methods_supported ??
    []
  const {tokens} = record
  if (tokens?.refresh_token)
    await revoke(endpoint, {token: tokens.refresh_token, hint: 'refresh_token', client, methods})
  if (tokens?.access_token)
    await revoke(endpoint, {token: tokens.access_token, hint: 'access_token', client, methods})
  return 'revoked'
}

async function discover(server: RemoteServerConfig): Promise<AuthorizationServerMetadata | undefined> {
  return (await discoverOAuthServerInfo(server.url, {fetchFn: oauthFetch})).authorizationServerMetadata
}

async function revoke(
  endpoint: string,
  request: {token: string; hint: string; client: Client | undefined; methods: string[]},
): Promise<void> {
  const {client} = request
  const params = new URLSearchParams({token: request.token, token_type_hint: request.hint})
  const headers: Record<string, string> = {'content-type': 'application/x-www-form-urlencoded'}
  if (client) {
    const method = selectClientAuthMethod(client, request.methods)
    if (method === 'client_secret_basic' && client.client_secret) {
      const pair = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`
    } else {
      params.set('client_id', client.client_id)
      if (method === 'client_secret_post' && client.client_secret)
        params.set('client_secret', client.client_secret)
    }
  }
  const response = await oauthFetch(endpoint, {method: 'POST', headers, body: params})
  // RFC 7009 §2.2: 200 whether or not the token was valid; anything else is a failure, and the
  // server's reason is the user's only clue (a server that wants a client secret says so).
  if (!response.ok) {
    const reason = await answerText(response)
    throw new Error(`the revocation endpoint answered HTTP ${response.status}${reason ? `: ${reason}` : ''}`)
  }
  await response.body?.cancel().catch(() => {})
}
