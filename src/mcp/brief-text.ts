import type {BriefToolDescription} from '../downstream/index.js'

import {cutWithin} from '../shared/cut.js'

/** A description's first line is cut here in the brief text (the full inspect has it all). */
const MAX_BRIEF_DESCRIPTION_CHARS = 44

/**
 * `inspect_tool` with `brief: true`, as the model reads it (SPEC §5, at most ~160 bytes a tool):
 * per server a header with the prefix its tools share, the types its tools share, then one line a
 * tool, `name(args) -> result  # what it does`, and which ones ask the user first. Dict keys lose
 * their quotes (`{name: str}`): a shape to read, not JSON to parse. Entries that are not tools
 * (an unknown name's error) come last, as JSON.
 */
export function briefText(entries: readonly unknown[]): string {
  const groups = new Map<string, BriefToolDescription[]>()
  const others: unknown[] = []
  for (const entry of entries) {
    const brief = entry as BriefToolDescription
    const prefix = /^mcp__.+?__(?=.)/.exec(brief.name ?? '')?.[0]
    if (typeof brief.signature !== 'string' || prefix === undefined) {
      others.push(entry)
      continue
    }
    groups.set(prefix, [...(groups.get(prefix) ?? []), brief])
  }
  const lines: string[] = []
  for (const [prefix, briefs] of groups) {
    lines.push(`${prefix}<name>(...): await, keywords only`)
    for (const brief of briefs)
      for (const [name, type] of Object.entries(brief.types ?? {}))
        lines.push(`${name} = ${unquoteKeys(type)}`)
    for (const brief of briefs) lines.push(toolLine(brief, prefix))
    const asking = briefs.filter((b) => b.needs_approval).map((b) => b.name.slice(prefix.length))
    if (asking.length > 0) lines.push(`Ask the user first: ${askingList(briefs, asking, prefix)}`)
  }
  for (const other of others) lines.push(JSON.stringify(other))
  return lines.join('\n')
}

/** The tools that ask, or `all but` those that do not: whichever is shorter. */
function askingList(briefs: readonly BriefToolDescription[], asking: string[], prefix: string): string {
  const notAsking = briefs.filter((b) => !b.needs_approval).map((b) => b.name.slice(prefix.length))
  if (notAsking.length === 0) return 'all'
  return asking.length <= notAsking.length ? asking.join(', ') : `all but ${notAsking.join(', ')}`
}

function toolLine(brief: BriefToolDescription, prefix: string): string {
  const call = unquoteKeys(brief.signature.replace(/^await /, '').replace('(*, ', '(')).slice(prefix.length)
  const description = cutAtWord(brief.description, MAX_BRIEF_DESCRIPTION_CHARS)
  return description ? `${call} # ${description}` : call
}

/** At most `max` characters, cut after a whole word when it must be cut. */
function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text
  const head = cutWithin(text, max)
  const space = head.lastIndexOf(' ')
  return space > max / 2 ? `${head.slice(0, space)}…` : head
}

/** `{"name": str}` → `{name: str}`, for keys that are plain words. */
function unquoteKeys(type: string): string {
  return type.replaceAll(/"([A-Za-z_]\w*)": /g, '$1: ')
}
