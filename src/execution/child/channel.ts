/**
 * The parent's end of a child's private channel (SPEC §15): newline-delimited JSON both ways.
 * Reading: lines are framed with a bound and parsed into checked messages. Writing: in order, a
 * large text a slice at a time, and with flow control: answers the child has not read pile up only
 * as far as a bound, then its requests wait unread until it catches up, and a child that does not
 * within a stall bound has stopped reading.
 */
import type {Duplex} from 'node:stream'

import type {Logger} from '../../shared/log.js'

import {JsonText} from '../../downstream/index.js'
import {formatBytes} from '../../shared/byte-size.js'
import {LineFramer, LineTooLongError} from '../../shared/line-framing.js'
import {hasMedia} from '../../shared/media.js'
import {formatSeconds} from '../../shared/seconds.js'
import {
  type ChildMessage,
  parseChildMessage,
  ProtocolError,
  RefusedRequest,
  type ResultMessage,
} from '../protocol/protocol.js'

/** The channel as a stream: a socket pair end, or anything with the same reading and writing. */
export type ChildSocket = Duplex

/** A text result longer than this goes to the child in slices of this many characters. */
const TEXT_SLICE_CHARS = 256 * 1024

/** How long answers may wait unread, over the backlog bound, before the run ends. */
export const ANSWER_STALL_MS = 10_000

/** A large text result on its way to the child, and how far it got. */
interface TextInFlight {
  text: string
  offset: number
}

/** Lines made one at a time as the child takes them (the ./session/ files sent in). */
interface LinesInFlight {
  lines: Iterator<string>
}

type QueuedWrite = LinesInFlight | string | TextInFlight

/** Why the child's requests are not being read: answers it has not taken, calls waiting. */
export type HoldReason = 'answers' | 'calls'

export interface ChannelOptions {
  /** Largest line the child may send; also the bound on answers waiting for it to read them. */
  maxMessageBytes: number
  /** Largest `done` result JSON (max_output_bytes). */
  maxResultBytes: number
  /** How long answers may wait over the backlog bound. Default ANSWER_STALL_MS. */
  answerStallMs?: number
  logger: Logger
}

export interface ChannelEvents {
  /** A checked message; `bytes` is its line's length. May throw ProtocolError. */
  onMessage(message: ChildMessage, bytes: number): void
  /** A request whose arguments are refused before parsing (too deep, too many containers). May throw. */
  onRefused(request: RefusedRequest): void
  /** The child broke the protocol; the channel is destroyed. */
  onBroken(reason: string): void
  /** Answers waited unread over the bound for the whole stall bound: the child stopped reading. */
  onStalled(reason: string): void
  onClosed(): void
}

export class ChildChannel {
  /** A child never sends a line over the bound: the first one ends the run, at once. */
  private readonly framer: LineFramer<Buffer>
  /** Writes waiting behind a large text that is going out a slice at a time. */
  private readonly writeQueue: QueuedWrite[] = []
  /** Characters in `writeQueue` not yet handed to the socket. */
  private queuedChars = 0
  private readonly holds = new Set<HoldReason>()
  /** On during a run: the backlog of answers is bounded. */
  private flowControl = false
  /** Set while the child's requests are not read because it has not read the answers. */
  private stallTimer: NodeJS.Timeout | undefined
  private closedFlag = false

  constructor(
    private readonly socket: ChildSocket,
    private readonly options: ChannelOptions,
    private readonly events: ChannelEvents,
  ) {
    this.framer = LineFramer.bytes(options.maxMessageBytes, 'fail')
    socket.on('data', (chunk: Buffer) => this.onData(chunk))
    // Handed over paused (a forked child's, which may have written already): it flows from here.
    socket.resume()
    socket.on('error', () => {})
    socket.on('close', () => {
      this.closedFlag = true
      events.onClosed()
    })
  }

  /** True once the socket has closed: nothing more can arrive. */
  get closed(): boolean {
    return this.closedFlag
  }

  /** One message as a JSON line. */
  send(message: object): void {
    this.enqueue(`${JSON.stringify(message)}\n`)
  }

  /**
   * Lines made one at a time, each when the child has taken the ones before (each ends in a
   * newline): the server holds one of them at a time, whatever they add up to.
   */
  sendLines(lines: Iterator<string>): void {
    this.enqueue({lines})
  }

  /** An answer to a call or helper request. */
  sendResult(message: ResultMessage): void {
    if (message.ok && message.value instanceof JsonText) {
      this.sendText(message.id, message.value.text)
      return
    }
    let line: string
    try {
      // `media` tells the child that the value's `_media` entries are the parser's, to become Media.
      line = JSON.stringify(message.ok && hasMedia(message.value) ? {...message, media: true} : message)
    } catch (error) {
      line = JSON.stringify({
        type: 'result',
        id: message.id,
        ok: false,
        error: `the result could not be passed to the program: ${(error as Error).message}`,
        kind: 'protocol',
      })
    }
    this.enqueue(`${line}\n`)
  }

  /** Stops (or resumes) reading the child's requests for `reason`; reading resumes when none is left. */
  hold(reason: HoldReason, hold: boolean): void {
    if (hold) this.holds.add(reason)
    else this.holds.delete(reason)
    if (this.holds.size > 0) this.socket.pause()
    else this.socket.resume()
  }

  /** Bounds the backlog of answers from now on (the run has started). */
  startFlowControl(): void {
    this.flowControl = true
  }

