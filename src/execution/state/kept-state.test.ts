// @tier unit
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {stateSchema} from '../../config/schema.js'
import {ToolError} from '../../downstream/types.js'
import {sessionFileLines} from '../files/session-files.js'
import {KeptState} from './kept-state.js'
import {ProgramState, stateTraceLines} from './program-state.js'
import {readStateFile, writeStateFile} from './state-file.js'

const limits = (overrides: Record<string, number> = {}) => stateSchema.parse(overrides)

/** The ToolError `action` throws, or a failure. */
function refusal(action: () => unknown): ToolError {
  try {
    action()
  } catch (error) {
    if (error instanceof ToolError) return error
    throw error
  }
  throw new Error('expected a ToolError')
}

describe('KeptState (SPEC §6.2)', () => {
  it('keeps values as their JSON, replaces by key, forgets, lists keys with sizes', () => {
    const state = new KeptState(limits())
    expect(state.store('rows', [1, 2, 3])).toBe(7)
    expect(state.store('rows', {a: 'é'})).toBe(10)
    state.store('other', null)
    expect(state.load('rows')).toBe('{"a":"é"}')
    expect(state.keys()).toEqual({rows: 10, other: 4})
    expect(state.bytes).toBe(14)
    expect(state.forget('rows')).toBe(true)
    expect(state.forget('rows')).toBe(false)
    expect(state.load('rows')).toBeUndefined()
    expect(state.bytes).toBe(4)
    state.store('__proto__', 1)
    expect(Object.keys(state.keys())).toEqual(['other', '__proto__'])
  })

  it('refuses each bound with a ToolError of its kind, and loses nothing already stored', () => {
    const state = new KeptState(limits({max_bytes: 100, max_value_bytes: 40, max_keys: 3}))
    state.store('a', 'x'.repeat(30))
    expect(refusal(() => state.store('b', 'x'.repeat(40)))).toMatchObject({kind: 'max_value_bytes'})
    state.store('b', 'x'.repeat(30))
    state.store('c', 'x'.repeat(30))
    expect(refusal(() => state.store('d', 1))).toMatchObject({kind: 'max_keys'})
    // Replacing a key at max_keys is fine; growing past max_bytes is not.
    state.store('c', 1)
    expect(refusal(() => state.store('c', 'x'.repeat(38)))).toMatchObject({
      kind: 'max_bytes',
      message: expect.stringContaining('state.max_bytes'),
    })
    expect(state.keys()).toEqual({a: 32, b: 32, c: 1})
  })

  it('refuses keys that are not short printable strings, and values too deep or not JSON', () => {
    const state = new KeptState(limits())
    for (const key of ['', 5, null, 'k'.repeat(257), 'bidi\u202Ekey', 'line\nbreak', '\uD800'])
      expect(refusal(() => state.store(key, 1)).kind).toBe('invalid_arguments')
    expect(state.store('k'.repeat(256), 1)).toBe(1)
    let deep: unknown = []
    for (let i = 0; i < 64; i++) deep = [deep]
    expect(refusal(() => state.store('deep', deep))).toMatchObject({kind: 'too_large'})
    expect(refusal(() => state.store('fn', () => 1)).kind).toBe('invalid_arguments')
    expect(Object.keys(state.keys())).toEqual(['k'.repeat(256)])
  })

  it("applies a program's ./session/ as a change: what it wrote or removed, not what another program changed meanwhile", () => {
    const state = new KeptState(limits())
    const a = Buffer.from('a')
    state.applyFiles(
      new Map(),
      new Map([
        ['a', a],
        ['b', Buffer.from('b')],
      ]),
    )
    const first = new ProgramState(state)
    const second = new ProgramState(state)
    // The second program rewrites b; the first removes a and b, and adds c.
    state.applyFiles(
      second.filesBefore,
      new Map([
        ['a', a],
        ['b', Buffer.from('B')],
      ]),
    )
    const change = state.applyFiles(first.filesBefore, new Map([['c', Buffer.from('c')]]))
    expect(change).toEqual({written: [{name: 'c', bytes: 1}], removed: ['a'], refused: []})
    expect([...state.files()].map(([name, data]) => `${name}=${data.toString()}`)).toEqual(['b=B', 'c=c'])
  })

  it('leaves out files over max_session_files or max_bytes, keeping the version before', () => {
    const state = new KeptState(limits({max_bytes: 12, max_session_files: 2}))
    state.store('v', 'xx')
    state.applyFiles(new Map(), new Map([['one', Buffer.from('1')]]))
    const before = state.files()
    const change = state.applyFiles(
      before,
      new Map([
        ['one', Buffer.from('123456789')],
        ['three', Buffer.from('3')],
        ['two', Buffer.from('2')],
      ]),
    )
    expect(change.refused).toEqual([
      {name: 'one', reason: 'bytes'},
      {name: 'two', reason: 'files'},
    ])
    expect(state.files().get('one')?.toString()).toBe('1')
    expect(state.bytes).toBe(6)
  })
})

