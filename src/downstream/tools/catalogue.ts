import {createHash} from 'node:crypto'

import {cutWithin} from '../../shared/cut.js'

/**
 * The catalogue of downstream servers that ptc-mcp's `instructions` show (SPEC §5): each server's
 * name, its number of tools and what it is for in a few words. Pure: what a server said of itself
 * in, the text out. The server's own words are untrusted text going into the model's context:
 * one line each, control characters gone, bounded.
 */

/** One server as the catalogue shows it. */
export interface CatalogueEntry {
  name: string
  /** Its permitted tools, as last listed; undefined when never seen connected. */
  tools?: number
  /** What it is for, in a few words (at most MAX_ABOUT_CHARS). */
  about?: string
  /** A hash of its tool names: tells a changed tool list from the same one. */
  toolsKey?: string
}

/** What a connected server said of itself. */
export interface ServerSelfDescription {
  /** The config name. */
  name: string
  /** `instructions` of its initialize answer. */
  instructions?: string
  /** `serverInfo.title`. */
  title?: string
  /** Its tools' own names, in listing order. */
  toolNames: readonly string[]
}

export const MAX_ABOUT_CHARS = 100
/** Tool names shown when a server says nothing telling of itself. */
const MAX_TELLING_NAMES = 4

/** The catalogue entry of a connected server. */
export function catalogueEntry(server: ServerSelfDescription): CatalogueEntry {
  return {
    name: server.name,
    tools: server.toolNames.length,
    toolsKey: toolsKey(server.toolNames),
    about: aboutServer(server),
  }
}

/** A short hash of a server's tool names (order does not matter). */
export function toolsKey(toolNames: readonly string[]): string {
  return createHash('sha256')
    .update([...toolNames].sort().join('\n'))
    .digest('hex')
    .slice(0, 16)
}

/**
 * What a server is for: its title unless that only repeats its name, else the first sentence of
 * its instructions (headings skipped), then its most telling tool names; undefined when it says
 * nothing and has no tools.
 */
export function aboutServer(server: ServerSelfDescription): string | undefined {
  const title = oneLine(server.title ?? '')
  const said = title && !onlyNames(title, server.name) ? title : firstSentence(server.instructions ?? '')
  const names = tellingNames(server.toolNames).join(', ')
  const about = [said, names].filter(Boolean).join('; ')
  return about ? cutWithin(about, MAX_ABOUT_CHARS) : undefined
}

/**
 * Up to MAX_TELLING_NAMES tool names, one per leading word (the verb: read, write, search...), the
 * shortest of each, in the server's order: `read_file, write_file, edit_file, create_directory`
 * says more of a server than four `read_*`.
 */
export function tellingNames(toolNames: readonly string[]): string[] {
  const byVerb = new Map<string, string>()
  for (const name of toolNames) {
    if (oneLine(name) !== name || name.length > 64) continue
    const verb = words(name)[0] ?? name
    const known = byVerb.get(verb)
    if (known === undefined || name.length < known.length) byVerb.set(verb, name)
  }
  return [...byVerb.values()].slice(0, MAX_TELLING_NAMES)
}

/** Untrusted text as one plain line: control characters and runs of white space become one space. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  return text.replaceAll(/[\u0000-\u001F\u007F-\u009F\u2028\u2029\s]+/g, ' ').trim()
}

/** The first sentence of the first line that is no markdown heading, if it is short enough to say it all. */
function firstSentence(text: string): string {
  const line = text
    .split('\n')
    .map((l) => oneLine(l))
    .find((l) => l !== '' && !l.startsWith('#'))
  if (line === undefined) return ''
  const end = line.search(/[.!?](\s|$)/)
  const sentence = (end === -1 ? line : line.slice(0, end)).trim()
  return sentence.length <= MAX_ABOUT_CHARS ? sentence : ''
}

function words(name: string): string[] {
  return name
    .replaceAll(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
}

/** `Memory Server` for the server `memory`: nothing a name does not say already. */
function onlyNames(title: string, name: string): boolean {
  const known = new Set(['mcp', 'server', ...words(name)])
  return words(title).every((word) => known.has(word))
}
