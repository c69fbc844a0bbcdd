import {type JSONRPCMessage, parseJSONRPCMessage} from '@modelcontextprotocol/server'

import {isRecord} from './guards.js'

/** The members each kind of JSON-RPC message may have (the SDK's schemas are strict). */
const CALL_KEYS = new Set(['id', 'jsonrpc', 'method', 'params'])
const RESULT_KEYS = new Set(['id', 'jsonrpc', 'result'])

/**
 * One JSON-RPC message, as the SDK's `deserializeMessage` returns it; throws SyntaxError when the
 * line is not JSON. The common shapes (a request, a notification, a result, none carrying
 * `_meta`) are checked here: the SDK's schema parse costs ~0.25 ms a message on a small machine,
 * a tenth of a trivial program's round trip, and the SDK validates each method's params and
 * result again where it handles them. Anything else goes through the SDK's schema and its errors.
 */
export function parseMessage(text: string): JSONRPCMessage {
  const value: unknown = JSON.parse(text)
  return isCommonShape(value) ? value : parseJSONRPCMessage(value)
}

function isCommonShape(value: unknown): value is JSONRPCMessage {
  if (!isRecord(value) || value.jsonrpc !== '2.0') return false
  const hasId = 'id' in value
  if (hasId && typeof value.id !== 'string' && !Number.isInteger(value.id)) return false
  if (typeof value.method === 'string') {
    const {params} = value
    if (params !== undefined && (!isRecord(params) || '_meta' in params)) return false
    return hasOnly(value, CALL_KEYS)
  }
  return hasId && isRecord(value.result) && !('_meta' in value.result) && hasOnly(value, RESULT_KEYS)
}

function hasOnly(value: Record<string, unknown>, keys: Set<string>): boolean {
  for (const key in value) if (!keys.has(key)) return false
  return true
}
