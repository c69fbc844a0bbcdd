import {mkdir} from 'node:fs/promises'

import type {ProgramBounds} from '../../sandbox/backend.js'
import type {Logger} from '../../shared/log.js'

import {watchScratch} from '../../sandbox/scratch-watch.js'
import {createScratchDir, nameScratchDir, removeScratchDir} from '../../sandbox/scratch.js'

/**
 * A child's scratch directory (SPEC §7): made before the child exists, watched while no capped
 * tmpfs holds it, and removed, once, when the process is gone. A child that makes it inside a
 * tmpfs of its own (`onHost` false: the fork server's) gets only its name, unless it falls back to
 * a process that needs it on the host (`makeOnHost`).
 */
export class ChildScratch {
  private dir: string | undefined
  private onHost = false
  private stopWatching: (() => void) | undefined
  private removal: Promise<void> | undefined

  async create(onHost = true): Promise<string> {
    this.dir = onHost ? await createScratchDir() : await nameScratchDir()
    this.onHost = onHost
    return this.dir
  }

  /** Makes a named-only directory on the host after all (private, as createScratchDir makes it). */
  async makeOnHost(): Promise<void> {
    if (this.onHost || !this.dir) return
    await mkdir(this.dir, {mode: 0o700})
    this.onHost = true
  }

  /** SPEC §15's next best bound: the server watches the directory and calls `onOver` past `bounds`. */
  watch(bounds: ProgramBounds | undefined, onOver: (reason: string) => void): void {
    if (!this.dir || !bounds) return
    this.stopWatching = watchScratch(
      this.dir,
      {bytes: bounds.scratchBytes, files: bounds.scratchFiles},
      onOver,
    )
  }

  /** Removes the directory (call once the process is gone). Never rejects; the same promise every time. */
  remove(logger: Logger): Promise<void> {
    this.removal ??= this.removeNow(logger)
    return this.removal
  }

  private async removeNow(logger: Logger): Promise<void> {
    this.stopWatching?.()
    const {dir} = this
    if (!dir || !this.onHost) return
    await removeScratchDir(dir).catch((error: Error) =>
      logger.warn(`could not remove ${dir}: ${error.message}`),
    )
  }
}
