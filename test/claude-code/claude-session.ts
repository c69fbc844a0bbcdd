import {spawn} from 'node:child_process'
// One `claude -p` session of the real Claude Code (npm @anthropic-ai/claude-code) against the fake
// Messages API, with ptc-mcp registered through `claude mcp add` and running the built CLI. Each
// session has its own directory: HOME, the project (cwd), the downstream filesystem server's data,
// the ptc-mcp config, Claude Code's debug log (where the negotiated protocol revision is read) and,
// when asked for, an Elicitation hook and its log. Nothing is left running: whatever still mentions
// the session's directory after Claude Code exits is killed and reported.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {vi} from 'vitest'
import {stringify} from 'yaml'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {commandLine, type Finished, spawnCollect} from '../helpers/processes.js'
import {BIN} from '../helpers/serve.js'
import {CLAUDE_BIN_DIR, testDependency} from '../helpers/test-deps.js'
import {type FakeMessagesApi, selectTool, startFakeMessagesApi, type Turn} from './fake-messages-api.js'

export const CLAUDE = join(CLAUDE_BIN_DIR, 'claude')
const HOOK = join(import.meta.dirname, 'elicitation-hook.mjs')
const SERVERS = {
  fs: testDependency('@modelcontextprotocol/server-filesystem/dist/index.js'),
  everything: testDependency('@modelcontextprotocol/server-everything/dist/index.js'),
  memory: testDependency('@modelcontextprotocol/server-memory/dist/index.js'),
  /** Our fixture server (as `slow`), taking 10 s to start. */
  slow: '',
}
/** How long the `slow` server takes to start. */
export const SLOW_START_MS = 10_000

/** The protocol revisions Claude Code speaks: its default (when the probe is answered in time) and legacy. */
export const ERAS = ['2026-07-28', '2025-11-25'] as const
export type Era = (typeof ERAS)[number]

/** Bound on one `claude -p` run (then SIGKILL): a few seconds normally, far more on a loaded machine. */
export const SESSION_TIMEOUT_MS = 100_000

/** ptc-mcp's name in Claude Code: its tools are `mcp__ptc__<tool>`. */
export const PTC = 'ptc'
export const EXECUTE = `mcp__${PTC}__execute_program`

export interface SessionOptions {
  /** Which revision Claude Code is to use: 2025-11-25 is forced with MCP_PROTOCOL_NEGOTIATION=legacy. */
  era: Era
  /**
   * The programs the scripted model runs, one execute_program call each (ids `toolu_run_1`, ...),
   * given the data directory the downstream filesystem server serves.
   */
  programs: (dataDir: string) => string[]
  /**
   * Downstream servers in ptc-mcp's config: `fs` (server-filesystem on the data directory),
   * `everything`, `memory` (server-memory, its file in the data directory), `slow` (our fixture,
   * SLOW_START_MS to start).
   */
  servers?: Array<keyof typeof SERVERS>
  /** ptc-mcp's whole config instead (given the data directory); `servers` is then unused. */
  config?: (dataDir: string) => Record<string, unknown>
  /** The model's turns, instead of a ToolSearch for execute_program and one call per program. */
  turns?: (dataDir: string) => Turn[]
  /**
   * The model's first turn waits (at most FIRST_TURN_WAIT_MS) until Claude Code's debug log
   * matches this: e.g. until it has heard of a tool serve adds after its first answer, as a person
   * typing the first prompt would give it time to.
   */
  firstTurnAfter?: RegExp
  /** Files to create in the data directory before the session. */
  files?: Record<string, string>
  /** Installs an accepting Elicitation hook (user settings) answering these form properties. */
  hookAnswers?: Record<string, unknown>
  /** The project's `.claude/settings.json`. */
  projectSettings?: Record<string, unknown>
  /** Files to create in the project (Claude Code's and serve's working directory), by relative path. */
  projectFiles?: Record<string, string>
  /** Claude Code's --allowedTools. Default: execute_program. */
  allowedTools?: string[]
  /**
   * A HOME kept from one session to the next, as a user's is (with what Claude Code remembers of
   * its servers); default: a new one inside the session's directory.
   */
  home?: string
  /** More of Claude Code's environment (its stdio servers, serve among them, inherit it), e.g. MAX_MCP_OUTPUT_TOKENS. */
  env?: Record<string, string>
  /**
   * Keep Claude Code's stdin open (stream-json input, as an SDK host does) until `until` holds
   * for the requests the model received; then close it. Default: the prompt as an argument.
   */
  streamInput?: {until: (api: FakeMessagesApi) => boolean}
  /**
   * What follows `claude mcp add --scope user ptc` (e.g. `--transport http URL --header ...` for a
   * gateway). Default: the built CLI's `serve` with the session's config, over stdio.
   */
  register?: string[]
}

