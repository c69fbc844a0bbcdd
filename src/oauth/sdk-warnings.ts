import type {Logger} from '../shared/log.js'

const SDK_PREFIX = '[mcp-sdk] '

let sink: Pick<Logger, 'warn'> | undefined
let installed = false

/**
 * The MCP SDK's OAuth code writes its own warnings with `console.warn("[mcp-sdk] ...")` (when it
 * discards a stored client or tokens and tries again). Those lines go through `logger` instead, with
 * ptc-mcp's prefix and level, like every other line; other `console.warn` calls are left alone. The
 * last logger given is the one used (one per process: serve's, or the auth command's).
 */
export function routeSdkWarnings(logger: Pick<Logger, 'warn'>): void {
  sink = logger
  if (installed) return
  installed = true
  // eslint-disable-next-line no-console -- the SDK's warnings arrive through console.warn, and only there
  const original = console.warn.bind(console)
  // eslint-disable-next-line no-console -- see above
  console.warn = (...args: unknown[]) => {
    const [first] = args
    if (sink && typeof first === 'string' && first.startsWith(SDK_PREFIX) && args.length === 1) {
      sink.warn(`MCP SDK: ${first.slice(SDK_PREFIX.length)}`)
      return
    }
    original(...args)
  }
}
