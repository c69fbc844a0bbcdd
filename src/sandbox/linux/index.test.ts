import {existsSync} from 'node:fs'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'

import type {LaunchRequest, PythonInfo} from '../backend.js'

import {resolvePython} from '../../execution/engine/python.js'
import {findBwrap} from './bwrap.js'
import {CONFINE_MODULE, createLinuxBackend, type LinuxConfineSpec, RUN_UID_BASE} from './index.js'

const python3 = process.env.PTC_MCP_TEST_PYTHON ?? 'python3'

describe('linux backend', () => {
  describe('the linux backend off Linux', () => {
    test('check() refuses with a SandboxError that says why', async () => {
      const backend = createLinuxBackend({platform: 'darwin'})
      const python: PythonInfo = {
        executable: '/usr/bin/python3',
        version: '3.11',
        prefixes: [],
        stdlibPaths: [],
      }
      await expect(backend.check(python)).rejects.toMatchObject({
        name: 'SandboxError',
        message: expect.stringMatching(/Linux only \(this is darwin\)/),
      })
    })
  })

  describe.skipIf(process.platform !== 'linux')('the linux backend', () => {
    let python: PythonInfo
    let scratchDir: string
    let request: LaunchRequest

    beforeAll(async () => {
      python = await resolvePython(python3)
      scratchDir = await mkdtemp(join(tmpdir(), 'ptc-run-test-'))
      request = {
        python,
        pythonArgs: ['-I', '-S', '-B', '/opt/ptc/runner.py'],
        scratchDir,
        runtimePaths: ['/opt/ptc'],
        env: {HOME: scratchDir, LANG: 'C.UTF-8'},
      }
    })
    afterAll(async () => {
      await rm(scratchDir, {recursive: true, force: true})
    })

    test('without bwrap: runs the interpreter itself and hands confine.py a Landlock + seccomp spec', async () => {
      const backend = createLinuxBackend({bwrap: false})
      expect((await backend.check(python)).tier).toBe('linux:landlock+seccomp')
      const launch = await backend.launch(request)
      expect(launch.tier).toBe('linux:landlock+seccomp')
      expect(launch.command).toBe(python.executable)
      expect(launch.args).toEqual(request.pythonArgs)
      expect(launch.env).toEqual(request.env)
      const confine = launch.confine as LinuxConfineSpec
      expect(confine.module).toBe(CONFINE_MODULE)
      expect(existsSync(confine.module)).toBe(true)
      expect(confine.namespace).toBe(false)
      // Root drops to a uid of its own per program (RLIMIT_NPROC counts per uid).
      expect(confine.dropRoot.uid).toBe(confine.dropRoot.gid)
      expect(confine.dropRoot.uid - RUN_UID_BASE).toBeGreaterThanOrEqual(0)
      expect(confine.dropRoot.uid - RUN_UID_BASE).toBeLessThan(0x10_00_00)
      expect(confine.threads).toBe(256)
      expect(confine.scratch).toEqual({
        path: scratchDir,
        mountPoint: scratchDir,
        bytes: 268_435_456,
        files: 65_536,
      })
      expect(confine.seccomp).toEqual({required: true})
      expect(confine.landlock.required).toBe(true)
      expect(confine.landlock.readWrite).toEqual([scratchDir])
      expect(confine.landlock.readOnly).toContain('/opt/ptc')
      expect(confine.landlock.readOnly).toContain(python.executable)
      expect(confine.landlock.readOnly).not.toContain('/')
      expect(
        confine.landlock.readOnly.some((path) => path === '/etc' || path === '/home' || path === '/root'),
      ).toBe(false)
      expect(confine.landlock.devices).toContain('/dev/null')
    })

    test('PTC_MCP_BWRAP=0 turns bwrap off', async () => {
      const saved = process.env.PTC_MCP_BWRAP
      process.env.PTC_MCP_BWRAP = '0'
      try {
        const launch = await createLinuxBackend().launch(request)
        expect(launch.command).toBe(python.executable)
        expect(launch.tier).toBe('linux:landlock+seccomp')
      } finally {
        if (saved === undefined) delete process.env.PTC_MCP_BWRAP
        else process.env.PTC_MCP_BWRAP = saved
      }
    })

    test.runIf(findBwrap() !== undefined)(
      'with bwrap: runs bwrap, which clears the environment and sets it again',
      async () => {
        const backend = createLinuxBackend({bwrap: true})
        const launch = await backend.launch(request)
        expect(launch.tier).toBe('linux:bwrap+landlock+seccomp')
        expect(basename(launch.command)).toBe('bwrap')
        expect(launch.env).toEqual({})
        expect(launch.args).toContain('--clearenv')
        expect(launch.args.join(' ')).toContain(`--setenv HOME ${scratchDir} --setenv LANG C.UTF-8`)
        expect(launch.args.slice(launch.args.indexOf('--') + 1)).toEqual([
          python.executable,
          ...request.pythonArgs,
        ])
        const confine = launch.confine as LinuxConfineSpec
        expect(confine.namespace).toBe(true)
        // Inside bwrap /tmp is the same private tmpfs as the scratch dir.
        expect(confine.landlock.readWrite).toEqual([scratchDir, '/tmp'])
      },
    )
  })
})
