import {describe, expect, it} from 'vitest'

import {StderrRecord} from './stderr-record.js'

const record = (lines: string[]) => {
  const stderr = new StderrRecord()
  for (const line of lines) stderr.add(line)
  return stderr
}

describe('the stderr line that says why a server failed', () => {
  it("is Node's error line, not its version banner", () => {
    const stderr = record([
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      '  ^',
      "Error: Cannot find module 'no-such-module'",
      'Require stack:',
      '- /srv/server.js',
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
      '    at Module._load (node:internal/modules/cjs/loader:1051:27)',
      '{',
      "  code: 'MODULE_NOT_FOUND',",
      '}',
      'Node.js v20.20.2',
    ])
    expect(stderr.reason()).toBe("Error: Cannot find module 'no-such-module'")
  })

  it("is Python's exception line after the traceback", () => {
    const stderr = record([
      'Traceback (most recent call last):',
      '  File "/srv/server.py", line 1, in <module>',
      '    import fastmcp',
      "ModuleNotFoundError: No module named 'fastmcp'",
    ])
    expect(stderr.reason()).toBe("ModuleNotFoundError: No module named 'fastmcp'")
  })

  it('is the last line that is not noise when nothing reads as an error', () => {
    expect(record(['starting', 'listening on stdio', 'Node.js v22.1.0']).reason()).toBe('listening on stdio')
    expect(record([]).reason()).toBeUndefined()
  })

  it("is the line before a stack's frames when no line reads as an error, never a frame", () => {
    const stderr = record([
      'Traceback (most recent call last):',
      '  File "/srv/server.py", line 9, in <module>',
      '    main()',
      '__main__.StartupFailure: config.json not found',
      '    at hook (/srv/hook.js:3:9)',
      '    at run (/srv/hook.js:9:1)',
    ])
    expect(stderr.reason()).toBe('__main__.StartupFailure: config.json not found')
  })

  it("is npm's reason when npx cannot fetch the package, not its log path", () => {
    const stderr = record([
      'npm error code E404',
      'npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fmcp - Not found',
      "npm error 404  '@acme/mcp@*' is not in this registry.",
      'npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log',
    ])
    expect(stderr.reason()).toBe(
      'npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fmcp - Not found',
    )
  })

  it('only counts lines written since the given time, and forgets on clear()', () => {
    const stderr = new StderrRecord()
    stderr.add('Error: old', 1000)
    stderr.add('recent line', 5000)
    expect(stderr.reason(2000)).toBe('recent line')
    stderr.clear()
    expect(stderr.reason()).toBeUndefined()
  })
})
