// @tier unit
// Every "SPEC §N" (and the bare "§N" of a list such as "SPEC §3, §5") in the repository names a
// section of the contract in docs/: a heading that starts with that section's sign. A section an
// RFC numbers ("RFC 6749 §5.2") is the RFC's, not ours. Reads files only; spawns nothing.
import {readdirSync, readFileSync} from 'node:fs'
import {dirname, extname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const DOCS = join(root, 'docs')
/** Where the code and its notes live; docs/ is what they cite. */
const SCANNED = ['src', 'bench', 'scripts', 'test', 'examples', '.ci']
const SCANNED_FILES = [
  'README.md',
  'ARCHITECTURE.md',
  'config.example.yaml',
  'eslint.config.js',
  'vitest.config.ts',
]
const SKIPPED = new Set(['.test-deps', '__pycache__', 'dist', 'node_modules'])
const TEXT = new Set(['', '.cjs', '.js', '.json', '.md', '.mjs', '.py', '.sh', '.ts', '.yaml', '.yml'])

/** The section a citation names, unless an RFC's number comes before it. */
const CITATION = /(?<!RFC \d+ )§(\d+(?:\.\d+)?)/g
const HEADING = /^#{1,6} §(\d+(?:\.\d+)?) \S/gm

function filesUnder(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return []
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return filesUnder(path)
    return entry.isFile() && TEXT.has(extname(entry.name)) ? [path] : []
  })
}

/** The sections the contract has: the sign at the start of each heading in docs/. */
function contractSections(): Set<string> {
  const sections = filesUnder(DOCS).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(HEADING)].map((match) => match[1] ?? ''),
  )
  return new Set(sections)
}

interface Citation {
  where: string
  section: string
}

/** Each citation in `text`, with its line. */
function citations(text: string, file: string): Citation[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      [...line.matchAll(CITATION)].map((match) => ({where: `${file}:${index + 1}`, section: match[1] ?? ''})),
    )
}

/** The citations that name no section of the contract, as `file:line §N`. */
function unresolved(found: Citation[], sections: Set<string>): string[] {
  return found.filter(({section}) => !sections.has(section)).map(({section, where}) => `${where} §${section}`)
}

const sections = contractSections()
const cited = [
  ...SCANNED.flatMap((dir) => filesUnder(join(root, dir))),
  ...SCANNED_FILES.map((f) => join(root, f)),
]
  .filter((file) => file !== fileURLToPath(import.meta.url))
  .flatMap((file) => citations(readFileSync(file, 'utf8'), relative(root, file)))

describe('the contract in docs/', () => {
  it('has the sections the code cites, §1 to §19 and the subsections', () => {
    const expected = [...Array.from({length: 19}, (_, i) => String(i + 1)), '6.1', '6.2', '12.1']
    expect([...sections].sort()).toEqual(expected.sort())
  })

  it('is cited hundreds of times, from src/ and beyond (the scan finds them)', () => {
    expect(cited.length).toBeGreaterThan(200)
    expect(cited.some(({where}) => where.startsWith('src/execution/'))).toBe(true)
    expect(cited.some(({where}) => where.includes('.py:'))).toBe(true)
  })

  it('resolves every citation in the repository to one of its headings', () => {
    expect(unresolved(cited, sections)).toEqual([])
  })

  it('fails on a citation of a section it does not have, and leaves an RFC’s sections alone', () => {
    const planted = citations('// SPEC §6.2, §99; the refresh token (RFC 6749 §6); SPEC §12.7', 'planted.ts')
    expect(planted.map(({section}) => section)).toEqual(['6.2', '99', '12.7'])
    expect(unresolved(planted, sections)).toEqual(['planted.ts:1 §99', 'planted.ts:1 §12.7'])
  })
})
