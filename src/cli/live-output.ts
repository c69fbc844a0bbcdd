import {StringDecoder} from 'node:string_decoder'

import {terminalSafe} from '../shared/terminal-safe.js'

/**
 * A program's output shown on the terminal as it comes (`run`), instead of all at the end: a long
 * program shows its progress. Control characters are shown, not obeyed, unless `raw` (as for the
 * output shown at the end). What `run` prints after it is the outcome without the output.
 */
export class LiveOutput {
  private readonly decoder = new StringDecoder('utf8')
  private atLineStart = true

  constructor(
    private readonly write: (text: string) => void,
    private readonly raw: boolean,
  ) {}

  /** For the engine's `onOutput`. */
  readonly onOutput = (chunk: Buffer): void => {
    this.show(this.decoder.write(chunk))
  }

  /** Shows what is left of a character cut between pieces; returns `\n` when the output did not end a line. */
  end(): string {
    this.show(this.decoder.end())
    return this.atLineStart ? '' : '\n'
  }

  private show(text: string): void {
    if (text === '') return
    this.write(this.raw ? text : terminalSafe(text))
    this.atLineStart = text.endsWith('\n')
  }
}
