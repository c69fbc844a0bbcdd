// ARCHITECTURE.md is a map: every path it names in backquotes exists, so the map cannot point at a
// file that moved. A path with a <placeholder> is a pattern for a new file, and is left out.
import {existsSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const map = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8')

const TOP = /^(src|test|bench|scripts|examples|bin|\.ci)\//

/** Backquoted words that look like a path of this repository: under one of its folders, or a file name. */
function namedPaths(text: string): string[] {
  const quoted = [...text.matchAll(/`([^`\s]+)`/g)].map((match) => match[1] ?? '')
  return [
    ...new Set(
      quoted
        .filter((word) => !word.includes('<') && !word.includes('$'))
        .filter((word) => TOP.test(word) || /^[\w.-]+\.(ts|py|md|json|sh|js)$/.test(word)),
    ),
  ]
}

/** A bare file name (`limits.ts`) is looked for in the folder the sentence is about: src/shared/. */
function exists(path: string): boolean {
  return path.includes('/')
    ? existsSync(join(root, path))
    : existsSync(join(root, 'src', 'shared', path)) || existsSync(join(root, path))
}

describe('ARCHITECTURE.md', () => {
  const paths = namedPaths(map)

  it('names the files of a program life and the recipes', () => {
    expect(paths.length).toBeGreaterThan(30)
    expect(paths).toContain('src/execution/engine/engine.ts')
  })

  it('names only paths that exist', () => {
    expect(paths.filter((path) => !exists(path))).toEqual([])
  })

  it('draws the layers eslint.config.js enforces, every folder of src/', () => {
    const config = readFileSync(join(root, 'eslint.config.js'), 'utf8')
    const start = config.indexOf('const LAYERS')
    const layers = [...config.slice(start, config.indexOf(']\n\n', start)).matchAll(/'([\w.-]+)'/g)].map(
      (m) => m[1],
    )
    const diagram = map.slice(map.indexOf('```'), map.indexOf('```', map.indexOf('```') + 3))
    for (const layer of layers.filter((name) => name !== 'index.ts')) expect(diagram).toContain(layer)
  })
})
