import {testDependency} from '../../test/helpers/test-deps.js'
// The downstream servers every scenario runs against: the bench's own and a third-party one
// (@modelcontextprotocol/server-everything), each with the tools the scenarios call.
import {BENCH_SERVER, TSX_LOADER_URL} from './paths.js'

export interface ToolCall {
  tool: string
  args: Record<string, number | string>
}

/** How to start a stdio MCP server, and the name a gateway knows it by. */
export interface ServerLaunch {
  name: string
  command: string
  args: string[]
}

export interface Downstream extends ServerLaunch {
  name: 'bench' | 'everything'
  /** A cheap tool: the 300-call scenario. */
  cheap: ToolCall
  /** A tool that answers after `ms` milliseconds: fan-out. */
  sleep(ms: number): ToolCall
  /** A tool whose text result is `bytes` bytes of JSON rows with an `amount` each, if it has one. */
  big?(bytes: number): ToolCall
}

export const benchDownstream: Downstream = {
  name: 'bench',
  command: process.execPath,
  args: ['--import', TSX_LOADER_URL, BENCH_SERVER],
  cheap: {tool: 'echo', args: {text: 'x'}},
  sleep: (ms) => ({tool: 'sleep', args: {ms}}),
  big: (bytes) => ({tool: 'big', args: {bytes}}),
}

export const everythingDownstream: Downstream = {
  name: 'everything',
  command: process.execPath,
  // Resolved when a gateway starts it, not on import: the bench's pure tests run without .test-deps.
  get args() {
    return [testDependency('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio']
  },
  cheap: {tool: 'echo', args: {message: 'x'}},
  sleep: (ms) => ({tool: 'trigger-long-running-operation', args: {duration: ms / 1000, steps: 1}}),
}

export const DOWNSTREAMS: readonly Downstream[] = [benchDownstream, everythingDownstream]
