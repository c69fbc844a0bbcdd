// @tier integration
// A config entry that cannot be used is said in list_callable_tools as a config error, apart from
// servers that are down and being retried: nothing retries it, the file must be fixed.
import {resolve} from 'node:path'
import {afterEach, expect, it} from 'vitest'

import {UNUSABLE_ENTRIES_PREFIX} from '../../src/mcp/server.js'
import {type RawServe, resultText, startRawServe, toolResult} from '../helpers/json-rpc.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'

const FINANCE_SERVER = resolve(import.meta.dirname, '../../examples/finance-server.js')

let setup: ServeSetup | undefined
let serve: RawServe | undefined

afterEach(async () => {
  if (serve) {
    serve.child.stdin.end()
    await serve.exited
  }
  setup?.cleanup()
})

it('list_callable_tools names an unusable entry under config errors, not as reconnecting', async () => {
  setup = prepareServe({
    servers: [
      {name: 'finance', command: process.execPath, args: [FINANCE_SERVER]},
      {name: 'bad-port', transport: 'http', url: 'http://127.0.0.1:6000/mcp'},
    ],
    execution: {warm_pool: 0},
  })
  serve = await startRawServe(setup)
  const response = await serve.callTool('list_callable_tools', {})
  expect(JSON.parse(resultText(response))).toContain('mcp__finance__list_companies')
  const lines = (toolResult(response).content ?? []).slice(1).map((item) => item.text ?? '')
  expect(lines).toEqual([
    `${UNUSABLE_ENTRIES_PREFIX}bad-port: invalid config entry (servers[1].url: port 6000 is one fetch never connects to (a blocked port of the Fetch standard): serve the endpoint on another port); fix it in ${setup.configPath}`,
  ])
  expect(lines.join('\n')).not.toContain('reconnecting')
})
