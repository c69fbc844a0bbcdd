// The --steps view (opt-in): where print(1)'s time goes after a 300 ms pause, step by step, and
// the floor's (list_callable_tools with server) beside it. Its own ptc-mcp, with PTC_MCP_STEPS=1
// (the SPEC rows measure serve without it); the client's send and receive times frame serve's.
import {setTimeout as sleep} from 'node:timers/promises'

import type {Steps} from '../../src/shared/steps.js'
import type {Connection} from '../lib/client.js'

import {stepClock} from '../../src/shared/steps.js'
import {startPtc} from '../lib/ptc-mcp.js'
import {type Scenario} from '../lib/scenario.js'
import {stepMedians, stepsLines} from '../lib/steps.js'
import {PAUSE_MS} from './trivial-pause.js'

/** A tool call framed by the client's own steps, and serve's steps in between. */
async function timedSteps(
  connection: Connection,
  name: string,
  args: Record<string, unknown>,
): Promise<Steps> {
  const before = stepsLines(connection.stderr()).length
  const sent = stepClock()
  const result = await connection.client.callTool({name, arguments: args})
  const received = stepClock()
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
  // The line is written just after the answer: it may arrive a moment later.
  for (let i = 0; i < 100 && stepsLines(connection.stderr()).length === before; i++) await sleep(5)
  const serve = stepsLines(connection.stderr())[before]
  if (!serve) throw new Error(`serve printed no steps for ${name} (PTC_MCP_STEPS=1)`)
  return [['client sent', sent], ...serve, ['client received', received]]
}

export const steps: Scenario = {
  name: 'steps',
  async run(bench) {
    const downstream = bench.downstreams[0]!
    const serve = await startPtc({
      label: 'steps',
      downstreams: [downstream],
      dir: bench.dir('steps'),
      env: {PTC_MCP_STEPS: '1'},
    })
    try {
      const program: Steps[] = []
      const floor: Steps[] = []
      await timedSteps(serve.connection, 'execute_program', {code: 'print(1)'})
      for (let i = 0; i < bench.reps(30, 5); i++) {
        await sleep(PAUSE_MS)
        floor.push(await timedSteps(serve.connection, 'list_callable_tools', {server: downstream.name}))
        await sleep(PAUSE_MS)
        program.push(await timedSteps(serve.connection, 'execute_program', {code: 'print(1)'}))
      }
      bench.results.extra.steps = {
        downstream: downstream.name,
        program: stepMedians(program),
        floor: stepMedians(floor),
        samples: {program, floor},
      }
      bench.log('steps done')
    } finally {
      await serve.close()
    }
  },
}
