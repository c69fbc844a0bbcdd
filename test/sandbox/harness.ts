import {execFileSync} from 'node:child_process'
import {basename, dirname} from 'node:path'

import type {ToolHost, ToolInfo} from '../../src/downstream/types.js'
import type {SandboxBackend} from '../../src/sandbox/backend.js'

import {type ExecutionConfig, executionSchema} from '../../src/config/schema.js'
import {ProgramEngine, type RunOutcome} from '../../src/execution/engine.js'
import {resolvePython} from '../../src/execution/python.js'
import {CONFINE_MODULE} from '../../src/sandbox/linux/index.js'

/** A host with no downstream tools: the escape suite only needs the child. */
const none: ToolInfo[] = []

export const noTools: ToolHost = {
  listTools: () => none,
  getTool: (name) => none.find((tool) => tool.name === name),
  unavailableServers: () => [],
  serverStatus: () => [],
  async callTool() {
    throw new Error('no tools here')
  },
  async waitForInitialConnections() {},
}

/** The interpreter tests run programs with: PTC_MCP_TEST_PYTHON, else python3 on PATH. */
export function testPython(): string {
  return process.env.PTC_MCP_TEST_PYTHON ?? 'python3'
}

/**
 * Runs `lines` of Python in a throwaway interpreter with confine.py loaded as `c` (and json and
 * sys imported), as a member of its directory's package (`linux.confine`: its modules import each
 * other relatively); returns what it printed.
 */
export function runWithConfine(lines: string[]): string {
  const script = [
    'import importlib, json, sys',
    `sys.path.insert(0, ${JSON.stringify(dirname(dirname(CONFINE_MODULE)))})`,
    `c = importlib.import_module("${basename(dirname(CONFINE_MODULE))}.confine")`,
    ...lines,
  ].join('\n')
  return execFileSync(testPython(), ['-I', '-S', '-B', '-c', script], {encoding: 'utf8'})
}

export interface EngineHandle {
  run(code: string): Promise<RunOutcome>
  close(): Promise<void>
}

export async function startEngine(
  backend: SandboxBackend,
  execution: Partial<ExecutionConfig> = {},
): Promise<EngineHandle> {
  const python = await resolvePython(testPython())
  const engine = new ProgramEngine({
    execution: executionSchema.parse({timeout_seconds: 20, warm_pool: 0, ...execution}),
    host: noTools,
    backend,
    python,
  })
  return {run: (code) => engine.run(code), close: () => engine.close()}
}
