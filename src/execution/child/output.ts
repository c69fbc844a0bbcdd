/**
 * A child's output pipes: fd 1 and fd 2 captured under the cap (SPEC §8), and whether the output is
 * complete: after `done`, the runner's end marker proves it; otherwise the pipes' close does.
 */
import type {Readable} from 'node:stream'

import {randomHex} from '../../shared/random-hex.js'
import {ARTIFACT_MAX_RUN_BYTES, type RunArtifacts} from '../files/artifacts.js'
import {EndMarkedStream, OutputCapture, type OutputSpill} from '../outcome/output-capture.js'

/** Keeps output over the cap whole in the run's artifacts directory (SPEC §14). */
function outputSpill(artifacts: RunArtifacts | undefined): OutputSpill | undefined {
  return artifacts && {runDir: () => artifacts.dir(), maxBytes: ARTIFACT_MAX_RUN_BYTES}
}

export class ChildOutput {
  /** Written by the runner at the very end of the program's output (after `done` it is complete). */
  readonly endMarker = `<ptc-mcp output end ${randomHex(12)}>`
  private readonly capture: OutputCapture
  private readonly stdout: EndMarkedStream
  private readonly open = new Set<Readable>()
  private listener: ((chunk: Buffer) => void) | undefined

  /** `maxBytes`: max_output_bytes; `artifacts`: where output over it is kept whole. */
  constructor(maxBytes: number, artifacts: RunArtifacts | undefined) {
    this.capture = new OutputCapture(maxBytes, outputSpill(artifacts))
    this.stdout = new EndMarkedStream(Buffer.from(this.endMarker), (chunk) => {
      this.capture.write(chunk)
      this.listener?.(chunk)
    })
  }

  /** `listener` is given each piece of the program's output from now on, as it arrives. */
  listen(listener: ((chunk: Buffer) => void) | undefined): void {
    this.listener = listener
  }

  /** Reads the child's pipes; `onChange` after stdout data and after a pipe closes. */
  attach(stdout: Readable | null, stderr: Readable | null, onChange: () => void): void {
    if (stdout) {
      this.track(stdout, onChange)
      stdout.on('data', (chunk: Buffer) => {
        this.stdout.write(chunk)
        onChange()
      })
      stdout.resume()
    }
    if (stderr) {
      this.track(stderr, onChange)
      // During a run the runner points fd 2 at the stdout pipe: this one carries only what was
      // written before (interpreter or wrapper messages).
      stderr.on('data', (chunk: Buffer) => this.capture.write(chunk))
    }
  }

  /** True while a pipe is open: a process (maybe one that escaped the group) still holds it. */
  get pipesOpen(): boolean {
    return this.open.size > 0
  }

  /** The stream ends with the runner's end marker: everything before it has arrived. */
  get endsWithMarker(): boolean {
    return this.stdout.endsWithMarker
  }

  /** Closes the pipes from this side (their writer escaped the kill). */
  destroyPipes(): void {
    for (const stream of this.open) stream.destroy()
  }

  /** The captured output so far, with what was held back for the marker check released. */
  text(): string {
    this.stdout.flush()
    return this.capture.text()
  }

  /** The file that keeps the whole output, when it went over the cap. */
  get wholeOutputPath(): string | undefined {
    return this.capture.wholeOutputPath
  }

  private track(stream: Readable, onChange: () => void): void {
    this.open.add(stream)
    stream.on('error', () => {})
    stream.on('close', () => {
      this.open.delete(stream)
      onChange()
    })
  }
}