export interface HookRequest {
  mcp_server_name: string
  message: string
  requested_schema?: {properties?: Record<string, unknown>}
}

export interface Session {
  api: FakeMessagesApi
  /** The downstream filesystem server's directory (the programs' files). */
  dataDir: string
  projectDir: string
  configPath: string
  claude: Finished
  /** The revision Claude Code negotiated with ptc-mcp, from its debug log; undefined if it never connected. */
  era: string | undefined
  /** Milliseconds from Claude Code's spawn to its connection with ptc-mcp (serve's first answer). */
  connectedAfterMs: number | undefined
  /** Milliseconds from Claude Code's spawn of serve to that connection, as Claude Code logs it. */
  connectMs: number | undefined
  /** Claude Code logged that serve answered its `server/discover` probe after the bound (then: 2025-11-25). */
  probeAnsweredLate: boolean
  /** What the Elicitation hook was asked, in order. */
  hookRequests(): HookRequest[]
  /** Claude Code's debug lines about ptc-mcp (serve's stderr included), for failure messages. */
  ptcDebug(): string
  cleanup(): Promise<void>
}

/** The tool_use id of the n-th (1-based) program. */
export const runId = (n: number): string => `toolu_run_${n}`

function script(programs: string[]): Turn[] {
  return [
    selectTool(EXECUTE),
    ...programs.map((code, index) => ({toolUse: [{id: runId(index + 1), name: EXECUTE, input: {code}}]})),
    {text: 'All done.'},
  ]
}

/** ptc-mcp's config: the shipped defaults, and the downstream servers asked for. */
function ptcConfig(servers: Array<keyof typeof SERVERS>, dataDir: string): Record<string, unknown> {
  return {
    servers: servers.map((name) => {
      if (name === 'slow')
        return {name, ...fixtureCommand(['--name', name, '--delay-start-ms', `${SLOW_START_MS}`])}
      if (name === 'memory')
        return {
          name,
          command: process.execPath,
          args: [SERVERS.memory],
          env: {MEMORY_FILE_PATH: join(dataDir, 'memory.jsonl')},
        }
      return {name, command: process.execPath, args: name === 'fs' ? [SERVERS.fs, dataDir] : [SERVERS[name]]}
    }),
  }
}

/** What Claude Code's debug log says about the connection to ptc-mcp. */
export function readConnection(
  debugLog: string,
  spawnedAt: number,
): Pick<Session, 'connectedAfterMs' | 'connectMs' | 'era' | 'probeAnsweredLate'> {
  let era: string | undefined
  let connectedAfterMs: number | undefined
  let connectMs: number | undefined
  let probeAnsweredLate = false
  for (const line of debugLog.split('\n')) {
    const established = line.match(/MCP server "ptc": Connection established with capabilities: (\{.*\})\s*$/)
    if (established) {
      era = (JSON.parse(established[1]!) as {negotiatedProtocolVersion?: string}).negotiatedProtocolVersion
    }
    if (/MCP server "ptc": .*answered the server\/discover probe after/.test(line)) probeAnsweredLate = true
    const connected = line.match(/MCP server "ptc": Successfully connected .* in (\d+)ms/)
    if (connected && connectedAfterMs === undefined) {
      connectedAfterMs = Date.parse(line.slice(0, line.indexOf(' '))) - spawnedAt
      connectMs = Number(connected[1])
    }
  }
  return {era, connectedAfterMs, connectMs, probeAnsweredLate}
}

