// @tier claude-code
/**
 * The repository as a Claude Code plugin (SPEC §19), the way a user gets it: a fresh clone of the
 * committed HEAD (no node_modules, no dist/), `claude plugin validate --strict`, then
 * `claude plugin marketplace add <clone>` and `claude plugin install ptc-mcp@ptc-mcp` in a fresh
 * HOME with no network, and `claude mcp list` shows the plugin's server connected. Then the third
 * command of the README's first route, a `claude` session, runs a program through it (the scripted
 * model behind the fake Messages API).
 */
import {spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type Finished, spawnCollect} from '../helpers/processes.js'
import {CLAUDE} from './claude-session.js'
import {selectTool, startFakeMessagesApi} from './fake-messages-api.js'

const ROOT = join(import.meta.dirname, '..', '..')
/** The plugin's server as Claude Code names it, and its tools. */
const SERVER = 'plugin:ptc-mcp:ptc-mcp'
const EXECUTE = 'mcp__plugin_ptc-mcp_ptc-mcp__execute_program'

let dir: string
let clone: string
let home: string

/**
 * How a command is run with no network: in a new network namespace (as root, or in a user
 * namespace), else with every proxy variable pointing at a closed port.
 */
function offline(): {prefix: string[]; env: Record<string, string>} {
  for (const prefix of [
    ['unshare', '-n'],
    ['unshare', '-rn'],
  ]) {
    if (spawnSync(prefix[0]!, [...prefix.slice(1), 'true']).status === 0) return {prefix, env: {}}
  }
  const closed = 'http://127.0.0.1:9'
  return {prefix: [], env: {HTTPS_PROXY: closed, HTTP_PROXY: closed, https_proxy: closed, http_proxy: closed}}
}

function claudeEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {...(process.env as Record<string, string>)}
  for (const name of Object.keys(env)) {
    if (/^(ANTHROPIC_|CLAUDE_CODE_|CLAUDECODE|CLAUDE_CONFIG_DIR$|MCP_|PTC_MCP_)/.test(name)) delete env[name]
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ...extra,
  }
}

async function claudeOffline(args: string[]): Promise<Finished> {
  const {prefix, env} = offline()
  const [command, ...rest] = [...prefix, CLAUDE, ...args]
  const result = await spawnCollect(command!, [...rest], {cwd: dir, env: claudeEnv(env), timeoutMs: 60_000})
    .done
  expect(result.code, `claude ${args.join(' ')}:\n${result.stdout}\n${result.stderr}`).toBe(0)
  return result
}

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-plugin-')))
  clone = join(dir, 'clone')
  home = join(dir, 'home')
  mkdirSync(home)
  const cloned = spawnSync('git', ['clone', '--quiet', ROOT, clone], {encoding: 'utf8'})
  if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`)
})

afterAll(() => {
  rmSync(dir, {recursive: true, force: true})
})

describe('the repository as a Claude Code plugin', {timeout: 180_000}, () => {
  it('passes claude plugin validate --strict', async () => {
    const result = await claudeOffline(['plugin', 'validate', '--strict', clone])
    expect(result.stdout).toContain('Validation passed')
  })

  it('installs from a fresh clone with no network, and its server connects', async () => {
    await claudeOffline(['plugin', 'marketplace', 'add', clone])
    await claudeOffline(['plugin', 'install', 'ptc-mcp@ptc-mcp'])
    const list = await claudeOffline(['mcp', 'list'])
    expect(list.stdout).toMatch(
      new RegExp(`^${SERVER}: node \\S+/plugin/server/serve\\.cjs serve - ✔ Connected$`, 'm'),
    )
  })

  it('runs a program in a claude session through the installed plugin', async () => {
    const api = await startFakeMessagesApi([
      selectTool(EXECUTE),
      {toolUse: [{id: 'toolu_run_1', name: EXECUTE, input: {code: 'print(sum(range(10)))'}}]},
      {text: 'All done.'},
    ])
    try {
      const env = claudeEnv({ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-tests'})
      const args = [
        '-p',
        'Run it.',
        '--output-format',
        'json',
        '--allowedTools',
        EXECUTE,
        '--permission-prompts',
        'none',
      ]
      const claude = await spawnCollect(CLAUDE, args, {cwd: dir, env, timeoutMs: 100_000}).done
      expect(claude.code, claude.stderr).toBe(0)
      const result = api.toolResult('toolu_run_1')
      expect(result, 'the program was run').toBeDefined()
      expect(result!.isError).toBe(false)
      expect(result!.text).toContain('45')
    } finally {
      await api.close()
    }
  })
})
