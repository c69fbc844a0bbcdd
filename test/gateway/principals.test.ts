// @tier integration
// Each principal's share of the gateway (SPEC §18, gateway.per_principal), tried to the breaking
// point through two replicas sharing Redis: programs at once, programs a minute (counted across
// replicas), and "allow for the rest of the session" answers that hold for their principal only.
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {outcomeOf, rawCall} from './calls.js'
import {Cluster, TOKENS} from './cluster.js'

const cluster = new Cluster()
let replicas: string[]
let counterFile: string
const PER_MINUTE = 4

const deletes = () =>
  existsSync(counterFile)
    ? readFileSync(counterFile, 'utf8')
        .split('\n')
        .filter((line) => line === 'delete_item').length
    : 0

const program = (url: string, token: string, code: string) => rawCall(url, token, {arguments: {code}})

beforeAll(async () => {
  const store = await cluster.redis()
  counterFile = join(cluster.dir, 'fx.calls')
  const fixture = fixtureCommand(['--name', 'fx', '--counter-file', counterFile])
  const config = cluster.config(
    {
      store,
      auth: {
        bearer: (['alice', 'bob', 'carol'] as const).map((principal) => ({
          principal,
          token: `\${${principal.toUpperCase()}_TOKEN}`,
        })),
      },
      per_principal: {max_concurrent_programs: 1, programs_per_minute: PER_MINUTE},
    },
    {
      servers: [{name: 'fx', ...fixture}],
      permissions: {claude_code: false, ask_unlisted: 'destructive', approval_timeout_seconds: 60},
    },
  )
  replicas = [(await cluster.replica(config)).url, (await cluster.replica(config)).url]
}, 90_000)

afterAll(async () => {
  await cluster.stopAll()
})

describe('gateway.per_principal', () => {
  it("refuses a principal's programs beyond max_concurrent_programs, sent together; others run", async () => {
    const slow = 'import asyncio\nawait asyncio.sleep(2)\nprint("slept")'
    const burst = await Promise.all([0, 1, 2].map(() => program(replicas[0]!, TOKENS.bob, slow)))
    const outcomes = burst.map(({answer}) => outcomeOf(answer))
    expect(outcomes.filter((o) => o.ok).map((o) => o.text)).toEqual([expect.stringContaining('slept')])
    const refused = outcomes.filter((o) => !o.ok)
    expect(refused).toHaveLength(2)
    for (const {text} of refused) {
      expect(text).toContain('you already have 1 program running on this gateway')
      expect(text).toContain('gateway.per_principal.max_concurrent_programs: 1')
      expect(text).toContain('nothing ran')
    }
    const metrics = await (await fetch(`${replicas[0]!}/metrics`)).text()
    expect(metrics).toMatch(/^ptc_programs_total\{outcome="limited"\} 2$/m)
    // Once it ended, the slot is free again.
    expect(outcomeOf((await program(replicas[0]!, TOKENS.bob, 'print("again")')).answer).ok).toBe(true)
  })

  it('refuses programs beyond programs_per_minute, counted across replicas; others still run', async () => {
    // All of them in one minute window of the count.
    const left = 60 - ((Date.now() / 1000) % 60)
    if (left < 20)
      await new Promise((done) => {
        setTimeout(done, left * 1000 + 100)
      })
    const results = []
    for (let i = 0; i <= PER_MINUTE; i++) {
      const {answer} = await program(replicas[i % 2]!, TOKENS.carol, `print("run ${i}")`)
      results.push(outcomeOf(answer))
    }
    expect(results.slice(0, PER_MINUTE).every((r) => r.ok)).toBe(true)
    const last = results[PER_MINUTE]!
    expect(last.ok).toBe(false)
    expect(last.text).toMatch(
      /you started 4 programs within a minute, the most allowed \(gateway\.per_principal\.programs_per_minute: 4\); nothing ran\. Call again in \d+ s/,
    )
    expect(last.text).not.toContain(`run ${PER_MINUTE}`)
    expect(outcomeOf((await program(replicas[1]!, TOKENS.alice, 'print("mine")')).answer).ok).toBe(true)
  })

  it('keeps "allow for the rest of the session" to the principal who answered', async () => {
    const code = (id: string) => `print(await mcp__fx__delete_item(id="${id}"))`
    const asked = await program(replicas[0]!, TOKENS.alice, code('a1'))
    expect(asked.answer.result?.resultType, JSON.stringify(asked.answer)).toBe('input_required')
    const {requestState, inputRequests} = asked.answer.result!
    const allowed = await rawCall(replicas[0]!, TOKENS.alice, {
      arguments: {code: code('a1')},
      requestState,
      inputResponses: {[Object.keys(inputRequests)[0]!]: {action: 'accept', content: {decision: 'session'}}},
    })
    expect(outcomeOf(allowed.answer).text).toContain('deleted a1')
    // Alice's next program is not asked again...
    const again = await program(replicas[0]!, TOKENS.alice, code('a2'))
    expect(outcomeOf(again.answer).text, JSON.stringify(again.answer)).toContain('deleted a2')
    expect(deletes()).toBe(2)
    // ...but bob's is: her answer is not his.
    const bobs = await program(replicas[0]!, TOKENS.bob, code('b1'))
    expect(bobs.answer.result?.resultType, JSON.stringify(bobs.answer)).toBe('input_required')
    expect(deletes()).toBe(2)
  })
})
