import {execFileSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

import {MAX_FILE_CHUNK_BYTES, MAX_KEPT_DEPTH, MAX_SHOWN_BYTES, MAX_SHOWN_IMAGES} from '../../shared/limits.js'
import {MAX_KEPT_BYTES, MAX_KEPT_FILES} from './kept-files.js'

const PYTHON = process.env.PTC_MCP_TEST_PYTHON ?? 'python3'
const RUNNER_DIR = fileURLToPath(new URL('../runner', import.meta.url))

/** The module-level number constants of a runner file (`NAME = 64 * 1024`), read with ast, never run. */
function pythonConstants(file: string): Record<string, number> {
  const script = [
    'import ast, json, sys',
    'tree = ast.parse(open(sys.argv[1]).read())',
    'out = {}',
    'for node in tree.body:',
    '    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):',
    '        if all(isinstance(n, (ast.BinOp, ast.Constant, ast.operator)) for n in ast.walk(node.value)):',
    '            value = eval(compile(ast.Expression(node.value), "<runner>", "eval"), {"__builtins__": {}})',
    '            if isinstance(value, int): out[node.targets[0].id] = value',
    'print(json.dumps(out))',
  ].join('\n')
  const output = execFileSync(PYTHON, ['-I', '-c', script, `${RUNNER_DIR}/${file}`], {encoding: 'utf8'})
  return JSON.parse(output) as Record<string, number>
}

// The parent enforces these limits whatever the child claims (SPEC §15); the runner refuses the
// same in the program first, so that the program gets a clear error rather than a protocol failure,
// and the model is told the limits the parent holds (descriptions.ts).
describe("the runner's limits are the parent's", () => {
  it('kept ./out/ files: count, bytes, depth and chunk size', () => {
    expect(pythonConstants('kept_files.py')).toMatchObject({
      MAX_FILES: MAX_KEPT_FILES,
      MAX_BYTES: MAX_KEPT_BYTES,
      MAX_DEPTH: MAX_KEPT_DEPTH,
      CHUNK_BYTES: MAX_FILE_CHUNK_BYTES,
    })
  })

  it('show(): images and bytes per run', () => {
    expect(pythonConstants('media.py')).toMatchObject({
      MAX_SHOWN_IMAGES,
      MAX_SHOWN_BYTES,
    })
  })
})
