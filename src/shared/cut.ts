/**
 * Cutting a text to a bound, in one way everywhere: by UTF-16 unit (JavaScript's `length`, which
 * the bounds count), never between the two halves of a surrogate pair (a lone half is not valid
 * UTF-8 and shows as U+FFFD, or breaks JSON for a strict reader), ending in one ellipsis, `…`.
 */

/** The ellipsis of every cut text. */
export const ELLIPSIS = '…'

/** The first `max` UTF-16 units of `text`, one fewer when the last would be half a surrogate pair. */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text
  if (max <= 0) return ''
  // Above U+FFFF: the unit at max - 1 is the first half of a pair whose second half would be cut off.
  const startsAPair = (text.codePointAt(max - 1) ?? 0) > 0xff_ff
  return text.slice(0, startsAPair ? max - 1 : max)
}

/** `text` when it is at most `max` long, else its head and `…`, `max` in all (a display column, a trace field). */
export function cutWithin(text: string, max: number): string {
  return text.length <= max ? text : `${headOf(text, max - 1)}${ELLIPSIS}`
}

/** `text` when it is at most `max` long, else its first `max` and `…` (a quote that names its bound). */
export function cutAfter(text: string, max: number): string {
  return text.length <= max ? text : `${headOf(text, max)}${ELLIPSIS}`
}