/** Live processes whose command line, working directory or environment names `dir`. */
function processesMentioning(dir: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const pid = Number(entry)
    if (pid === process.pid) continue
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue
      let cwd = ''
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`)
      } catch {
        // not ours to read
      }
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      let environ = ''
      try {
        environ = readFileSync(`/proc/${pid}/environ`, 'utf8')
      } catch {
        // not ours to read
      }
      if (cwd.startsWith(dir) || cmdline.includes(dir) || environ.includes(dir)) found.push(pid)
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/** Waits for every process of the session to end; kills and reports those that outlive the bound. */
async function endOfSession(dir: string, boundMs: number): Promise<string[]> {
  let left: number[] = []
  await vi
    .waitFor(
      () => {
        left = processesMentioning(dir)
        if (left.length > 0) throw new Error('still running')
      },
      {timeout: boundMs, interval: 100},
    )
    .catch(() => {})
  const described = left.map((pid) => `pid ${pid}: ${commandLine(pid)}`)
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone meanwhile
    }
  }
  return described
}

const PROMPT = 'Run the program.'
const STREAM_ARGS = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose']

/**
 * `claude -p` reading stream-json from a stdin held open: the prompt as one user message, stdin
 * closed once `done()` holds (checked every 200 ms) or at the timeout.
 */
async function streamSession(
  args: string[],
  options: {cwd: string; env: Record<string, string>; timeoutMs: number},
  done: () => boolean,
): Promise<Finished> {
  const child = spawn(CLAUDE, args, {cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  child.stdin.write(`${JSON.stringify({type: 'user', message: {role: 'user', content: PROMPT}})}\n`)
  const started = Date.now()
  const poll = setInterval(() => {
    if (done() || Date.now() - started > options.timeoutMs - 5000) {
      clearInterval(poll)
      child.stdin.end()
    }
  }, 200)
  return new Promise<Finished>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
    child.once('error', reject)
    child.once('close', (code) => {
      clearInterval(poll)
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    })
  })
}

function succeed(result: Finished, what: string): void {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}:\n${result.stdout}\n${result.stderr}`)
}

/** The environment Claude Code runs with: this process's, less what would point it elsewhere. */
function claudeEnv(home: string, apiUrl: string, era: Era): Record<string, string> {
  const env: Record<string, string> = {...(process.env as Record<string, string>)}
  // Nothing of a real Claude Code setup (a provider, a token, a config dir, a forced revision).
  const foreign =
    /^(ANTHROPIC_|CLAUDE_CODE_|CLAUDECODE|CLAUDE_CONFIG_DIR$|CLAUDE_AUTO_BACKGROUND_TASKS$|MAX_MCP_OUTPUT_TOKENS$|MCP_|PTC_MCP_)/
  for (const name of Object.keys(env)) if (foreign.test(name)) delete env[name]
  Object.assign(env, {
    HOME: home,
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-tests',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    // serve's stderr lands in Claude Code's debug log: enough to see what it did.
    PTC_MCP_LOG_LEVEL: 'info',
  })
  if (era === '2025-11-25') env.MCP_PROTOCOL_NEGOTIATION = 'legacy'
  return env
}

/**
 * Runs one `claude -p` session to its end. The caller reads the result and calls `cleanup()`
 * (which stops the fake API and removes the session's directory); processes are already ended
 * when this resolves, and a process that outlives Claude Code by more than 10 s fails the session.
 */
