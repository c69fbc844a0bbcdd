// Lints the Python files named by ruff.toml's `include` with Ruff's WebAssembly build (no native
// binary to install). Prints one `path:row:column code message` line per finding to stderr and
// exits 1 when there is any (2 when it cannot lint), like `ruff check`.
import {minimatch} from 'minimatch'
import {readdir, readFile} from 'node:fs/promises'
import {dirname, join, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const skipped = new Set(['.git', '__pycache__', 'dist', 'node_modules'])

async function main() {
  // A worktree installed before these devDependencies were added gets told what to run.
  const modules = await Promise.all([import('@astral-sh/ruff-wasm-nodejs'), import('smol-toml')]).catch(
    () => null,
  )
  if (!modules) return fail('@astral-sh/ruff-wasm-nodejs or smol-toml is not installed: run `npm install`')
  const [ruff, toml] = modules

  const {
    exclude = [],
    include = [],
    ...settings
  } = toml.parse(await readFile(join(root, 'ruff.toml'), 'utf8'))
  if (include.length === 0) return fail('ruff.toml has no `include` globs: name the Python files to lint')

  const matches = (file, globs) => globs.some((glob) => minimatch(file, glob, {dot: true}))
  const files = (await readdir(root, {recursive: true}))
    .map((file) => file.split(sep).join('/'))
    .filter((file) => !file.split('/').some((part) => skipped.has(part)))
    .filter((file) => matches(file, include) && !matches(file, exclude))
    .sort()

  const workspace = new ruff.Workspace(settings, ruff.PositionEncoding.Utf16)
  let findings = 0
  for (const file of files) {
    for (const diagnostic of workspace.check(await readFile(join(root, file), 'utf8'))) {
      const {column, row} = diagnostic.start_location
      process.stderr.write(`${file}:${row}:${column} ${diagnostic.code ?? 'syntax'} ${diagnostic.message}\n`)
      findings++
    }
  }

  if (findings > 0) {
    process.stderr.write(
      `lint-python: ${findings} finding(s) in ${files.length} file(s); rules in ruff.toml\n`,
    )
    return 1
  }

  process.stderr.write(
    `lint-python: ${files.length} Python file(s) clean (Ruff ${ruff.Workspace.version()})\n`,
  )
  return 0
}

function fail(message) {
  process.stderr.write(`lint-python: ${message}\n`)
  return 2
}

process.exitCode = await main()
