import {
  type CallToolResult,
  Client,
  type JSONRPCMessage,
  type JSONRPCResultResponse,
  type RequestOptions,
  type StandardSchemaV1,
  type Transport,
} from '@modelcontextprotocol/client'

import {isRecord} from '../../shared/guards.js'

type WireCodec = ReturnType<DownstreamClient['codec']>

/**
 * The SDK's client, with a `tools/call` that does per connection what `Client.callTool` does on
 * every call. With the SDK's response cache kept empty (tool-listing.ts lists with `bypass`), its
 * `callTool` is `request()` plus work whose outcome never changes: an asynchronous cache lookup for
 * an output validator (there is none: the registry checks outputSchema itself), and a probe of the
 * era's result validator by parsing `undefined` (a Zod failure with its message built, dropped).
 * Here the validator is made once per wire codec, and each call is one `request()`, validated by
 * the same codec function with the same error text. A `modern`-era session keeps `callTool`, which
 * also mirrors arguments into headers there. The commonest result, text items only, is checked by
 * hand (`isPlainTextResult`): the codec would return a copy equal to it, at several times the cost.
 */
export class DownstreamClient extends Client {
  /**
   * Once connected, a plain result response (`jsonrpc`, a numeric `id`, a `result` without
   * `_meta`: what every tools/call answers) is handed to its request's handler at once
   * (`deliverResult`): the SDK's message router would check it against its zod schema, and
   * `Protocol._onresponse` once more. Anything else (requests, notifications, errors, `_meta`, an
   * id no request waits for), or an SDK whose internals are not as in 2.4.0 (`sdkInternals`),
   * takes the SDK's way.
   */
  override async connect(transport: Transport, options?: Parameters<Client['connect']>[1]): Promise<void> {
    await super.connect(transport, options)
    const route = transport.onmessage
    const internals = sdkInternals(this)
    if (!route || !internals) return
    transport.onmessage = (message, extra) => {
      if (!isPlainResultResponse(message) || !deliverResult(internals, message))
        route.call(transport, message, extra)
    }
  }

  private resultValidator: {codec: WireCodec; schema: StandardSchemaV1<unknown, CallToolResult>} | undefined

  /** Not async: the request's own promise is the call's (a synchronous throw is the SDK's, as in `request()`). */
  requestTool(
    params: {arguments: Record<string, unknown>; name: string; _meta?: Record<string, unknown>},
    options: RequestOptions,
  ): Promise<CallToolResult> {
    if (this.getProtocolEra() !== 'legacy') return this.callTool(params, options)
    return this.request({method: 'tools/call', params}, this.toolResultSchema(), options)
  }

  /** This session's wire codec (the SDK's protected accessor). */
  private codec() {
    return this._wireCodec()
  }

  /** The era's `tools/call` result check as a Standard Schema, as the SDK's `request()` builds it per call. */
  private toolResultSchema(): StandardSchemaV1<unknown, CallToolResult> {
    const codec = this.codec()
    if (this.resultValidator?.codec === codec) return this.resultValidator.schema
    const schema: StandardSchemaV1<unknown, CallToolResult> = {
      '~standard': {
        version: 1,
        vendor: 'mcp-wire-codec',
        validate(value) {
          if (isPlainTextResult(value)) return {value}
          const outcome = codec.validateResult('tools/call', value)
          if (outcome.ok) return {value: outcome.value as CallToolResult}
          return {
            issues: [{message: outcome.reason === 'invalid' ? outcome.message : 'not-in-era: tools/call'}],
          }
        },
      },
    }
    this.resultValidator = {codec, schema}
    return schema
  }
}

const PLAIN_RESULT_KEYS = new Set(['content', 'isError', 'structuredContent'])

/**
 * A `tools/call` result the era's codec passes unchanged (save for copying it): only `content`, a
 * list of `{type: "text", text}` items with nothing else, `isError` as a boolean and
 * `structuredContent` as an object (the legacy schema's record: not null, not a list). Anything
 * else (`_meta`, other content, extra keys, which the codec checks, strips or normalises) goes
 * through the codec.
 */
export function isPlainTextResult(value: unknown): value is CallToolResult {
  if (!isRecord(value)) return false
  for (const key in value) if (!Object.hasOwn(value, key) || !PLAIN_RESULT_KEYS.has(key)) return false
  const {content, isError, structuredContent} = value
  if (!Array.isArray(content) || (isError !== undefined && typeof isError !== 'boolean')) return false
  if (structuredContent !== undefined && !isRecord(structuredContent)) return false
  return (content as unknown[]).every((item) => isPlainTextItem(item))
}

/** `{type: "text", text}` with nothing else. */
function isPlainTextItem(item: unknown): boolean {
  if (!isRecord(item) || item.type !== 'text' || typeof item.text !== 'string') return false
  let keys = 0
  for (const key in item) if (Object.hasOwn(item, key)) keys++
  return keys === 2
}

/** `{"jsonrpc":"2.0","id":N,"result":{...}}` with nothing else, and no `_meta` in the result. */
function isPlainResultResponse(message: JSONRPCMessage): message is JSONRPCResultResponse {
  const response = message as Record<string, unknown>
  if (response.jsonrpc !== '2.0' || !Number.isSafeInteger(response.id)) return false
  const {result} = response
  if (!isRecord(result) || '_meta' in result) return false
  let keys = 0
  for (const key in response) if (Object.hasOwn(response, key)) keys++
  return keys === 3
}

/** What `Protocol._onresponse` uses (private in the SDK's types). */
interface SdkInternals {
  _responseHandlers: Map<number, (response: JSONRPCResultResponse) => void>
  _progressHandlers: Map<number, unknown>
  _cleanupTimeout(id: number): void
}

/**
 * Hands a plain result to its request's handler as `Protocol._onresponse` does (handler taken, its
 * timeout cleared, progress handler dropped); false when no request waits for it.
 */
function deliverResult(internals: SdkInternals, response: JSONRPCResultResponse): boolean {
  const id = response.id as number
  const handler = internals._responseHandlers.get(id)
  if (!handler) return false
  internals._responseHandlers.delete(id)
  internals._cleanupTimeout(id)
  internals._progressHandlers.delete(id)
  handler(response)
  return true
}

/** The SDK's response bookkeeping, when it is as `deliverResult` expects (else undefined). */
export function sdkInternals(client: Client): SdkInternals | undefined {
  const internals = client as unknown as Partial<SdkInternals>
  return internals._responseHandlers instanceof Map &&
    internals._progressHandlers instanceof Map &&
    typeof internals._cleanupTimeout === 'function'
    ? (internals as SdkInternals)
    : undefined
}
