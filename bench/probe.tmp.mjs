import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {writeFileSync} from 'node:fs'
const cfg = '/tmp/b/cfg.yaml'
writeFileSync(cfg, `servers: []\nexecution:\n  sandbox: ${process.env.SB ?? 'auto'}\n  warm_pool: ${process.env.WP ?? 1}\n`)
const t = new StdioClientTransport({command: process.execPath, args: ['/work/main/bin/run.js', 'serve', '--config', cfg], stderr: 'inherit', cwd: '/work/main'})
const c = new Client({name: 'b', version: '1'}, {versionNegotiation: {mode: 'auto'}})
let t0 = performance.now()
await c.connect(t)
await c.listTools()
console.log('start->list', performance.now() - t0)
const times = []
for (let i = 0; i < 40; i++) {
  const s = performance.now()
  const r = await c.callTool({name: 'execute_program', arguments: {code: 'print(1)'}})
  times.push(performance.now() - s)
  if (i === 0) console.log(JSON.stringify(r).slice(0, 300))
  await new Promise(r => setTimeout(r, 50))
}
times.sort((a, b) => a - b)
console.log('median', times[20], 'min', times[0], 'max', times.at(-1))
await c.close()
