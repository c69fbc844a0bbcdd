// @tier sandbox
/**
 * A host without unprivileged user namespaces (off, capped, or used up: SPEC §15), reproduced for
 * this test's process tree alone (test/helpers/no_userns.py: a seccomp filter under which clone
 * and unshare with CLONE_NEWUSER fail with ENOSPC, as when user.max_user_namespaces is reached;
 * the sysctl itself is global). Before, the fork server's clone failed and every program with it.
 * Now `run` of print(1) succeeds in Landlock + seccomp and its sandbox line says why, and doctor
 * names the condition and the fix. An unprivileged user's case (root needs no user namespace):
 * as root the commands run as `nobody` with the system interpreter, when it can read this checkout.
 */
import {execFileSync} from 'node:child_process'
import {chmodSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {spawnCollect} from '../helpers/processes.js'
import {BIN} from '../helpers/serve.js'

const WRAPPER = join(import.meta.dirname, '..', 'helpers', 'no_userns.py')
const isRoot = process.geteuid?.() === 0
const NOBODY = 65_534

/** Whether `nobody` can run this checkout's binary with /usr/bin/python3 (a CI clone under /root cannot). */
function nobodyCanRun(): boolean {
  try {
    execFileSync('setpriv', [
      '--reuid',
      String(NOBODY),
      '--regid',
      String(NOBODY),
      '--clear-groups',
      '/bin/sh',
      '-c',
      `test -r "${BIN}" && test -r "${WRAPPER}" && /usr/bin/python3 -c pass`,
    ])
    return true
  } catch {
    return false
  }
}

const runnable = process.platform === 'linux' && (!isRoot || nobodyCanRun())

describe.runIf(runnable)('without user namespaces (SPEC §15)', () => {
  let dir: string

  /** `ptc-mcp ARGS` under the wrapper, as an unprivileged user. */
  const cli = (...args: string[]) => {
    const env = {PATH: '/usr/bin:/bin', HOME: dir, TMPDIR: dir, LANG: 'C.UTF-8'}
    const command = ['python3', WRAPPER, process.execPath, BIN, ...args, '--config', join(dir, 'config.yaml')]
    return isRoot
      ? spawnCollect(
          'setpriv',
          [
            '--reuid',
            String(NOBODY),
            '--regid',
            String(NOBODY),
            '--clear-groups',
            '/usr/bin/env',
            ...command,
          ],
          {env, cwd: dir, timeoutMs: 90_000},
        ).done
      : spawnCollect(command[0]!, command.slice(1), {env, cwd: dir, timeoutMs: 90_000}).done
  }

  beforeAll(() => {
    dir = mkdtempSync('/tmp/ptc-no-userns-')
    chmodSync(dir, 0o777)
    const python = isRoot ? '/usr/bin/python3' : (process.env.PTC_MCP_TEST_PYTHON ?? 'python3')
    writeFileSync(join(dir, 'config.yaml'), `execution:\n  python: ${python}\n`)
    writeFileSync(join(dir, 'p.py'), 'print(1)\n')
  })
  afterAll(() => {
    if (dir) rmSync(dir, {recursive: true, force: true})
  })

  it('the wrapper does what a host without them does: unshare --user fails with ENOSPC', () => {
    expect(() => execFileSync('python3', [WRAPPER, 'unshare', '--user', 'true'], {stdio: 'pipe'})).toThrow(
      /No space left on device/,
    )
  })

  it('run of print(1) succeeds in Landlock + seccomp, and its sandbox line says why', async () => {
    const finished = await cli('run', '--json', join(dir, 'p.py'))
    expect(finished.code, finished.stderr).toBe(0)
    const outcome = JSON.parse(finished.stdout) as {ok: boolean; output: string; sandbox: string}
    expect(outcome.ok).toBe(true)
    expect(outcome.output).toBe('1\n')
    expect(outcome.sandbox).toMatch(
      /^linux:landlock\+seccomp \(no user namespaces: .*No space left on device\)$/,
    )
  })

  it('doctor names the condition and the fix', async () => {
    const finished = await cli('doctor')
    const sandbox = finished.stdout.split('\n').find((line) => /Sandbox:/.test(line)) ?? ''
    expect(sandbox).toMatch(/warn\s+Sandbox: linux:landlock\+seccomp \(no user namespaces: /)
    expect(sandbox).toContain('refused')
    expect(sandbox).toMatch(/fix: this host gives programs no namespaces of their own .*max_user_namespaces/)
  })
})
