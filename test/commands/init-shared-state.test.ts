// @tier integration
// init copies Claude Code's servers; it does not move them. A server that keeps state in a file then
// runs twice on that file: init warns, with the line that removes it from Claude Code.
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'

import {spawnCli} from '../helpers/serve.js'

const dir = mkdtempSync(join(tmpdir(), 'ptc-init-shared-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

it('init warns that a memory server would run twice on one MEMORY_FILE_PATH, and says how to stop that', async () => {
  const home = join(dir, 'home')
  const project = join(dir, 'project')
  mkdirSync(home)
  mkdirSync(project)
  const memoryFile = join(home, 'memory.json')
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({
      mcpServers: {
        memory: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: {MEMORY_FILE_PATH: memoryFile},
        },
        plain: {command: 'node', args: ['server.js']},
      },
    }),
  )
  const result = await spawnCli(['init'], {
    cwd: project,
    env: {HOME: home, XDG_CONFIG_HOME: join(home, '.config')},
  }).done
  expect(result.code, result.stderr).toBe(0)
  const flat = result.stdout.replaceAll(/\s+/g, ' ')
  expect(flat).toContain(
    `memory: warning: Claude Code also runs it, and both would write MEMORY_FILE_PATH=${memoryFile}: once ptc-mcp serves it, remove it there: \`claude mcp remove memory --scope user\``,
  )
  expect(flat).not.toContain('plain: warning')
})
