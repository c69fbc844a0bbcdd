// @tier integration
// The first program of a session, sent the moment serve has answered initialize, calls a server
// that takes 8 s to start: the call waits for it and succeeds (SPEC §5), and list_callable_tools
// says the server is starting rather than unavailable.
import {afterAll, beforeAll, expect, it} from 'vitest'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {type RawServe, resultText, startRawServe, toolResult} from '../helpers/json-rpc.js'
import {execute} from '../helpers/serve-session.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'

const START_MS = 8000
let setup: ServeSetup
let serve: RawServe

beforeAll(async () => {
  const slow = fixtureCommand(['--name', 'slow', '--delay-start-ms', String(START_MS)])
  const quick = fixtureCommand(['--name', 'quick'])
  setup = prepareServe({
    servers: [
      {name: 'slow', ...slow},
      {name: 'quick', ...quick},
      {name: 'gone', command: 'ptc-mcp-no-such-command'},
    ],
    execution: {timeout_seconds: 60, warm_pool: 0},
  })
  serve = await startRawServe(setup)
}, 60_000)

afterAll(async () => {
  await serve?.kill()
  setup?.cleanup()
})

it('a call to a server still starting waits for it; the listing names it as starting', async () => {
  const started = performance.now()
  const code = 'print(await mcp__slow__add(a=1, b=2))\nprint(await mcp__quick__add(a=2, b=2))'
  const [answer, listing, status] = await Promise.all([
    serve.request(
      'tools/call',
      {name: 'execute_program', arguments: {code}, _meta: {progressToken: 'first'}},
      60_000,
    ),
    serve.callTool('list_callable_tools', {}),
    execute(
      serve,
      'print([s.get("starting") for s in await server_status() if s["name"] in ("slow", "gone")])',
    ),
  ])
  // server_status() tells a server still starting (and how long calls wait) from one that failed.
  expect(status.structured.output).toMatch(/^\['starting for \d+s, calls wait up to 30s', None\]\n$/)
  const run = toolResult(answer)
  expect(run.structuredContent?.ok, resultText(answer)).toBe(true)
  expect(run.structuredContent?.output).toBe("{'sum': 3}\n{'sum': 4}\n")
  // The wait shows in progress, so a client (and its user) sees why the call takes a while.
  const progress = serve.lines.all
    .filter((m) => m.method === 'notifications/progress')
    .map((m) => (m.params as {message?: string}).message)
  expect(progress).toContain("waiting for server 'slow' to finish starting (up to 30s)")
  expect(performance.now() - started).toBeGreaterThan(START_MS - 2000)

  const lines = (toolResult(listing).content ?? []).slice(1).map((item) => item.text)
  expect(JSON.parse(resultText(listing))).toEqual(expect.arrayContaining(['mcp__quick__add']))
  expect(lines).toEqual([
    expect.stringMatching(
      /^STARTING SERVERS \(their tools are listed once they connect; a call to one waits for it\): slow: starting for \d+s, calls wait up to 30s$/,
    ),
    expect.stringMatching(
      /^UNAVAILABLE SERVERS \(their tools are not listed; reconnecting\): gone: command not found/,
    ),
  ])
}, 60_000)

it('a call to a server that failed to start does not wait: it names the reason at once', async () => {
  const started = performance.now()
  const run = await execute(
    serve,
    'try:\n    await mcp__gone__add(a=1, b=2)\nexcept ToolError as e:\n    print(e.kind, e)',
  )
  expect(run.structured.output).toBe(
    "unavailable server 'gone' is not connected (command not found: ptc-mcp-no-such-command)\n",
  )
  // Far below the 30 s a wait for it would take.
  expect(performance.now() - started).toBeLessThan(20_000)
})
