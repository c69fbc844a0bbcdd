import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {writeFileSync} from 'node:fs'
const cfg = '/tmp/b/cfg2.yaml'
writeFileSync(cfg, JSON.stringify({servers: [{name: 'bench', command: process.execPath, args: ['/work/main/bench/bench-server.js']}], execution: {sandbox: process.env.SB ?? 'auto', warm_pool: 1, max_tool_calls: 1000}}))
const t = new StdioClientTransport({command: process.execPath, args: [...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), '/work/main/bin/run.js', 'serve', '--config', cfg], stderr: 'inherit', cwd: '/work/main'})
const c = new Client({name: 'b', version: '1'})
await c.connect(t)
const code = process.env.CODE ?? 'import time\nt=time.perf_counter()\nfor i in range(300):\n    await mcp__bench__echo(text="x")\nprint((time.perf_counter()-t)*1000)'
for (let i = 0; i < Number(process.env.N ?? 5); i++) {
  const s = performance.now()
  const r = await c.callTool({name: 'execute_program', arguments: {code}})
  console.log((performance.now() - s).toFixed(1), r.structuredContent.output.trim().slice(0, 100), r.structuredContent.error)
  await new Promise(r => setTimeout(r, 300))
}
await c.close()
