/**
 * The seam between a child's lifecycle and how its process comes to exist. The lifecycle asks a
 * `ChildSpawner` for a process running runner.py in `scratchDir`, and gets back its output pipes,
 * its private channel, a way to kill it and its exit. Today's spawner starts a fresh interpreter
 * through the sandbox backend (`spawnThroughBackend` in process.ts); another one (a fork server)
 * slots in here without the lifecycle changing.
 */
import type {Readable} from 'node:stream'

import type {ProgramBounds, PythonInfo} from '../../sandbox/backend.js'
import type {ChildLimits} from '../protocol/protocol.js'
import type {ChildSocket} from './channel.js'

export interface SpawnRequest {
  python: PythonInfo
  /** The run's scratch directory (made by the lifecycle): the child's cwd, HOME and TMPDIR. */
  scratchDir: string
  /** The child's whole environment (`childEnvironment(scratchDir)`). */
  env: Record<string, string>
  /** Scratch and thread bounds for the sandbox to enforce. */
  bounds?: ProgramBounds
  /** The rlimits of the `start` message. */
  limits: ChildLimits
  /**
   * Makes `scratchDir` on the host, when the spawner has `ownScratch` (it was only named) and falls
   * back to a process that needs it there.
   */
  makeScratchOnHost?: () => Promise<void>
}

/** How the process ended. `failure`: why it could not be started (then code and signal are null). */
export interface ChildExit {
  code: number | null
  signal: NodeJS.Signals | null
  failure?: Error
}

/** A child process as the lifecycle sees it, from spawn to exit. */
export interface SpawnedChild {
  /** The sandbox layer in force, as the backend reports it before the child confirms it. */
  readonly tier: string
  /** The `start` message's `confine` field: what the child applies to itself before `ready`. */
  readonly confine: Record<string, unknown> | null
  /**
   * The child got its `start` message with the spawn (a fork server passes it on): it confines
   * itself without waiting for one on its channel.
   */
  readonly started?: boolean
  /**
   * fd 1 (and, during a run, fd 2: the runner points it there). This and `channel` may come
   * paused: the lifecycle resumes them once it listens.
   */
  readonly stdout: Readable | null
  /** fd 2 until the run: interpreter or wrapper messages. */
  readonly stderr: Readable | null
  /** The private newline-delimited JSON channel (fd 3 for the runner). */
  readonly channel: ChildSocket
  /**
   * How long after `done` the child may linger before it is killed (default 20 ms: tearing a
   * fresh process down would compete with the answer going out).
   */
  readonly lingerAfterDoneMs?: number
  /**
   * Kills the child and everything it started (its process group), at once. Safe at any time and
   * any number of times; a no-op once it has exited.
   */
  kill(): void
  /**
   * Called once, when the process has exited (after anything left of its group was killed) or
   * could not be started. The channel and pipes close on their own, maybe later.
   */
  onExit(listener: (exit: ChildExit) => void): void
}

export interface ChildSpawner {
  /**
   * Every child covers the scratch root with a tmpfs of its own and makes its scratch directory
   * there (the fork server's): the lifecycle only names it, nothing is made or removed on the host.
   */
  ownScratch?: boolean
  /** Rejects when the child cannot even be asked for (the backend refused); a failed exec is an exit. */
  spawn(request: SpawnRequest): Promise<SpawnedChild>
}
