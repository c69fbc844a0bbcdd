// Copies every Python file under src/ (the program runner, the sandbox's confine modules) to the
// same relative place under dist/, next to the compiled JavaScript that locates them.
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
