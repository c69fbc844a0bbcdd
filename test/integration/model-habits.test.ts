// @tier integration
/**
 * Programs written the way models write them (SPEC §5, §6, §8), run through one real `serve`
 * against the fixture and the servers people run (@modelcontextprotocol/server-filesystem and
 * server-memory from npm): asyncio.run and `if __name__`, gather, try/except ToolError, missing
 * awaits, typos in argument names, None for optional arguments, printing results to learn their
 * shape. Each row is a program and the outcome or hint it must get.
 */
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {type RawServe, resultText, startRawServe, toolResult} from '../helpers/json-rpc.js'
import {execute, type Execution, expectCleanShutdown, waitForListing} from '../helpers/serve-session.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'
import {testDependency} from '../helpers/test-deps.js'

const FILESYSTEM_SERVER = testDependency('@modelcontextprotocol/server-filesystem/dist/index.js')
const MEMORY_SERVER = testDependency('@modelcontextprotocol/server-memory/dist/index.js')
const SERVERS = ['fx', 'fs', 'memory']
const MAX_TOOL_CALLS = 25

interface Case {
  name: string
  code: string
  ok: boolean
  /** The program's output, exactly or by pattern. */
  output?: RegExp | string
  /** The run's error (failures only). */
  error?: RegExp
}

let setup: ServeSetup
let serve: RawServe
let files: string

function startServe(): Promise<RawServe> {
  return startRawServe(setup)
}

async function connected(): Promise<void> {
  await waitForListing(
    serve,
    SERVERS,
    (listing) =>
      ['mcp__fx__add', 'mcp__fs__read_text_file', 'mcp__memory__read_graph'].every((name) =>
        listing.names.includes(name),
      ),
    {what: 'fx, fs and memory connected', timeoutMs: 30_000},
  )
}

let work: string

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ptc-model-habits-'))
  const dir = work
  files = join(dir, 'files')
  mkdirSync(files)
  for (let i = 0; i < 10; i++) writeFileSync(join(files, `note-${i}.txt`), `note ${i} line\n`.repeat(i + 1))
  writeFileSync(join(files, 'big.txt'), 'x'.repeat(5000))
  const config = {
    servers: [
      {name: 'fx', ...fixtureCommand(['--name', 'fx'])},
      {name: 'fs', command: process.execPath, args: [FILESYSTEM_SERVER, files]},
      {
        name: 'memory',
        command: process.execPath,
        args: [MEMORY_SERVER],
        env: {MEMORY_FILE_PATH: join(dir, 'memory.jsonl')},
      },
    ],
    // The servers' destructive tools (write_file, delete_entities) run without asking here.
    permissions: {ask_unlisted: false},
    execution: {
      timeout_seconds: 20,
      // Room for a loaded machine; the timeout row waits this long.
      tool_call_timeout_seconds: 3,
      max_tool_calls: MAX_TOOL_CALLS,
      warm_pool: 2,
      trace: 'full',
    },
  }
  setup = prepareServe(config)
  // Shapes kept across the restart below, in this test's own cache.
  setup.env.XDG_CACHE_HOME = join(dir, 'cache')
  serve = await startServe()
  await connected()
}, 60_000)

afterAll(async () => {
  if (serve) await expectCleanShutdown(serve, setup)
  setup?.cleanup()
  if (work) rmSync(work, {recursive: true, force: true})
})

const py = (lines: string[]) => lines.join('\n')
const root = () => JSON.stringify(files)

