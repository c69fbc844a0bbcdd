import type {CatalogueEntry} from '../downstream/index.js'

import {cutWithin} from '../shared/cut.js'
import {counted} from '../shared/plural.js'

/** Claude Code shows a server's instructions from the first turn, cut at 2 KB (SPEC §5, §16). */
export const MAX_INSTRUCTIONS_CHARS = 2000

const WHEN =
  'When a task needs more than a couple of tool calls, or loops, filtering or joining results, write one Python program with execute_program instead of calling tools one by one: the tools below are async functions in it (await mcp__<server>__<tool>(...)), and only what it prints comes back to you.'
const HEAD = 'Servers (list_callable_tools names their tools, inspect_tool gives signatures):'
/** How long each server's words may be, tried in turn until the whole fits. */
const ABOUT_BOUNDS = [100, 60, 30, 0]

/**
 * ptc-mcp's `instructions` (SPEC §5): when to write a program, then every configured server with
 * its tool count and what it is for, at most MAX_INSTRUCTIONS_CHARS. A server never seen
 * connected is named as connecting. When everything does not fit, the words about each server
 * shorten, then the last servers are only named, then only counted.
 */
export function serverInstructions(entries: readonly CatalogueEntry[]): string {
  if (entries.length === 0)
    return `${WHEN}\nNo servers are configured yet: add them to ptc-mcp's config (ptc-mcp init).`
  for (const bound of ABOUT_BOUNDS) {
    const text = [WHEN, HEAD, ...entries.map((entry) => serverLine(entry, bound))].join('\n')
    if (text.length <= MAX_INSTRUCTIONS_CHARS) return text
  }
  const lines = [WHEN, HEAD]
  let {length} = lines.join('\n')
  let shown = 0
  for (const entry of entries) {
    const line = serverLine(entry, 0)
    const rest = entries.length - shown - 1
    // Room is kept for the line that names the rest.
    const reserve = rest > 0 ? 80 : 0
    if (length + 1 + line.length + reserve > MAX_INSTRUCTIONS_CHARS) break
    lines.push(line)
    length += 1 + line.length
    shown++
  }
  const names = entries.slice(shown).map((entry) => entry.name)
  const more = `- ${names.length} more: ${names.join(', ')}`
  lines.push(cutWithin(more, MAX_INSTRUCTIONS_CHARS - length - 1))
  return lines.join('\n')
}

function serverLine(entry: CatalogueEntry, aboutChars: number): string {
  const count = entry.tools === undefined ? 'connecting' : counted(entry.tools, 'tool')
  const about = aboutChars > 0 && entry.about ? `: ${cutWithin(entry.about, aboutChars)}` : ''
  return `- ${cutWithin(entry.name, 64)} (${count})${about}`
}
