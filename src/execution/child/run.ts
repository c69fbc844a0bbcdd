import {performance} from 'node:perf_hooks'

import type {ChildEnd, ChildRequestHandlers} from './types.js'

import {MAX_SHOWN_BYTES, MAX_SHOWN_IMAGES} from '../../shared/limits.js'
import {type KeptFiles, KeptFilesWriter} from '../files/kept-files.js'
import {type ReceivedSessionFiles, SessionFilesReceiver} from '../files/session-files.js'
import {
  type ChildMessage,
  type FileArea,
  ProtocolError,
  type RefusedRequest,
  type ResultMessage,
  type ShownImage,
} from '../protocol/protocol.js'
import {PausableDeadline} from './deadline.js'

/**
 * One program in a child, from the `run` message until it ends: its clock, its cancellation, and
 * the checks on what the child sends meanwhile (request ids increase, show() within its bounds),
 * and the ./out/ and ./session/ files it sends after the program (SPEC §14, §6.2).
 * `onEnd` is called when the time runs out, the signal aborts or the child reports `done`.
 */
export class ProgramRun {
  readonly startedAt = performance.now()
  /** What the program passed to show(), in order. */
  readonly shown: ShownImage[] = []
  private readonly kept: KeptFilesWriter
  private readonly session: SessionFilesReceiver | undefined
  /** Where `file_data` goes: the area of the last `file`. */
  private fileArea: FileArea = 'out'
  private readonly deadline: PausableDeadline
  private detachSignal: (() => void) | undefined
  /** Call and helper ids must increase: a reused id would run twice under one trace entry. */
  private lastRequestId = 0
  private planned = false

  constructor(
    private readonly handlers: ChildRequestHandlers,
    timeoutMs: number,
    private readonly onEnd: (end: ChildEnd) => void,
    /** Makes (once) the run's artifacts directory, where the ./out/ files are kept. */
    runDir: () => string,
    /** The bounds of ./session/ files taken back; without them, the child sends none. */
    sessionLimits?: {files: number; bytes: number},
  ) {
    this.deadline = new PausableDeadline(timeoutMs, () => onEnd({kind: 'timeout'}))
    this.kept = new KeptFilesWriter(runDir)
    this.session = sessionLimits && new SessionFilesReceiver(sessionLimits)
  }

  /** What the program left in ./session/; `complete`: the child reported `done`. */
  sessionFiles(complete: boolean): ReceivedSessionFiles | undefined {
    return this.session?.finish(complete)
  }

  /** The files kept; `complete`: the child reported `done` (a file still arriving is removed). */
  keptFiles(complete: boolean): KeptFiles {
    return this.kept.finish(complete)
  }

  /** Ends the run as cancelled when `signal` aborts (at once if it has). */
  cancelOn(signal: AbortSignal | undefined): void {
    if (!signal) return
    const onAbort = (): void => this.onEnd({kind: 'cancelled'})
    if (signal.aborted) onAbort()
    else {
      signal.addEventListener('abort', onAbort, {once: true})
      this.detachSignal = () => signal.removeEventListener('abort', onAbort)
    }
  }

  /** Stops the clock while the user decides on a call (SPEC §12); pauses nest. */
  pause(): void {
    this.deadline.pause()
  }

  resume(): void {
    this.deadline.resume()
  }

  /** The run has ended: no more timeout or cancellation. */
  stop(): void {
    this.deadline.stop()
    this.detachSignal?.()
  }

  /** A message from the child while the program runs. Throws ProtocolError. */
  onMessage(message: ChildMessage, bytes: number): void {
    switch (message.type) {
      case 'call': {
        this.checkRequestId(message.id)
        this.handlers.onCall(message.id, message.tool, message.args, bytes)
        return
      }
      case 'cancel': {
        this.handlers.onCancel(message.id)
        return
      }
      case 'plan': {
        // Once, before the program's first request: a plan sent later could not come first.
        if (this.planned || this.lastRequestId > 0)
          throw new ProtocolError('"plan" sent after the program began')
        this.planned = true
        this.handlers.onPlan?.(message.calls)
        return
      }
      case 'done': {
        const {ok, error, hasResult, result} = message
        this.onEnd({kind: 'done', ok, error, hasResult, result})
        return
      }
      case 'helper': {
        this.checkRequestId(message.id)
        this.handlers.onHelper(message.id, message.name, message.args)
        return
      }
      case 'show': {
        this.addShown(message.image)
        return
      }
      case 'file': {
        this.fileArea = message.area
        this.files(message.area).begin(message.name)
        return
      }
      case 'file_data': {
        this.files(this.fileArea).append(message.data)
        return
      }
      case 'file_skipped': {
        this.fileArea = message.area
        this.files(message.area).skipped(message.name, message.reason)
        return
      }
      default: {
        throw new ProtocolError(`unexpected "${message.type}" message while running`)
      }
    }
  }

  /** Where the files of `area` go; session/ files from a run that takes none back break the protocol. */
  private files(area: FileArea): KeptFilesWriter | SessionFilesReceiver {
    if (area === 'out') return this.kept
    if (!this.session) throw new ProtocolError('./session/ files sent when none were asked for')
    return this.session
  }

  /** The answer to a request refused before it was parsed. Throws ProtocolError on a reused id. */
  refusal(request: RefusedRequest): ResultMessage {
    this.checkRequestId(request.id)
    return {type: 'result', id: request.id, ok: false, error: request.message, kind: 'too_large'}
  }

  /** runner.py's show() refuses more; a child that sends more broke the protocol. */
  private addShown(image: ShownImage): void {
    if (this.shown.length >= MAX_SHOWN_IMAGES) {
      throw new ProtocolError(`show() called more than ${MAX_SHOWN_IMAGES} times`)
    }
    const total = this.shown.reduce((sum, shown) => sum + shown.bytes, image.bytes)
    if (total > MAX_SHOWN_BYTES)
      throw new ProtocolError(`show() images over ${MAX_SHOWN_BYTES} bytes in total`)
    this.shown.push(image)
  }

  private checkRequestId(id: number): void {
    if (id <= this.lastRequestId) {
      throw new ProtocolError(
        `the child reused request id ${id} (ids must increase: ${this.lastRequestId} came before)`,
      )
    }
    this.lastRequestId = id
  }
}
