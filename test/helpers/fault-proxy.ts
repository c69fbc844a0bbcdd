import type {AddressInfo, Socket} from 'node:net'

// An HTTP proxy in front of a fixture server whose behaviour a test switches at run time: pass
// requests through, answer every request with an error status, or drop connections (including the
// long-lived SSE / streamable HTTP streams already open). It makes a remote server fail and come
// back on the same URL without restarting anything.
import {createServer, request, type Server} from 'node:http'

export type FaultMode = {kind: 'pass'} | {kind: 'status'; status: number} | {kind: 'drop'}

export interface FaultProxy {
  /** The proxy's URL for the given path of the target (e.g. '/mcp' or '/sse'). */
  url(path: string): string
  /** Switches the behaviour; 'drop' also cuts every connection already open (streams included). */
  setMode(mode: FaultMode): void
  close(): Promise<void>
}

/** Starts a proxy on 127.0.0.1 forwarding to `target` (e.g. http://127.0.0.1:1234). */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target)
  let mode: FaultMode = {kind: 'pass'}
  const sockets = new Set<Socket>()

  const server: Server = createServer((req, res) => {
    if (mode.kind === 'drop') {
      req.socket.destroy()
      return
    }
    if (mode.kind === 'status') {
      const body = JSON.stringify({error: `proxy answers with HTTP ${mode.status}`})
      res.writeHead(mode.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      })
      res.end(body)
      return
    }
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: {...req.headers, host: upstream.host},
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
        answer.on('error', () => res.destroy())
      },
    )
    forwarded.on('error', () => res.destroy())
    res.on('close', () => forwarded.destroy())
    req.pipe(forwarded)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve)
  })
  const {port} = server.address() as AddressInfo

  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    setMode(next) {
      mode = next
      if (next.kind === 'drop') for (const socket of sockets) socket.destroy()
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
      })
    },
  }
}
