// @tier integration
/**
 * The npm package runs as installed (SPEC §19): the tarball of a fresh clone (prepack builds it),
 * `npm install --ignore-scripts` into an empty directory, and with a fresh HOME `ptc-mcp --version`
 * answers in under a second, `run` runs a program, `serve` serves over stdio; no devDependency is
 * installed, and the size the README states is the size measured.
 */
import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {execFileSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type Finished, spawnCollect} from '../helpers/processes.js'

const ROOT = resolve(import.meta.dirname, '../..')
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>
}

let dir: string
let app: string
let bin: string
let env: Record<string, string>

async function succeed(command: string, args: string[], options: {cwd: string; env: Record<string, string>}) {
  const result: Finished = await spawnCollect(command, args, {...options, timeoutMs: 300_000}).done
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${result.code}:\n${result.stderr}`)
  return result
}

/** Every package the install put in place, nested ones included (from npm's lockfile), by name. */
function installedPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>
  }
  return Object.keys(lock.packages)
    .filter((path) => path !== '')
    .map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
}

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-installed-')))
  const base = {...(process.env as Record<string, string>)}
  for (const name of ['PTC_MCP_CONFIG', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'npm_config_prefix'])
    delete base[name]
  // A fresh clone of what is committed; the dependencies already installed stand in for `npm ci`.
  const clone = join(dir, 'clone')
  await succeed('git', ['clone', '--quiet', '--no-hardlinks', ROOT, clone], {cwd: dir, env: base})
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir')
  const packed = await succeed('npm', ['pack', '--json', '--pack-destination', dir], {cwd: clone, env: base})
  const [{filename}] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{filename: string}]

  // An empty directory and a fresh HOME; npm keeps the machine's cache, so the install needs no network.
  app = join(dir, 'app')
  const home = join(dir, 'home')
  mkdirSync(app)
  mkdirSync(home)
  const cache = execFileSync('npm', ['config', 'get', 'cache'], {encoding: 'utf8'}).trim()
  env = {...base, HOME: home, npm_config_cache: cache}
  const args = [
    'install',
    '--ignore-scripts',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    join(dir, filename),
  ]
  await succeed('npm', args, {cwd: app, env})
  bin = join(app, 'node_modules', '.bin', 'ptc-mcp')
}, 600_000)

afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('the package as installed from its tarball', () => {
  it('installs no devDependency', () => {
    const installed = installedPackages()
    expect(installed).toContain('ptc-mcp')
    expect(installed.filter((name) => name in PKG.devDependencies)).toEqual([])
  })

  it('answers --version in under a second', async () => {
    const times: number[] = []
    for (let i = 0; i < 5; i++) {
      const started = performance.now()
      const result = await succeed(bin, ['--version'], {cwd: app, env})
      times.push(performance.now() - started)
      expect(result.stdout).toMatch(/^ptc-mcp\/\d+\.\d+\.\d+ /)
    }
    // The fastest of five: the machine's load adds to a run, never takes away.
    expect(Math.min(...times)).toBeLessThan(1000)
  })

  it('runs a program', async () => {
    const program = join(app, 'one.py')
    writeFileSync(program, 'print(1)\n')
    const result = await succeed(bin, ['run', program], {cwd: app, env})
    expect(result.stdout).toMatch(/^\[Script executed successfully\]\n1\n$/)
  })

  it("runs the first example of run --help, from the package's own examples", async () => {
    const help = await succeed(bin, ['run', '--help'], {cwd: app, env})
    const line = help.stdout
      .slice(help.stdout.indexOf('EXAMPLES'))
      .split('\n')
      .map((text) => text.trim())
      .find((text) => text.startsWith('$ ptc-mcp run '))
    expect(line).toBeDefined()
    const result = await succeed('sh', ['-c', line!.replace(/^\$ ptc-mcp /, `${bin} `)], {cwd: app, env})
    expect(result.stdout).toContain('[Script executed successfully]')
  })

  it('serves over stdio', async () => {
    const client = new Client({name: 'package-test', version: '1.0.0'})
    await client.connect(new StdioClientTransport({command: bin, args: ['serve'], env, cwd: app}))
    try {
      const {tools} = await client.listTools()
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'execute_program',
        'inspect_tool',
        'list_callable_tools',
      ])
      const result = await client.callTool({name: 'execute_program', arguments: {code: 'print(6 * 7)'}})
      expect(result.isError).not.toBe(true)
      expect(JSON.stringify(result.content)).toContain('42')
    } finally {
      await client.close()
    }
  })

  it('is the size the README says', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const stated = readme.match(/installs (\d+) packages, (\d+) MB/)
    expect(stated, 'the README states the install size as "installs N packages, M MB"').not.toBeNull()
    const packages = installedPackages().length
    const megabytes = Number(
      execFileSync('du', ['-sm', join(app, 'node_modules')], {encoding: 'utf8'}).split('\t')[0],
    )
    // Within a fifth: a dependency's patch release moves it a little, a new dependency more.
    expect(Math.abs(packages - Number(stated![1])) / packages).toBeLessThan(0.2)
    expect(Math.abs(megabytes - Number(stated![2])) / megabytes).toBeLessThan(0.2)
  })
})
