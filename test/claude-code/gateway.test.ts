// @tier claude-code
/**
 * The real Claude Code through the team gateway (SPEC §18): registered with
 * `claude mcp add --transport http URL --header "Authorization: Bearer ..."`, it connects to a
 * `serve --http` replica, reads the servers' catalogue in ptc-mcp's instructions, and runs a program
 * that calls a downstream server's tool; the gateway counts the program. With a wrong token it gets
 * 401, and nothing runs.
 */
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {Cluster, TOKENS} from '../gateway/cluster.js'
import {ERAS, runClaudeSession, runId, type Session, SESSION_TIMEOUT_MS} from './claude-session.js'

const TIMEOUT_MS = SESSION_TIMEOUT_MS + 50_000
const cluster = new Cluster()
let url: string
let current: Session | undefined

beforeAll(async () => {
  const config = cluster.config({}, {servers: [{name: 'fx', ...fixtureCommand(['--name', 'fx'])}]})
  ;({url} = await cluster.replica(config))
}, 60_000)

afterEach(async () => {
  await current?.cleanup()
  current = undefined
})

afterAll(async () => {
  await cluster.stopAll()
})

const registered = (token: string) => [
  '--transport',
  'http',
  `${url}/mcp`,
  '--header',
  `Authorization: Bearer ${token}`,
]

async function programsCounted(): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  return [...text.matchAll(/^ptc_programs_total\{outcome="\w+"\} (\d+)$/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  )
}

/** Everything the model was shown in the main conversation's first request. */
function firstRequestText(session: Session): string {
  const [first] = session.api.mainRequests()
  return JSON.stringify(first ?? {})
}

describe.each(ERAS)('Claude Code through the gateway over HTTP, protocol %s', (era) => {
  it(
    'runs a program through `serve --http` with a bearer token, the catalogue in its instructions',
    async () => {
      const before = await programsCounted()
      current = await runClaudeSession({
        era,
        register: registered(TOKENS.alice),
        programs: () => ['print(await mcp__fx__echo(text="through the gateway"))'],
      })
      const s = current
      expect.soft(s.era, `negotiated revision; Claude Code's log about ptc:\n${s.ptcDebug()}`).toBe(era)
      const result = s.api.toolResult(runId(1))
      expect(
        result,
        `no tool_result; Claude Code printed:\n${s.claude.stdout}\n${s.claude.stderr}\n${s.ptcDebug()}`,
      ).toBeDefined()
      expect(result!.text).toContain('through the gateway')
      // The servers' catalogue reached the model from the first turn, as from stdio serve.
      const shown = firstRequestText(s)
      expect(shown).toContain('Servers (list_callable_tools names their tools')
      expect(shown).toMatch(/- fx \(\d+ tools\)/)
      expect(await programsCounted()).toBe(before + 1)
    },
    TIMEOUT_MS,
  )
})

describe('Claude Code with a wrong token', () => {
  it(
    'is refused with 401, and nothing runs',
    async () => {
      const before = await programsCounted()
      current = await runClaudeSession({
        era: '2026-07-28',
        register: registered('not-the-token-of-anyone'),
        programs: () => ['print("must not run")'],
      })
      const s = current
      expect(s.era).toBeUndefined()
      expect(s.api.toolResult(runId(1))?.text ?? '').not.toContain('must not run')
      expect(await programsCounted()).toBe(before)
      const metrics = await (await fetch(`${url}/metrics`)).text()
      expect(metrics).toMatch(/^ptc_http_requests_total\{status="401"\} [1-9]\d*$/m)
    },
    TIMEOUT_MS,
  )
})
