// @tier unit
import {readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {describe, expect, test} from 'vitest'

import {SandboxError} from '../shared/errors.js'
import {NO_ISOLATION_FIX} from './backend.js'
import {SANDBOX_SETTINGS, selectBackend} from './index.js'
import {noneBackend} from './none.js'

describe('selectBackend', () => {
  test('none is only ever the explicit choice', async () => {
    expect(await selectBackend('none')).toBe(noneBackend)
  })

  test('a backend for another platform refuses with a fix instead of falling back', async () => {
    const error = await selectBackend('seatbelt', 'linux').catch((error_: unknown) => error_)
    expect(error).toBeInstanceOf(SandboxError)
    expect(error).toMatchObject({
      exitCode: 3,
      message: expect.stringMatching(/seatbelt.*not available on linux/),
    })
    expect((error as SandboxError).suggestion).toMatch(/execution\.sandbox/)
    await expect(selectBackend('linux', 'darwin')).rejects.toThrow(SandboxError)
  })

  test('auto has no backend on other platforms', async () => {
    await expect(selectBackend('auto', 'win32')).rejects.toThrow(/no sandbox backend exists for win32/)
  })

  test.runIf(process.platform === 'linux')('auto on Linux is the linux backend', async () => {
    const backend = await selectBackend('auto')
    expect(backend.name).toBe('linux')
    expect(await selectBackend('linux')).toBe(backend)
  })

  test.runIf(process.platform === 'linux')('a backend of the table carries its own name', async () => {
    const loaded: Array<[string, string]> = []
    for (const name of SANDBOX_SETTINGS.filter((setting) => setting !== 'auto')) {
      const backend = await selectBackend(name).catch(() => null)
      if (backend) loaded.push([name, backend.name])
    }
    // linux and none at least; another platform's backend refuses to load here.
    expect(loaded.length).toBeGreaterThanOrEqual(2)
    for (const [name, backendName] of loaded) expect(backendName).toBe(name)
  })
})

describe('the way out when no sandbox runs', () => {
  test('is written once, and confine.py writes the same words', () => {
    const confine = readFileSync(fileURLToPath(new URL('linux/confine.py', import.meta.url)), 'utf8')
    expect(confine).toContain(NO_ISOLATION_FIX)
  })
})
