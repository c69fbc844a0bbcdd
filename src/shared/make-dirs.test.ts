// @tier unit
import {mkdtempSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, expect, it} from 'vitest'

import {makeDirs} from './make-dirs.js'

let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'make-dirs-'))
})
afterEach(() => {
  rmSync(root, {recursive: true, force: true})
})

it('makes every missing level with the mode, and is a no-op when the path exists', () => {
  const deep = join(root, 'a', 'b', 'c')
  makeDirs(deep)
  for (const dir of [join(root, 'a'), join(root, 'a', 'b'), deep]) {
    // eslint-disable-next-line no-bitwise -- permission bits
    expect(statSync(dir).mode & 0o777).toBe(0o700)
  }
  makeDirs(deep)
  expect(statSync(deep).isDirectory()).toBe(true)
})

it('throws where a level cannot be made, instead of spinning as a recursive mkdir does under /proc', () => {
  expect(() => makeDirs('/proc/no-such-dir/ptc-mcp/shapes')).toThrow(/ENOENT/)
})
