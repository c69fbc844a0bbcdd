/**
 * What an OAuth endpoint said, for a message: at most `max` bytes of the body are read (a hostile
 * server cannot make ptc-mcp hold more), then its `error: error_description` when it is an OAuth
 * error (RFC 6749 §5.2), else its first 200 characters on one line.
 */
export async function answerText(response: Response, max = 4096): Promise<string> {
  return summarise(await readHead(response, max))
}

async function readHead(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  while (size < max) {
    const {done, value} = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.byteLength
  }
  await reader.cancel().catch(() => {})
  return Buffer.concat(chunks).subarray(0, max).toString('utf8')
}

function summarise(text: string): string {
  try {
    const body = JSON.parse(text) as {error?: unknown; error_description?: unknown}
    if (typeof body.error === 'string')
      return [body.error, body.error_description].filter((v) => typeof v === 'string').join(': ')
  } catch {
    // Not JSON, or cut at the read limit: the fields may still be there.
    const field = (name: string) => new RegExp(`"${name}"\\s*:\\s*"([^"\\\\]{0,300})"`).exec(text)?.[1]
    const error = field('error')
    if (error) return [error, field('error_description')].filter(Boolean).join(': ')
  }
  return text.replaceAll(/\s+/g, ' ').trim().slice(0, 200)
}
