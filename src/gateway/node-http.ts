import type {IncomingMessage, ServerResponse} from 'node:http'

/**
 * node:http ↔ the web-standard Request and Response the SDK's HTTP transports speak. The body is
 * read up to `maxBytes` (a larger one is answered 413 by the caller); the response is streamed,
 * so SSE answers go out as they are written, and stop when the client goes away. The request's
 * signal aborts when the client goes away before `res` is finished: its listener is on `res`, one
 * per request, not on the socket, where a keep-alive connection's requests would pile them up.
 */
export async function toWebRequest(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
): Promise<Request | 'too large'> {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one)
  }
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`
  const controller = new AbortController()
  res.once('close', () => {
    if (!res.writableFinished) controller.abort()
  })
  const method = req.method ?? 'GET'
  if (method === 'GET' || method === 'HEAD' || method === 'DELETE')
    return new Request(url, {method, headers, signal: controller.signal})
  const chunks: Buffer[] = []
  let bytes = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.length
    if (bytes > maxBytes) return 'too large'
    chunks.push(chunk)
  }
  return new Request(url, {method, headers, body: Buffer.concat(chunks), signal: controller.signal})
}

export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {}
  for (const [name, value] of response.headers.entries()) {
    headers[name] = value
  }
  res.writeHead(response.status, headers)
  if (!response.body) {
    res.end()
    return
  }
  const reader = response.body.getReader()
  res.once('close', () => {
    reader.cancel().catch(() => {})
  })
  try {
    for (;;) {
      const {done, value} = await reader.read()
      if (done) break
      res.write(value)
    }
  } catch {
    // The client went away.
  } finally {
    res.end()
  }
}

/** A plain-text answer. */
export function textResponse(status: number, text: string, type = 'text/plain; charset=utf-8'): Response {
  return new Response(text, {status, headers: {'Content-Type': type}})
}
