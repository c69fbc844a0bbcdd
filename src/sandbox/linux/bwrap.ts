import {accessSync, constants, lstatSync, readlinkSync} from 'node:fs'
import {delimiter, join, posix} from 'node:path'

import {DEFAULT_BOUNDS} from '../backend.js'

/** The uid and gid the program has inside the user namespace (nobody). */
export const SANDBOX_ID = 65_534

export type MountMode = 'ro' | 'rw' | 'dev'

export interface MountRequest {
  path: string
  mode: MountMode
}

export interface MountPlan {
  /** Real paths (no symlink on the way), bound at the same place, parents before children. */
  binds: {path: string; mode: MountMode}[]
  /** Directories to create so that the symlinks below have a parent. */
  dirs: string[]
  /** Symlinks recreated as on the host (/lib64 -> usr/lib64...), so every path resolves alike. */
  symlinks: {path: string; target: string}[]
}

interface FileSystem {
  lstat(path: string): {isSymbolicLink(): boolean} | undefined
  readlink(path: string): string
}

const hostFileSystem: FileSystem = {
  lstat(path) {
    try {
      return lstatSync(path)
    } catch {}
  },
  readlink: (path) => readlinkSync(path),
}

const MAX_SYMLINKS = 40

/**
 * How `path` is reached on the host: the symlinks met on the way (each to recreate inside the
 * namespace) and the real path at the end. Undefined when it does not exist.
 */
export function mirrorPath(
  path: string,
  fs: FileSystem = hostFileSystem,
  depth = 0,
): {symlinks: {path: string; target: string}[]; real: string} | undefined {
  if (depth > MAX_SYMLINKS) return undefined
  const parts = path.split('/').filter((part) => part !== '' && part !== '.')
  let current = '/'
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as string
    if (part === '..') {
      current = posix.dirname(current)
      continue
    }
    const next = posix.join(current, part)
    const stat = fs.lstat(next)
    if (!stat) return undefined
    if (stat.isSymbolicLink()) {
      const target = fs.readlink(next)
      // `current` is real here, so resolving `..` in the target lexically is right.
      const resolved = posix.resolve(current, target, ...parts.slice(index + 1))
      const rest = mirrorPath(resolved, fs, depth + 1)
      if (!rest) return undefined
      return {symlinks: [{path: next, target}, ...rest.symlinks], real: rest.real}
    }
    current = next
  }
  return {symlinks: [], real: current}
}

const STRENGTH: Record<MountMode, number> = {ro: 0, dev: 1, rw: 2}

function isUnder(path: string, parent: string): boolean {
  return parent === '/' || path === parent || path.startsWith(parent + '/')
}

/** Turns the paths the sandbox needs into binds, directories and symlinks, in an order bwrap accepts. */
export function planMounts(
  requests: MountRequest[],
  links: string[] = [],
  fs: FileSystem = hostFileSystem,
): MountPlan {
  const modes = new Map<string, MountMode>()
  const symlinks = new Map<string, string>()
  for (const link of links) if (fs.lstat(link)?.isSymbolicLink()) symlinks.set(link, fs.readlink(link))
  for (const request of requests) {
    const mirrored = mirrorPath(request.path, fs)
    if (!mirrored) continue
    for (const link of mirrored.symlinks) symlinks.set(link.path, link.target)
    const known = modes.get(mirrored.real)
    if (!known || STRENGTH[request.mode] > STRENGTH[known]) modes.set(mirrored.real, request.mode)
  }
  const binds: MountPlan['binds'] = []
  for (const path of [...modes.keys()].sort(comparePaths)) {
    const mode = modes.get(path) as MountMode
    // A bind under one of the same mode is already there.
    const covered = binds.some((bind) => bind.mode === mode && isUnder(path, bind.path))
    if (!covered) binds.push({path, mode})
  }
  const dirs = new Set<string>()
  const ordered: MountPlan['symlinks'] = []
  for (const [path, target] of [...symlinks.entries()].sort(([a], [b]) => comparePaths(a, b))) {
    // Inside a bound directory the link is already there, as on the host.
    if (binds.some((bind) => isUnder(path, bind.path) && path !== bind.path)) continue
    const parent = posix.dirname(path)
    if (parent !== '/' && !binds.some((bind) => isUnder(parent, bind.path))) dirs.add(parent)
    ordered.push({path, target})
  }
  return {binds, dirs: [...dirs].sort(comparePaths), symlinks: ordered}
}

function comparePaths(a: string, b: string): number {
  const depth = a.split('/').length - b.split('/').length
  if (depth !== 0) return depth
  if (a === b) return 0
  return a < b ? -1 : 1
}

export interface BwrapOptions {
  /** Read-only files and directories (interpreter, libraries, runtime files). */
  readOnly: string[]
  devices: string[]
  /** Host symlinks to recreate as they are (see InterpreterFiles.links). */
  links: string[]
  /** Absolute path, without symlinks (the child's cwd, HOME and TMPDIR). */
  scratchDir: string
  /** Size of the scratch tmpfs. Default SCRATCH_BYTES. */
  scratchBytes?: number
  /**
   * Whether bwrap runs as root. Default: this process's euid is 0. Root's child gets no user
   * namespace (it would map the program to host uid 0, which RLIMIT_NPROC never binds): it starts
   * as root with the few capabilities confine.py needs to drop to a uid of its own.
   */
  asRoot?: boolean
  env: Record<string, string>
  command: string
  args: string[]
  /** bwrap options applied after the binds (a fork server's socket bind and /proc). */
  extraArgs?: string[]
}

