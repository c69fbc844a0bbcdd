import {execFileSync} from 'node:child_process'
import {basename, dirname} from 'node:path'

import type {ToolHost, ToolInfo} from '../../src/downstream/types.js'
import type {SandboxBackend} from '../../src/sandbox/backend.js'

import {type ExecutionConfig} from '../../src/config/schema.js'
import {type RunOutcome} from '../../src/execution/engine/engine.js'
import {CONFINE_MODULE} from '../../src/sandbox/linux/index.js'
import {createTestEngine, testPython} from '../helpers/engine.js'

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
  const engine = await createTestEngine(noTools, execution, {backend})
  return {run: (code) => engine.run(code), close: () => engine.close()}
}

export {testPython} from '../helpers/engine.js'
