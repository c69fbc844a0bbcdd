import {existsSync, mkdirSync} from 'node:fs'
import {dirname, resolve} from 'node:path'

/**
 * `mkdir -p` that always returns: Node's recursive mkdir never returns (spinning a core) where a
 * level cannot be made and its parent exists, as anywhere under /proc; here that level's error is
 * thrown. The levels made get `mode`; one made meanwhile by someone else is taken as it is.
 */
export function makeDirs(path: string, mode = 0o700): void {
  const missing: string[] = []
  for (let dir = resolve(path); !existsSync(dir); dir = dirname(dir)) {
    missing.push(dir)
    if (dirname(dir) === dir) break
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, {mode})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
}