  /** The run has ended: what the child still sends is read and dropped, so its end can close. */
  stopFlowControl(): void {
    this.flowControl = false
    clearTimeout(this.stallTimer)
    this.stallTimer = undefined
    this.holds.clear()
    this.socket.resume()
  }

  destroy(): void {
    this.socket.destroy()
  }

  private onData(chunk: Buffer): void {
    try {
      this.framer.push(chunk, (framed) => {
        // The `fail` policy delivers no oversized line.
        if (framed.kind !== 'line') return
        const {line} = framed
        let message: ChildMessage
        try {
          message = parseChildMessage(line, this.options.maxResultBytes)
        } catch (error) {
          if (!(error instanceof RefusedRequest)) throw error
          this.events.onRefused(error)
          return
        }
        this.events.onMessage(message, line.length)
      })
    } catch (error) {
      const reason = brokenBecause(error)
      this.options.logger.warn(`a program child broke the protocol: ${reason}`)
      this.socket.destroy()
      this.events.onBroken(reason)
    }
  }

  /** A result that is a lone text item, as a header line and the raw text (runner/channel.py `TEXT_HEADER`). */
  private sendText(id: number, text: string): void {
    const header = `{"text_bytes":${Buffer.byteLength(text)},"type":"result","id":${id},"ok":true}\n`
    if (text.length <= TEXT_SLICE_CHARS) this.enqueue(`${header}${text}\n`)
    else {
      this.enqueue(header)
      this.enqueue({text, offset: 0})
      this.enqueue('\n')
    }
  }

  /**
   * Writes in order. A large text goes out a slice at a time, each when the child has taken the one
   * before, so the server never holds more than a slice of it as bytes; what comes after waits.
   */
  private enqueue(item: QueuedWrite): void {
    if (this.writeQueue.length > 0) {
      this.writeQueue.push(item)
      this.queuedChars += queuedLength(item)
    } else {
      const {socket} = this
      if (socket.destroyed || !socket.writable) return
      if (typeof item === 'string') socket.write(item)
      else {
        this.writeQueue.push(item)
        this.queuedChars += queuedLength(item)
        this.flushWrites()
      }
    }
    this.checkBacklog()
  }

  private flushWrites(): void {
    const {socket} = this
    const queue = this.writeQueue
    while (queue.length > 0) {
      if (socket.destroyed || !socket.writable) {
        queue.length = 0
        this.queuedChars = 0
        return
      }
      const item = queue[0]!
      if (typeof item === 'string') {
        queue.shift()
        this.queuedChars -= item.length
        socket.write(item)
        continue
      }
      if ('lines' in item) {
        const next = item.lines.next()
        if (next.done) queue.shift()
        else if (!socket.write(next.value)) {
          socket.once('drain', () => this.flushWrites())
          return
        }
        continue
      }
      const {text} = item
      let end = Math.min(text.length, item.offset + TEXT_SLICE_CHARS)
      // A surrogate pair stays in one slice: each slice is encoded to UTF-8 on its own.
      if (end < text.length && (text.codePointAt(end - 1) ?? 0) > 0xff_ff) end--
      const more = socket.write(text.slice(item.offset, end))
      this.queuedChars -= end - item.offset
      item.offset = end
      if (end === text.length) queue.shift()
      if (!more) {
        socket.once('drain', () => this.flushWrites())
        return
      }
    }
    this.checkBacklog()
  }

  /** Bytes (about) of answers the child has not taken yet: the socket's buffer and the queue. */
  private get backlog(): number {
    return this.socket.writableLength + this.queuedChars
  }

  /**
   * Flow control (SPEC §15): answers pile up only as far as the bound. Over it, the child's next
   * requests wait unread until it has read the answers; a child that does not within
   * `answerStallMs` has stopped reading.
   */
  private checkBacklog(): void {
    if (!this.flowControl) return
    const {maxMessageBytes} = this.options
    if (this.stallTimer) {
      if (this.backlog > maxMessageBytes / 2) return
      clearTimeout(this.stallTimer)
      this.stallTimer = undefined
      this.hold('answers', false)
      return
    }
    if (this.backlog <= maxMessageBytes) return
    this.hold('answers', true)
    const waiting = this.backlog
    const stallMs = this.options.answerStallMs ?? ANSWER_STALL_MS
    this.stallTimer = setTimeout(() => {
      this.options.logger.warn(`a program stopped reading its channel (${waiting} bytes of answers waiting)`)
      this.events.onStalled(
        `the program stopped reading the answers to its requests (${formatBytes(waiting)} waiting for ${formatSeconds(stallMs)}); ` +
          'await tool calls and helpers rather than blocking (long computation, time.sleep) while they run',
      )
    }, stallMs)
    this.socket.once('drain', () => this.onDrain())
  }

  private onDrain(): void {
    if (!this.stallTimer) return
    this.checkBacklog()
    // Still over half the bound: what is left goes out in slices, each ending in a drain.
    if (this.stallTimer) this.socket.once('drain', () => this.onDrain())
  }
}

/** Characters of an item not yet handed to the socket (lines made later are not counted). */
function queuedLength(item: QueuedWrite): number {
  if (typeof item === 'string') return item.length
  return 'lines' in item ? 0 : item.text.length - item.offset
}

function brokenBecause(error: unknown): string {
  if (error instanceof LineTooLongError) return `the child sent a message over ${error.maxLineBytes} bytes`
  if (error instanceof ProtocolError) return error.message
  return `channel failure: ${(error as Error).message}`
}
