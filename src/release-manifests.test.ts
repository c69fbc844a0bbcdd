// @tier unit
/**
 * The files that describe ptc-mcp to the places it is got from (SPEC §19) agree with package.json:
 * the MCP registry's server.json, the Claude Code plugin and its marketplace, and the plugin's
 * build. A release changes package.json's version; these follow, or this fails.
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '..')
const read = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Record<string, unknown>

const pkg = read('package.json') as {name: string; version: string; mcpName: string; license: string}

interface RegistryPackage {
  registryType: string
  identifier: string
  version: string
  transport: {type: string}
  packageArguments: Array<{type: string; value: string}>
  environmentVariables: Array<{name: string; description: string}>
}

/** Every TypeScript source of the product (not its tests), as one text. */
function productSources(dir = join(ROOT, 'src')): string {
  return readdirSync(dir, {recursive: true, encoding: 'utf8'})
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n')
}

describe('server.json (the MCP registry)', () => {
  const server = read('server.json') as {
    name: string
    version: string
    description: string
    packages: RegistryPackage[]
  }

  it("has package.json's version, for the server and for its npm package", () => {
    expect(server.version).toBe(pkg.version)
    expect(server.packages.map((entry) => entry.version)).toEqual([pkg.version])
  })

  it("names package.json's package, run with serve over stdio, under the name package.json claims", () => {
    const [entry] = server.packages
    expect(entry).toMatchObject({registryType: 'npm', identifier: pkg.name, transport: {type: 'stdio'}})
    expect(entry!.packageArguments).toEqual([{type: 'positional', value: 'serve'}])
    expect(server.name).toBe(pkg.mcpName)
    expect(server.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/)
    // The registry refuses a longer one.
    expect(server.description.length).toBeLessThanOrEqual(100)
  })

  it('lists only environment variables the product reads, and the config and log level among them', () => {
    const names = server.packages[0]!.environmentVariables.map((variable) => variable.name)
    expect(names).toEqual(expect.arrayContaining(['PTC_MCP_CONFIG', 'PTC_MCP_LOG_LEVEL']))
    const sources = productSources()
    expect(names.filter((name) => !sources.includes(`'${name}'`) && !sources.includes(`.${name}`))).toEqual(
      [],
    )
  })
})

describe('the Claude Code plugin', () => {
  it("has package.json's name, version and license", () => {
    expect(read('.claude-plugin/plugin.json')).toMatchObject({
      name: pkg.name,
      version: pkg.version,
      license: pkg.license,
    })
    expect(read('plugin/package.json')).toMatchObject({name: pkg.name, version: pkg.version})
  })

  it('is the one plugin of its marketplace, found at the repository root', () => {
    const marketplace = read('.claude-plugin/marketplace.json') as {
      plugins: Array<{name: string; source: string}>
    }
    expect(marketplace.plugins).toEqual([expect.objectContaining({name: pkg.name, source: './'})])
  })

  it("starts serve from the plugin's own committed build", () => {
    const plugin = read('.claude-plugin/plugin.json') as {mcpServers: string}
    const {mcpServers} = read(plugin.mcpServers) as {
      mcpServers: Record<string, {command: string; args: string[]}>
    }
    const server = mcpServers[pkg.name]!
    expect(server.command).toBe('node')
    const [script, ...rest] = server.args
    expect(script).toMatch(/^\$\{CLAUDE_PLUGIN_ROOT\}\//)
    expect(existsSync(join(ROOT, script!.replace('${CLAUDE_PLUGIN_ROOT}', '')))).toBe(true)
    expect(rest).toEqual(['serve'])
  })
})
