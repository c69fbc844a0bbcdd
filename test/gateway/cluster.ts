// Starts what the gateway tests run against, as it would run: Debian's redis-server and haproxy and
// replicas of the built `ptc-mcp serve --http`, each on an ephemeral loopback port. Every process is
// killed by stopAll() (the suites' afterAll).
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {stringify} from 'yaml'

import {BIN} from '../helpers/serve.js'

export const TOKENS = {
  alice: 'alice-0123456789abcdef',
  bob: 'bob-0123456789abcdef00',
  carol: 'carol-0123456789abcdef',
}
const HAPROXY_EXAMPLE = resolve(import.meta.dirname, '../../examples/gateway/haproxy.cfg')

export interface Started {
  proc: ChildProcess
  output(): string
  kill(signal?: NodeJS.Signals): Promise<void>
}

export class Cluster {
  readonly dir = mkdtempSync(join(tmpdir(), 'ptc-gateway-'))
  private readonly started: Started[] = []

  /** A port free now on 127.0.0.1. */
  async freePort(): Promise<number> {
    const server = createServer()
    await new Promise<void>((done) => {
      server.listen(0, '127.0.0.1', done)
    })
    const {port} = server.address() as {port: number}
    await new Promise((done) => {
      server.close(done)
    })
    return port
  }

  async redis(): Promise<string> {
    const port = await this.freePort()
    const redis = this.spawn('/usr/bin/redis-server', [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      this.dir,
    ])
    await waitFor(redis, /Ready to accept connections/, 10_000)
    return `redis://127.0.0.1:${port}`
  }

  /** Writes a config for replicas: the two principals' tokens from the environment, `store`. */
  config(gateway: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
    const path = join(this.dir, `config-${this.started.length}.yaml`)
    const config = {
      servers: [],
      permissions: {claude_code: false, ask_unlisted: false},
      execution: {warm_pool: 0, timeout_seconds: 30},
      ...extra,
      gateway: {
        auth: {
          bearer: [
            {principal: 'alice', token: '${ALICE_TOKEN}'},
            {principal: 'bob', token: '${BOB_TOKEN}'},
          ],
        },
        ...gateway,
      },
    }
    writeFileSync(path, stringify(config))
    return path
  }

  /** Starts `serve --http` on a free port, `env` added; resolves with its base URL once it listens. */
  async replica(
    configPath: string,
    port = 0,
    env: Record<string, string> = {},
  ): Promise<{url: string; process: Started}> {
    const tmp = join(this.dir, `tmp-${this.started.length}`)
    mkdirSync(tmp)
    const replica = this.spawn(
      process.execPath,
      [BIN, 'serve', '--http', '--port', String(port), '--config', configPath],
      {
        ...(process.env as Record<string, string>),
        ALICE_TOKEN: TOKENS.alice,
        BOB_TOKEN: TOKENS.bob,
        CAROL_TOKEN: TOKENS.carol,
        TMPDIR: tmp,
        PTC_MCP_LOG_LEVEL: 'warn',
        PTC_MCP_CLAUDE_MANAGED_DIR: join(this.dir, 'managed'),
        ...env,
      },
    )
    const line = await waitFor(replica, /listening on (http:\/\/[\d.]+:\d+)\/mcp/, 20_000)
    return {url: line[1]!, process: replica}
  }

  /** HAProxy with examples/gateway/haproxy.cfg, its frontend and servers moved to these ports. */
  async haproxy(replicas: string[]): Promise<string> {
    const port = await this.freePort()
    let config = readFileSync(HAPROXY_EXAMPLE, 'utf8').replace(
      /bind 127\.0\.0\.1:\d+/,
      `bind 127.0.0.1:${port}`,
    )
    config = config.replaceAll(/^\s*server replica.*\n/gm, '')
    config += replicas.map((url, i) => `  server replica${i + 1} ${new URL(url).host}\n`).join('')
    const path = join(this.dir, 'haproxy.cfg')
    writeFileSync(path, config)
    this.spawn('/usr/sbin/haproxy', ['-db', '-f', path])
    const url = `http://127.0.0.1:${port}`
    const deadline = Date.now() + 15_000
    for (;;) {
      const ready = await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      )
      if (ready) return url
      if (Date.now() > deadline)
        throw new Error(`haproxy did not become ready:\n${this.started.at(-1)!.output()}`)
      await sleep(200)
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.started.map((started) => started.kill('SIGKILL')))
    rmSync(this.dir, {recursive: true, force: true})
  }

  private spawn(command: string, args: string[], env?: Record<string, string>): Started {
    const proc = spawn(command, args, {stdio: ['ignore', 'pipe', 'pipe'], env})
    let output = ''
    const collect = (chunk: string) => {
      output += chunk
    }
    proc.stdout!.setEncoding('utf8').on('data', collect)
    proc.stderr!.setEncoding('utf8').on('data', collect)
    const exited = new Promise<void>((done) => {
      proc.once('exit', () => done())
    })
    const started: Started = {
      proc,
      output: () => output,
      async kill(signal = 'SIGKILL') {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
        await exited
      },
    }
    this.started.push(started)
    return started
  }
}

async function waitFor(started: Started, pattern: RegExp, ms: number): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms
  for (;;) {
    const match = pattern.exec(started.output())
    if (match) return match
    if (started.proc.exitCode !== null || Date.now() > deadline)
      throw new Error(`${pattern} never came:\n${started.output()}`)
    await sleep(50)
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => {
    setTimeout(done, ms)
  })
}
