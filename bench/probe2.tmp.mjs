import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {writeFileSync} from 'node:fs'
const cfg = '/tmp/b/cfg.yaml'
writeFileSync(cfg, `servers: []\nexecution:\n  sandbox: ${process.env.SB ?? 'auto'}\n  warm_pool: ${process.env.WP ?? 1}\n`)
for (let i=0;i<3;i++){
const t = new StdioClientTransport({command: process.execPath, args: ['/work/main/bin/run.js', 'serve', '--config', cfg, '--log-level', 'debug'], stderr: 'inherit', cwd: '/work/main'})
const c = new Client({name: 'b', version: '1'}, {versionNegotiation: {mode: 'auto'}})
let t0 = performance.now()
await c.connect(t)
console.log('connected', performance.now() - t0)
await c.listTools()
console.log('start->list', performance.now() - t0)
await c.close()
}
