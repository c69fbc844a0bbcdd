// @tier unit
import {describe, expect, test} from 'vitest'

import {bwrapArgs, mirrorPath, planMounts, SCRATCH_BYTES} from './bwrap.js'

/** A merged-/usr Debian layout: /lib, /lib64 and /bin are symlinks into /usr. */
function fakeFs(links: Record<string, string>, files: string[]) {
  const known = [...files, ...Object.keys(links)]
  const exists = (path: string) =>
    path === '/' || known.some((file) => file === path || file.startsWith(path + '/'))
  return {
    lstat: (path: string) => (exists(path) ? {isSymbolicLink: () => path in links} : undefined),
    readlink: (path: string) => links[path] as string,
  }
}

const debian = fakeFs(
  {
    '/lib': 'usr/lib',
    '/lib64': 'usr/lib64',
    '/bin': 'usr/bin',
    '/usr/lib64/ld-linux-x86-64.so.2': '../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2',
    '/etc/localtime': '/usr/share/zoneinfo/Etc/UTC',
    '/usr/bin/python3': 'python3.11',
  },
  [
    '/usr/lib/x86_64-linux-gnu/libc.so.6',
    '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2',
    '/usr/lib/python3.11/os.py',
    '/usr/bin/python3.11',
    '/usr/share/zoneinfo/Etc/UTC',
    '/etc/ld.so.cache',
    '/work/app/src/execution/runner.py',
  ],
)

