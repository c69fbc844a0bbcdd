// @tier unit
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {PACKAGE_ROOT} from './package-root.js'
import {TOOL_ERROR_KINDS} from './tool-error-kinds.js'

/** Every Python file of the runtime under src/, wherever the package lives. */
function pythonFiles(dir = join(PACKAGE_ROOT, 'src')): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return pythonFiles(path)
    return entry.name.endsWith('.py') ? [path] : []
  })
}

const sources = pythonFiles().map((path) => ({path, text: readFileSync(path, 'utf8')}))

describe('ToolError kinds: one list, TypeScript and Python agree', () => {
  it("the Python ToolError's docstring lists exactly TOOL_ERROR_KINDS, in order", () => {
    const defining = sources.filter(({text}) => /^class ToolError\(Exception\):/m.test(text))
    expect(defining).toHaveLength(1)
    const docstring =
      /^class ToolError\(Exception\):\n\s+"""([\s\S]*?)"""/m.exec(defining[0]!.text)?.[1] ?? ''
    const kindsText = /\.kind:([\s\S]*)$/.exec(docstring)?.[1] ?? ''
    // The words of the list, without the sentence around them ("or the state bound exceeded:").
    const filler = new Set(['bound', 'exceeded', 'or', 'state', 'the'])
    const listed = kindsText.split(/[^a-z_]+/).filter((word) => word !== '' && !filler.has(word))
    expect(listed).toEqual([...TOOL_ERROR_KINDS])
  })

  it('every kind the Python runtime raises is one of TOOL_ERROR_KINDS', () => {
    const raised = sources.flatMap(({text}) =>
      [...text.matchAll(/\bkind="([a-z_]+)"/g)].map(([, kind]) => kind!),
    )
    expect(raised.length).toBeGreaterThan(2)
    for (const kind of raised) expect(TOOL_ERROR_KINDS as readonly string[]).toContain(kind)
  })
})
