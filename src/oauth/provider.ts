import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client'

import type {RemoteServerConfig} from '../config/schema.js'

import {type OAuthRecord, type TokenStore} from './store.js'

/** Interactive sign-in (`ptc-mcp auth`): where the code comes back, and who shows the URL. */
export interface InteractiveSignIn {
  redirectUrl: string
  state: string
  onAuthorizationUrl(url: URL): void | Promise<void>
}

/**
 * Thrown by a provider without a user when the SDK's flow reaches a step that needs one (a new
 * authorization, a client registration). The session decides what that means.
 */
export class UserNeededError extends Error {
  constructor() {
    super('a sign-in in the browser is needed')
    this.name = 'UserNeededError'
  }
}

/** A redirect URL for a provider that never redirects: the SDK only needs one to pick the code flow. */
const HEADLESS_REDIRECT = 'http://127.0.0.1/callback'

/**
 * The SDK's `OAuthClientProvider` over the token store, for one server. The SDK's `auth()` runs
 * discovery, registration, PKCE, code exchange and refresh; this keeps what it hands over. Without
 * `interactive` (in `serve`) it refreshes but never registers or asks for a new authorization.
 */
export class StoreProvider implements OAuthClientProvider {
  /** The record as last read or written; `load()` reads it again. */
  record: OAuthRecord | undefined
  private verifier: string | undefined

  constructor(
    readonly server: RemoteServerConfig,
    private readonly store: TokenStore,
    private readonly interactive?: InteractiveSignIn,
    /** Told the secret values (tokens, a registered client's secret) of every record read or written. */
    private readonly onSecrets?: (values: string[]) => void,
  ) {}

  async load(): Promise<OAuthRecord | undefined> {
    this.setRecord(await this.store.read(this.server.url))
    return this.record
  }

  get redirectUrl(): string {
    if (this.interactive) return this.interactive.redirectUrl
    const client = this.record?.client as {redirect_uris?: string[]} | undefined
    return client?.redirect_uris?.[0] ?? HEADLESS_REDIRECT
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.server.oauth?.client_secret
    return {
      client_name: 'ptc-mcp',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_basic' : 'none',
      ...(this.server.oauth?.scopes ? {scope: this.server.oauth.scopes.join(' ')} : {}),
    }
  }

  state(): string {
    return this.interactive?.state ?? ''
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    const configured = this.server.oauth?.client_id
    if (configured) {
      const secret = this.server.oauth?.client_secret
      return {client_id: configured, ...(secret ? {client_secret: secret} : {})}
    }
    if (!this.record?.client && !this.interactive) throw new UserNeededError()
    return this.record?.client
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    // A client from the config stays in the config: its secret is never copied to disk.
    if (this.server.oauth?.client_id) return
    await this.change((record) => ({...record, client}))
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.record?.tokens
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const previous = this.record?.tokens
    // A refresh answer may leave the refresh token out: the old one stays valid (RFC 6749 §6).
    const refresh = tokens.refresh_token ?? previous?.refresh_token
    await this.change((record) => ({
      ...record,
      tokens: {...tokens, ...(refresh ? {refresh_token: refresh} : {})},
      obtained_at: Date.now(),
    }))
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.interactive) throw new UserNeededError()
    await this.interactive.onAuthorizationUrl(authorizationUrl)
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier
  }

  codeVerifier(): string {
    if (this.verifier === undefined)
      throw new Error('no PKCE code verifier: the sign-in was not started here')
    return this.verifier
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.record?.discovery
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.change((record) => ({...record, discovery}))
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'discovery' | 'tokens' | 'verifier'): Promise<void> {
    if (scope === 'verifier') {
      this.verifier = undefined
      return
    }
    if (scope === 'tokens' && !this.interactive) {
      // Another ptc-mcp may have refreshed meanwhile (and rotated the refresh token we used):
      // then its tokens are the ones to keep, not to drop.
      const onDisk = await this.store.read(this.server.url)
      if (onDisk?.tokens?.refresh_token !== this.record?.tokens?.refresh_token) {
        this.setRecord(onDisk)
        return
      }
    }
    await this.change((record) => {
      const {client, tokens, obtained_at: obtained, discovery, ...rest} = record
      const keep = {
        client: scope === 'client' || scope === 'all' ? undefined : client,
        tokens: scope === 'tokens' || scope === 'all' ? undefined : tokens,
        obtained_at: scope === 'tokens' || scope === 'all' ? undefined : obtained,
        discovery: scope === 'discovery' || scope === 'all' ? undefined : discovery,
      }
      return {...rest, ...withoutUndefined(keep)}
    })
  }

  private async change(edit: (record: OAuthRecord) => OAuthRecord): Promise<void> {
    this.setRecord(await this.store.update(this.server.url, edit))
  }

  private setRecord(record: OAuthRecord | undefined): void {
    this.record = record
    if (!record || !this.onSecrets) return
    const {tokens, client} = record
    const values = [tokens?.access_token, tokens?.refresh_token, tokens?.id_token, client?.client_secret]
    this.onSecrets(values.filter((value): value is string => typeof value === 'string'))
  }
}

function withoutUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
