import {createHash} from 'node:crypto'

import {cutWithin} from '../shared/cut.js'

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
 * What a server is for: the first sentence of its instructions, else its title unless that only
 * repeats its name, else its most telling tool names; undefined when it has no tools either.
 */
export function aboutServer(server: ServerSelfDescription): string | undefined {
  const sentence = firstSentence(oneLine(server.instructions ?? ''))
  if (sentence) return cutWithin(sentence, MAX_ABOUT_CHARS)
  const title = oneLine(server.title ?? '')
  if (title && !onlyNames(title, server.name)) return cutWithin(title, MAX_ABOUT_CHARS)
  const names = tellingNames(server.toolNames)
  return names.length > 0 ? cutWithin(names.join(', '), MAX_ABOUT_CHARS) : undefined
}

/**
 * Up to MAX_TELLING_NAMES tool names that together cover the most words: `create_entities,
 * add_observations, read_graph, search_nodes` says more of a server than four `create_*`.
 */
export function tellingNames(toolNames: readonly string[]): string[] {
  const seen = new Set<string>()
  const chosen: string[] = []
  const left = toolNames.filter((name) => oneLine(name) === name && name.length <= 64)
  while (chosen.length < MAX_TELLING_NAMES && left.length > 0) {
    let best = 0
    let bestNew = -1
    for (const [index, name] of left.entries()) {
      const fresh = new Set(words(name).filter((word) => !seen.has(word))).size
      if (fresh > bestNew) {
        best = index
        bestNew = fresh
      }
    }
    if (bestNew === 0 && chosen.length > 0) break
    const [name] = left.splice(best, 1)
    chosen.push(name!)
    for (const word of words(name!)) seen.add(word)
  }
  return chosen
}

/** Untrusted text as one plain line: control characters and runs of white space become one space. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  return text.replaceAll(/[\u0000-\u001F\u007F-\u009F\u2028\u2029\s]+/g, ' ').trim()
}

function firstSentence(text: string): string {
  const end = text.search(/[.!?](\s|$)/)
  return (end === -1 ? text : text.slice(0, end)).trim()
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
  const known = new Set([...words(name), 'server', 'mcp'])
  return words(title).every((word) => known.has(word))
}
