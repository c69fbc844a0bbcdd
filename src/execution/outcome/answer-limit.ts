import type {RunOutcome} from './outcome.js'

import {headOf} from '../../shared/cut.js'
import {shortenJson} from '../../shared/shorten-json.js'
import {outcomeText} from './format.js'
import {omittedMarker} from './output-capture.js'
import {structuredOutcome} from './structured-outcome.js'

/** Characters a token, as the user's limit on MCP output is counted (SPEC §5). */
export const CHARS_PER_TOKEN = 4

/** A cut moves to a line boundary when one is this close (a fraction of the part kept). */
const LINE_SEARCH_FRACTION = 0.25
/** Attempts at fitting: each measures the answer again and cuts from the original. */
const FIT_ATTEMPTS = 6
/** `... [N bytes omitted]` or `... [N bytes omitted: the whole output is in PATH]`, as output-capture writes it. */
const NOTE = /^\.\.\. \[(\d+) bytes omitted(?:: the whole output is in (.+))?\]$/

/** Characters of the whole answer as the client may read it: the text and the JSON of the structure. */
export function answerChars(outcome: RunOutcome, allCalls = false): number {
  return outcome.text.length + JSON.stringify(structuredOutcome(outcome, {allCalls})).length
}

/**
 * The outcome cut to fit `maxChars` in all (text and structured content together, SPEC §5): the
 * output first, head and tail kept with the note of §8 first and between them; then the emit()
 * value, shortened. The outcome itself when it fits.
 */
export function fitAnswer(outcome: RunOutcome, maxChars: number, allCalls = false): RunOutcome {
  let size = answerChars(outcome, allCalls)
  if (size <= maxChars) return outcome
  let fitted = outcome
  let outputBudget = outcome.output.length
  for (let attempt = 0; attempt < FIT_ATTEMPTS && size > maxChars && outputBudget > 0; attempt++) {
    // The output is in the text and in the JSON: each character it loses saves about two.
    outputBudget = Math.max(0, outputBudget - Math.ceil((size - maxChars) / 2) - 16 * (attempt + 1))
    fitted = withParts(outcome, {output: cutOutput(outcome.output, outputBudget)})
    size = answerChars(fitted, allCalls)
  }
  if (size <= maxChars || !fitted.hasResult) return fitted
  const resultChars = JSON.stringify(fitted.result ?? null).length
  let resultBudget = resultChars
  for (let attempt = 0; attempt < FIT_ATTEMPTS && size > maxChars && resultBudget > 0; attempt++) {
    // Shown twice as well, and pretty-printed in the text.
    resultBudget = Math.max(0, resultBudget - Math.ceil((size - maxChars) / 3) - 16 * (attempt + 1))
    fitted = withParts(fitted, {result: shortenJson(outcome.result, resultBudget)})
    size = answerChars(fitted, allCalls)
  }
  return fitted
}

function withParts(outcome: RunOutcome, parts: {output?: string; result?: unknown}): RunOutcome {
  const next = {...outcome, ...parts}
  return {
    ...next,
    text: outcomeText({...next, files: next.keptFilesText}),
  }
}

/**
 * `output` in at most about `maxChars` (the notes aside): its head and its tail, cut at line
 * boundaries where one is near, with the note of SPEC §8 first and between them. An output the
 * capture already cut keeps its note's file and adds what is cut now to the bytes it counts.
 */
export function cutOutput(output: string, maxChars: number): string {
  const lines = output.split('\n', 1)
  const earlier = NOTE.exec(lines[0] ?? '')
  let head = output
  let tail = ''
  let omitted = 0
  let whole: string | undefined
  if (earlier) {
    const marker = lines[0]!
    const body = output.slice(marker.length + 1)
    const middle = body.indexOf(`\n${marker}\n`)
    const at = middle === -1 ? body.indexOf(`${marker}\n`) : middle + 1
    if (at === -1) head = body
    else {
      head = body.slice(0, at)
      tail = body.slice(at + marker.length + 1)
    }
    omitted = Number(earlier[1])
    whole = earlier[2]
  }
  if (head.length + tail.length <= maxChars) return output
  const all = tail === '' ? head : undefined
  const headRoom = Math.ceil(maxChars / 2)
  const tailRoom = maxChars - headRoom
  let keptHead: string
  let keptTail: string
  if (all === undefined) {
    keptHead = lineHead(head, Math.min(head.length, headRoom))
    keptTail = lineTail(tail, Math.min(tail.length, tailRoom))
  } else {
    keptHead = lineHead(all, headRoom)
    keptTail = lineTail(all.slice(keptHead.length), tailRoom)
  }
  const source = all ?? head + tail
  omitted += bytes(source) - bytes(keptHead) - bytes(keptTail)
  const note = omittedMarker(omitted, whole)
  return `${note}\n${keptHead}${keptHead === '' || keptHead.endsWith('\n') ? '' : '\n'}${note}\n${keptTail}`
}

/** The first `max` characters, back to a line's end when one is near. */
function lineHead(text: string, max: number): string {
  const head = headOf(text, max)
  const newline = head.lastIndexOf('\n')
  if (newline !== -1 && head.length - newline - 1 <= head.length * LINE_SEARCH_FRACTION)
    return head.slice(0, newline + 1)
  return head
}

/** The last `max` characters, from a line's start when one is near. */
function lineTail(text: string, max: number): string {
  if (max <= 0) return ''
  let start = Math.max(0, text.length - max)
  // Never the second half of a surrogate pair.
  const unit = text.codePointAt(start) ?? 0
  if (unit >= 0xdc_00 && unit <= 0xdf_ff) start++
  const tail = text.slice(start)
  if (start === 0 || text[start - 1] === '\n') return tail
  const newline = tail.indexOf('\n')
  if (newline !== -1 && newline + 1 <= tail.length * LINE_SEARCH_FRACTION) return tail.slice(newline + 1)
  return tail
}

function bytes(text: string): number {
  return Buffer.byteLength(text)
}