describe('bwrap arguments', () => {
  describe('mirrorPath', () => {
    test('follows each symlink on the way and returns the real path', () => {
      expect(mirrorPath('/lib64/ld-linux-x86-64.so.2', debian)).toEqual({
        symlinks: [
          {path: '/lib64', target: 'usr/lib64'},
          {path: '/usr/lib64/ld-linux-x86-64.so.2', target: '../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'},
        ],
        real: '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2',
      })
    })

    test('a path without symlinks is its own real path; a missing one is undefined', () => {
      expect(mirrorPath('/usr/lib/python3.11', debian)).toEqual({symlinks: [], real: '/usr/lib/python3.11'})
      expect(mirrorPath('/nope/x', debian)).toBeUndefined()
    })

    test('a symlink loop ends', () => {
      const loop = fakeFs({'/a': '/b', '/b': '/a'}, [])
      expect(mirrorPath('/a/x', loop)).toBeUndefined()
    })
  })

  describe('planMounts', () => {
    test('binds real paths parents first, skips what a bound parent already holds, recreates symlinks', () => {
      const plan = planMounts(
        [
          {path: '/usr/bin/python3', mode: 'ro'},
          {path: '/lib/x86_64-linux-gnu', mode: 'ro'},
          {path: '/lib/x86_64-linux-gnu/libc.so.6', mode: 'ro'},
          {path: '/lib64/ld-linux-x86-64.so.2', mode: 'ro'},
          {path: '/etc/localtime', mode: 'ro'},
          {path: '/usr/share/zoneinfo', mode: 'ro'},
          {path: '/missing', mode: 'ro'},
        ],
        ['/bin', '/lib', '/sbin'],
        debian,
      )
      expect(plan.binds).toEqual([
        {path: '/usr/bin/python3.11', mode: 'ro'},
        {path: '/usr/lib/x86_64-linux-gnu', mode: 'ro'},
        {path: '/usr/share/zoneinfo', mode: 'ro'},
      ])
      expect(plan.symlinks).toEqual([
        {path: '/bin', target: 'usr/bin'},
        {path: '/lib', target: 'usr/lib'},
        {path: '/lib64', target: 'usr/lib64'},
        {path: '/etc/localtime', target: '/usr/share/zoneinfo/Etc/UTC'},
        {path: '/usr/bin/python3', target: 'python3.11'},
        {path: '/usr/lib64/ld-linux-x86-64.so.2', target: '../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'},
      ])
      // Each symlink outside a bound directory gets its parent made first.
      expect(plan.dirs).toEqual(['/etc', '/usr/bin', '/usr/lib64'])
    })

    test('a writable bind inside a read-only one is kept, after it', () => {
      const fs = fakeFs({}, ['/data/scratch/x', '/data/lib/y'])
      const plan = planMounts(
        [
          {path: '/data/scratch', mode: 'rw'},
          {path: '/data', mode: 'ro'},
        ],
        [],
        fs,
      )
      expect(plan.binds).toEqual([
        {path: '/data', mode: 'ro'},
        {path: '/data/scratch', mode: 'rw'},
      ])
    })
  })

  describe('bwrapArgs', () => {
    const base = {
      readOnly: [
        '/usr/bin/python3',
        '/usr/lib/python3.11',
        '/lib/x86_64-linux-gnu',
        '/work/app/src/execution',
      ],
      devices: [],
      links: ['/lib', '/lib64', '/bin'],
      env: {HOME: '/tmp/ptc-run-1', LANG: 'C.UTF-8'},
      command: '/usr/bin/python3.11',
      args: ['-I', '-S', '-B', 'runner.py'],
    }

    test('unshares everything, maps to nobody, dies with its parent, clears the environment', () => {
      const args = bwrapArgs({...base, scratchDir: '/tmp/ptc-run-1', asRoot: false}, debian)
      const head = args.slice(0, args.indexOf('--setenv'))
      expect(head).toEqual([
        '--unshare-all',
        '--unshare-user',
        '--uid',
        '65534',
        '--gid',
        '65534',
        '--hostname',
        'sandbox',
        '--die-with-parent',
        '--new-session',
        '--cap-drop',
        'ALL',
        '--cap-add',
        'CAP_SYS_ADMIN',
        '--cap-add',
        'CAP_SETPCAP',
        '--clearenv',
      ])
      expect(args).toContain('--setenv')
      expect(args.slice(args.indexOf('HOME') - 1, args.indexOf('HOME') + 2)).toEqual([
        '--setenv',
        'HOME',
        '/tmp/ptc-run-1',
      ])
      expect(args).not.toContain('--proc')
      expect(args.slice(-8)).toEqual([
        '--chdir',
        '/tmp/ptc-run-1',
        '--',
        '/usr/bin/python3.11',
        '-I',
        '-S',
        '-B',
        'runner.py',
      ])
    })

    test('as root: no user namespace (it would map the program to host uid 0), caps to drop to its own uid', () => {
      const args = bwrapArgs({...base, scratchDir: '/tmp/ptc-run-1', asRoot: true}, debian)
      const head = args.slice(0, args.indexOf('--setenv')).join(' ')
      expect(head).toBe(
        '--unshare-ipc --unshare-pid --unshare-net --unshare-uts --unshare-cgroup-try --hostname sandbox ' +
          '--die-with-parent --new-session --cap-drop ALL --cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP ' +
          '--cap-add CAP_SETUID --cap-add CAP_SETGID --cap-add CAP_CHOWN --clearenv',
      )
    })

    test('the scratch dir is a size-limited private tmpfs that is also /tmp, mounted before the binds', () => {
      const args = bwrapArgs({...base, scratchDir: '/tmp/ptc-run-1'}, debian).join(' ')
      expect(args).toContain(
        `--size ${SCRATCH_BYTES} --perms 0700 --tmpfs /tmp --perms 0700 --dir /tmp/ptc-run-1`,
      )
      expect(args.indexOf('--tmpfs /tmp')).toBeLessThan(args.indexOf('--ro-bind'))
      expect(args).toContain('--remount-ro / --chdir /tmp/ptc-run-1')
      const elsewhere = bwrapArgs({...base, scratchDir: '/var/run/ptc-1'}, debian).join(' ')
      expect(elsewhere).toContain(`--tmpfs /var/run/ptc-1 --symlink /var/run/ptc-1 /tmp`)
    })

    test('binds only the real paths read-only and recreates the /lib and /lib64 symlinks', () => {
      const args = bwrapArgs({...base, scratchDir: '/tmp/ptc-run-1'}, debian).join(' ')
      expect(args).toContain('--ro-bind /usr/bin/python3.11 /usr/bin/python3.11')
      expect(args).toContain('--ro-bind /usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu')
      expect(args).toContain('--symlink usr/lib /lib')
      expect(args).toContain('--symlink usr/lib64 /lib64')
      expect(args).not.toMatch(/--bind \/ |--ro-bind \/ |--ro-bind \/usr \//)
    })
  })
})
