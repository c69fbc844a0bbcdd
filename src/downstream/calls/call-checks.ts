import type {CallToolResult} from '@modelcontextprotocol/client'

import type {ShapeStore} from '../tools/shape-store.js'
import type {SchemaValidator} from './validation.js'

import {formatBytes} from '../../shared/byte-size.js'
import {shapeOf, textShape} from '../tools/shapes.js'
import {pythonSignature} from '../tools/signature.js'
import {type CallToolOptions, JsonText, ToolError, type ToolInfo} from '../types.js'
import {prepareArguments} from './arguments.js'
import {loneText, parseToolResult, toolErrorText} from './result-parser.js'

export const LESS_DATA_HINT = 'request less data: narrower dates, a limit, or a filter'

/**
 * The arguments to send, or a `ToolError` (kind `invalid_arguments`) naming every problem. Rule:
 * invalid arguments never reach the server; unlisted ones are invalid too, and optional ones passed
 * as None are left out (SPEC §6).
 */
export function checkArguments(
  tool: ToolInfo,
  args: Record<string, unknown>,
  validator: SchemaValidator,
): Record<string, unknown> {
  const prepared = prepareArguments(tool.inputSchema, args)
  const problems =
    prepared.problems.length > 0
      ? prepared.problems
      : validator.checkArguments(tool.inputSchema, prepared.args)
  if (problems.length > 0) {
    // The call as it should be written, under the problems (SPEC §6).
    const signature = pythonSignature(tool.name, tool.inputSchema, tool.outputSchema)
    throw new ToolError(`invalid arguments for ${tool.name}: ${problems.join('; ')}\n  ${signature}`, {
      kind: 'invalid_arguments',
    })
  }
  return prepared.args
}

/** What a result is checked against, and where the shapes of results without an outputSchema go. */
export interface ResultChecks {
  validator: SchemaValidator
  shapes: ShapeStore
  /** execution.record_samples: shapes keep sample values. */
  recordSamples: boolean
}

/**
 * A result as the program receives it: an `isError` result, one over `max_tool_result_bytes` and
 * one that does not match its outputSchema are `ToolError`s; anything else is parsed (SPEC §6),
 * or passed on as `JsonText` when the child is to parse it.
 */
export function checkResult(
  tool: ToolInfo,
  result: CallToolResult,
  options: CallToolOptions,
  checks: ResultChecks,
): unknown {
  if (result.isError) throw new ToolError(toolErrorText(result))
  const {maxResultBytes} = options

  const size = resultSize(result, maxResultBytes)
  if (size > maxResultBytes) throw tooLargeError(tool, size, options)
  options.onResultBytes?.(size)

  if (tool.outputSchema) {
    if (result.structuredContent === undefined) {
      throw new ToolError(`${tool.name} declares an outputSchema but returned no structured content`, {
        kind: 'schema_mismatch',
      })
    }
    const problems = checks.validator.checkResult(tool.outputSchema, result.structuredContent)
    if (problems.length > 0) {
      throw new ToolError(`result of ${tool.name} does not match its outputSchema: ${problems.join('; ')}`, {
        kind: 'schema_mismatch',
      })
    }
  }
  // Rule: the first result of a tool without an outputSchema in each run is described for
  // inspect_tool (SPEC §5); later ones are not looked at again.
  const {shapes} = checks
  const describe = !tool.outputSchema && !shapes.recordedThisRun(tool)
  const shapeOptions = {samples: checks.recordSamples}
  if (options.deferTextParsing) {
    const text = loneText(result)
    if (text !== undefined) {
      if (describe) shapes.record(tool, textShape(text, shapeOptions))
      return new JsonText(text)
    }
  }
  // Rule: media counts against max_tool_result_bytes with the text; what does not fit is a note (SPEC §6).
  const value = parseToolResult(result, {bytes: maxResultBytes - size, limit: maxResultBytes})
  if (describe) {
    const text = typeof value === 'string' ? value : undefined
    shapes.record(tool, text === undefined ? shapeOf(value, shapeOptions) : textShape(text, shapeOptions))
  }
  return value
}

/** The one error for a result over `max_tool_result_bytes`, whether it was received or skipped on the wire. */
export function tooLargeError(tool: ToolInfo, bytes: number, options: CallToolOptions): ToolError {
  return new ToolError(
    `result of ${tool.name} is ${formatBytes(bytes)}, over the ${formatBytes(options.maxResultBytes)} limit ` +
      `(execution.max_tool_result_bytes); ${LESS_DATA_HINT}`,
    {kind: 'too_large'},
  )
}

/**
 * Size of what the program would receive, in bytes: the text items, or the structured content when
 * it is larger (servers usually send both, the text being the JSON of the structure, so they are not
 * added up). Media is not counted here: parseToolResult fits it into what is left. Stops early once over `limit`.
 */
export function resultSize(result: CallToolResult, limit = Infinity): number {
  let textBytes = 0
  for (const item of result.content ?? []) {
    if (item.type === 'text') textBytes += Buffer.byteLength(item.text, 'utf8')
    if (textBytes > limit) return textBytes
  }
  if (result.structuredContent === undefined) return textBytes
  const structuredBytes = Buffer.byteLength(JSON.stringify(result.structuredContent) ?? '', 'utf8')
  return Math.max(textBytes, structuredBytes)
}