describe('the trace of what a program kept', () => {
  it('names the keys stored with their sizes, those forgotten, and ./session/ changes, briefly', () => {
    const state = new ProgramState(new KeptState(limits()))
    state.store('rows', 'x'.repeat(1_258_000))
    for (let i = 0; i < 7; i++) state.store(`k${i}`, i)
    state.kept.store('old', 1)
    state.forget('old')
    const change = state.finish({
      files: new Map([
        ['a.csv', Buffer.alloc(2000)],
        ['b', Buffer.alloc(10)],
      ]),
      notKept: [{name: 'evil', reason: 'link'}],
      moreNotKept: 0,
    })
    expect(stateTraceLines(change, state.limits)).toEqual([
      '[stored: rows 1.2 MB, k0 1 bytes, k1 1 bytes, k2 1 bytes, k3 1 bytes, 3 more; forgot: old; session/: 2 files, 2.0 KB]',
      '  not kept: session/evil (a link: links are not followed)',
    ])
  })

  it('says nothing when nothing changed, and takes back no file from a program that did not end', () => {
    const state = new ProgramState(new KeptState(limits()))
    expect(
      stateTraceLines(state.finish({files: new Map(), notKept: [], moreNotKept: 0}), state.limits),
    ).toEqual([])
    expect(state.finish().files).toBeUndefined()
  })
})

describe('the ./session/ files sent into a child', () => {
  it('go as session_file then session_data lines of at most 1 MiB each, made one at a time', () => {
    const big = Buffer.alloc(2.5 * 1024 * 1024, 7)
    const lines = sessionFileLines(
      new Map([
        ['dir/big', big],
        ['empty', Buffer.alloc(0)],
      ]),
    )
    const messages: Array<Record<string, string>> = []
    for (let next = lines.next(); !next.done; next = lines.next()) {
      expect(next.value.endsWith('\n')).toBe(true)
      messages.push(JSON.parse(next.value) as Record<string, string>)
    }
    expect(messages.map((m) => m.type)).toEqual([
      'session_file',
      'session_data',
      'session_data',
      'session_data',
      'session_file',
    ])
    expect(messages[0]).toEqual({type: 'session_file', name: 'dir/big'})
    expect(messages[4]).toEqual({type: 'session_file', name: 'empty'})
    const data = Buffer.concat(messages.slice(1, 4).map((m) => Buffer.from(m.data!, 'base64')))
    expect(data.equals(big)).toBe(true)
  })
})

describe('run --state FILE', () => {
  let dir: string | undefined
  afterEach(() => {
    if (dir) rmSync(dir, {force: true, recursive: true})
  })

  it('writes values and files 0600 and reads them back; checks what it reads as a program would be', () => {
    dir = mkdtempSync(join(tmpdir(), 'ptc-state-file-'))
    const path = join(dir, 'state.json')
    const state = new KeptState(limits())
    state.store('summary', {n: 3, text: 'é\u2028'})
    state.applyFiles(new Map(), new Map([['a/b.csv', Buffer.from('x,y\n')]]))
    writeStateFile(path, state)
    // eslint-disable-next-line no-bitwise -- the permission bits of a mode
    expect(statSync(path).mode & 0o777).toBe(0o600)
    const again = new KeptState(limits())
    readStateFile(path, again)
    expect(again.keys()).toEqual(state.keys())
    expect(again.load('summary')).toBe(state.load('summary'))
    expect(again.files().get('a/b.csv')?.toString()).toBe('x,y\n')

    readStateFile(join(dir, 'missing.json'), new KeptState(limits()))
    const tooMany = new KeptState(limits({max_keys: 1}))
    writeFileSync(path, JSON.stringify({ptc_mcp_state: 1, values: {a: 1, b: 2}, files: {}}))
    expect(() => readStateFile(path, tooMany)).toThrow(/max_keys/)
    writeFileSync(path, JSON.stringify({ptc_mcp_state: 1, values: {}, files: {'../escape': ''}}))
    expect(() => readStateFile(path, new KeptState(limits()))).toThrow(/a file that cannot be kept/)
    writeFileSync(
      path,
      `{"ptc_mcp_state":1,"values":{"d":${'['.repeat(200_000)}${']'.repeat(200_000)}},"files":{}}`,
    )
    expect(() => readStateFile(path, new KeptState(limits()))).toThrow(/nested deeper than/)
    expect(readFileSync(path, 'utf8')).toContain('ptc_mcp_state')
  })
})
