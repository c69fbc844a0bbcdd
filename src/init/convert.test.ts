// @tier unit
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

import type {ServerOrigin} from './sources.js'

import {serverSchema} from '../config/schema.js'
import {assignNames, convertServer} from './convert.js'

const user: ServerOrigin = {scope: 'user', path: '/home/me/.claude.json'}
const project: ServerOrigin = {scope: 'project', path: '/repo/.mcp.json', projectDir: '/repo'}
const desktop: ServerOrigin = {
  scope: 'claude-desktop',
  path: '/home/me/.config/Claude/claude_desktop_config.json',
}

const convert = (entry: unknown, origin: ServerOrigin = user, name = 'srv') =>
  convertServer({name, entry, origin})

function converted(entry: unknown, origin: ServerOrigin = user) {
  const result = convert(entry, origin)
  if (!result.ok) throw new Error(`expected a conversion, got: ${result.reason}`)
  return result
}

function skipReason(entry: unknown, origin: ServerOrigin = user): string {
  const result = convert(entry, origin)
  if (result.ok) throw new Error('expected the entry to be skipped')
  return result.reason
}

describe('convertServer', () => {
  it('keeps a stdio entry as written, ${VAR} references included', () => {
    const {server} = converted({
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: {GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_TOKEN}', DEBUG: 1},
    })
    expect(server).toEqual({
      name: 'srv',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: {GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_TOKEN}', DEBUG: '1'},
      connect_timeout_seconds: 120,
    })
    expect(serverSchema.safeParse(server).success).toBe(true)
  })

  it('starts a project server in its project directory, as Claude Code does', () => {
    expect(converted({command: 'node', args: ['./server.js']}, project).server).toMatchObject({cwd: '/repo'})
    expect(converted({command: 'node', args: ['./server.js']}, user).server).not.toHaveProperty('cwd')
  })

  it('maps http, streamable-http and sse entries', () => {
    const headers = {'X-Team': 'core'}
    expect(converted({type: 'http', url: 'https://a.example/mcp', headers}).server).toEqual({
      name: 'srv',
      transport: 'http',
      url: 'https://a.example/mcp',
      headers,
    })
    expect(converted({type: 'streamable-http', url: 'https://a.example/mcp'}).server.transport).toBe('http')
    expect(converted({type: 'sse', url: 'https://a.example/sse'}).server.transport).toBe('sse')
  })

  it('guesses the transport of a URL without a type, and says so', () => {
    const http = converted({url: 'https://a.example/mcp'})
    expect(http.server.transport).toBe('http')
    expect(http.notes.join(',')).toMatch(/assumed http/)
    expect(converted({url: 'https://a.example/sse?x=1'}).server.transport).toBe('sse')
  })

  it("keeps a server that signs in with OAuth, with Claude Code's oauth settings as ptc-mcp's", () => {
    const kept = converted({
      type: 'http',
      url: 'https://a.example/mcp',
      oauth: {clientId: 'c', callbackPort: 8123},
    })
    expect(kept.server).toEqual({
      name: 'srv',
      transport: 'http',
      url: 'https://a.example/mcp',
      headers: {},
      oauth: {client_id: 'c', callback_port: 8123},
    })
    expect(converted({type: 'sse', url: 'https://a.example/sse', oauth: {}}).server).toMatchObject({
      oauth: {},
    })
  })

  it('accepts a URL built from variables, which only the loader can check', () => {
    expect(converted({type: 'http', url: '${BASE_URL}/mcp'}).server).toMatchObject({url: '${BASE_URL}/mcp'})
  })

  it.each([
    [{type: 'ws', url: 'wss://a.example'}, /transport "ws" is not supported/],
    [{type: 'http', url: 'https://a.example', headersHelper: '/bin/h'}, /headersHelper/],
    [{type: 'http', url: 'https://a.example', oauth: 'yes'}, /"oauth" is not an object/],
    [{type: 'http'}, /without a "url"/],
    [{type: 'http', url: 'ftp://a.example'}, /not an http\(s\) URL/],
    [{type: 'stdio', args: ['x']}, /without a "command"/],
    [{args: ['x']}, /neither a "command"/],
    [{command: 'x', args: 'not a list'}, /"args" is not a list/],
    [{command: 'x', env: {A: {nested: true}}}, /"env" is not an object of strings/],
    [{command: 'x', disabled: true}, /disabled/],
    ['npx server', /not an object/],
  ])('skips an entry it cannot convert: %j', (entry, reason) => {
    expect(skipReason(entry)).toMatch(reason)
  })

  it.each([
    [{command: 'npx', args: ['-y', 'ptc-mcp', 'serve', '--config', '/c.yaml']}],
    [{command: 'npx', args: ['-y', 'ptc-mcp@0.1.0']}],
    [{command: 'ptc-mcp', args: ['serve']}],
    [{command: 'node', args: ['/usr/lib/node_modules/ptc-mcp/bin/run.js', 'serve']}],
    [{command: 'node', args: [fileURLToPath(new URL('../../bin/run.js', import.meta.url)), 'serve']}],
    [{command: 'python', args: ['-m', 'ptc_mcp']}],
  ])('skips an entry that runs ptc-mcp itself: %j', (entry) => {
    const result = convert(entry)
    expect(result).toMatchObject({ok: false, self: true})
  })

  it('does not take other servers for ptc-mcp', () => {
    expect(
      convert({command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', 'serve']}).ok,
    ).toBe(true)
  })

  it('escapes ${ from Claude Desktop, which expands nothing, and keeps it from Claude Code', () => {
    const entry = {command: 'node', env: {TEMPLATE: 'Hello ${name}'}}
    expect(converted(entry, desktop).server).toMatchObject({env: {TEMPLATE: 'Hello $${name}'}})
    expect(converted(entry, user).server).toMatchObject({env: {TEMPLATE: 'Hello ${name}'}})
  })
})

describe('assignNames', () => {
  it('makes names valid for ptc-mcp', () => {
    expect(assignNames(['My Files', 'github.com', 'ok_name-1', '★', ''])).toEqual([
      'My_Files',
      'github_com',
      'ok_name-1',
      'server',
      'server_2',
    ])
  })

  it('keeps names unique once tools are namespaced (- and _ are the same there)', () => {
    const names = assignNames(['my-srv', 'my_srv', 'my srv'])
    expect(names).toEqual(['my-srv', 'my_srv_2', 'my_srv_3'])
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]+$/)
  })
})