export async function runClaudeSession(options: SessionOptions): Promise<Session> {
  // realpath: processes report resolved paths (cwd), and the leak check compares them.
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-claude-')))
  const home = options.home ?? join(dir, 'home')
  const projectDir = join(dir, 'project')
  const dataDir = join(dir, 'data')
  for (const path of [home, projectDir, dataDir]) mkdirSync(path, {recursive: true})
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(dataDir, name), text)
  const configPath = join(dir, 'ptc-mcp.yaml')
  const config = options.config?.(dataDir) ?? ptcConfig(options.servers ?? ['fs'], dataDir)
  writeFileSync(configPath, stringify(config))
  const hookLog = join(dir, 'hook-log.jsonl')
  if (options.hookAnswers) {
    const answers = join(dir, 'hook-answers.json')
    writeFileSync(answers, JSON.stringify(options.hookAnswers))
    const command = [process.execPath, HOOK, answers, hookLog].map((part) => JSON.stringify(part)).join(' ')
    mkdirSync(join(home, '.claude'), {recursive: true})
    writeFileSync(
      join(home, '.claude', 'settings.json'),
      JSON.stringify({hooks: {Elicitation: [{hooks: [{type: 'command', command}]}]}}),
    )
  }
  for (const [name, text] of Object.entries(options.projectFiles ?? {})) {
    mkdirSync(dirname(join(projectDir, name)), {recursive: true})
    writeFileSync(join(projectDir, name), text)
  }
  if (options.projectSettings) {
    mkdirSync(join(projectDir, '.claude'))
    writeFileSync(join(projectDir, '.claude', 'settings.json'), JSON.stringify(options.projectSettings))
  }
  const debugLog = join(dir, 'claude-debug.log')
  const {firstTurnAfter} = options
  const api = await startFakeMessagesApi(
    options.turns?.(dataDir) ?? script(options.programs(dataDir)),
    firstTurnAfter && {beforeFirstTurn: async () => waitForLog(debugLog, firstTurnAfter)},
  )
  const cleanup = async (): Promise<void> => {
    await api.close()
    rmSync(dir, {recursive: true, force: true})
  }
  try {
    const env = {...claudeEnv(home, api.url, options.era), ...options.env}
    if (options.home) {
      // Registered by the previous session, with that session's config.
      await spawnCollect(CLAUDE, ['mcp', 'remove', '--scope', 'user', PTC], {cwd: projectDir, env}).done
    }
    succeed(
      await spawnCollect(
        CLAUDE,
        ['mcp', 'add', '--scope', 'user', PTC, ...registration(options, configPath)],
        {cwd: projectDir, env, timeoutMs: 60_000},
      ).done,
      'claude mcp add',
    )
    const spawnedAt = Date.now()
    const common = [
      '--allowedTools',
      (options.allowedTools ?? [EXECUTE]).join(','),
      '--permission-prompts',
      'none',
      '--debug-file',
      debugLog,
    ]
    const claude = options.streamInput
      ? await streamSession(
          [...STREAM_ARGS, ...common],
          {cwd: projectDir, env, timeoutMs: SESSION_TIMEOUT_MS},
          () => options.streamInput!.until(api),
        )
      : await spawnCollect(CLAUDE, ['-p', PROMPT, '--output-format', 'json', ...common], {
          cwd: projectDir,
          env,
          timeoutMs: SESSION_TIMEOUT_MS,
        }).done
    const leftRunning = await endOfSession(dir, 10_000)
    if (leftRunning.length > 0) {
      throw new Error(`still running after Claude Code exited (killed now):\n  ${leftRunning.join('\n  ')}`)
    }
    const debug = existsSync(debugLog) ? readFileSync(debugLog, 'utf8') : ''
    return {
      api,
      dataDir,
      projectDir,
      configPath,
      claude,
      ...readConnection(debug, spawnedAt),
      hookRequests: () =>
        existsSync(hookLog)
          ? readFileSync(hookLog, 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((line) => JSON.parse(line) as HookRequest)
          : [],
      ptcDebug: () =>
        debug
          .split('\n')
          .filter((line) => line.includes('"ptc"'))
          .join('\n'),
      cleanup,
    }
  } catch (error) {
    await endOfSession(dir, 0)
    await cleanup()
    throw error
  }
}

/** How `claude mcp add` reaches ptc-mcp: the session's `register`, or the built CLI's `serve` over stdio. */
function registration(options: SessionOptions, configPath: string): string[] {
  return options.register ?? ['--', process.execPath, BIN, 'serve', '--config', configPath]
}

/** How long the model's first turn may wait for `firstTurnAfter`; then it goes on, and the test sees why. */
const FIRST_TURN_WAIT_MS = 30_000

async function waitForLog(path: string, pattern: RegExp): Promise<void> {
  await vi
    .waitFor(
      () => {
        if (!existsSync(path) || !pattern.test(readFileSync(path, 'utf8')))
          throw new Error(`not yet: ${pattern}`)
      },
      {timeout: FIRST_TURN_WAIT_MS, interval: 50},
    )
    .catch(() => {})
}
