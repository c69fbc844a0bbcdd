// Where the bench finds what it runs: the BUILT server, its own downstream, the example, tsx.
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

export const ROOT = join(import.meta.dirname, '..', '..')
export const RUN_JS = join(ROOT, 'bin', 'run.js')
export const BENCH_SERVER = join(ROOT, 'bench', 'servers', 'bench-server.ts')
export const SDK_FLOOR_SERVER = join(ROOT, 'bench', 'servers', 'sdk-floor-server.ts')
export const FINANCE_SERVER = join(ROOT, 'examples', 'finance-server.js')
export const DEFAULT_RESULTS = join(ROOT, 'bench', 'results.json')

export const requireFromRoot = createRequire(join(ROOT, 'package.json'))

/** Where the peer gateways are installed for the bench (gitignored; bench/README.md). */
export const PEERS_DIR = join(ROOT, '.bench-peers')
const requireFromPeers = createRequire(join(PEERS_DIR, 'package.json'))

/** A peer gateway's module: from PEERS_DIR first, then the project's node_modules. */
export function requirePeer(id: string): {path: string; require: NodeJS.Require} {
  for (const from of [requireFromPeers, requireFromRoot]) {
    try {
      return {path: from.resolve(id), require: from}
    } catch {
      // not there: the next place
    }
  }
  throw new Error(`Cannot find module '${id}'`)
}

/** tsx's ESM loader as a file URL, for `node --import` (works from any working directory). */
export const TSX_LOADER_URL = pathToFileURL(requireFromRoot.resolve('tsx')).href

export const MiB = 1024 * 1024
