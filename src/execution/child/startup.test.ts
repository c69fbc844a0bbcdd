// @tier unit
import {describe, expect, it} from 'vitest'

import {SandboxError} from '../../shared/errors.js'
import {readyReport, startError, type StartWait, untilReady} from './startup.js'

describe("a child's way to ready", () => {
  it('resolves when the child says ready, and the wait can be settled only once', async () => {
    const wait: StartWait = {}
    const ready = untilReady(wait, 5000)
    expect(wait.settle).toBeTypeOf('function')
    wait.settle?.()
    await expect(ready).resolves.toBeUndefined()
    expect(wait.settle).toBeUndefined()
  })

  it('rejects with the error it is settled with', async () => {
    const wait: StartWait = {}
    const ready = untilReady(wait, 5000)
    wait.settle?.(new SandboxError('no Landlock'))
    await expect(ready).rejects.toThrow('no Landlock')
  })

  it('gives up after the start timeout with a SandboxError saying how long it waited', async () => {
    const ready = untilReady({}, 20)
    await expect(ready).rejects.toBeInstanceOf(SandboxError)
    await expect(ready).rejects.toThrow(/did not start within/)
  })

  it("reads the tier and the scratch's tmpfs from the child's report, and nothing else", () => {
    expect(readyReport({tier: 'bwrap', bounds: {scratch: 'tmpfs 256 MiB'}})).toEqual({
      tier: 'bwrap',
      scratchOnTmpfs: true,
    })
    expect(readyReport({tier: 7, bounds: {scratch: 'rlimit'}})).toEqual({scratchOnTmpfs: false})
    expect(readyReport(null)).toEqual({scratchOnTmpfs: false})
    expect(readyReport('tmpfs')).toEqual({scratchOnTmpfs: false})
  })

  it('keeps a SandboxError as it is and wraps anything else', () => {
    const sandbox = new SandboxError('refused')
    expect(startError(sandbox)).toBe(sandbox)
    const wrapped = startError(new Error('ENOENT python3'))
    expect(wrapped).toBeInstanceOf(SandboxError)
    expect(wrapped.message).toBe('the sandboxed Python could not start: ENOENT python3')
  })
})
