import type {CreateMessageRequestParams, ElicitRequestParams} from '@modelcontextprotocol/client'

import {cutAfter} from '../shared/cut.js'
import {isRecord} from '../shared/guards.js'
import {MAX_FORWARDED_MESSAGE_CHARS} from '../shared/limits.js'
import {terminalSafe} from '../shared/terminal-safe.js'

/**
 * What a downstream server asks of the user through ptc-mcp (SPEC §12), made plain as coming from
 * that server before the client shows it: an elicitation's message is escaped as the approval
 * prompt is (control characters, a lone CR, bidi overrides and line separators shown, not obeyed), its
 * runs of blank lines collapsed, and it starts with `[server]` on its first line; every title of
 * its form says `[server]` too. A form that copies ptc-mcp's own approval form (a `decision`
 * choice among ours) is refused: a server must not be able to ask the user to approve something
 * in ptc-mcp's name. Sampling requests name the server where a person reading them sees it.
 * Pure functions of the request: the SDK's server object plays no part.
 */

/** The `_meta` key that names the downstream server a forwarded request comes from. */
export const SERVER_META_KEY = 'ptc-mcp/server'

/** The values of ptc-mcp's own approval form (its `decision` property). */
const APPROVAL_CHOICES = new Set(['deny', 'each', 'once', 'program', 'session'])

/** A forwarded request ptc-mcp will not pass on, and why. */
export class ForwardRefusedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ForwardRefusedError'
  }
}

/** Line and paragraph separators (U+2028, U+2029): shown as escapes, as the approval prompt does. */
const SEPARATORS = /[\u2028\u2029]/g

/**
 * Text from a downstream server made safe to show: control characters shown as themselves
 * (terminalSafe: a lone CR as ␍), line separators escaped, trailing spaces dropped, at most one blank line
 * in a row, no blank line first, at most `max` characters.
 */
export function forwardedText(text: string, max = MAX_FORWARDED_MESSAGE_CHARS): string {
  const shown = terminalSafe(text.replaceAll('\r\n', '\n'))
    .replaceAll(SEPARATORS, (char) => `\\u${char.codePointAt(0)!.toString(16)}`)
    .replaceAll(/[ \t]+$/gm, '')
    .replaceAll(/\n{3,}/g, '\n\n')
    .replace(/^\n+/, '')
    .trimEnd()
  return shown.length > max ? `${cutAfter(shown, max)} [cut at ${max} characters]` : shown
}

/** `[name]`, the label that starts everything shown for server `name`. */
function label(serverName: string): string {
  return `[${forwardedText(serverName, 100).replaceAll('\n', ' ')}]`
}

/**
 * The elicitation of server `serverName` as the client is to show it: labelled and escaped (see
 * above). Throws ForwardRefusedError for a form that copies ptc-mcp's approval form.
 */
export function labelElicitation<P extends ElicitRequestParams>(serverName: string, params: P): P {
  const tag = label(serverName)
  const message = `${tag} ${forwardedText(params.message)}`
  if (params.mode === 'url') return {...params, message}
  const schema = (params as {requestedSchema?: unknown}).requestedSchema
  if (!isRecord(schema)) return {...params, message}
  const copied = copiedApprovalProperty(schema)
  if (copied !== undefined) {
    throw new ForwardRefusedError(
      `ptc-mcp did not show this request from server "${serverName}" to the user: its form copies ptc-mcp's own approval form (property "${copied}")`,
    )
  }
  return {...params, message, requestedSchema: labelSchema(tag, schema)}
}

/** The name of the property that copies ptc-mcp's approval choices, if any. */
function copiedApprovalProperty(schema: Record<string, unknown>): string | undefined {
  const properties = isRecord(schema.properties) ? schema.properties : {}
  for (const [name, property] of Object.entries(properties)) {
    if (name.trim().toLowerCase() === 'decision') return name
    const values = choiceValues(property)
    if (values.filter((value) => APPROVAL_CHOICES.has(value.toLowerCase())).length >= 2) return name
  }
  return undefined
}

/** The string values a property offers (enum, oneOf/anyOf consts, items of a multi-select). */
function choiceValues(property: unknown): string[] {
  if (!isRecord(property)) return []
  const values: unknown[] = Array.isArray(property.enum) ? [...property.enum] : []
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = property[key]
    if (Array.isArray(options)) for (const option of options) if (isRecord(option)) values.push(option.const)
  }
  if (isRecord(property.items)) values.push(...choiceValues(property.items))
  return values.filter((value): value is string => typeof value === 'string')
}

/** The form with every title labelled and every shown string escaped. */
function labelSchema(tag: string, schema: Record<string, unknown>): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const labelled: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(properties)) {
    if (!isRecord(property)) {
      labelled[name] = property
      continue
    }
    const title = typeof property.title === 'string' && property.title.trim() !== '' ? property.title : name
    labelled[name] = {
      ...escapeShown(property),
      title: `${tag} ${forwardedText(title, 200).replaceAll('\n', ' ')}`,
    }
  }
  return {
    ...schema,
    ...(typeof schema.title === 'string' && {title: `${tag} ${forwardedText(schema.title, 200)}`}),
    properties: labelled,
  }
}

/** A property with its description and its choices' titles escaped. */
function escapeShown(property: Record<string, unknown>): Record<string, unknown> {
  const escaped: Record<string, unknown> = {...property}
  if (typeof property.description === 'string')
    escaped.description = forwardedText(property.description, 1000)
  for (const key of ['oneOf', 'anyOf', 'enumNames'] as const) {
    const options = property[key]
    if (!Array.isArray(options)) continue
    escaped[key] = options.map((option: unknown) => {
      if (typeof option === 'string') return forwardedText(option, 200)
      if (isRecord(option) && typeof option.title === 'string')
        return {...option, title: forwardedText(option.title, 200)}
      return option
    })
  }
  if (isRecord(property.items)) escaped.items = escapeShown(property.items)
  return escaped
}

/**
 * The sampling request of server `serverName` as the client is to show it: the server named in
 * `_meta`, in the system prompt, and before the first text message (where a person approving the
 * request reads it).
 */
export function labelSampling<P extends CreateMessageRequestParams>(serverName: string, params: P): P {
  const tag = label(serverName)
  const note = `${tag} This request comes from the MCP server "${serverName}", through ptc-mcp.`
  const messages = [...params.messages]
  const first = messages[0]
  if (first && !Array.isArray(first.content) && first.content.type === 'text')
    messages[0] = {...first, content: {...first.content, text: `${tag} ${first.content.text}`}}
  return {
    ...params,
    messages,
    systemPrompt: params.systemPrompt ? `${note}\n${params.systemPrompt}` : note,
    _meta: {...params._meta, [SERVER_META_KEY]: serverName},
  }
}
