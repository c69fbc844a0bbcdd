#!/usr/bin/env node
// Installs what the integration suites use besides the product, pinned by scripts/test-deps/
// (package.json and its lock): Claude Code and the third-party MCP servers people run. They go to
// .test-deps/ (gitignored), not into the project's node_modules, so `npm ci` stays light (the
// product and its unit tests) and shows no engine warning on Node 20 (Claude Code's package asks
// for Node 22; its native binary does not use Node). Claude Code's binary is put in place by its
// own install.cjs (npm 11 holds install scripts back). Nothing is done when the installed copy
// already matches the lock. Called by `npm test` and .ci/run; tests resolve from .test-deps/.
import {execFileSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const pinned = join(root, 'scripts', 'test-deps')
const target = join(root, '.test-deps')
const stamp = join(target, '.installed-lock.json')
const claude = join(target, 'node_modules', '@anthropic-ai', 'claude-code')

const lock = readFileSync(join(pinned, 'package-lock.json'), 'utf8')
const upToDate = existsSync(stamp) && readFileSync(stamp, 'utf8') === lock && binaryInPlace()
if (!upToDate) install()

function install() {
  mkdirSync(target, {recursive: true})
  for (const file of ['package.json', 'package-lock.json'])
    copyFileSync(join(pinned, file), join(target, file))
  console.error(
    'install-test-deps: installing Claude Code and the MCP servers the suites use into .test-deps/',
  )
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  execFileSync(npm, ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
    cwd: target,
    stdio: 'inherit',
  })
  execFileSync(process.execPath, [join(claude, 'install.cjs')], {cwd: claude, stdio: 'inherit'})
  if (!binaryInPlace())
    throw new Error(
      "install-test-deps: Claude Code's binary is not in place (no native package for this platform?)",
    )
  writeFileSync(stamp, lock)
}

/** The placeholder bin/claude.exe is a small script; the real binary is many megabytes. */
function binaryInPlace() {
  const bin = join(claude, 'bin', 'claude.exe')
  if (!existsSync(bin)) return false
  return readFileSync(bin).length > 1024 * 1024
}
