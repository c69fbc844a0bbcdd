/**
 * A child made by the backend's fork server (fork-server.ts, zygote.py): already loaded, it gets
 * namespaces, scratch, Landlock domain and seccomp filter of its own in milliseconds, and its fd 1,
 * fd 2 and channel are connections it made back to this process. When the fork server cannot run
 * here at all, children are spawned one by one instead (spawnThroughBackend).
 */

import type {SandboxBackend} from '../../sandbox/backend.js'
import type {ChildSpawner, SpawnedChild} from './spawner.js'

import {startMessage} from '../protocol/protocol.js'
import {ForkServer, ForkServerUnavailable} from './fork-server.js'
import {runnerLaunch, spawnThroughBackend} from './process.js'

/**
 * How long a forked child lingers after `done`: a few milliseconds let the answer reach the client
 * before the teardown takes the CPU (bench --steps on 2 cores: the client's receipt 100-150 µs
 * sooner than when killed at once).
 */
const KILL_AFTER_DONE_MS = 4

export function forkServerSpawner(server: ForkServer, backend: SandboxBackend): ChildSpawner {
  const spawned = spawnThroughBackend(backend)
  return {
    ownScratch: true,
    async spawn(request): Promise<SpawnedChild> {
      const launch = await backend.launch({...runnerLaunch(request), forked: true})
      let child
      try {
        child = await server.fork(request.env, startMessage(launch.confine, request.limits))
      } catch (error) {
        if (error instanceof ForkServerUnavailable) {
          await request.makeScratchOnHost?.()
          return spawned.spawn(request)
        }
        throw error
      }
      return {
        tier: launch.tier,
        confine: launch.confine,
        started: true,
        stdout: child.output,
        // fd 2 shares fd 1's connection.
        stderr: null,
        channel: child.channel,
        // Tearing it down is the fork server's and the kernel's work: only the answer goes first.
        lingerAfterDoneMs: KILL_AFTER_DONE_MS,
        kill: () => child.kill(),
        onExit(listener) {
          child.onExit((code, signal) => listener({code, signal}))
        },
      }
    },
  }
}
