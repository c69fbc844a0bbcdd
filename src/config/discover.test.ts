// @tier unit
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import type {Logger} from '../shared/log.js'

import {findConfig, foreignKeys} from './discover.js'

let dir: string
let env: Record<string, string>
let userConfig: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-mcp-discover-'))
  env = {HOME: join(dir, 'home')}
  userConfig = join(dir, 'home', '.config', 'ptc-mcp', 'config.yaml')
  await mkdir(join(dir, 'home', '.config', 'ptc-mcp'), {recursive: true})
  await writeFile(userConfig, 'servers: []\n')
})

afterEach(async () => {
  await rm(dir, {recursive: true, force: true})
})

function recorder(): {logger: Logger; lines: string[]} {
  const lines: string[] = []
  const logger: Logger = {
    error: (m) => lines.push(`error: ${m}`),
    warn: (m) => lines.push(`warn: ${m}`),
    info: (m) => lines.push(`info: ${m}`),
    debug: (m) => lines.push(`debug: ${m}`),
    child: () => logger,
  }
  return {logger, lines}
}

describe("./config.yaml is used only when it is ptc-mcp's", () => {
  it("passes over another application's config.yaml, with a debug log, and uses the user's config", async () => {
    const other = join(dir, 'config.yaml')
    await writeFile(other, 'database:\n  host: localhost\nservers: []\n')
    const {logger, lines} = recorder()
    expect(findConfig({cwd: dir, env, logger})).toEqual({
      path: userConfig,
      searched: [join(dir, 'ptc-mcp.yaml'), other, userConfig],
      source: 'xdg',
    })
    expect(lines).toEqual([`debug: ${other} is not a ptc-mcp config (top-level key database): skipped`])
  })

  it.each([
    ['ptc-mcp keys only', 'servers: []\nexecution:\n  timeout_seconds: 5\n'],
    ['an empty file', ''],
    [
      'a YAML syntax error in a ptc-mcp config (reported when loading)',
      'servers:\n  - name: [a\nexecution: {}\n',
    ],
  ])('takes it with %s', async (_, text) => {
    await writeFile(join(dir, 'config.yaml'), text)
    expect(findConfig({cwd: dir, env}).path).toBe(join(dir, 'config.yaml'))
  })

  it.each([
    ['a list at the top', '- a\n- b\n', ['(not a mapping)']],
    ['keys of another tool', 'model: x\nlr: 0.1\nservers: []\n', ['model', 'lr']],
    ['another tool with a syntax error', 'model: [x\nlr: 0.1\n', ['model', 'lr']],
  ])('passes over %s', async (_, text, keys) => {
    const path = join(dir, 'config.yaml')
    await writeFile(path, text)
    expect(foreignKeys(path)).toEqual(keys)
    expect(findConfig({cwd: dir, env}).path).toBe(userConfig)
  })

  it('prefers ./ptc-mcp.yaml, which is never passed over', async () => {
    await writeFile(join(dir, 'config.yaml'), 'servers: []\n')
    await writeFile(join(dir, 'ptc-mcp.yaml'), 'database: x\n')
    expect(findConfig({cwd: dir, env}).path).toBe(join(dir, 'ptc-mcp.yaml'))
  })
})
