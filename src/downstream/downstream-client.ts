import {
  type CallToolResult,
  Client,
  type RequestOptions,
  type StandardSchemaV1,
} from '@modelcontextprotocol/client'

type WireCodec = ReturnType<DownstreamClient['codec']>

/**
 * The SDK's client, with a `tools/call` that does per connection what `Client.callTool` does on
 * every call. With the SDK's response cache kept empty (tool-listing.ts lists with `bypass`), its
 * `callTool` is `request()` plus work whose outcome never changes: an asynchronous cache lookup for
 * an output validator (there is none: the registry checks outputSchema itself), and a probe of the
 * era's result validator by parsing `undefined` (a Zod failure with its message built, dropped).
 * Here the validator is made once per wire codec, and each call is one `request()`, validated by
 * the same codec function with the same error text. A `modern`-era session keeps `callTool`, which
 * also mirrors arguments into headers there.
 */
export class DownstreamClient extends Client {
  private resultValidator: {codec: WireCodec; schema: StandardSchemaV1<unknown, CallToolResult>} | undefined

  /** Not async: the request's own promise is the call's (a synchronous throw is the SDK's, as in `request()`). */
  requestTool(
    params: {arguments: Record<string, unknown>; name: string},
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
