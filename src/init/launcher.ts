/**
 * How Claude should start ptc-mcp: as it is installed right now (SPEC §9), never a package name
 * fetched from a registry (`npx -y ptc-mcp` would run whoever publishes that name).
 */
import {basename, resolve} from 'node:path'

import {PACKAGE_ROOT} from '../shared/package-root.js'

/**
 * The argv that starts this installation of ptc-mcp: the absolute path of the `ptc-mcp` bin it
 * was started through (an npm install's link or shim), or `node /abs/bin/run.js` (a clone, or
 * started as `node bin/run.js`).
 */
export function runningLauncher(script: string | undefined = process.argv[1]): string[] {
  if (script !== undefined && /^ptc-mcp(\.cmd|\.exe)?$/i.test(basename(script))) return [resolve(script)]
  return ['node', resolve(PACKAGE_ROOT, 'bin', 'run.js')]
}