/** Size of the private tmpfs that holds the scratch dir inside bwrap, unless told. */
export const SCRATCH_BYTES = DEFAULT_BOUNDS.scratchBytes

/**
 * Capabilities the child keeps until confine.py has used them and dropped every one: remounting
 * the scratch tmpfs with an inode limit (bwrap cannot set one), and for root, dropping to the
 * program's own uid (chown of the scratch dir, setuid, emptying the bounding set).
 */
const CONFINE_CAPS = ['CAP_SYS_ADMIN', 'CAP_SETPCAP']
const ROOT_CONFINE_CAPS = [...CONFINE_CAPS, 'CAP_SETUID', 'CAP_SETGID', 'CAP_CHOWN']

/**
 * bwrap's arguments: new mount, pid, net, ipc, uts and cgroup namespaces, and a user namespace
 * unless bwrap runs as root; an empty read-only root holding only the paths asked for; the scratch
 * dir at its own path on a private size-limited tmpfs, which is also /tmp; no /proc, no /dev but
 * the devices.
 */
export function bwrapArgs(options: BwrapOptions, fs: FileSystem = hostFileSystem): string[] {
  const plan = cachedPlan(options, fs)
  const asRoot = options.asRoot ?? process.geteuid?.() === 0
  const args = asRoot
    ? ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try']
    : ['--unshare-all', '--unshare-user', '--uid', String(SANDBOX_ID), '--gid', String(SANDBOX_ID)]
  args.push('--hostname', 'sandbox', '--die-with-parent', '--new-session', '--cap-drop', 'ALL')
  for (const cap of asRoot ? ROOT_CONFINE_CAPS : CONFINE_CAPS) args.push('--cap-add', cap)
  args.push('--clearenv')
  for (const [name, value] of Object.entries(options.env)) args.push('--setenv', name, value)
  // The program's files live in a private tmpfs of bounded size, never on the host's disk: the
  // host scratch dir stays empty, and filling the scratch space ends in ENOSPC. Mounted first, so
  // that read-only paths under /tmp (a checkout there) are bound on top of it, not hidden by it.
  const size = String(options.scratchBytes ?? SCRATCH_BYTES)
  if (options.scratchDir.startsWith('/tmp/')) {
    args.push(
      '--size',
      size,
      '--perms',
      '0700',
      '--tmpfs',
      '/tmp',
      '--perms',
      '0700',
      '--dir',
      options.scratchDir,
    )
  } else {
    args.push('--size', size, '--perms', '0700', '--tmpfs', options.scratchDir)
    if (!plan.binds.some((bind) => isUnder(bind.path, '/tmp')))
      args.push('--symlink', options.scratchDir, '/tmp')
  }
  // Running as root, bwrap makes the directories above a bind 0700: the uid the child drops to
  // must traverse them.
  if (asRoot) for (const dir of ancestorsOutsideBinds(plan)) args.push('--perms', '0755', '--dir', dir)
  const flag: Record<MountMode, string> = {ro: '--ro-bind', rw: '--bind', dev: '--dev-bind'}
  for (const bind of plan.binds) args.push(flag[bind.mode], bind.path, bind.path)
  for (const dir of plan.dirs) args.push('--dir', dir)
  for (const link of plan.symlinks) args.push('--symlink', link.target, link.path)
  args.push(
    ...(options.extraArgs ?? []),
    '--remount-ro',
    '/',
    '--chdir',
    options.scratchDir,
    '--',
    options.command,
    ...options.args,
  )
  return args
}

/** The directories above the binds that no bind provides (bwrap creates them), parents first. */
function ancestorsOutsideBinds(plan: MountPlan): string[] {
  const found = new Set<string>()
  for (const path of [...plan.binds.map((bind) => bind.path), ...plan.dirs]) {
    for (let dir = posix.dirname(path); dir !== '/'; dir = posix.dirname(dir)) {
      if (plan.binds.some((bind) => isUnder(dir, bind.path))) continue
      found.add(dir)
    }
  }
  return [...found].sort(comparePaths)
}

/**
 * The host's mount plan, computed once per set of paths: every child of a server binds the same
 * interpreter files, and the plan takes a few hundred synchronous lstat calls, which would block
 * the event loop (running programs' tool calls included) each time the warm pool starts a child.
 */
const hostPlans = new Map<string, MountPlan>()

function cachedPlan(options: BwrapOptions, fs: FileSystem): MountPlan {
  const compute = (): MountPlan =>
    planMounts(
      [
        ...options.readOnly.map((path) => ({path, mode: 'ro' as const})),
        ...options.devices.map((path) => ({path, mode: 'dev' as const})),
      ],
      options.links,
      fs,
    )
  if (fs !== hostFileSystem) return compute()
  const key = JSON.stringify([options.readOnly, options.devices, options.links])
  let plan = hostPlans.get(key)
  if (!plan) {
    plan = compute()
    hostPlans.set(key, plan)
  }
  return plan
}

/** The bwrap executable on PATH (or in /usr/bin), if any. */
export function findBwrap(path = process.env.PATH ?? ''): string | undefined {
  for (const dir of [...path.split(delimiter).filter(Boolean), '/usr/bin', '/usr/local/bin']) {
    const candidate = join(dir, 'bwrap')
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}
