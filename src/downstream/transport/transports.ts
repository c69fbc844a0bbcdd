import type {ServerConfig} from '../../config/schema.js'
import type {ServerTransport, TransportFactory} from './server-transport.js'

import {remoteTransport} from './remote-transport.js'
import {stdioTransport} from './stdio-transport.js'

export function transportFor(server: ServerConfig): ServerTransport {
  switch (server.transport) {
    case 'http':
    case 'sse': {
      return remoteTransport(server)
    }
    case 'stdio': {
      return stdioTransport(server)
    }
  }
}

/** A transport for one connection attempt to a downstream server. */
export const createTransport: TransportFactory = (server, options) => transportFor(server).create(options)
