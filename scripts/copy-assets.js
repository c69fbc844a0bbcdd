// Copies every Python file under src/ (the program runner, the sandbox's confine modules) to the
// same relative place under dist/, next to the compiled JavaScript that locates them.
import {spawnSync} from 'node:child_process'
import {copyFile, mkdir, readdir} from 'node:fs/promises'
import {dirname, join, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const source = join(root, 'src')
const target = join(root, 'dist')

const files = (await readdir(source, {recursive: true})).filter(
  (file) => file.endsWith('.py') && !file.split(sep).includes('__pycache__'),
)
for (const file of files) {
  const destination = join(target, file)
  await mkdir(dirname(destination), {recursive: true})
  await copyFile(join(source, file), destination)
}

process.stderr.write(`copy-assets: ${files.length} Python file(s) copied to dist/\n`)

// Their bytecode beside them, so that a child loads the runner's and the sandbox's modules without
// compiling them. checked-hash: valid whatever the files' mtimes (an npm tarball resets them), and
// ignored once a file changes; an interpreter of another version ignores it and compiles, as
// without it. Without python3 here, children compile as before.
const compiled = spawnSync(
  'python3',
  ['-I', '-m', 'compileall', '-q', '--invalidation-mode', 'checked-hash', target],
  {stdio: ['ignore', 'ignore', 'inherit']},
)
process.stderr.write(
  compiled.status === 0
    ? 'copy-assets: bytecode written beside them\n'
    : 'copy-assets: no bytecode written (python3 -m compileall failed); children compile the modules\n',
)
