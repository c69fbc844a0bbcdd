// @tier integration
/**
 * `ptc-mcp run --state FILE` given what is no state file (SPEC §6.2, §15): a 470 MB file (it made
 * V8 crash at 4.9 GB), a FIFO (it blocked for good, Ctrl-C ignored), a link. Each is refused before
 * a byte is read, at once (under 1 s beyond starting the CLI), with a clear error, the real binary
 * measured from the outside.
 */
import {execFileSync} from 'node:child_process'
import {mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN} from '../helpers/serve.js'

/** Runs `ptc-mcp run` under a Python parent that reports the child's wall time and peak RSS. */
const MEASURE = [
  'import resource, subprocess, sys, time',
  't = time.monotonic()',
  'r = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=30)',
  'ms = (time.monotonic() - t) * 1000',
  'rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024',
  'import json; print(json.dumps({"code": r.returncode, "stderr": r.stderr, "ms": ms, "rssMb": rss}))',
].join('\n')

interface Measured {
  code: number
  stderr: string
  ms: number
  rssMb: number
}

describe('run --state refuses what is no state file, before reading it (SPEC §6.2, §15)', () => {
  let dir: string
  let config: string
  let program: string

  /** Wall time of `ptc-mcp version`: what starting the CLI costs on this machine now. */
  let startMs: number

  const measure = (...args: string[]): Measured => {
    const out = execFileSync('python3', ['-c', MEASURE, process.execPath, BIN, ...args], {
      cwd: dir,
      env: {...process.env, TMPDIR: dir},
      encoding: 'utf8',
      timeout: 40_000,
    })
    const measured = JSON.parse(out) as Measured
    return {...measured, stderr: measured.stderr.replaceAll(/\s+›\s+/g, ' ')}
  }

  /** `run --state FILE`, its time counted from when the CLI is up (the refusal's own cost). */
  const run = (stateFile: string): Measured => {
    const measured = measure('run', '--config', config, '--state', stateFile, program)
    return {...measured, ms: measured.ms - startMs}
  }

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ptc-bad-state-'))
    config = join(dir, 'config.yaml')
    writeFileSync(config, 'servers: []\n')
    program = join(dir, 'p.py')
    writeFileSync(program, 'print(1)\n')
    startMs = Math.min(measure('version').ms, measure('version').ms)
  })

  afterAll(() => {
    rmSync(dir, {force: true, recursive: true})
  })

  it('a 470 MB file: refused in under 1 s, peak memory under 300 MB', () => {
    const big = join(dir, 'big.json')
    writeFileSync(big, '{"ptc_mcp_state":1,"values":{"a":"')
    truncateSync(big, 470_000_000)
    const result = run(big)
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(
      /--state .*big\.json: is 470000000 bytes, more than a state file within the state bounds can be \(\d+ bytes/,
    )
    expect(result.ms).toBeLessThan(1000)
    expect(result.rssMb).toBeLessThan(300)
  })

  it('a FIFO with no writer: refused in under 1 s (it used to block for good)', () => {
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    const result = run(fifo)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('fifo: is not a regular file (a FIFO)')
    expect(result.ms).toBeLessThan(1000)
  })

  it('a link, a directory, a device: refused with what it is', () => {
    const link = join(dir, 'link.json')
    symlinkSync('/etc/passwd', link)
    expect(run(link).stderr).toContain('link.json: is a symbolic link; name the file itself')
    expect(run(dir).stderr).toContain('is not a regular file (a directory)')
    expect(run('/dev/zero').stderr).toContain('/dev/zero: is not a regular file (a device)')
  })
})
