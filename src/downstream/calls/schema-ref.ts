/**
 * JSON Pointers (RFC 6901) and the local `$ref`s of a tool's JSON Schema (`#/$defs/Color`), for the
 * modules that read schemas themselves (signatures, argument rules, validation messages). Only
 * references within the schema are followed; anything else is left alone.
 */
import {isRecord} from '../../shared/guards.js'
import {MAX_REF_HOPS} from '../../shared/limits.js'

/** `/a~1b/0` → `['a/b', '0']`; `''` (the whole document) → `[]`. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return []
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
}

/**
 * The node a local reference (`#/$defs/Color`, `#/definitions/Color`; URI-escaped as a fragment)
 * points to in `root`, or undefined when it is not local (another document, an `$anchor`) or leads
 * nowhere.
 */
export function refTarget(root: unknown, ref: string): unknown {
  const pointer = decodeFragment(ref.slice(1))
  if (!ref.startsWith('#') || (pointer !== '' && !pointer.startsWith('/'))) return undefined
  let node: unknown = root
  for (const key of pointerSegments(pointer)) {
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(key)) node = node[Number(key)]
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key]
    else return undefined
  }

  return node
}

/** `node`, or where its chain of local `$ref`s ends; a reference that leads nowhere ends the chain where it stands. */
export function followRefs(root: unknown, node: unknown): unknown {
  let current = node
  for (let hop = 0; hop <= MAX_REF_HOPS; hop++) {
    if (!isRecord(current) || typeof current.$ref !== 'string') return current
    const target = refTarget(root, current.$ref)
    if (target === undefined) return current
    current = target
  }

  return current
}

/** A URI fragment as the JSON Pointer it escapes (`%24defs` → `$defs`); a malformed escape is kept as written. */
function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment)
  } catch {
    return fragment
  }
}
