import {z} from 'zod'

import {blockedPort} from '../shared/blocked-ports.js'
import {isHttpUrl, positiveSeconds, stringMap} from './schema-parts.js'

/**
 * The TRANSPORTS table: each way of reaching a downstream server, with everything about it that
 * lives above the wire: its config entry (schema), whether it is remote (a URL, headers, OAuth
 * sign-in), how it is known, written and kept secret. How it connects is its module's, picked by
 * `CONNECTORS` in `src/downstream/transport/transports.ts`. A new transport is an entry here plus that module
 * (ARCHITECTURE.md, "A downstream transport"); code elsewhere asks the table
 * ({@link transportEntry}, {@link isRemoteServer}, {@link isStdioServer}), never the kind's name.
 */

const serverName = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, 'must be one or more letters, digits, "_" or "-"')
  .describe('Unique name; tools are exposed as mcp__<name>__<tool> (every "-" becomes "_").')

const transportDescription = 'How to reach the server: stdio (default), http (streamable HTTP) or sse.'

const connectTimeout = () =>
  positiveSeconds(
    'Bound on one connection attempt (start, handshake, first tool listing); calls to a server still starting wait at most this long. Default: the top-level connect_timeout_seconds, else 30.',
  ).optional()

const stdioServer = z
  .strictObject({
    name: serverName,
    transport: z.literal('stdio').default('stdio').describe(transportDescription),
    command: z
      .string()
      .min(1)
      .describe('Executable to launch (stdio). ${VAR} and ${VAR:-default} are expanded.'),
    args: z.array(z.string()).default([]).describe('Arguments for the command. ${VAR} expanded.'),
    env: stringMap(
      "Environment for the server, on top of a minimal safe one (PATH, HOME, LANG...); ptc-mcp's own environment is not passed on. Values: ${VAR} expanded.",
    ).default({}),
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe("Working directory for the command (default: ptc-mcp's own). ${VAR} expanded."),
    connect_timeout_seconds: connectTimeout(),
  })
  .describe('A server launched as a child process and spoken to over stdin/stdout.')

export const oauthSchema = z
  .strictObject({
    client_id: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A client registered with the authorization server in advance. Default: ptc-mcp registers itself (dynamic client registration).',
      ),
    client_secret: z
      .string()
      .min(1)
      .optional()
      .describe('Secret of client_id, for a confidential client. ${VAR} expanded; never logged.'),
    scopes: z
      .array(z.string().min(1))
      .optional()
      .describe("Scopes to ask for. Default: the ones the server's metadata lists."),
    callback_port: z
      .number()
      .int()
      .min(1)
      .max(65_535)
      .optional()
      .describe(
        'Loopback port for the sign-in redirect (http://127.0.0.1:<port>/callback), for a client_id registered with a fixed redirect. Default: a free port.',
      ),
  })
  .describe(
    'Sign in with OAuth 2.1 (run `ptc-mcp auth <name>` once). Also used, without this key, when the server answers 401 with OAuth metadata.',
  )

/** A server reached at a URL: every remote transport's config entry has this shape. */
const remoteServer = <K extends string>(transport: K, description: string) =>
  z
    .strictObject({
      name: serverName,
      transport: z.literal(transport).describe(transportDescription),
      url: z
        .string()
        .refine(isHttpUrl, 'expected a URL (http:// or https://)')
        .refine((url) => blockedPort(url) === undefined, {
          error: (issue) =>
            `port ${blockedPort(String(issue.input))} is one fetch never connects to (a blocked port of the Fetch standard): serve the endpoint on another port`,
        })
        .describe('Endpoint URL (http:// or https://). ${VAR} expanded.'),
      headers: stringMap(
        'HTTP headers sent with every request, e.g. Authorization. Values: ${VAR} expanded.',
      ).default({}),
      oauth: oauthSchema.optional(),
      connect_timeout_seconds: connectTimeout(),
    })
    .describe(description)

type StdioEntryConfig = z.infer<typeof stdioServer>
type RemoteEntryConfig = z.infer<ReturnType<typeof remoteServer<string>>>

