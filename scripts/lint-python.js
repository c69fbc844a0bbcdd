// Lints the Python files named by ruff.toml's `include` with Ruff's WebAssembly build (no native
// binary to install), then type-checks the runtime with Pyright (npm's pure-JavaScript build: no
// Python package needed) over what pyrightconfig.json includes. Prints one `path:row:column code
// message` line per finding to stderr and exits 1 when there is any (2 when it cannot lint), like
// `ruff check`.
import {minimatch} from 'minimatch'
import {spawnSync} from 'node:child_process'
import {readdir, readFile} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {dirname, join, relative, sep} from 'node:path'
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
  return typeCheck()
}

/** Pyright over what pyrightconfig.json includes: each error or warning on a line of its own. */
function typeCheck() {
  let pyright
  try {
    pyright = createRequire(import.meta.url).resolve('pyright')
  } catch {
    return fail('pyright is not installed: run `npm install`')
  }

  const args = [pyright, '--outputjson', '--project', join(root, 'pyrightconfig.json')]
  const run = spawnSync(process.execPath, args, {cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024})
  let report
  try {
    report = JSON.parse(run.stdout)
  } catch {
    return fail(`pyright did not report (exit code ${run.status}): ${(run.stderr || run.stdout).trim()}`)
  }

  const findings = report.generalDiagnostics.filter(({severity}) => severity !== 'information')
  for (const {file, message, range, rule, severity} of findings) {
    const where = `${relative(root, file).split(sep).join('/')}:${range.start.line + 1}:${range.start.character + 1}`
    process.stderr.write(`${where} ${rule ?? severity} ${message.split('\n')[0]}\n`)
  }

  const {filesAnalyzed} = report.summary
  if (findings.length > 0) {
    process.stderr.write(
      `lint-python: ${findings.length} type finding(s) in ${filesAnalyzed} file(s); settings in pyrightconfig.json\n`,
    )
    return 1
  }

  process.stderr.write(
    `lint-python: ${filesAnalyzed} Python file(s) type-check clean (Pyright ${report.version})\n`,
  )
  return 0
}

function fail(message) {
  process.stderr.write(`lint-python: ${message}\n`)
  return 2
}

process.exitCode = await main()
