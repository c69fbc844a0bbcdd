// Copies every Python file under src/ (the program runner, the sandbox's confine modules) to the
// same relative place under dist/, next to the compiled JavaScript that locates them.
import {copyFile, mkdir, readdir} from 'node:fs/promises'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const source = join(root, 'src')
const target = join(root, 'dist')

async function* pythonFiles(dir) {
  for (const entry of await readdir(dir, {withFileTypes: true})) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== '__pycache__') yield* pythonFiles(path)
    } else if (entry.isFile() && entry.name.endsWith('.py')) {
      yield path
    }
  }
}

let copied = 0
for await (const file of pythonFiles(source)) {
  const destination = join(target, relative(source, file))
  await mkdir(dirname(destination), {recursive: true})
  await copyFile(file, destination)
  copied++
}
process.stderr.write(`copy-assets: ${copied} Python file(s) copied to dist/\n`)
