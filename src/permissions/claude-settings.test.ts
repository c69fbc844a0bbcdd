// @tier unit
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {createLogger} from '../shared/log.js'
import {ClaudeSettings} from './claude-settings.js'

let dir: string | undefined
let settings: ClaudeSettings | undefined

afterEach(() => {
  settings?.close()
  if (dir) rmSync(dir, {recursive: true, force: true})
  settings = undefined
  dir = undefined
})

describe('ClaudeSettings', () => {
  it('reports a settings file that appears as changed, and never the files that stay absent', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ptc-claude-settings-'))
    const home = join(dir, 'home')
    const project = join(dir, 'project')
    mkdirSync(join(project, '.claude'), {recursive: true})
    const lines: string[] = []
    settings = new ClaudeSettings({
      home,
      projectDir: project,
      logger: createLogger('info', (line) => lines.push(line)),
      watchIntervalMs: 20,
    })
    expect(settings.rules()).toEqual([])
    const changed = new Promise<void>((resolve) => {
      settings!.onChange(resolve)
    })
    // The last file polled: by the time it is seen, the two absent ones have been polled too.
    const local = join(project, '.claude', 'settings.local.json')
    writeFileSync(local, JSON.stringify({permissions: {deny: ['mcp__fs__write_file']}}))
    await changed
    expect(settings.rules().map((entry) => entry.rule)).toEqual(['mcp__fs__write_file'])
    expect(lines.filter((line) => line.includes('settings changed'))).toEqual([
      `[ptc-mcp] info: Claude Code settings changed (${local}): 1 MCP permission rules in force\n`,
    ])
  })
})
