// Bytes that reach the client from execute_program: the text content and the structured content,
// for the bundled example programs and a 20-call filesystem task (server-filesystem from npm).
// Against the BUILT server: `npm run build && npx tsx bench/result-bytes.ts`.
import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {testDependency} from '../test/helpers/test-deps.js'
import {resultText} from './lib/client.js'
import {ROOT} from './lib/paths.js'

const work = mkdtempSync(join(tmpdir(), 'ptc-result-bytes-'))
const files = join(work, 'files')
mkdirSync(files)
for (let i = 0; i < 10; i++)
  writeFileSync(join(files, `note-${i}.txt`), `line of note ${i}\n`.repeat(200 + i))

const config = join(work, 'config.yaml')
writeFileSync(
  config,
  [
    'servers:',
    '  - name: finance',
    '    command: node',
    `    args: [${JSON.stringify(join(ROOT, 'examples/finance-server.js'))}]`,
    '  - name: fs',
    '    command: node',
    `    args: [${JSON.stringify(testDependency('@modelcontextprotocol/server-filesystem/dist/index.js'))}, ${JSON.stringify(files)}]`,
    // write_file declares destructiveHint: measured here without asking.
    'permissions:',
    '  ask_destructive: false',
    '',
  ].join('\n'),
)

const FS_TASK = `
import asyncio
root = ${JSON.stringify(files)}
names = [f"note-{i}.txt" for i in range(10)]
texts = await asyncio.gather(*[mcp__fs__read_text_file(path=f"{root}/{n}") for n in names])
sizes = {n: len(t["content"]) for n, t in zip(names, texts)}
await asyncio.gather(*[mcp__fs__write_file(path=f"{root}/copy-{n}", content=t["content"] * 4) for n, t in zip(names, texts)])
print("copied", len(names), "files,", sum(sizes.values()) * 4, "characters")
`

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [join(ROOT, 'bin/run.js'), 'serve', '--config', config],
  env: {...process.env, PTC_MCP_LOG_LEVEL: 'error'},
  stderr: 'ignore',
})
const client = new Client({name: 'result-bytes', version: '1.0.0'})
await client.connect(transport)
const programs: Array<[string, string]> = [
  ...['revenue-trend', 'ledger-summary', 'errors'].map((name): [string, string] => [
    `examples/${name}.py`,
    readFileSync(join(ROOT, 'examples/programs', `${name}.py`), 'utf8'),
  ]),
  ['filesystem task (20 calls)', FS_TASK],
]
try {
  for (const [label, code] of programs) {
    const result = await client.callTool({name: 'execute_program', arguments: {code}})
    const text = resultText(result)
    const structured = JSON.stringify(result.structuredContent ?? null)
    console.log(
      `${label.padEnd(28)} text ${String(Buffer.byteLength(text)).padStart(7)} B   structured ${String(Buffer.byteLength(structured)).padStart(7)} B`,
    )
  }
} finally {
  await client.close()
  rmSync(work, {force: true, recursive: true})
}
