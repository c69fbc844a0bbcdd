import type {ServerConfig, TransportKind} from '../../config/schema.js'
import type {ServerTransport, TransportFactory} from './server-transport.js'

import {remoteTransport} from './remote-transport.js'
import {stdioTransport} from './stdio-transport.js'

/** How each transport of the config's TRANSPORTS table connects: its module, one row each. */
export const CONNECTORS: {
  [K in TransportKind]: (server: Extract<ServerConfig, {transport: K}>) => ServerTransport
} = {
  stdio: stdioTransport,
  http: remoteTransport,
  sse: remoteTransport,
}

export function transportFor(server: ServerConfig): ServerTransport {
  return (CONNECTORS[server.transport] as (server: ServerConfig) => ServerTransport)(server)
}

/** A transport for one connection attempt to a downstream server. */
export const createTransport: TransportFactory = (server, options) => transportFor(server).create(options)
