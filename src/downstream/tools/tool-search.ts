import type {ToolInfo} from '../types.js'

import {isRecord} from '../../shared/guards.js'
import {MAX_SEARCH_QUERY_WORDS, MAX_SEARCH_RESULTS} from '../../shared/limits.js'
import {normaliseName} from '../../shared/naming.js'

export interface ToolMatch {
  name: string
  /** The first line of the tool's description. */
  description: string
}

/**
 * The tools best matching the words of `query` (SPEC §5): each word is looked for in the tool's
 * name (worth most), its parameter names, then its description; a tool matching no word is left
 * out. Best first, ties by name; at most MAX_SEARCH_RESULTS.
 */
export function searchTools(tools: readonly ToolInfo[], query: string): ToolMatch[] {
  const words = [...new Set(tokens(query.slice(0, 1000)))].slice(0, MAX_SEARCH_QUERY_WORDS)
  if (words.length === 0) return []
  return tools
    .map((tool) => ({tool, score: score(tool, words)}))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : 1))
    .slice(0, MAX_SEARCH_RESULTS)
    .map(({tool}) => ({name: tool.name, description: firstLine(tool.description)}))
}

/** A `server` that names none of the configured servers. */
export class UnknownServerError extends Error {
  override name = 'UnknownServerError'
}

/**
 * What list_callable_tools answers (SPEC §5): the names, sorted as `tools` are, or with `query` its
 * best matches; with `server`, that server's tools only. Throws UnknownServerError when `server`
 * is none of `servers` (the configured names), saying which there are.
 */
export function callableTools(
  tools: readonly ToolInfo[],
  options: {query?: string; server?: string; servers: readonly string[]},
): string[] | ToolMatch[] {
  const {query, server, servers} = options
  if (server !== undefined && !servers.some((name) => sameServer(name, server))) {
    const known = servers.length === 0 ? 'none is configured' : `they are ${servers.join(', ')}`
    throw new UnknownServerError(`no server '${server}': ${known}`)
  }
  const listed = server === undefined ? tools : tools.filter((tool) => onServer(tool, server))
  return query === undefined ? listed.map((tool) => tool.name) : searchTools(listed, query)
}

/** Whether a tool is one of `server`'s, named as in the config or as in tool names (`my-srv`, `my_srv`). */
export function onServer(tool: ToolInfo, server: string): boolean {
  return sameServer(tool.server, server)
}

function sameServer(configured: string, named: string): boolean {
  return configured === named || normaliseName(configured) === normaliseName(named)
}

export function firstLine(text: string): string {
  return text.trim().split('\n', 1)[0]?.trim() ?? ''
}

function score(tool: ToolInfo, words: readonly string[]): number {
  const name = tokens(tool.tool)
  const parameters = isRecord(tool.inputSchema.properties)
    ? Object.keys(tool.inputSchema.properties).flatMap((p) => tokens(p))
    : []
  const description = tokens(tool.description)
  let total = 0
  for (const word of words) {
    // Whole words count more than a word's start (`dir` in `directory`).
    const best = Math.max(
      weigh(word, name, 6),
      weigh(word, [tool.server.toLowerCase()], 3),
      weigh(word, parameters, 3),
      weigh(word, description, 1),
    )
    total += best
  }
  return total
}

function weigh(word: string, haystack: readonly string[], weight: number): number {
  if (haystack.includes(word)) return weight * 2
  if (
    word.length >= 3 &&
    haystack.some((token) => token.startsWith(word) || (word.startsWith(token) && token.length >= 3))
  )
    return weight
  return 0
}

/** Lower-case words: `list_directory`, `sortBy` and `read-file` split into their parts. */
function tokens(text: string): string[] {
  return text
    .replaceAll(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((token) => token.length > 1)
}
