// @tier claude-code
/**
 * A saved program inside the real Claude Code (SPEC §16, §17): the project's
 * .ptc-mcp/programs/label_files.py is a tool of ptc-mcp; the scripted model finds it with
 * ToolSearch (Claude Code defers MCP tools) and calls it by its name, `mcp__ptc__label_files`, with
 * arguments; what reaches the model is the program's structured answer. In both protocol eras.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {ERAS, PTC, runClaudeSession, type Session, SESSION_TIMEOUT_MS} from './claude-session.js'
import {selectTool} from './fake-messages-api.js'

const TOOL = `mcp__${PTC}__label_files`
const CALL_ID = 'toolu_saved_1'

const LABEL_FILES = `"""Labels the files of a directory, n of them at most."""


async def main(*, directory: str, n: int, prefix: str = "file"):
    listing = await mcp__fs__list_directory(path=directory)
    names = sorted(line.split(" ", 1)[1] for line in listing["content"].splitlines() if line.startswith("[FILE]"))
    print(f"{len(names)} files")
    return [f"{prefix}-{name}" for name in names[:n]]
`

let current: Session | undefined

afterEach(async () => {
  await current?.cleanup()
  current = undefined
})

describe.each(ERAS)('a saved program inside Claude Code, protocol %s', (era) => {
  it(
    'the model calls the saved program by its tool name, and reads its answer',
    async () => {
      current = await runClaudeSession({
        era,
        programs: () => [],
        files: {'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c'},
        projectFiles: {'.ptc-mcp/programs/label_files.py': LABEL_FILES},
        allowedTools: [TOOL],
        // serve lists saved programs once it has read them, after its first answer; Claude Code
        // hears of them by tools/list_changed. A person's first prompt comes later than that.
        firstTurnAfter: /MCP server "ptc": Received tools\/list_changed notification/,
        turns: (dataDir) => [
          selectTool(TOOL),
          {toolUse: [{id: CALL_ID, name: TOOL, input: {directory: dataDir, n: 2}}]},
          {text: 'All done.'},
        ],
      })
      const s = current
      const result = s.api.toolResult(CALL_ID)
      expect(
        result,
        `no tool_result; Claude Code exited ${s.claude.code}:\n${s.claude.stdout}\n${s.claude.stderr}\n${s.ptcDebug()}`,
      ).toBeDefined()
      expect(result!.isError, result!.text + '\n' + s.ptcDebug()).toBe(false)
      const structured = JSON.parse(result!.text) as Record<string, unknown>
      expect(structured).toMatchObject({
        ok: true,
        output: '3 files\n',
        result: ['file-a.txt', 'file-b.txt'],
        trace: expect.stringMatching(/^\[tool calls: 1; /),
      })
    },
    SESSION_TIMEOUT_MS + 50_000,
  )
})