const cases = (): Case[] => [
  // --- async habits (SPEC §6)
  {
    name: 'top-level await',
    code: 'r = await mcp__fx__add(a=2, b=3)\nprint(r["sum"])',
    ok: true,
    output: '5\n',
  },
  {
    name: 'asyncio.run(main()) at top level',
    code: py([
      'import asyncio',
      'async def main():',
      '    r = await mcp__fx__add(a=2, b=3)',
      '    print(r["sum"])',
      'asyncio.run(main())',
    ]),
    ok: true,
    output: '5\n',
  },
  {
    name: 'asyncio.run(main()) under if __name__ == "__main__"',
    code: py([
      'import asyncio',
      'async def main():',
      '    print((await mcp__fx__add(a=1, b=1))["sum"])',
      'if __name__ == "__main__":',
      '    asyncio.run(main())',
    ]),
    ok: true,
    output: '2\n',
  },
  {
    name: 'asyncio.get_event_loop().run_until_complete(main())',
    code: py([
      'import asyncio',
      'async def main():',
      '    return await mcp__fx__add(a=4, b=4)',
      'print(asyncio.get_event_loop().run_until_complete(main()))',
    ]),
    ok: true,
    output: "{'sum': 8}\n",
  },
  {
    name: 'a new loop, run_until_complete, close',
    code: py([
      'import asyncio',
      'async def main():',
      '    print("ran", (await mcp__fx__add(a=1, b=2))["sum"])',
      'loop = asyncio.new_event_loop()',
      'asyncio.set_event_loop(loop)',
      'loop.run_until_complete(main())',
      'loop.close()',
    ]),
    ok: true,
    output: 'ran 3\n',
  },
  {
    name: 'the value of asyncio.run(main())',
    code: py([
      'import asyncio',
      'async def main():',
      '    return 42',
      'result = asyncio.run(main())',
      'print(result)',
    ]),
    ok: true,
    output: '42\n',
  },
  {
    name: 'from asyncio import run; import asyncio as aio',
    code: py([
      'from asyncio import run',
      'import asyncio as aio',
      'async def main(n):',
      '    print(n)',
      'run(main(1))',
      'aio.run(main(2))',
    ]),
    ok: true,
    output: '1\n2\n',
  },
  {
    name: 'asyncio.run inside a function: a hint, no runner path',
    code: py([
      'import asyncio',
      'async def main():',
      '    pass',
      'def start():',
      '    asyncio.run(main())',
      'start()',
    ]),
    ok: false,
    error:
      /RuntimeError: asyncio\.run\(\) cannot be called from a running event loop: .*write `await main\(\)`/s,
  },
  // --- fan-out
  {
    name: 'gather of many calls',
    code: py([
      'import asyncio',
      'rs = await asyncio.gather(*[mcp__fx__add(a=i, b=i) for i in range(10)])',
      'print(sum(r["sum"] for r in rs))',
    ]),
    ok: true,
    output: '90\n',
  },
  {
    name: 'gather inside asyncio.run(main())',
    code: py([
      'import asyncio',
      'async def main():',
      '    words = await asyncio.gather(*(mcp__fx__echo(text=w, upper=True) for w in ["a", "b"]))',
      '    print(words)',
      'asyncio.run(main())',
    ]),
    ok: true,
    output: "['A', 'B']\n",
  },
  {
    name: 'create_task and wait_for',
    code: py([
      'import asyncio',
      't = asyncio.create_task(mcp__fx__add(a=1, b=1))',
      'slow = await asyncio.wait_for(mcp__fx__slow(ms=10), timeout=5)',
      'print((await t)["sum"], slow)',
    ]),
    ok: true,
    output: '2 slept 10\n',
  },
  {
    name: 'gather with return_exceptions keeps ToolErrors as values',
    code: py([
      'import asyncio',
      'rs = await asyncio.gather(mcp__fx__add(a=1, b=1), mcp__fx__is_error(), return_exceptions=True)',
      'print([type(r).__name__ for r in rs], rs[1].kind)',
    ]),
    ok: true,
    output: "['dict', 'ToolError'] tool_error\n",
  },
  {
    name: "a task's repr and an exception never retrieved name no runner code",
    code: py([
      'import asyncio, gc',
      't = asyncio.create_task(mcp__fx__is_error(message="lost"))',
      'await asyncio.wait([t])',
      'print(t)',
      'del t',
      'gc.collect()',
    ]),
    ok: true,
    output:
      /^<Task finished .*coro=<mcp__fx__is_error\(\) done, defined at <tool call>:1>.*\nTask exception was never retrieved\nToolError: lost\n$/,
  },
  // --- ToolError
  {
    name: 'try/except ToolError: .kind, .tool, .message',
    code: py([
      'try:',
      '    await mcp__fx__is_error(message="not today")',
      'except ToolError as e:',
      '    print(e.kind, e.tool, e.message, str(e) == e.message)',
    ]),
    ok: true,
    output: 'tool_error mcp__fx__is_error not today True\n',
  },
  {
    name: 'ToolError attributes are plain attributes',
    code: py(['try:', '    await mcp__fx__throws()', 'except ToolError as e:', '    print(sorted(vars(e)))']),
    ok: true,
    output: "['kind', 'message', 'tool']\n",
  },
  {
    name: 'unknown tool at run time (globals() in use: names may be bound unseen): kind unknown_tool',
    code: py([
      'names = globals()',
      'try:',
      '    await mcp__fx__ad(a=1, b=2)',
      'except ToolError as e:',
      '    print(e.kind, "|", e)',
    ]),
    ok: true,
    output: /^unknown_tool \| Unknown tool 'mcp__fx__ad'\. Did you mean mcp__fx__add/,
  },
  {
    name: 'a wrong type at run time: kind invalid_arguments, the property named',
    code: py([
      'one = "one"',
      'try:',
      '    await mcp__fx__add(a=one, b=2)',
      'except ToolError as e:',
      '    print(e.kind, "|", e)',
    ]),
    ok: true,
    output:
      /^invalid_arguments \| invalid arguments for mcp__fx__add: argument 'a': must be number\n {2}await mcp__fx__add\(\*, a: float, b: float\) -> \{"sum": float\}\n$/,
  },
  {
    name: 'the per-call timeout: kind timeout',
    code: py(['try:', '    await mcp__fx__slow(ms=4000)', 'except ToolError as e:', '    print(e.kind)']),
    ok: true,
    output: 'timeout\n',
  },
  {
    name: 'the budget: kind budget at call N+1',
    code: py([
      'n = 0',
      'try:',
      `    for i in range(${MAX_TOOL_CALLS + 1}):`,
      '        await mcp__fx__add(a=i, b=0)',
      '        n += 1',
      'except ToolError as e:',
      '    print(n, e.kind)',
    ]),
    ok: true,
    output: `${MAX_TOOL_CALLS} budget\n`,
  },
  {
    name: 'a fan-out over the budget: the calls sent counted, the refused ones too, the batching tools named',
    code: py([
      'import asyncio',
      `path = ${root()} + "/note-1.txt"`,
      `rs = await asyncio.gather(*[mcp__fs__read_text_file(path=path) for i in range(${MAX_TOOL_CALLS + 5})], return_exceptions=True)`,
      'errors = [r for r in rs if isinstance(r, ToolError)]',
      'print(len(rs) - len(errors), len(errors))',
      'print(errors[-1])',
    ]),
    ok: true,
    output: new RegExp(
      `^${MAX_TOOL_CALLS} 5\\ntool call budget exhausted: this program sent ${MAX_TOOL_CALLS} calls \\(execution\\.max_tool_calls: ${MAX_TOOL_CALLS}\\) and 5 more were refused, never sent; .*; fs also offers mcp__fs__read_multiple_files \\(takes lists\\)`,
    ),
  },
  {
    name: 'an uncaught ToolError fails the run with the server text',
    code: 'await mcp__fx__is_error(message="denied by the server")',
    ok: false,
    error: /ToolError: denied by the server$/,
  },
  // --- argument names and None
  {
    name: 'a typo in an argument name at run time (a call through a name of its own) is refused with the closest name',
    code: 'add = mcp__fx__add\nawait add(a=1, bb=2)',
    ok: false,
    error:
      /ToolError: invalid arguments for mcp__fx__add: unexpected argument 'bb'; did you mean 'b'\?\n {2}await mcp__fx__add\(\*, a: float, b: float\) -> \{"sum": float\}$/,
  },
  {
    name: 'camelCase for snake_case: sort_by for sortBy, before anything runs',
    code: `await mcp__fs__list_directory_with_sizes(path=${root()}, sort_by="size")`,
    ok: false,
    error:
      /^PreflightError: .*\n {2}line 1: mcp__fs__list_directory_with_sizes\(\): unexpected argument 'sort_by' \(did you mean 'sortBy'\?\)\n {4}await mcp__fs__list_directory_with_sizes\(\*, path: str/,
  },
  {
    name: 'the right name sorts as asked',
    code: py([
      `r = await mcp__fs__list_directory_with_sizes(path=${root()}, sortBy="size")`,
      'print(r["content"].splitlines()[0].split()[1])',
    ]),
    ok: true,
    output: 'big.txt\n',
  },
  {
    name: 'None for optional arguments is left out',
    code: py([
      'r = await mcp__fx__structured(ticker="ACME", fields=None, options=None)',
      `f = await mcp__fs__read_text_file(path=${root()} + "/note-2.txt", head=None, tail=None)`,
      'print(len(r["rows"]), f["content"].count("\\n"))',
    ]),
    ok: true,
    output: '4 3\n',
  },
  {
    name: 'None for a required argument is refused at run time',
    code: py([
      'nothing = None',
      'try:',
      '    await mcp__fx__add(a=nothing, b=1)',
      'except ToolError as e:',
      '    print(e.kind, "|", e)',
    ]),
    ok: true,
    output: /^invalid_arguments \| .*argument 'a': must be number/,
  },
  {
    name: 'positional arguments at run time: TypeError saying how to call',
    code: 'add = mcp__fx__add\nawait add(1, 2)',
    ok: false,
    error:
      /TypeError: mcp__fx__add\(\) takes keyword arguments only \(got 2 positional\); write: await mcp__fx__add\(name=value, \.\.\.\)$/,
  },
  // --- missing await (SPEC §6 hints)
  {
    name: 'a result used without await: the call and its line named before anything runs',
    code: 'r = mcp__fx__add(a=1, b=2)\nprint(r["sum"])',
    ok: false,
    error:
      /^PreflightError: 1 problem .*\n {2}line 1: mcp__fx__add\(\): never awaited, so r would be a coroutine, not the result: write `r = await mcp__fx__add\(\.\.\.\)`/,
  },
  {
    name: '.get() on a coroutine the preflight check cannot see (taken from a list)',
    code: 'r = [mcp__fs__read_text_file(path="/x")][0]\nprint(r.get("content"))',
    ok: false,
    error:
      /AttributeError: 'coroutine' object has no attribute 'get'\nhint: .*\n {2}line 1: mcp__fs__read_text_file\(\.\.\.\) was never awaited/,
  },
  {
    name: 'iterating over a coroutine',
    code: 'text_json = mcp__fx__text_json\nfor item in text_json():\n    print(item)',
    ok: false,
    error:
      /TypeError: 'coroutine' object is not iterable\nhint: .*\n {2}line 2: mcp__fx__text_json\(\.\.\.\) was never awaited/,
  },
  {
    name: 'len() of a coroutine, and a coroutine passed on as an argument',
    code: py([
      'r = [mcp__fx__text_json()][0]',
      'try:',
      '    print(len(r))',
      'except TypeError as e:',
      '    print(e)',
      'await mcp__fx__echo(text=mcp__fx__echo(text="inner"))',
    ]),
    ok: false,
    error:
      /TypeError: mcp__fx__echo\(\): arguments must be JSON-serialisable \(Object of type coroutine is not JSON serializable\)\nhint: .*\n {2}line 1: mcp__fx__text_json\(\.\.\.\) was never awaited.*\n {2}line 6: mcp__fx__echo\(\.\.\.\) was never awaited/,
  },
  {
    name: 'a call never awaited fails the run, even when the rest succeeded',
    code: py(['echo = mcp__fx__echo', 'print("start")', 'echo(text="lost")', 'print("end")']),
    ok: false,
    output: 'start\nend\n',
    error:
      /^RuntimeError: a coroutine was never awaited, so it never ran \(add await\):\n {2}line 3: mcp__fx__echo\(\.\.\.\) was never awaited: write `await mcp__fx__echo\(\.\.\.\)`$/,
  },
  {
    name: "the program's own coroutine never awaited",
    code: py(['async def main():', '    print("never")', 'main()']),
    ok: false,
    error: /^RuntimeError: a coroutine was never awaited.*\n {2}line 3: main\(\.\.\.\) was never awaited/,
  },
  {
    name: 'a printed coroutine is a never-awaited call, seen before anything runs',
    code: 'print(mcp__fx__add(a=1, b=1))',
    ok: false,
    error:
      /^PreflightError: 1 problem .*\n {2}line 1: mcp__fx__add\(\): never awaited, so it would never run: write `await mcp__fx__add\(\.\.\.\)`/,
  },
  // --- hints chosen from the exception, not from its text
  {
    name: 'a dict used as a str: the hint names the key that holds the text',
    code: `r = await mcp__fs__read_text_file(path=${root()} + "/note-1.txt")\nprint(r.splitlines())`,
    ok: false,
    error:
      /AttributeError: 'dict' object has no attribute 'splitlines'\nhint: this value is a dict, not a str: its text is under 'content': value\['content'\]\.splitlines\(\.\.\.\)$/,
  },
  {
    name: 'a dict passed where a str is wanted: the hint names the variable and the key',
    code: `import json\nr = await mcp__fs__read_text_file(path=${root()} + "/note-1.txt")\nprint(json.loads(r))`,
    ok: false,
    error:
      /TypeError: the JSON object must be str, bytes or bytearray, not dict\nhint: r is a dict, not a str: its text is under 'content': r\['content'\]$/,
  },
  {
    name: 'a module outside the standard library: call a tool instead',
    code: 'import requests',
    ok: false,
    error:
      /ModuleNotFoundError: No module named 'requests'\nhint: programs have the Python standard library only \('requests' is not part of it\): call a tool instead/,
  },
  {
    name: 'a ValueError quoting "[Errno 1] Operation not permitted" gets no sandbox hint',
    code: 'raise ValueError("[Errno 1] Operation not permitted: mkfifo")',
    ok: false,
    error: /ValueError: \[Errno 1\] Operation not permitted: mkfifo$/,
  },
  {
    name: 'KeyError("\'coroutine\'") gets no await hint',
    code: 'd = {}\nd["coroutine"]',
    ok: false,
    error: /KeyError: 'coroutine'$/,
  },
  // --- the preflight check (SPEC §6.1): mistakes seen before anything runs
  {
    name: 'preflight: a misspelt tool, with the closest name',
    code: 'print("never printed")\nawait mcp__fx__ad(a=1, b=2)',
    ok: false,
    output: '',
    error:
      /^PreflightError: 1 problem found before the program ran; nothing ran and no tool was called\..*\n {2}line 2: Unknown tool 'mcp__fx__ad'\. Did you mean mcp__fx__add, .*\n {4}await mcp__fx__add\(\*, a: float, b: float\) -> \{"sum": float\}$/,
  },
  {
    name: 'preflight: a helper that does not exist, with the closest helpers',
    code: 'tools = await list_tools()',
    ok: false,
    error: /\n {2}line 1: name 'list_tools' is not defined; did you mean .*list_callable_tools/,
  },
  {
    name: "preflight: a helper's own argument names",
    code: 'await inspect_tool(name="mcp__fx__add")',
    ok: false,
    error:
      /\n {2}line 1: inspect_tool\(\): got an unexpected keyword argument 'name' \('name': did you mean 'tool_name'\?\)\n {4}inspect_tool\(tool_name=None/,
  },
  {
    name: 'preflight: positional arguments',
    code: 'await mcp__fx__add(1, 2)',
    ok: false,
    error:
      /\n {2}line 1: mcp__fx__add\(\): takes keyword arguments only \(got 2 positional\); missing required arguments 'a', 'b'\n {4}await mcp__fx__add\(\*, a: float, b: float\) -> \{"sum": float\}$/,
  },
  {
    name: 'preflight: unknown keywords matched one to one (x meant a, y meant b)',
    code: 'await mcp__fx__add(x=1, y=2)',
    ok: false,
    error:
      /\n {2}line 1: mcp__fx__add\(\): unexpected argument 'x' \(did you mean 'a'\?\); unexpected argument 'y' \(did you mean 'b'\?\)\n/,
  },
  {
    name: 'preflight: a missing required argument',
    code: 'await mcp__fx__echo(upper=True)',
    ok: false,
    error:
      /\n {2}line 1: mcp__fx__echo\(\): missing required argument 'text'\n {4}await mcp__fx__echo\(\*, text: str, upper: bool = False\)/,
  },
  {
    name: 'preflight: a literal of the wrong JSON type',
    code: 'await mcp__fx__add(a="one", b=2)',
    ok: false,
    error: /\n {2}line 1: mcp__fx__add\(\): argument 'a' is a str \('one'\); it must be a number\n/,
  },
  {
    name: 'preflight: None for a required argument',
    code: 'await mcp__fx__add(a=None, b=1)',
    ok: false,
    error: /\n {2}line 1: mcp__fx__add\(\): argument 'a' is None; it must be a number\n/,
  },
  {
    name: 'preflight: a literal outside the enum',
    code: 'await mcp__fx__sample(kind="smapling")',
    ok: false,
    error: /\n {2}line 1: mcp__fx__sample\(\): argument 'kind' is 'smapling', not one of 'sampling', /,
  },
  {
    name: 'preflight: a tool call never awaited',
    code: 'print("start")\nmcp__fx__echo(text="lost")',
    ok: false,
    output: '',
    error:
      /\n {2}line 2: mcp__fx__echo\(\): never awaited, so it would never run: write `await mcp__fx__echo\(\.\.\.\)`\n/,
  },
  {
    name: 'preflight: a misspelt tool, a wrong keyword and a missing await, all in one answer',
    code: py([
      'r = await mcp__fx__ech(text="a")',
      'rows = await mcp__fx__structured(tikcer="ACME")',
      'mcp__fx__add(a=1, b=2)',
    ]),
    ok: false,
    error:
      /^PreflightError: 3 problems found.*\n {2}line 1: Unknown tool 'mcp__fx__ech'\. Did you mean mcp__fx__echo.*\n {2}line 2: mcp__fx__structured\(\): unexpected argument 'tikcer' \(did you mean 'ticker'\?\)\n {4}await mcp__fx__structured\(.*\n {2}line 3: mcp__fx__add\(\): never awaited/s,
  },
  {
    name: 'preflight: what it cannot see (**kwargs, values computed at run time) is left to run time',
    code: py([
      'args = {"x": 1}',
      'try:',
      '    await mcp__fx__add(**args)',
      'except ToolError as e:',
      '    print(e.kind)',
      'print((await mcp__fx__add(a=int("2"), b=3))["sum"])',
    ]),
    ok: true,
    output: 'invalid_arguments\n5\n',
  },
  // --- printing results to learn their shape, and the shapes themselves
  {
    name: 'structured content comes back as a dict',
    code: 'r = await mcp__fx__structured(ticker="ACME", limit=2)\nprint(type(r).__name__, sorted(r), r["rows"][0])',
    ok: true,
    output: "dict ['currency', 'rows', 'ticker'] {'period': 0, 'revenue': 100, 'profit': 10}\n",
  },
  {
    name: 'text holding JSON is parsed',
    code: 'print(await mcp__fx__text_json())',
    ok: true,
    output: "{'items': [1, 2, 3]}\n",
  },
  {
    name: 'plain text stays a str',
    code: 'print(repr(await mcp__fx__echo(text="hi there")))',
    ok: true,
    output: "'hi there'\n",
  },
  {
    name: 'extra text becomes _notes',
    code: 'print(await mcp__fx__multi_text())\nprint(await mcp__fx__notes())',
    ok: true,
    output: "{'count': 2, '_notes': ['plain note']}\n{'value': 1, '_notes': ['note: cached result']}\n",
  },
  {
    name: 'read_text_file: {content} without a copy in _notes',
    code: `r = await mcp__fs__read_text_file(path=${root()} + "/note-3.txt")\nprint(sorted(r), repr(r["content"][:12]))`,
    ok: true,
    output: "['content'] 'note 3 line\\n'\n",
  },
  {
    name: 'list_directory printed to learn its shape',
    code: `r = await mcp__fs__list_directory(path=${root()})\nprint(sorted(r), r["content"].splitlines()[:2])`,
    ok: true,
    output: "['content'] ['[FILE] big.txt', '[FILE] note-0.txt']\n",
  },
  {
    name: 'directory_tree: JSON text in content, parsed by the program',
    code: `import json\nr = await mcp__fs__directory_tree(path=${root()})\ntree = json.loads(r["content"])\nprint(len(tree), tree[0])`,
    ok: true,
    output: "11 {'name': 'big.txt', 'type': 'file'}\n",
  },
  {
    name: 'a filesystem error is a ToolError the program can catch',
    code: py([
      'try:',
      `    await mcp__fs__read_text_file(path=${root()} + "/missing.txt")`,
      'except ToolError as e:',
      '    print(e.kind, e.tool, "ENOENT" in e.message or "no such file" in e.message.lower())',
    ]),
    ok: true,
    output: 'tool_error mcp__fs__read_text_file True\n',
  },
  {
    name: 'a path outside the allowed directory is refused by the server',
    code: py([
      'try:',
      '    await mcp__fs__read_text_file(path="/etc/passwd")',
      'except ToolError as e:',
      '    print(e.kind, "denied" in e.message.lower() or "outside" in e.message.lower())',
    ]),
    ok: true,
    output: 'tool_error True\n',
  },
  {
    name: 'a 20-call filesystem task: read ten files, write ten copies',
    code: py([
      'import asyncio',
      `root = ${root()}`,
      'names = [f"note-{i}.txt" for i in range(10)]',
      'texts = await asyncio.gather(*[mcp__fs__read_text_file(path=f"{root}/{n}") for n in names])',
      'await asyncio.gather(*[mcp__fs__write_file(path=f"{root}/copy-{n}", content=t["content"] * 2) for n, t in zip(names, texts)])',
      'print(sum(len(t["content"]) for t in texts))',
    ]),
    ok: true,
    output: '660\n',
  },
  {
    name: 'search_files finds the copies',
    code: `r = await mcp__fs__search_files(path=${root()}, pattern="copy-*")\nprint(len(r["content"].splitlines()))`,
    ok: true,
    output: '10\n',
  },
  // --- server-memory
  {
    name: 'create_entities: the entity list once, no _notes',
    code: py([
      'r = await mcp__memory__create_entities(entities=[{"name": "Ann", "entityType": "person", "observations": ["likes tea"]}, {"name": "Bob", "entityType": "person", "observations": []}])',
      'print(sorted(r), [e["name"] for e in r["entities"]])',
    ]),
    ok: true,
    output: "['entities'] ['Ann', 'Bob']\n",
  },
  {
    name: 'create_relations and read_graph',
    code: py([
      'await mcp__memory__create_relations(relations=[{"from": "Ann", "to": "Bob", "relationType": "knows"}])',
      'g = await mcp__memory__read_graph()',
      'print(sorted(g), len(g["entities"]), g["relations"][0]["relationType"])',
    ]),
    ok: true,
    output: "['entities', 'relations'] 2 knows\n",
  },
  {
    name: 'search_nodes',
    code: 'r = await mcp__memory__search_nodes(query="tea")\nprint([e["name"] for e in r["entities"]])',
    ok: true,
    output: "['Ann']\n",
  },
  {
    name: 'open_nodes with name for names: the closest property suggested',
    code: 'await mcp__memory__open_nodes(name=["Ann"])',
    ok: false,
    error: /unexpected argument 'name' \(did you mean 'names'\?\)\n/,
  },
  {
    name: 'delete_entities: {success, message}, the message not repeated in _notes',
    code: 'print(await mcp__memory__delete_entities(entityNames=["Bob"]))',
    ok: true,
    output: "{'success': True, 'message': 'Entities deleted successfully'}\n",
  },
  // --- helpers, emit, warnings
  {
    name: 'helpers: list_callable_tools(query=...), inspect_tool(tool_names=..., brief=True)',
    code: py([
      'found = await list_callable_tools(query="read file", server="fs")',
      'print(found[0]["name"])',
      'brief = await inspect_tool(tool_names="mcp__memory__*", brief=True)',
      'print(len(brief), sorted(brief[0]))',
    ]),
    ok: true,
    output: /^mcp__fs__read_(text_)?file\n9 \['description', 'name', 'signature'\]\n$/,
  },
  {
    name: 'list_callable_tools(server=...) naming no configured server: a ToolError that names them',
    code: py([
      'try:',
      '    await list_callable_tools(server="filesystem")',
      'except ToolError as error:',
      '    print(error.kind, error)',
    ]),
    ok: true,
    output: "invalid_arguments no server 'filesystem': they are fx, fs, memory\n",
  },
  {
    name: 'emit returns a structured result beside the printed text',
    code: 'r = await mcp__fx__add(a=20, b=22)\nprint("done")\nemit({"answer": r["sum"]})',
    ok: true,
    output: 'done\n',
  },
  {
    name: 'a warning shows the program line, never the runner',
    code: 'import warnings\nwarnings.warn("careful")\nprint("after")',
    ok: true,
    output: '<program>:2: UserWarning: careful\nafter\n',
  },
]

describe('programs in the styles models write (SPEC §6)', () => {
  const outcomes: {name: string; run: Execution}[] = []

  it('each gets its expected outcome or hint', async () => {
    const table = cases()
    expect(table.length).toBeGreaterThanOrEqual(40)
    const failures: string[] = []
    for (const row of table) {
      const run = await execute(serve, row.code)
      outcomes.push({name: row.name, run})
      const {ok, error} = run.structured
      const {output} = run
      const problems: string[] = []
      if (ok !== row.ok) problems.push(`ok ${ok}, expected ${row.ok}`)
      if (
        row.output !== undefined &&
        !(typeof row.output === 'string' ? output === row.output : row.output.test(output))
      )
        problems.push(`output ${JSON.stringify(output)}`)
      if (row.error !== undefined && !row.error.test(error ?? ''))
        problems.push(`error ${JSON.stringify(error)}`)
      if (problems.length > 0) failures.push(`${row.name}: ${problems.join('; ')}\n${run.text}`)
    }
    expect(failures).toEqual([])
  }, 120_000)

  it('nothing of the runner ever shows: no runner path, frame or warning location', () => {
    expect(outcomes.length).toBeGreaterThan(0)
    for (const {name, run} of outcomes) {
      expect(run.text, name).not.toMatch(/runner\.py|program_habits|dist\/execution|src\/execution/)
    }
  })

  it('the bounded trace and the kept-out figure: 20 file calls', () => {
    const task = outcomes.find((o) => o.name.startsWith('a 20-call filesystem task'))!
    expect(task.run.calls).toHaveLength(20)
    for (const call of task.run.calls) expect(JSON.stringify(call.args).length).toBeLessThanOrEqual(200)
    expect(task.run.text).toMatch(/\[tool calls: 20; \d+\.\ds; \d+\.\d KB kept out of context\]$/)
  })
})

describe('the preflight check (SPEC §6.1)', () => {
  it('a program with a wrong argument on line 5 makes no call from lines 1-4', async () => {
    const count = async () => {
      const run = await execute(serve, 'print((await mcp__fx__call_count())["calls"])')
      expect(run.structured.ok, run.text).toBe(true)
      return Number(run.structured.output)
    }
    const before = await count()
    const run = await execute(
      serve,
      py([
        'await mcp__fx__add(a=1, b=2)',
        'await mcp__fx__echo(text="written")',
        'print("lines 1-4 ran")',
        'await mcp__fx__delete_item(id="x")',
        'await mcp__fx__add(a=1, c=2)',
      ]),
    )
    expect(run.structured.ok).toBe(false)
    expect(run.structured.output).toBeUndefined()
    expect(run.structured.error).toMatch(
      /^PreflightError: 1 problem .*\n {2}line 5: mcp__fx__add\(\): unexpected argument 'c' \(did you mean 'b'\?\)\n/,
    )
    expect(run.structured.trace).toBeUndefined()
    // Only the count's own call reached the server in between.
    expect(await count()).toBe(before + 1)
  })
})

describe('list_callable_tools and inspect_tool (SPEC §5)', () => {
  it('list_callable_tools: unchanged without arguments; query and server narrow it', async () => {
    const all = JSON.parse(resultText(await serve.callTool('list_callable_tools', {}))) as string[]
    expect(all).toEqual([...all].sort())
    expect(all).toContain('mcp__memory__read_graph')
    const fs = JSON.parse(resultText(await serve.callTool('list_callable_tools', {server: 'fs'}))) as string[]
    expect(fs.length).toBeGreaterThan(5)
    expect(fs.every((name) => name.startsWith('mcp__fs__'))).toBe(true)
    const typo = await serve.callTool('list_callable_tools', {server: 'filesystem'})
    expect(toolResult(typo).isError).toBe(true)
    expect(resultText(typo)).toBe("no server 'filesystem': they are fx, fs, memory")
    const found = JSON.parse(
      resultText(await serve.callTool('list_callable_tools', {query: 'knowledge graph entities'})),
    ) as {name: string; description: string}[]
    expect(found.length).toBeLessThanOrEqual(20)
    expect(found[0]!.name).toMatch(/^mcp__memory__/)
    expect(found[0]!.description).not.toContain('\n')
  })

  it('inspect_tool: several at once, brief, with the original name', async () => {
    const many = JSON.parse(
      resultText(
        await serve.callTool('inspect_tool', {tool_names: ['mcp__fs__read_text_file', 'mcp__fx__add']}),
      ),
    ) as {name: string; original_name: string; signature: string}[]
    expect(many.map((d) => d.original_name)).toEqual(['read_text_file', 'add'])
    expect(many[0]!.signature).toBe(
      'await mcp__fs__read_text_file(*, path: str, tail: float | None = None, head: float | None = None) -> {"content": str}',
    )
    // Brief: a header with the prefix, then a line a tool (SPEC §5).
    const brief = resultText(await serve.callTool('inspect_tool', {tool_names: 'mcp__fx__*', brief: true}))
    expect(brief.split('\n')[0]).toBe('mcp__fx__<name>(...): await, keywords only')
    expect(brief.split('\n').filter((line) => /^\w+\(.*\) -> /.test(line)).length).toBeGreaterThan(10)
    const unknown = toolResult(await serve.callTool('inspect_tool', {tool_name: 'mcp__fs__read_txt_file'}))
    expect(unknown.isError).toBe(true)
  })

  it('after one call of a text-only tool, inspect_tool shows its shape, also after a restart', async () => {
    const shapeOf = async (name: string) =>
      JSON.parse(resultText(await serve.callTool('inspect_tool', {tool_name: name}))) as {
        observed_result?: unknown
        signature: string
      }
    // Called by the programs above: the text tool and the JSON-text tool.
    const before = {echo: await shapeOf('mcp__fx__echo'), json: await shapeOf('mcp__fx__text_json')}
    expect(before.echo.observed_result).toBe('free text, 1 line')
    expect(before.echo.signature).toMatch(/-> str$/)
    expect(before.json.observed_result).toEqual({items: ['list of 3', 'int']})
    expect(before.json.signature).toMatch(/-> \{"items": list\[int\]\}$/)
    // Never called: nothing observed.
    expect((await shapeOf('mcp__fx__empty')).observed_result).toBeUndefined()

    await expectCleanShutdown(serve, setup)
    serve = await startServe()
    await connected()
    expect((await shapeOf('mcp__fx__echo')).observed_result).toBe('free text, 1 line')
    expect((await shapeOf('mcp__fx__text_json')).observed_result).toEqual({items: ['list of 3', 'int']})
  }, 60_000)
})
