import {boundBody} from '../shared/bounded-fetch.js'

/**
 * What an OAuth endpoint said, for a message: at most `max` bytes of the body are read (a hostile
 * server cannot make ptc-mcp hold more), then its `error: error_description` when it is an OAuth
 * error (RFC 6749 §5.2), else its first 200 characters on one line.
 */
export async function answerText(response: Response, max = 4096): Promise<string> {
  return summarise(await boundBody(response, max, 'truncate').text())
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
