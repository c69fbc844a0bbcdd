import {describe, expect, it} from 'vitest'

import {serversNamedBy} from './program-servers.js'

const SERVERS = ['fin', 'my-notes', 'github', 'git']

describe('the servers a program names', () => {
  it('takes the servers whose prefix appears, with their normalised spelling', () => {
    expect(
      serversNamedBy('r = await mcp__fin__query(q=1)\nawait mcp__my_notes__add(t="x")', SERVERS),
    ).toEqual(['fin', 'my-notes'])
  })

  it('tells a server from one whose name starts the same', () => {
    expect(serversNamedBy('await mcp__github__issues()', SERVERS)).toEqual(['github'])
    expect(serversNamedBy('await mcp__git__log()', SERVERS)).toEqual(['git'])
  })

  it('needs none for a program that calls no tool', () => {
    expect(serversNamedBy('print(1)', SERVERS)).toEqual([])
  })

  it.each(['list_callable_tools', 'inspect_tool', 'server_status'])(
    'takes every server when it uses %s',
    (helper) => {
      expect(serversNamedBy(`print(await ${helper}())`, SERVERS)).toEqual(SERVERS)
    },
  )

  it('takes none for the state helpers (they reach no server), nor for json.load', () => {
    expect(
      serversNamedBy(
        'import json\nawait store("k", json.load(open("x")))\nprint(await load("k"), await stored(), await forget("k"))',
        SERVERS,
      ),
    ).toEqual([])
  })
})
