// @tier unit
import {mkdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {type ClaudeSandbox, createClaudeSandbox} from '../../test/fixtures/claude/setup.js'
import {type InitOptions, planInit} from './plan.js'

let sandbox: ClaudeSandbox

beforeEach(async () => {
  sandbox = await createClaudeSandbox()
})

afterEach(async () => {
  await sandbox.cleanup()
})

const plan = (options: InitOptions = {}) =>
  planInit({
    ...options,
    environment: {
      home: sandbox.home,
      cwd: sandbox.project,
      platform: 'linux',
      env: {},
      ...options.environment,
    },
  })

/** Adds `fresh` to the project's .mcp.json: no approval recorded anywhere. */
async function addFresh(): Promise<void> {
  const path = join(sandbox.project, '.mcp.json')
  const json = JSON.parse(await readFile(path, 'utf8')) as {mcpServers: Record<string, unknown>}
  json.mcpServers.fresh = {command: 'node', args: ['fresh.js']}
  await writeFile(path, JSON.stringify(json))
}

describe("project servers Claude Code has not approved (a cloned repository's .mcp.json)", () => {
  it('leaves out a pending server and says why; --include-unapproved imports it, with a note', async () => {
    await addFresh()
    const result = await plan()
    expect(result.servers.map((s) => s.name)).not.toContain('fresh')
    expect(result.skipped.find((s) => s.name === 'fresh')).toEqual({
      name: 'fresh',
      from: `${sandbox.project}/.mcp.json, project scope`,
      reason: expect.stringMatching(
        /^pending approval in Claude Code for this project .*: Claude Code does not run it, and neither will ptc-mcp \(--include-unapproved imports it\)$/,
      ),
    })
    expect(result.yaml).not.toContain('fresh.js')
    const included = await plan({includeUnapproved: true})
    expect(included.servers.map((s) => s.name)).toEqual(expect.arrayContaining(['fresh', 'rejected']))
    expect(included.notes).toContain(
      'fresh: imported although pending approval in Claude Code for this project (a .mcp.json server nobody has approved here) (--include-unapproved)',
    )
  })

  it("counts the project's own approvals only once the directory is trusted; the user's settings always", async () => {
    await addFresh()
    await mkdir(join(sandbox.project, '.claude'))
    await writeFile(
      join(sandbox.project, '.claude', 'settings.local.json'),
      JSON.stringify({enableAllProjectMcpServers: true}),
    )
    expect((await plan()).servers.map((s) => s.name)).toContain('fresh')
    // The same repository, never trusted: its own settings approve nothing.
    const claudeJson = join(sandbox.home, '.claude.json')
    const text = await readFile(claudeJson, 'utf8')
    await writeFile(claudeJson, text.replace('"hasTrustDialogAccepted": true,', ''))
    const untrusted = await plan()
    expect(untrusted.servers.filter((s) => s.scope === 'project')).toEqual([])
    expect(
      untrusted.skipped.filter((s) => s.reason.startsWith('pending approval')).map((s) => s.name),
    ).toEqual(['filesystem', 'search', 'events', 'github', 'socket', 'fresh'])
    await mkdir(join(sandbox.home, '.claude'))
    await writeFile(
      join(sandbox.home, '.claude', 'settings.json'),
      JSON.stringify({enabledMcpjsonServers: ['fresh']}),
    )
    expect((await plan()).servers.filter((s) => s.scope === 'project').map((s) => s.name)).toEqual(['fresh'])
  })

  it("offers the project's own config, registered at project scope", async () => {
    const result = await plan({launcher: ['/opt/ptc-mcp']})
    expect(result.projectRegistration).toBe(
      `/opt/ptc-mcp init --output ${sandbox.project}/ptc-mcp.yaml --scope project`,
    )
    const own = await plan({
      launcher: ['/opt/ptc-mcp'],
      output: join(sandbox.project, 'ptc-mcp.yaml'),
      scope: 'project',
    })
    expect(own.projectRegistration).toBeNull()
    expect((await plan({from: 'claude-desktop'})).projectRegistration).toBeNull()
  })
})
