// @tier unit
import {describe, expect, it} from 'vitest'

import type {ServerOrigin} from './sources.js'

import {DEFAULT_CONNECT_TIMEOUT_SECONDS, PACKAGE_RUNNER_CONNECT_TIMEOUT_SECONDS} from '../shared/limits.js'
import {convertServer, packageRunner} from './convert.js'
import {renderConfigYaml} from './render.js'

const user: ServerOrigin = {scope: 'user', path: '/home/me/.claude.json'}

describe('a server a package runner starts (its first start downloads the package)', () => {
  it('gets a longer connect timeout from init, written in the config, and a note that says why', () => {
    const result = convertServer({
      name: 'memory',
      entry: {command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory']},
      origin: user,
    })
    if (!result.ok) throw new Error(result.reason)
    expect(PACKAGE_RUNNER_CONNECT_TIMEOUT_SECONDS).toBeGreaterThan(DEFAULT_CONNECT_TIMEOUT_SECONDS)
    expect(result.server.connect_timeout_seconds).toBe(PACKAGE_RUNNER_CONNECT_TIMEOUT_SECONDS)
    expect(result.notes).toEqual([
      `connect_timeout_seconds: ${PACKAGE_RUNNER_CONNECT_TIMEOUT_SECONDS}, as npx downloads the package on its first start (the default ${DEFAULT_CONNECT_TIMEOUT_SECONDS} s is often too short)`,
    ])
    expect(renderConfigYaml([{server: result.server, comments: []}], [])).toContain(
      `connect_timeout_seconds: ${PACKAGE_RUNNER_CONNECT_TIMEOUT_SECONDS}`,
    )
  })

  it('is told by its command: npx, uvx, bunx, pnpx, and npm exec, pnpm dlx, yarn dlx, uv tool', () => {
    expect(packageRunner('/usr/local/bin/npx', ['-y', 'x'])).toBe('npx')
    expect(packageRunner('uvx', ['mcp-server-fetch'])).toBe('uvx')
    expect(packageRunner('C:\\Program Files\\nodejs\\npx.cmd', [])).toBe('npx')
    expect(packageRunner('pnpm', ['dlx', 'x'])).toBe('pnpm dlx')
    expect(packageRunner('uv', ['tool', 'run', 'x'])).toBe('uv tool')
    expect(packageRunner('node', ['server.js'])).toBeUndefined()
    expect(packageRunner('npm', ['run', 'serve'])).toBeUndefined()
  })

  it('keeps the default for any other command', () => {
    const result = convertServer({name: 'local', entry: {command: 'node', args: ['server.js']}, origin: user})
    expect(result.ok && result.server.connect_timeout_seconds).toBeUndefined()
  })
})
