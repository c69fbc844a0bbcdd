import {
  callableTools,
  InspectError,
  inspectTools,
  type JsonText,
  ToolError,
  type ToolHost,
  UnknownServerError,
} from '../../downstream/index.js'
import {isRecord} from '../../shared/guards.js'

/** A saved program as run_program() runs it (SPEC §17): its code, and main()'s arguments when it has one. */
export interface ProgramToRun {
  code: string
  /** Await `main(**arguments)` after the module. */
  main: boolean
  arguments: Record<string, unknown>
}

/** Finds a saved program and checks the arguments against its parameters; throws ToolError. */
export type ProgramLookup = (name: string, args: Record<string, unknown>) => ProgramToRun

/** What a helper answers from: the tools, the program's view of the kept state, the saved programs. */
export interface HelperContext {
  host: ToolHost
  state: HelperState
  programs?: ProgramLookup
}

/** What the state helpers use of the program's view of the kept state (`ProgramState`). */
export interface HelperState {
  store(key: unknown, value: unknown): number
  load(key: unknown): JsonText | {found: false}
  forget(key: unknown): boolean
  readonly kept: {keys(): Record<string, number>}
}

/** A helper a program asks the parent for: its answer, and how the model is told to call it. */
interface ProgramHelper {
  /** The answer (a ToolError for the program to catch, when the arguments are wrong). */
  answer(context: HelperContext, args: Record<string, unknown>): unknown
  /** How execute_program's description shows the call: with its await, as a program must write it. */
  usage: string
  /** discovery: finds tools (a program using one may call any server); state: SPEC §6.2; programs: SPEC §17. */
  group: 'discovery' | 'programs' | 'state'
  /** Counted against execution.max_tool_calls like a tool call. Default: not counted. */
  counted?: true
}

/**
 * The helpers a program asks the parent for (SPEC §5, §6, §6.2), in the order the model reads
 * them: the one list of their names. Their Python side is runner/helpers.py (which also holds the
 * helpers answered in the child: emit, show, and the classes ToolError and Media);
 * channel-messages.integration.test.ts checks that both sides name the same helpers.
 */
export const PROGRAM_HELPERS = {
  list_callable_tools: {
    group: 'discovery',
    answer({host}, {query, server}) {
      if (
        (query !== undefined && typeof query !== 'string') ||
        (server !== undefined && typeof server !== 'string')
      )
        throw new ToolError('list_callable_tools(query=..., server=...) takes strings', {
          kind: 'invalid_arguments',
        })
      const servers = host.serverStatus().map((status) => status.name)
      try {
        return callableTools(host.listTools(), {query, server, servers})
      } catch (error) {
        if (error instanceof UnknownServerError)
          throw new ToolError(error.message, {kind: 'invalid_arguments'})
        throw error
      }
    },
    usage: 'await list_callable_tools(query="words", server="name")',
  },
  inspect_tool: {
    group: 'discovery',
    answer({host}, args) {
      try {
        return inspectTools(host, args)
      } catch (error) {
        if (error instanceof InspectError) throw new ToolError(error.message, {kind: error.kind})
        throw error
      }
    },
    usage:
      'await inspect_tool(tool_name="mcp__x__y") or await inspect_tool(tool_names=[...] or "mcp__x__*", brief=True)',
  },
  server_status: {
    group: 'discovery',
    answer: ({host}) => host.serverStatus(),
    usage: 'await server_status()',
  },
  store: {
    group: 'state',
    // runner/helpers.py leaves out a None argument: a value not given is None.
    answer: ({state}, {key, value}) => state.store(key, value ?? null),
    usage: 'await store(key, value)',
  },
  load: {
    group: 'state',
    answer: ({state}, {key}) => state.load(key),
    usage: 'await load(key, default=None)',
  },
  stored: {
    group: 'state',
    answer: ({state}) => state.kept.keys(),
    usage: 'await stored()',
  },
  forget: {
    group: 'state',
    answer: ({state}, {key}) => state.forget(key),
    usage: 'await forget(key)',
  },
  run_program: {
    group: 'programs',
    counted: true,
    answer({programs}, {program: name, arguments: args}) {
      if (typeof name !== 'string')
        throw new ToolError("run_program(name, **arguments) takes the saved program's name first", {
          kind: 'invalid_arguments',
        })
      if (!programs) throw new ToolError('saved programs cannot be run here', {kind: 'unknown_tool'})
      return programs(name, isRecord(args) ? args : {})
    },
    usage: 'await run_program("name", **arguments)',
  },
} satisfies Record<string, ProgramHelper>

export type HelperName = keyof typeof PROGRAM_HELPERS
export const HELPER_NAMES = Object.keys(PROGRAM_HELPERS) as HelperName[]

/** The helpers of one group, in order. */
export function helpersOf(group: ProgramHelper['group']): HelperName[] {
  return HELPER_NAMES.filter((name) => PROGRAM_HELPERS[name].group === group)
}

/** `a, b and c`: the helpers by name, as messages list them. */
export const HELPER_LIST = `${HELPER_NAMES.slice(0, -1).join(', ')} and ${HELPER_NAMES.at(-1)}`
