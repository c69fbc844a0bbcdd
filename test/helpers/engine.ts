// The program engine as tests set it up: real Python children, sandbox `none` unless a backend is
// given, closed together after the file.
import type {ExecutionConfig} from '../../src/config/schema.js'
import type {ToolHost} from '../../src/downstream/types.js'
import type {PythonInfo} from '../../src/sandbox/backend.js'

import {executionSchema} from '../../src/config/schema.js'
import {ProgramEngine, type ProgramEngineOptions} from '../../src/execution/engine/engine.js'
import {resolvePython} from '../../src/execution/engine/python.js'
import {noneBackend} from '../../src/sandbox/none.js'

/** The interpreter tests run programs with: PTC_MCP_TEST_PYTHON, else python3 on PATH. */
export function testPython(): string {
  return process.env.PTC_MCP_TEST_PYTHON ?? 'python3'
}

let python: Promise<PythonInfo> | undefined

/** `testPython()` resolved, once per test file. */
export function testPythonInfo(): Promise<PythonInfo> {
  python ??= resolvePython(testPython())
  return python
}

const open = new Set<ProgramEngine>()

/**
 * An engine over `host`: `execution` on top of a 20 s timeout, no warm pool and sandbox `none`
 * (the `none` backend unless `options.backend` names another). closeTestEngines() closes it.
 */
export async function createTestEngine(
  host: ToolHost,
  execution: Partial<ExecutionConfig> = {},
  options: Partial<Omit<ProgramEngineOptions, 'execution' | 'host' | 'python'>> = {},
): Promise<ProgramEngine> {
  const engine = new ProgramEngine({
    execution: executionSchema.parse({timeout_seconds: 20, warm_pool: 0, sandbox: 'none', ...execution}),
    host,
    backend: noneBackend,
    python: await testPythonInfo(),
    ...options,
  })
  open.add(engine)
  return engine
}

/** Closes every engine createTestEngine made (for afterAll); closing one twice is harmless. */
export async function closeTestEngines(): Promise<void> {
  const engines = [...open]
  open.clear()
  await Promise.all(engines.map((engine) => engine.close()))
}
