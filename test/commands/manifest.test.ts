// @tier unit
import type {Command} from '@oclif/core'

// oclif.manifest.json is produced by the build and shipped: a stale one makes the installed CLI
// show old flags or miss a command. It must describe exactly the commands in src/commands.
import {readdirSync, readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'

const root = new URL('../..', import.meta.url)
const manifest = JSON.parse(readFileSync(new URL('oclif.manifest.json', root), 'utf8')) as {
  version: string
  commands: Record<string, {flags: Record<string, unknown>; args: Record<string, unknown>}>
}
// Topics are folders: src/commands/programs/list.ts is the command `programs:list`.
const commandFiles = readdirSync(new URL('src/commands/', root), {recursive: true, encoding: 'utf8'}).filter(
  (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
)
const commandId = (file: string) => file.replace(/\.ts$/, '').replaceAll('/', ':')

describe('oclif.manifest.json', () => {
  it('lists every command of src/commands and nothing else (run `npm run build` to refresh it)', () => {
    expect(Object.keys(manifest.commands).sort()).toEqual(commandFiles.map((f) => commandId(f)).sort())
  })

  it.each(commandFiles)('has the current flags and args of %s', async (file) => {
    const {default: command} = (await import(`../../src/commands/${file}`)) as {default: typeof Command}
    const entry = manifest.commands[commandId(file)]
    const flags = Object.keys({
      ...command.baseFlags,
      ...command.flags,
      ...(command.enableJsonFlag ? {json: true} : {}),
    })
    expect(Object.keys(entry?.flags ?? {}).sort()).toEqual(flags.sort())
    expect(Object.keys(entry?.args ?? {})).toEqual(Object.keys(command.args ?? {}))
  })

  it('carries the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {version: string}
    expect(manifest.version).toBe(pkg.version)
  })
})
