/** One-line fixes for the usual reasons a downstream server cannot be reached. */
const FIXES: Array<[RegExp, string]> = [
  [
    /ENOENT|not found|no such file/i,
    'the command was not found: use an absolute path, or install it and check PATH',
  ],
  [/ECONNREFUSED|connection refused/i, 'nothing is listening at that URL: start the server or fix the url'],
  [
    /\b401\b|unauthori[sz]ed/i,
    'the server wants credentials: check the Authorization header and its ${TOKEN}',
  ],
  [/\b403\b|forbidden/i, 'the credentials were refused: check the token and its permissions'],
  [/\b404\b/i, 'no MCP endpoint at that path: check the url (often ends in /mcp or /sse)'],
  [
    /timed? ?out|timeout/i,
    'the server did not answer in time: check that it starts on its own and speaks MCP',
  ],
  [/ENOTFOUND|EAI_AGAIN/i, 'the host name does not resolve: check the url'],
  [
    /closed|exited|EPIPE/i,
    'the server exited: run its command by hand to see why (its stderr is in the log with --log-level info)',
  ],
]

export function fixForServerError(error: string): string {
  return (
    FIXES.find(([pattern]) => pattern.test(error))?.[1] ??
    "run with --log-level debug to see the server's output"
  )
}
