import {createServer, type Server} from 'node:http'

import {PtcError} from '../shared/errors.js'

/** Where the browser brings the authorization code back: http://127.0.0.1:<port>/callback. */
export const CALLBACK_PATH = '/callback'

export interface Callback {
  code: string
  /** RFC 9207 issuer of the authorization response, when the server sends one. */
  iss?: string
}

export interface CallbackServer {
  port: number
  wait(timeoutMs: number, signal?: AbortSignal): Promise<Callback>
  close(): Promise<void>
}

/** The loopback redirect target: answers the browser, and hands over the code of the matching `state`. */
export async function listenForCallback(
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
