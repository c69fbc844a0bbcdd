import {describe, expect, test} from 'vitest'

import {SandboxError} from '../errors.js'
import {selectBackend} from './index.js'
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
})
