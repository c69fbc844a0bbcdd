import type {JSONRPCMessage, RequestId} from '@modelcontextprotocol/client'

/** JSON-RPC error code of the answer `LineBuffer` makes up for a result over the size limit. */
export const OVERSIZED_MESSAGE_CODE = -32_097

/**
 * The size of a result that was skipped for being over the message limit, when `error` is the
 * answer `LineBuffer` made up for it; undefined for any other error.
 */
export function oversizedMessageBytes(error: unknown): number | undefined {
  const {code, data} = (error ?? {}) as {code?: unknown; data?: unknown}
  const bytes = (data as {oversizedBytes?: unknown} | undefined)?.oversizedBytes
  return code === OVERSIZED_MESSAGE_CODE && typeof bytes === 'number' ? bytes : undefined
}

export function tooLargeText(bytes: number, limit: number): string {
  return `message of ${bytes} bytes is over the ${limit}-byte limit`
}

/** The answer made up for request `id` when its result, `bytes` long, was over `limit` and skipped. */
export function oversizedAnswer(id: RequestId, bytes: number, limit: number): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {code: OVERSIZED_MESSAGE_CODE, message: tooLargeText(bytes, limit), data: {oversizedBytes: bytes}},
  }
}
