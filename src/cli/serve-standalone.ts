/**
 * `serve` with no oclif and no node_modules: the entry of the Claude Code plugin's single-file
 * build (plugin/server/serve.cjs, written by scripts/bundle-plugin.js). A plugin folder is copied
 * as it is, so nothing may be resolved from a node_modules beside it; the flags are serve's plain
 * ones (`--config`, `--log-level`), and anything else is refused with serve's usage.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {runServe} from '../mcp/serve.js'
import {EXIT, PtcError} from '../shared/errors.js'
import {PACKAGE_ROOT} from '../shared/package-root.js'
import {resolveLogLevel} from './log-level.js'
import {plainServeFlags} from './serve-fast-path.js'

const USAGE = 'Usage: serve.cjs [--config PATH] [--log-level error|warn|info|debug]'

/** Serves until the client goes; resolves to the exit code. Errors are written to `stderr`. */
export async function serveStandalone(
  args: readonly string[],
  stderr: (text: string) => void = (text) => process.stderr.write(text),
): Promise<number> {
  // `serve` first, as the installed bin takes it, or not at all.
  const flags = plainServeFlags(args[0] === 'serve' ? args.slice(1) : args)
  if (!flags) {
    stderr(`${USAGE}\n`)
    return EXIT.usage
  }

  const {version} = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {version: string}
  try {
    await runServe({configFlag: flags.config, logLevel: resolveLogLevel(flags['log-level'], 'warn'), version})
    return EXIT.ok
  } catch (error) {
    if (!(error instanceof PtcError)) throw error
    stderr(`Error: ${error.message}\n${error.suggestion ? `Try this: ${error.suggestion}\n` : ''}`)
    return error.exitCode
  }
}
