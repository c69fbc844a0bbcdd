/**
 * Brief signatures spell a type shared by several tools of one server once (SPEC §5): a dict type
 * (`{"name": str, ...}`) that appears in the signatures of two tools or more becomes a name
 * (`Entity`, from the key it sits under), defined once. Innermost types are named first, so an
 * outer type that only differs by them becomes shared in turn (`{"entities": list[Entity], ...}`).
 */

/** Shorter dict types are cheaper spelled out than named. */
const MIN_SHARED_CHARS = 24
/** Rounds of naming (each names the types shared at that point). */
const MAX_ROUNDS = 8

export interface SharedTypes {
  /** The signatures, in order, with the shared types replaced by their names. */
  signatures: string[]
  /** Each name and its type, in the order they were named (a later type may use an earlier name). */
  types: [string, string][]
}

/** Names the dict types shared by two or more of `signatures` (one server's tools). */
export function shareTypes(signatures: readonly string[]): SharedTypes {
  let current = [...signatures]
  const types: [string, string][] = []
  const taken = new Set<string>()
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const candidates = sharedDicts(current)
    if (candidates.length === 0) break
    for (const dict of candidates) {
      if (!current.some((s) => s.includes(dict))) continue
      const name = uniqueName(nameFor(dict, current), taken)
      taken.add(name)
      types.push([name, dict])
      current = current.map((s) => s.split(dict).join(name))
      for (const entry of types) if (entry[0] !== name) entry[1] = entry[1].split(dict).join(name)
    }
  }
  return {signatures: current, types}
}

/**
 * Where each shared type is defined: at the first signature that uses it, or failing that (a type
 * only other types use) beside the first type that does. One record per signature, in naming order.
 */
export function typesBySignature({signatures, types}: SharedTypes): Record<string, string>[] {
  const at = new Map<string, number>()
  const uses = (text: string, name: string) => new RegExp(`\\b${name}\\b`).test(text)
  // Outer types first: an inner one then finds where the outer one went.
  for (const [name] of [...types].reverse()) {
    let index = signatures.findIndex((signature) => uses(signature, name))
    if (index === -1) {
      const outer = types.find(([other, type]) => other !== name && at.has(other) && uses(type, name))
      index = outer ? at.get(outer[0])! : 0
    }
    at.set(name, index)
  }
  const records = signatures.map((): Record<string, string> => ({}))
  for (const [name, type] of types) records[at.get(name)!]![name] = type
  return records
}

/** The dict types (innermost ones: holding no other dict) found in two signatures or more, shortest first. */
function sharedDicts(signatures: readonly string[]): string[] {
  const counts = new Map<string, number>()
  for (const signature of signatures)
    for (const dict of new Set(innermostDicts(signature))) counts.set(dict, (counts.get(dict) ?? 0) + 1)
  return [...counts]
    .filter(([dict, count]) => count >= 2 && dict.length >= MIN_SHARED_CHARS)
    .map(([dict]) => dict)
    .sort((a, b) => a.length - b.length)
}

/** `{...}` spans of `text` with no `{` inside, outside string literals. */
function innermostDicts(text: string): string[] {
  const found: string[] = []
  let start = -1
  let quote = ''
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (quote) {
      if (char === '\\') i++
      else if (char === quote) quote = ''
      continue
    }
    if (char === '"' || char === "'") quote = char
    else if (char === '{') start = i
    else if (char === '}' && start !== -1) {
      found.push(text.slice(start, i + 1))
      start = -1
    }
  }
  return found
}

/** `Entity` for a dict under `"entities": list[`; else its first two keys (`SuccessMessage`). */
function nameFor(dict: string, signatures: readonly string[]): string {
  const where = signatures.find((s) => s.includes(dict))!
  const before = where.slice(0, where.indexOf(dict))
  const under = /"?(\w+)"?: (list\[)?$/.exec(before)
  if (under) {
    const key = pascal(under[1]!)
    if (!under[2]) return key
    if (key.endsWith('ies')) return `${key.slice(0, -3)}y`
    if (key.endsWith('s') && !key.endsWith('ss')) return key.slice(0, -1)
    return `${key}Item`
  }
  const keys = [...dict.matchAll(/"(\w+)":/g)].slice(0, 2).map((match) => pascal(match[1]!))
  return keys.join('') || 'Shared'
}

function pascal(word: string): string {
  return word
    .split(/_+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')
}

function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name
  let n = 2
  while (taken.has(`${name}${n}`)) n++
  return `${name}${n}`
}
