import {execFileSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {describe, expect, test} from 'vitest'

import type {ToolHost, ToolInfo} from '../../downstream/types.js'

import {MAX_PREFLIGHT_NAMES} from '../../shared/limits.js'
import {type PreflightSpec, preflightSpec} from './preflight-spec.js'

const PYTHON = process.env.PTC_MCP_TEST_PYTHON ?? 'python3'
const PREFLIGHT = fileURLToPath(new URL('../runner/preflight.py', import.meta.url))

/** Loads runner/preflight.py by path and runs check() on each program, as the runner does. */
const DRIVER = `
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("preflight", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
cases = json.load(sys.stdin)
async def list_callable_tools(query=None, server=None): pass
async def store(key, value): pass
def emit(value): pass
out = []
for case in cases:
    program_globals = {"emit": emit, "list_callable_tools": list_callable_tools, "asyncio": None}
    if case.get("with_store"):
        program_globals["store"] = store
    for name in case["spec"]["tools"]:
        program_globals[name] = lambda **kwargs: None
    out.append(module.check(case["code"], program_globals, case["spec"]))
print(json.dumps(out))
`

const ADD: ToolInfo = {
  name: 'mcp__calc__get_sum',
  server: 'calc',
  tool: 'get-sum',
  description: 'Adds.',
  inputSchema: {
    type: 'object',
    properties: {a: {type: 'number'}, b: {type: 'number'}, mode: {enum: ['fast', 'exact']}},
    required: ['a', 'b'],
  },
}
const OPEN: ToolInfo = {
  name: 'mcp__calc__anything',
  server: 'calc',
  tool: 'anything',
  description: 'Takes anything.',
  inputSchema: {type: 'object', properties: {q: {type: 'string'}}, additionalProperties: true},
}

function host(tools: ToolInfo[], unavailable: string[] = []): ToolHost {
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  return {
    listTools: () => tools,
    getTool: (name) => byName.get(name),
    unavailableServers: () => unavailable.map((name) => ({name, reason: 'connecting'})),
    serverStatus: () => [],
    callTool: () => Promise.reject(new Error('no call in these tests')),
    waitForInitialConnections: () => Promise.resolve(),
  }
}

function check(programs: {code: string; with_store?: boolean}[], tools = [ADD, OPEN]): (string | null)[] {
  const cases = programs.map((program) => ({...program, spec: preflightSpec(program.code, host(tools))}))
  const output = execFileSync(PYTHON, ['-I', '-S', '-B', '-c', DRIVER, PREFLIGHT], {
    input: JSON.stringify(cases),
    encoding: 'utf8',
  })
  return JSON.parse(output) as (string | null)[]
}

describe('preflightSpec: what the run message tells the check', () => {
  test('the tools the text names, with parameters, required names and signature; unknown names with their message', () => {
    const spec: PreflightSpec = preflightSpec(
      'await mcp__calc__get_sum(a=1)\nmcp__calc__get_sun',
      host([ADD]),
    )
    expect(spec.tools['mcp__calc__get_sum']).toEqual({
      signature:
        "await mcp__calc__get_sum(*, a: float, b: float, mode: Literal['fast', 'exact'] | None = None) -> Any",
      params: {a: {types: ['number']}, b: {types: ['number']}, mode: {enum: ['fast', 'exact']}},
      required: ['a', 'b'],
      open: false,
    })
    expect(spec.unknown['mcp__calc__get_sun']).toEqual([
      "Unknown tool 'mcp__calc__get_sun'. Did you mean mcp__calc__get_sum?",
      spec.tools['mcp__calc__get_sum']!.signature,
    ])
  })

  test('a name of a server that is down is left to run time (the program may catch the ToolError)', () => {
    expect(preflightSpec('await mcp__web__fetch(url="x")', host([ADD], ['web'])).unknown).toEqual({})
  })

  test('bounded whatever the schemas: a tool with thousands of parameters or a huge enum is left to run time', () => {
    const wide: ToolInfo = {
      ...ADD,
      name: 'mcp__calc__wide',
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(Array.from({length: 5000}, (_, i) => [`p${i}`, {type: 'string'}])),
      },
    }
    const huge: ToolInfo = {
      ...ADD,
      name: 'mcp__calc__huge',
      inputSchema: {
        type: 'object',
        properties: {k: {enum: Array.from({length: 60}, () => 'v'.repeat(1000))}},
      },
    }
    const spec = preflightSpec('mcp__calc__wide mcp__calc__huge', host([wide, huge]))
    expect(spec.tools['mcp__calc__wide']).toMatchObject({open: true, required: []})
    expect(spec.tools['mcp__calc__wide']!.params).toBeUndefined()
    expect(spec.tools['mcp__calc__wide']!.signature.length).toBeLessThanOrEqual(601)
    expect(spec.tools['mcp__calc__huge']!.params).toEqual({k: {}})
  })

  test(`at most ${MAX_PREFLIGHT_NAMES} names are looked up, whatever the text`, () => {
    const code = Array.from({length: 5000}, (_, i) => `mcp__calc__t${i}`).join('\n')
    const spec = preflightSpec(code, host([ADD]))
    expect(Object.keys(spec.unknown)).toHaveLength(MAX_PREFLIGHT_NAMES)
  })
})

