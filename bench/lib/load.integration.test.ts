// @tier integration
import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {existsSync, readFileSync} from 'node:fs'
import {setTimeout as sleep} from 'node:timers/promises'
import {describe, expect, test} from 'vitest'

import {BusyLoops} from './load.js'
import {realPython} from './python.js'

const python = realPython()

/** Whether `pid` is a live process (not gone, not a zombie waiting to be reaped). */
function running(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
}

async function until(check: () => boolean, ms = 20_000): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(50)) if (check()) return true
  return check()
}

describe('--load: busy loops beside the run', () => {
  test('runs the loops asked for, and stop() leaves none running', async () => {
    const loops = new BusyLoops(python, 2)
    const {pids} = loops
    expect(pids).toHaveLength(2)
    expect(
      await until(() =>
        pids.every((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('getppid')),
      ),
    ).toBe(true)
    await loops.stop()
    expect(pids.filter((pid) => running(pid))).toEqual([])
  })

  test('a loop whose bench was killed stops by itself', async () => {
    // A parent that starts one loop, prints its pid and is then killed without stopping it.
    const parent = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import {BusyLoops} from ${JSON.stringify(new URL('load.ts', import.meta.url).pathname)}; ` +
          `console.log(new BusyLoops(${JSON.stringify(python)}, 1).pids[0]); setInterval(() => {}, 1000)`,
      ],
      {stdio: ['ignore', 'pipe', 'inherit']},
    )
    const [line] = (await once(parent.stdout, 'data')) as [Buffer]
    const pid = Number(line.toString())
    expect(running(pid)).toBe(true)
    parent.kill('SIGKILL')
    expect(await until(() => !running(pid))).toBe(true)
  })

  test('a count that is not a whole number is refused', () => {
    expect(() => new BusyLoops(python, Number('two'))).toThrow(/--load: a count of busy loops, not NaN/)
  })
})
