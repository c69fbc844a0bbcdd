// @tier unit
import {existsSync} from 'node:fs'
import {isAbsolute} from 'node:path'
import {describe, expect, it} from 'vitest'

import {configIssuesError, formatIssues, formatPath, toConfigIssues} from './issues.js'
import {configSchema} from './schema.js'

/** The config issues of `raw`, phrased. */
function issuesOf(raw: unknown) {
  const result = configSchema.safeParse(raw, {reportInput: true})
  return result.success ? [] : toConfigIssues(result.error.issues)
}

describe('formatIssues', () => {
  it('puts the file first, then one path: message line per issue, sections in file order', () => {
    expect(
      formatIssues(
        [
          {path: ['execution', 'trace'], message: 'c'},
          {path: ['servers', 2, 'url'], message: 'b'},
          {path: ['servers', 0], message: 'a'},
        ],
        '/x/config.yaml',
      ),
    ).toBe('Invalid config /x/config.yaml:\n  servers[0]: a\n  servers[2].url: b\n  execution.trace: c')
  })

  it('quotes keys that are not plain words', () => {
    expect(formatPath(['servers', 0, 'headers', 'X-Api-Key'])).toBe('servers[0].headers.X-Api-Key')
    expect(formatPath(['servers', 0, 'env', 'a.b c'])).toBe('servers[0].env["a.b c"]')
    expect(formatPath([])).toBe('(top level)')
  })
})

describe('configIssuesError', () => {
  it("names where the installed package's config.schema.json is, as the line that points an editor at it", () => {
    const {suggestion} = configIssuesError([{path: ['servers', 0], message: 'a'}], '/x/config.yaml')
    const schema = /# yaml-language-server: \$schema=(\S+)$/.exec(suggestion ?? '')?.[1]
    expect(schema, suggestion).toBeDefined()
    expect(isAbsolute(schema!)).toBe(true)
    expect(schema!.endsWith('/config.schema.json')).toBe(true)
    expect(existsSync(schema!)).toBe(true)
    expect(suggestion).toMatch(/^Correct these entries in the file\. /) // after a "Fix:" label
  })
})

describe('toConfigIssues', () => {
  it("says how to write servers brought over in Claude's shape (a mapping of name to server)", () => {
    expect(issuesOf({servers: {fs: {command: 'npx', args: ['-y', 'x']}}})).toEqual([
      {
        path: ['servers'],
        message:
          'expected a list, got a mapping: write each server as a list item ("- name: fs", then its command and args below it), or convert a Claude config with "ptc-mcp init --from FILE"',
      },
    ])
    expect(issuesOf({servers: 'fs'})).toEqual([{path: ['servers'], message: 'expected a list, got a string'}])
  })

  it("compares an unknown key with the keys of the mapping it is in, a server's oauth too", () => {
    const server = {name: 'r', transport: 'http', url: 'https://x.example'}
    expect(issuesOf({servers: [{...server, oauth: {client: 'x'}}]})).toEqual([
      {path: ['servers', 0, 'oauth', 'client'], message: 'unknown key (did you mean "client_id"?)'},
    ])
    expect(issuesOf({servers: [{...server, oauth: {zzz: 1}}]})).toEqual([
      {
        path: ['servers', 0, 'oauth', 'zzz'],
        message: 'unknown key (expected one of client_id, client_secret, scopes, callback_port)',
      },
    ])
    expect(issuesOf({mcpServers: []})).toEqual([
      {path: ['mcpServers'], message: 'unknown key (did you mean "servers"?)'},
    ])
    expect(issuesOf({servers: [{...server, transport: 'sse', command: 'x'}]})).toEqual([
      {
        path: ['servers', 0, 'command'],
        message: 'unknown key for a sse server (command is for stdio servers: is transport set?)',
      },
    ])
  })
})