describe('the preflight check (runner/preflight.py)', () => {
  test('each kind of problem, with its line and the signature', () => {
    const [unknownTool, positional, keywords, missing, type, outOfEnum, notAwaited, unknownHelper] = check([
      {code: 'x = 1\nawait mcp__calc__get_sun(a=1, b=2)'},
      {code: 'await mcp__calc__get_sum(1, 2)'},
      {code: 'await mcp__calc__get_sum(x=1, y=2)'},
      {code: 'await mcp__calc__get_sum(a=1)'},
      {code: 'await mcp__calc__get_sum(a="1", b=[2])'},
      {code: 'await mcp__calc__get_sum(a=1, b=2, mode="quick")'},
      {code: 'mcp__calc__get_sum(a=1, b=2)'},
      {code: 'await list_tools()'},
    ])
    const signature = '\n    await mcp__calc__get_sum(*, a: float, b: float'
    expect(unknownTool).toMatch(
      /^PreflightError: 1 problem found before the program ran; nothing ran and no tool was called\. Fix it and run the program again:\n {2}line 2: Unknown tool 'mcp__calc__get_sun'\. Did you mean mcp__calc__get_sum\?\n {4}await mcp__calc__get_sum\(/,
    )
    expect(positional).toContain(
      `line 1: mcp__calc__get_sum(): takes keyword arguments only (got 2 positional); missing required arguments 'a', 'b'${signature}`,
    )
    // One to one: y is not said to mean a as well.
    expect(keywords).toContain(
      `line 1: mcp__calc__get_sum(): unexpected argument 'x' (did you mean 'a'?); unexpected argument 'y' (did you mean 'b'?)${signature}`,
    )
    expect(missing).toContain(`line 1: mcp__calc__get_sum(): missing required argument 'b'${signature}`)
    expect(type).toContain(
      "line 1: mcp__calc__get_sum(): argument 'a' is a str ('1'); it must be a number; argument 'b' is a list ([2]); it must be a number",
    )
    expect(outOfEnum).toContain("argument 'mode' is 'quick', not one of 'fast', 'exact'")
    expect(notAwaited).toContain(
      'line 1: mcp__calc__get_sum(): never awaited, so it would never run: write `await mcp__calc__get_sum(...)`',
    )
    expect(unknownHelper).toContain(
      "line 1: name 'list_tools' is not defined; did you mean list_callable_tools?",
    )
  })

  test('every problem at once, in line order', () => {
    const [report] = check([
      {code: 'mcp__calc__get_sum(a=1, b=2)\nawait mcp__calc__get_sun()\nawait mcp__calc__get_sum(a=1, c=2)'},
    ])
    expect(report).toMatch(
      /^PreflightError: 3 problems .*\n {2}line 1: .*\n {4}.*\n {2}line 2: .*\n {4}.*\n {2}line 3: /,
    )
  })

  test('what it cannot see is left alone: names the program binds, **kwargs, computed values, globals()', () => {
    expect(
      check([
        {code: 'f = mcp__calc__get_sum\nawait f(1, 2)'},
        {code: 'args = {"a": 1}\nawait mcp__calc__get_sum(**args)'},
        {code: 'n = 1\nawait mcp__calc__get_sum(a=n, b=int("2"), mode=f"{n}")'},
        {code: 'await mcp__calc__anything(q="x", extra=1)'},
        {code: 'names = globals()\nawait mcp__calc__gone(a=1)\nawait helper_defined_later()'},
        {code: 'import asyncio\nawait asyncio.gather(*[mcp__calc__get_sum(a=i, b=i) for i in range(3)])'},
        {code: 'async def main():\n    return await mcp__calc__get_sum(a=1, b=2)\nprint(await main())'},
        {code: 'await mcp__calc__get_sum(a=1, b=None, mode=None)'.replace('b=None', 'b=2')},
      ]),
    ).toEqual([null, null, null, null, null, null, null, null])
  })

  test('a helper is checked against its own signature: a helper added later needs no list of its own', () => {
    const [wrong, unknownWithout, awaitedSync] = check([
      {code: 'await store(k="a", value=1)', with_store: true},
      {code: 'await store("a", 1)'},
      {code: 'await emit(1)'},
    ])
    expect(wrong).toContain("line 1: store(): missing a required argument: 'key'")
    expect(unknownWithout).toContain("line 1: name 'store' is not defined")
    expect(awaitedSync).toContain('line 1: emit(): is not async: call it without await, `emit(...)`')
    expect(check([{code: 'await store("a", 1)', with_store: true}])).toEqual([null])
  })

  test('a program that does not parse is left to the compiler', () => {
    expect(check([{code: 'print("a"'}])).toEqual([null])
  })
})
