import {spawn} from 'node:child_process'
import {fileURLToPath} from 'node:url'

import {isRecord} from '../shared/guards.js'

/** The script that reads programs' ASTs (run by the configured Python, never running them). */
export const ANALYZER_PATH = fileURLToPath(new URL('analyze.py', import.meta.url))

const ANALYZE_TIMEOUT_MS = 20_000
const MAX_ANSWER_BYTES = 16 * 1024 * 1024

/** What a program declares (src/programs/analyze.py). */
export interface ProgramAnalysis {
  /** The module docstring, cleaned, or null. */
  docstring: string | null
  /** JSON Schema of `main`'s keyword-only parameters (an empty object schema without main). */
  inputSchema: Record<string, unknown>
  /** The runner awaits `main(**arguments)`: a top-level `async def main` the module does not call itself. */
  callsMain: boolean
  /** mcp__ names the program calls. */
  tools: string[]
  /** Saved programs it runs with `run_program("name", ...)`. */
  programs: string[]
  /** Some run_program name is computed at run time. */
  dynamicPrograms: boolean
  /** Why the program cannot be a tool: `line N: message`. */
  problem?: string
}

/**
 * Analyses programs with Python's own `ast` (one interpreter start for them all): `python` is the
 * resolved interpreter. Resolves with one analysis per source, in order.
 */
export function analyzePrograms(python: string, sources: readonly string[]): Promise<ProgramAnalysis[]> {
  if (sources.length === 0) return Promise.resolve([])
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-I', '-S', '-B', ANALYZER_PATH], {stdio: ['pipe', 'pipe', 'pipe']})
    const out: Buffer[] = []
    let outBytes = 0
    let errText = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), ANALYZE_TIMEOUT_MS)
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length
      if (outBytes > MAX_ANSWER_BYTES) child.kill('SIGKILL')
      else out.push(chunk)
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (errText.length < 4096) errText += chunk.toString('utf8')
    })
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(new Error(`cannot read the saved programs with ${python}: ${error.message}`, {cause: error}))
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      if (code !== 0) {
        reject(
          new Error(`reading the saved programs failed (${python}): ${errText.trim() || `exit ${code}`}`),
        )
        return
      }
      try {
        const found = JSON.parse(Buffer.concat(out).toString('utf8')) as unknown
        if (!Array.isArray(found) || found.length !== sources.length) throw new Error('wrong answer length')
        resolve(found.map(toAnalysis))
      } catch (error) {
        reject(new Error(`reading the saved programs failed: ${(error as Error).message}`))
      }
    })
    child.stdin.on('error', () => {})
    child.stdin.end(JSON.stringify(sources))
  })
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []
}

function toAnalysis(found: unknown): ProgramAnalysis {
  const data = isRecord(found) ? found : {}
  const error = isRecord(data.error) ? data.error : undefined
  return {
    docstring: typeof data.docstring === 'string' ? data.docstring : null,
    inputSchema: isRecord(data.schema) ? data.schema : {type: 'object', properties: {}},
    callsMain: data.main === true,
    tools: strings(data.tools),
    programs: strings(data.programs),
    dynamicPrograms: data.dynamic_programs === true,
    ...(error && {problem: `line ${String(error.line)}: ${String(error.message)}`}),
  }
}
