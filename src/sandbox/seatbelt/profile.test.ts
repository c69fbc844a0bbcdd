// @tier unit
import {describe, expect, test} from 'vitest'

import {createSeatbeltBackend, seatbeltPaths} from './index.js'
import {ancestors, SANDBOX_EXEC, sbplString, seatbeltArgv, seatbeltProfile} from './profile.js'

const python = {
  executable:
    '/opt/homebrew/Cellar/python@3.12/3.12.4/Frameworks/Python.framework/Versions/3.12/bin/python3.12',
  version: '3.12.4',
  prefixes: ['/opt/homebrew/Cellar/python@3.12/3.12.4/Frameworks/Python.framework/Versions/3.12'],
  stdlibPaths: [
    '/opt/homebrew/Cellar/python@3.12/3.12.4/Frameworks/Python.framework/Versions/3.12/lib/python3.12',
  ],
}

const paths = {
  executables: [python.executable],
  readOnly: [
    python.prefixes[0] as string,
    '/opt/homebrew/Cellar/openssl@3/3.3.1/lib',
    '/Users/me/ptc-mcp/dist/execution',
  ],
  readWrite: ['/private/var/folders/xy/T/ptc-run-1'],
}

/** The top-level (allow ...) / (deny ...) forms of a profile, each on one line. */
function rules(profile: string): string[] {
  return profile
    .split('\n')
    .filter((line) => !line.startsWith(';'))
    .join('\n')
    .split(/\n(?=\()/)
    .map((rule) => rule.replaceAll(/\s+/g, ' ').trim())
    .filter((rule) => rule.startsWith('('))
}

describe('the seatbelt backend', () => {
  describe('seatbeltProfile', () => {
    const profile = seatbeltProfile(paths)
    const all = rules(profile)

    test('denies by default and never allows network, fork or signals to others', () => {
      expect(all[0]).toBe('(version 1)')
      expect(all[1]).toBe('(deny default)')
      expect(all).toContain('(deny network*)')
      expect(all).toContain('(deny process-fork)')
      expect(
        all.some((rule) =>
          /^\(allow (network|process-fork|mach-lookup|file-write\* \(subpath "\/"\))/.test(rule),
        ),
      ).toBe(false)
      expect(all).toContain('(allow signal (target self))')
    })

    test('allows exec of the interpreter only', () => {
      const exec = all.filter((rule) => rule.startsWith('(allow process-exec'))
      expect(exec).toEqual([`(allow process-exec (literal "${python.executable}"))`])
    })

    test('reads the prefix, libraries, runtime files and system libraries; writes only the scratch dir', () => {
      const reads = all.find((rule) => rule.startsWith('(allow file-read* (literal'))
      expect(reads).toContain(`(subpath "${python.prefixes[0]}")`)
      expect(reads).toContain('(subpath "/opt/homebrew/Cellar/openssl@3/3.3.1/lib")')
      expect(reads).toContain('(subpath "/Users/me/ptc-mcp/dist/execution")')
      expect(reads).toContain('(subpath "/usr/lib")')
      expect(reads).toContain('(subpath "/System/Volumes/Preboot/Cryptexes/OS")')
      const writes = all.filter((rule) => /file-write/.test(rule))
      expect(writes).toEqual([
        '(allow file-read* file-write* (subpath "/private/var/folders/xy/T/ptc-run-1"))',
        '(allow file-read* file-write-data (literal "/dev/null"))',
      ])
    })

    test('hides the metadata of other paths: only ancestors of allowed paths can be looked up', () => {
      const metadata = all.find((rule) => rule.startsWith('(allow file-read-metadata'))
      expect(metadata).toContain('(literal "/")')
      expect(metadata).toContain('(literal "/opt/homebrew")')
      expect(metadata).toContain('(literal "/private/var/folders/xy/T")')
      expect(metadata).not.toContain('subpath')
      expect(metadata).not.toContain('(literal "/Users/me/.ssh")')
    })

    test('quotes paths so that a quote or backslash cannot end the string', () => {
      expect(sbplString('/a"b\\c')).toBe('"/a\\"b\\\\c"')
      const odd = seatbeltProfile({...paths, readWrite: ['/tmp/x") (allow default) ("']})
      expect(rules(odd)).not.toContain('(allow default)')
      expect(odd).toContain('(subpath "/tmp/x\\") (allow default) (\\"")')
      expect(() => sbplString('/a\0b')).toThrow(/NUL/)
    })

    test('ancestors lists every directory above each path', () => {
      expect(ancestors(['/a/b/c', '/a/d'])).toEqual(['/', '/a', '/a/b'])
    })
  })

  describe('seatbeltArgv', () => {
    test('runs the interpreter under /usr/bin/sandbox-exec -p <profile>', () => {
      expect(seatbeltArgv('(version 1)', '/usr/bin/python3', ['-I', '-S', '-B', 'runner.py'])).toEqual({
        command: SANDBOX_EXEC,
        args: ['-p', '(version 1)', '/usr/bin/python3', '-I', '-S', '-B', 'runner.py'],
      })
      expect(SANDBOX_EXEC).toBe('/usr/bin/sandbox-exec')
    })
  })

  describe('seatbeltPaths', () => {
    test('system library directories are left to the fixed system list', () => {
      const built = seatbeltPaths(
        python,
        '/nonexistent/scratch',
        ['/nonexistent/runtime'],
        ['/usr/lib', '/opt/x/lib'],
      )
      expect(built.readWrite).toEqual(['/nonexistent/scratch'])
      expect(built.readOnly).toContain('/opt/x/lib')
      expect(built.readOnly).not.toContain('/usr/lib')
      expect(built.readOnly).toContain('/nonexistent/runtime')
      expect(built.executables).toContain(python.executable)
    })
  })

  describe.skipIf(process.platform === 'darwin')('the seatbelt backend off macOS', () => {
    test('check() fails with SandboxError saying why', async () => {
      await expect(createSeatbeltBackend().check(python)).rejects.toMatchObject({
        name: 'SandboxError',
        code: 'SANDBOX_UNAVAILABLE',
        message: expect.stringMatching(/macOS only/),
      })
    })
  })
})
