import {readdirSync, readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'

const require = createRequire(import.meta.url)

/** The versions of a package the SDK's client bundles, from the paths its build leaves in comments. */
function bundledVersions(name: string): string[] {
  const dist = dirname(dirname(require.resolve('@modelcontextprotocol/client/validators/ajv')))
  const marker = new RegExp(`\\.pnpm/${name}@(\\d+\\.\\d+\\.\\d+)[/_]`, 'g')
  const versions = new Set<string>()
  for (const file of readdirSync(dist).filter((f) => f.endsWith('.mjs'))) {
    for (const match of readFileSync(join(dist, file), 'utf8').matchAll(marker)) versions.add(match[1]!)
  }
  return [...versions]
}

describe('the Ajv behind schema checks', () => {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    dependencies: Record<string, string>
  }

  it.each(['ajv', 'ajv-formats'])('%s is a direct dependency at the version the MCP SDK bundles', (name) => {
    const installed = (require(`${name}/package.json`) as {version: string}).version
    expect(bundledVersions(name)).toEqual([installed])
    expect(manifest.dependencies[name]).toBe(installed)
  })
})
