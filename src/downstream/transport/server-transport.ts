import type {AuthProvider, Transport} from '@modelcontextprotocol/client'

import type {ServerConfig} from '../../config/schema.js'
import type {Logger} from '../../shared/log.js'
import type {FailureCause} from '../connection/failure-cause.js'
import type {StderrRecord} from './stderr-record.js'

export interface TransportOptions {
  /** Receives each stderr line of a stdio server; it is logged with the server name as prefix. */
  logger: Logger
  /**
   * Largest single message accepted from a stdio or streamable HTTP server (default: the SDK's 10 MB). A message over
   * it is skipped, not buffered: a result is answered as an error to its own request (see
   * `oversizedMessageBytes`), anything else is logged and dropped; the connection stays.
   */
  maxMessageBytes?: number
  /** Called with every stderr line of a stdio server (after logging), e.g. to keep the last few for error reports. */
  onStderrLine?: (line: string) => void
  /** Bearer tokens for a remote server (OAuth, SPEC §13). */
  authProvider?: AuthProvider
}

/**
 * What the supervisor needs of one server's kind of transport; everything that differs between
 * stdio and remote servers is here. A new transport is a module returning one of these, and a
 * case in `transportFor` (transports.ts).
 */
export interface ServerTransport {
  /** A transport for one connection attempt. */
  create(options: TransportOptions): Transport
  /** The kind and reason of a failed attempt (not MCP, a timeout, a sign-in are checked before). */
  failureCause(error: unknown): FailureCause
  /** Why an open connection closed; `stderr` holds what the server wrote there (stdio). */
  closedReason(stderr: StderrRecord): string
  /** Whether an error on an open connection may mean the server is gone, which a ping then tells. */
  pingsOnError: boolean
}

/** Makes the transport of each connection attempt: `createTransport` (transports.ts), or another for tests and embedders. */
export type TransportFactory = (server: ServerConfig, options: TransportOptions) => Transport
