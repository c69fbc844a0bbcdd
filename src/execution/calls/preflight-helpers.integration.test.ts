// The state helpers are awaited like tools (SPEC §6.1): `x = load("k")` without await is named by
// the preflight check, with its line and the awaited form, before anything runs; the ways a
// coroutine may still be awaited later (kept, passed on, awaited by name) are left alone. Through
// the built `ptc-mcp run`, its real helpers and a real Python child.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {spawnCli} from '../../../test/helpers/serve.js'

const dir = mkdtempSync(join(tmpdir(), 'ptc-preflight-helpers-'))
const config = join(dir, 'config.yaml')
writeFileSync(config, 'servers: []\nexecution: {sandbox: none, warm_pool: 0}\n')
afterAll(() => rmSync(dir, {recursive: true, force: true}))

let programs = 0
async function run(code: string): Promise<{code: number | null; stdout: string}> {
  const file = join(dir, `program-${++programs}.py`)
  writeFileSync(file, code)
  const {
    code: exit,
    stdout,
    stderr,
  } = await spawnCli(['run', '--config', config, file], {timeoutMs: 60_000}).done
  return {code: exit, stdout: stdout + stderr}
}

const NOTHING_RAN = 'nothing ran and no tool was called'

describe('helpers not awaited, named before the program runs (SPEC §6.1)', () => {
  it('names x = load("k"), a stored() iterated and a forget() dropped, each with its line and the awaited form', async () => {
    const [loaded, listed, forgotten] = await Promise.all([
      run('x = load("k")\nprint(x["a"])\n'),
      run('print("start")\ns = stored()\nfor key in s:\n    print(key)\n'),
      run('await store("k", 1)\nf = forget("k")\n'),
    ])
    expect(loaded.stdout).toContain('PreflightError')
    expect(loaded.stdout).toContain('line 1: load(): never awaited')
    expect(loaded.stdout).toContain('`x = await load(...)`')
    expect(loaded.stdout).not.toContain('TypeError')
    // Nothing ran: not even the print before it, nor the store.
    expect(listed.stdout).toContain('line 2: stored(): never awaited')
    expect(listed.stdout).toContain('`s = await stored(...)`')
    expect(listed.stdout).toContain(NOTHING_RAN)
    expect(listed.stdout).not.toContain('start\n')
    expect(forgotten.stdout).toContain('line 2: forget(): never awaited')
    expect(forgotten.stdout).not.toContain('[stored:')
    for (const result of [loaded, listed, forgotten]) expect(result.code).not.toBe(0)
  }, 90_000)

  it('leaves alone a coroutine awaited later, gathered or kept in a list, and the awaited form', async () => {
    const [awaited, later, gathered] = await Promise.all([
      run('await store("k", {"a": 41})\nx = await load("k")\nprint(x["a"] + 1)\n'),
      run('await store("k", 1)\nt = load("k")\nprint(await t)\n'),
      run(
        'await store("a", 1)\nawait store("b", 2)\npending = [load("a"), load("b")]\nboth = asyncio.gather(*pending)\nprint(await both)\n',
      ),
    ])
    expect(awaited.stdout).toContain('42')
    expect(later.stdout).toMatch(/^1$/m)
    expect(gathered.stdout).toContain('[1, 2]')
    for (const result of [awaited, later, gathered]) {
      expect(result.stdout).not.toContain('PreflightError')
      expect(result.code).toBe(0)
    }
  }, 90_000)
})
