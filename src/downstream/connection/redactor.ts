import type {ServerConfig} from '../../config/schema.js'
import type {Logger} from '../../shared/log.js'

import {PtcError} from '../../shared/errors.js'
import {ToolError} from '../types.js'

/**
 * Values shorter than this are never redacted. Credentials are longer (API keys, tokens and
 * passwords of any service worth the name run to 8 characters and more), while the short values a
 * config expands or sets are flags, ports, counts and levels ("1", "true", "8080", "debug"):
 * replacing every "1" or "true" in a message would make it unreadable and protect nothing.
 */
export const MIN_SECRET_LENGTH = 8

export const REDACTED = '[redacted]'

/**
 * Secrets never reach programs, the model or the logs (SPEC §15): every value expanded from
 * `${VAR}`, and every header and env value of the config, is replaced by `[redacted]` in the text
 * that leaves the downstream layer (connection errors, ToolError text, server_status(),
 * list_callable_tools, the log, lines a server printed on stderr). Also caught: a secret as it
 * appears JSON-escaped or URL-encoded, since error texts quote JSON and URLs.
 */
export class Redactor {
  static readonly none = new Redactor([])

  /** Longest first, so a secret that contains a shorter one is replaced whole. */
  private needles: readonly string[] = []

  constructor(secrets: Iterable<string>) {
    this.add(secrets)
  }

  /**
   * More secrets, known only later: OAuth tokens as they are obtained and refreshed (SPEC §13).
   * Loggers made by {@link logger} redact them too from then on.
   */
  add(secrets: Iterable<string>): void {
    if (this === Redactor.none) return // shared: it stays empty
    const needles = new Set(this.needles)
    const before = needles.size
    for (const secret of secrets) {
      if (secret.length < MIN_SECRET_LENGTH) continue
      needles.add(secret)
      needles.add(JSON.stringify(secret).slice(1, -1))
      needles.add(encodeURIComponent(secret))
    }
    if (needles.size !== before) this.needles = [...needles].sort((a, b) => b.length - a.length)
  }

  /**
   * The secrets of a loaded config: `expanded` (the values `${VAR}` references took, from
   * `loadConfig`), plus every header and env value and OAuth client secret, whether written
   * literally or expanded.
   */
  static fromConfig(servers: readonly ServerConfig[], expanded: Iterable<string> = []): Redactor {
    const secrets = [...expanded]
    for (const server of servers) {
      const values = server.transport === 'stdio' ? server.env : server.headers
      secrets.push(...Object.values(values))
      if (server.transport === 'stdio') continue
      // `Bearer <token>`: the token alone, too, as an error body may quote it without its scheme.
      secrets.push(...Object.values(values).flatMap((v) => v.split(/\s+/)))
      if (server.oauth?.client_secret) secrets.push(server.oauth.client_secret)
    }
    return new Redactor(secrets)
  }

  get empty(): boolean {
    return this.needles.length === 0
  }

  redact(text: string): string {
    let out = text
    for (const needle of this.needles) if (out.includes(needle)) out = out.replaceAll(needle, REDACTED)
    return out
  }

  /** `value` with every string in it redacted (keys too); the same object when nothing changed. */
  redactValue<T>(value: T): T {
    if (this.empty) return value
    const json = JSON.stringify(value)
    if (json === undefined || this.redact(json) === json) return value
    return redactStrings(value, this) as T
  }

  /**
   * The error with the secrets taken out of its message (and suggestion): the same error when
   * there were none. Its kind, code and exit code are kept; the original is its `cause`.
   */
  redactError(error: unknown): unknown {
    if (!(error instanceof Error)) return error
    const message = this.redact(error.message)
    const suggestion =
      error instanceof PtcError && error.suggestion ? this.redact(error.suggestion) : undefined
    if (message === error.message && (!(error instanceof PtcError) || suggestion === error.suggestion))
      return error
    if (error instanceof PtcError)
      return new PtcError(error.code, message, {suggestion, exitCode: error.exitCode, cause: error})
    if (error instanceof ToolError) return new ToolError(message, {cause: error, kind: error.kind})
    return new Error(message, {cause: error})
  }

  /** A logger that redacts every line before `logger` sees it; its children do too. */
  logger(logger: Logger): Logger {
    // Wrapped even while empty: secrets added later (OAuth tokens) must not reach the log either.
    if (this === Redactor.none) return logger
    return {
      error: (message) => logger.error(this.redact(message)),
      warn: (message) => logger.warn(this.redact(message)),
      info: (message) => logger.info(this.redact(message)),
      debug: (message) => logger.debug(this.redact(message)),
      child: (prefix) => this.logger(logger.child(prefix)),
    }
  }
}

function redactStrings(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.redact(value)
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redactor))
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [redactor.redact(key), redactStrings(item, redactor)]),
    )
  }
  return value
}
