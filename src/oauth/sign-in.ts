import {auth, extractWWWAuthenticateParams} from '@modelcontextprotocol/client'
import {randomBytes} from 'node:crypto'
import {createServer, type Server} from 'node:http'

import type {RemoteServerConfig} from '../config/schema.js'

import {PtcError} from '../errors.js'
import {openBrowser} from './browser.js'
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
}

export interface SignInResult {
  server: string
  url: string
  /** ISO time the access token expires, or null when the server did not say. */
  expires: string | null
  scopes: string[]
  /** The file the tokens are in. */
  path: string
}

const CALLBACK_PATH = '/callback'
const DEFAULT_TIMEOUT_MS = 5 * 60_000

interface Callback {
  code: string
  iss?: string
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
  const provider = new StoreProvider(server, store, {
    redirectUrl,
    state,
    async onAuthorizationUrl(url) {
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
    const common = {serverUrl: server.url, resourceMetadataUrl: challenge.resourceMetadataUrl, scope}
    const started = await auth(provider, {...common, forceReauthorization: true})
    if (started === 'REDIRECT') {
      const {code, iss} = await callback.wait(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.signal)
      const finished = await auth(provider, {...common, authorizationCode: code, iss})
      if (finished !== 'AUTHORIZED')
        throw new PtcError('USAGE', `Sign-in to "${server.name}" did not finish.`)
    }
    const saved = await provider.load()
    const expiry = expiresAt(saved)
    return {
      server: server.name,
      url: server.url,
      expires: expiry === null ? null : new Date(expiry).toISOString(),
      scopes: saved?.tokens?.scope?.split(' ').filter(Boolean) ?? [],
      path: store.pathFor(server.url),
    }
  } finally {
    await callback.close()
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
    const init: Parameters<typeof fetch>[1] =
      server.transport === 'sse'
        ? {method: 'GET', headers: {...server.headers, accept: 'text/event-stream'}}
        : {
            method: 'POST',
            headers: {
              ...server.headers,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 0,
              method: 'initialize',
              params: {
                protocolVersion: '2025-06-18',
                capabilities: {},
                clientInfo: {name: 'ptc-mcp', version: '0'},
              },
            }),
          }
    const response = await fetch(server.url, {...init, signal: controller.signal})
    await response.body?.cancel().catch(() => {})
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
    throw new PtcError('USAGE', `Cannot reach "${server.name}" at ${server.url}: ${describe(error)}`, {
      suggestion: 'Check the url in the config, and that the server is up.',
      exitCode: 1,
    })
  } finally {
    clearTimeout(timer)
  }
}

interface CallbackServer {
  port: number
  wait(timeoutMs: number, signal?: AbortSignal): Promise<Callback>
  close(): Promise<void>
}

/** The loopback redirect target: answers the browser, and hands over the code of the matching `state`. */
async function listenForCallback(
  preferred: {port: number; fixed: boolean},
  state: string,
): Promise<CallbackServer> {
  let settle: {resolve(value: Callback): void; reject(error: Error): void} | undefined
  const early: Array<Callback | Error> = []
  const deliver = (value: Callback | Error): void => {
    if (!settle) early.push(value)
    else if (value instanceof Error) settle.reject(value)
    else settle.resolve(value)
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (url.pathname !== CALLBACK_PATH) {
      res.writeHead(404).end()
      return
    }
    const q = url.searchParams
    // Another page's request (a wrong or missing state) must not end the sign-in: ignore it.
    if (q.get('state') !== state) {
      res
        .writeHead(400, {'content-type': 'text/plain'})
        .end('This sign-in link is not the one ptc-mcp is waiting for.')
      return
    }
    const error = q.get('error')
    const code = q.get('code')
    if (error || !code) {
      const reason = q.get('error_description') ?? error ?? 'no code'
      res
        .writeHead(400, {'content-type': 'text/plain'})
        .end(`Sign-in failed: ${reason}. You can close this tab.`)
      deliver(
        new PtcError('USAGE', `The authorization server refused the sign-in: ${reason}.`, {exitCode: 1}),
      )
      return
    }
    res.writeHead(200, {'content-type': 'text/plain'}).end('Signed in to ptc-mcp. You can close this tab.')
    deliver({code, ...(q.get('iss') ? {iss: q.get('iss') ?? undefined} : {})})
  })

  const port = await listen(server, preferred.port).catch(async (error: NodeJS.ErrnoException) => {
    if (preferred.fixed || preferred.port === 0) {
      throw new PtcError(
        'USAGE',
        `Cannot listen on 127.0.0.1:${preferred.port} for the sign-in redirect: ${error.message}.`,
        {
          suggestion: preferred.fixed ? 'Free that port, or change oauth.callback_port.' : undefined,
        },
      )
    }
    return listen(server, 0)
  })

  return {
    port,
    wait(timeoutMs, signal) {
      return new Promise<Callback>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new PtcError('USAGE', `No answer from the browser within ${Math.round(timeoutMs / 1000)} s.`, {
                exitCode: 1,
              }),
            ),
          timeoutMs,
        )
        const onAbort = (): void => reject(new PtcError('USAGE', 'Sign-in cancelled.', {exitCode: 130}))
        signal?.addEventListener('abort', onAbort, {once: true})
        const done =
          <T>(fn: (value: T) => void) =>
          (value: T) => {
            clearTimeout(timer)
            signal?.removeEventListener('abort', onAbort)
            fn(value)
          }
        settle = {resolve: done(resolve), reject: done(reject)}
        const first = early.shift()
        if (first) deliver(first)
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error)
    server.once('error', onError)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError)
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : port)
    })
  })
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return error instanceof Error ? `${error.message}${cause}` : String(error)
}
