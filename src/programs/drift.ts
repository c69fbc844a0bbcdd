import {isRecord} from '../shared/guards.js'

/** How deep and how many paths of a result are compared. */
const MAX_DEPTH = 12
const MAX_PATHS = 2000
const MAX_ITEMS = 50

/** The kind of a JSON value as the drift lines name it. */
function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'list'
  if (isRecord(value)) return 'object'
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float'
  if (typeof value === 'string') return 'str'
  if (typeof value === 'boolean') return 'bool'
  return typeof value
}

/** Every path of a value with its kind: `items[].assignee` → `object`; list items merged. */
export function shapePaths(value: unknown): Map<string, string> {
  const paths = new Map<string, string>()
  const walk = (node: unknown, path: string, depth: number): void => {
    if (paths.size >= MAX_PATHS) return
    const kind = kindOf(node)
    const seen = paths.get(path)
    // Items of one list may differ (null and an object): the first non-null kind stands.
    if (seen === undefined || seen === 'null') paths.set(path, kind)
    if (depth >= MAX_DEPTH) return
    if (Array.isArray(node)) for (const item of node.slice(0, MAX_ITEMS)) walk(item, `${path}[]`, depth + 1)
    else if (isRecord(node))
      for (const [key, item] of Object.entries(node)) walk(item, path ? `${path}.${key}` : key, depth + 1)
  }
  walk(value, '', 0)
  paths.delete('')
  return paths
}

function parentOf(path: string): string {
  const cut = Math.max(path.lastIndexOf('.'), path.endsWith('[]') ? path.length - 2 : -1)
  return cut <= 0 ? '' : path.slice(0, cut)
}

/** Paths not under another path of the same list: `a` gone hides `a.b` gone. */
function topmost(paths: string[]): string[] {
  const set = new Set(paths)
  return paths.filter((path) => {
    for (let parent = parentOf(path); parent; parent = parentOf(parent)) if (set.has(parent)) return false
    return true
  })
}

/**
 * What changed between the shape of a recorded result and a live one, one line each (SPEC §17):
 * `items[].assignee (object) is now items[].assignees (list)` for a path gone beside a new one,
 * `x (int) is now str`, `x (str) is gone`, `y (list) is new`. Empty when the shapes agree.
 */
export function shapeDrift(recorded: unknown, live: unknown): string[] {
  const before = shapePaths(recorded)
  const after = shapePaths(live)
  const lines: string[] = []
  for (const [path, kind] of before) {
    const now = after.get(path)
    if (now !== undefined && now !== kind && kind !== 'null' && now !== 'null')
      lines.push(`${path} (${kind}) is now ${now}`)
  }
  const gone = topmost([...before.keys()].filter((path) => !after.has(path)))
  const added = topmost([...after.keys()].filter((path) => !before.has(path)))
  const paired = new Set<string>()
  for (const path of gone) {
    const twin = added.find((other) => !paired.has(other) && parentOf(other) === parentOf(path))
    if (twin === undefined) {
      lines.push(`${path} (${before.get(path)}) is gone`)
      continue
    }
    paired.add(twin)
    lines.push(`${path} (${before.get(path)}) is now ${twin} (${after.get(twin)})`)
  }
  for (const path of added) if (!paired.has(path)) lines.push(`${path} (${after.get(path)}) is new`)
  return lines
}