/** What the table knows of one transport, for a server entry of config type `S`. */
export interface TransportEntry<S> {
  /** Reached at a URL, with headers and OAuth sign-in (`ptc-mcp auth`); else a process started here. */
  remote: boolean
  /** Claude Code's `type` values that mean this transport (`init` converts them). */
  claudeTypes: readonly string[]
  /** Other spellings a config may use by mistake, for "did you mean" (e.g. `streamable-http`). */
  alsoWritten?: RegExp
  /** How the server is known across runs (the shape cache): what it runs, or where it is. */
  identity(server: S): string
  /** The values that may hold `${VAR}` references or secrets: env or headers, command or URL. */
  expandable(server: S): string[]
  /** Values to redact from logs and errors beyond `expandable`'s references (tokens, secrets). */
  secrets(server: S): string[]
  /** The entry as `init` writes it: the fields worth writing, in the order people read them. */
  written(server: S): Record<string, unknown>
}

const stdio: TransportEntry<StdioEntryConfig> = {
  remote: false,
  claudeTypes: ['stdio'],
  identity: (server) => JSON.stringify(['stdio', server.command, server.args ?? []]),
  expandable: (server) => [
    server.command,
    ...server.args,
    ...Object.values(server.env),
    ...(server.cwd === undefined ? [] : [server.cwd]),
  ],
  secrets: (server) => Object.values(server.env),
  written: (server) => ({
    name: server.name,
    transport: server.transport,
    command: server.command,
    ...(server.args.length > 0 && {args: server.args}),
    ...(Object.keys(server.env).length > 0 && {env: server.env}),
    ...(server.cwd !== undefined && {cwd: server.cwd}),
    ...(server.connect_timeout_seconds !== undefined && {
      connect_timeout_seconds: server.connect_timeout_seconds,
    }),
  }),
}

/** The entry of a transport whose config is {@link remoteServer}'s. */
function remote(claudeTypes: readonly string[], alsoWritten?: RegExp): TransportEntry<RemoteEntryConfig> {
  return {
    remote: true,
    claudeTypes,
    ...(alsoWritten && {alsoWritten}),
    identity: (server) => `${server.transport} ${server.url}`,
    expandable: (server) => [server.url, ...Object.values(server.headers)],
    // `Bearer <token>`: the token alone, too, as an error body may quote it without its scheme.
    secrets: (server) => [
      ...Object.values(server.headers),
      ...Object.values(server.headers).flatMap((value) => value.split(/\s+/)),
      ...(server.oauth?.client_secret ? [server.oauth.client_secret] : []),
    ],
    written: (server) => ({
      name: server.name,
      transport: server.transport,
      url: server.url,
      ...(Object.keys(server.headers).length > 0 && {headers: server.headers}),
      ...(server.oauth !== undefined && {oauth: server.oauth}),
    }),
  }
}

export const TRANSPORTS = {
  stdio: {schema: stdioServer, ...stdio},
  http: {
    schema: remoteServer('http', 'A server reached over streamable HTTP.'),
    ...remote(['http', 'streamable-http', 'streamable_http', 'streamableHttp'], /streamable|^https?$/),
  },
  sse: {
    schema: remoteServer('sse', 'A server reached over the legacy HTTP+SSE transport.'),
    ...remote(['sse']),
  },
} as const

/** The config's `transport` values. */
export type TransportKind = keyof typeof TRANSPORTS

export const TRANSPORT_KINDS = Object.keys(TRANSPORTS) as TransportKind[]

/** The transport of an entry that names none. */
export const DEFAULT_TRANSPORT: TransportKind = 'stdio'

export const serverSchema = z
  .discriminatedUnion('transport', [TRANSPORTS.stdio.schema, TRANSPORTS.http.schema, TRANSPORTS.sse.schema])
  .describe('A downstream MCP server.')

export type ServerConfig = z.infer<typeof serverSchema>
export type StdioServerConfig = Extract<ServerConfig, {transport: 'stdio'}>
export type RemoteServerConfig = Exclude<ServerConfig, StdioServerConfig>

/** The table's entry for a server. */
export function transportEntry(server: Pick<ServerConfig, 'transport'>): TransportEntry<ServerConfig> {
  return TRANSPORTS[server.transport] as TransportEntry<ServerConfig>
}

/** A server reached at a URL (headers, OAuth sign-in). */
export function isRemoteServer(server: ServerConfig): server is RemoteServerConfig {
  return TRANSPORTS[server.transport].remote
}

/** A server ptc-mcp starts as a process (command, args, env, cwd). */
export function isStdioServer(server: ServerConfig): server is StdioServerConfig {
  return server.transport === 'stdio'
}

/** The remote transports' names, as a sentence says them: "http and sse". */
export function remoteTransportNames(): string {
  const names = TRANSPORT_KINDS.filter((kind) => TRANSPORTS[kind].remote)
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}
