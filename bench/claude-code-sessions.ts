// Which protocol revision the real Claude Code negotiates with ptc-mcp, session after session
// (SPEC §16: 2026-07-28 only when serve answers its `server/discover` probe in time: ~2.5 s in
// 2.1.328, about 3 s from the spawn in 2.1.332). Runs N consecutive
// idle `claude -p` sessions sharing one HOME (the scripted model selects execute_program and
// ends) against the BUILT server, with the harness of test/claude-code, and prints the count of
// each revision and the time from Claude Code's start (and from its spawn of serve) to the
// connection (serve's answers to the probe and the handshake).
//
//   npm run build && npx tsx bench/claude-code-sessions.ts [--sessions=20]
import {mkdtempSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseArgs} from 'node:util'

import {runClaudeSession} from '../test/claude-code/claude-session.js'

const {values} = parseArgs({options: {sessions: {type: 'string', default: '20'}}})
const total = Number(values.sessions)
if (!Number.isInteger(total) || total < 1) throw new Error('--sessions takes a whole number ≥ 1')

// One HOME for all sessions, as a user's: what Claude Code remembers of a server carries over.
const home = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-claude-home-')))
const eras = new Map<string, number>()
let late = 0
const fromClaudeStart: number[] = []
const fromServeSpawn: number[] = []
try {
  for (let n = 1; n <= total; n++) {
    const session = await runClaudeSession({era: '2026-07-28', programs: () => [], home})
    await session.cleanup()
    if (session.probeAnsweredLate) late++
    const era = session.era ?? 'not connected'
    eras.set(era, (eras.get(era) ?? 0) + 1)
    if (session.connectedAfterMs !== undefined) fromClaudeStart.push(session.connectedAfterMs)
    if (session.connectMs !== undefined) fromServeSpawn.push(session.connectMs)
    console.log(
      `session ${n}/${total}: ${era}${session.probeAnsweredLate ? ' (probe answered late)' : ''}; connected ${session.connectedAfterMs ?? '-'} ms after claude started, ${session.connectMs ?? '-'} ms after serve was spawned`,
    )
  }
} finally {
  rmSync(home, {recursive: true, force: true})
}

const summary = (samples: number[]): string => {
  if (samples.length === 0) return '-'
  const sorted = samples.toSorted((a, b) => a - b)
  const median = sorted[Math.floor((sorted.length - 1) / 2)]
  return `median ${median} ms, min ${sorted[0]} ms, max ${sorted.at(-1)} ms`
}

console.log(
  `\n${total} sessions: ${[...eras].map(([era, count]) => `${era} × ${count}`).join(', ')}; probe answered late: ${late}`,
)
console.log(`claude started → connected to serve: ${summary(fromClaudeStart)}`)
console.log(`serve spawned → connected (Claude Code's count): ${summary(fromServeSpawn)}`)
