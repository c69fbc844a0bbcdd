import {MAX_JSON_CONTAINERS, MAX_JSON_DEPTH} from './limits.js'

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d

/**
 * What is wrong with the shape of a JSON text (nested deeper than `MAX_JSON_DEPTH`, more than
 * `MAX_JSON_CONTAINERS` arrays and objects), or undefined: one pass over the bytes, without parsing,
 * skipping string contents.
 */
export function jsonShapeProblem(
  text: Buffer,
  maxDepth = MAX_JSON_DEPTH,
  maxContainers = MAX_JSON_CONTAINERS,
): string | undefined {
  const {length} = text
  // Each level and each container takes a bracket: a shorter text cannot pass either bound.
  if (length <= maxDepth && length <= maxContainers) return undefined
  let depth = 0
  let containers = 0
  for (let i = 0; i < length; i++) {
    switch (text[i]) {
      case QUOTE: {
        i = closingQuote(text, i + 1)
        if (i === -1) return undefined // unterminated: JSON.parse refuses it
        break
      }
      case OPEN_BRACKET:
      case OPEN_BRACE: {
        if (++depth > maxDepth) return `nested deeper than ${maxDepth} levels`
        if (++containers > maxContainers) return `with more than ${maxContainers} lists and objects`
        break
      }
      case CLOSE_BRACKET:
      case CLOSE_BRACE: {
        depth--
        break
      }
    }
  }
  return undefined
}

/** The index of the quote that ends the string starting at `from`, or -1. */
function closingQuote(text: Buffer, from: number): number {
  let quote = text.indexOf(QUOTE, from)
  while (quote !== -1) {
    let backslashes = 0
    while (text[quote - 1 - backslashes] === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote
    quote = text.indexOf(QUOTE, quote + 1)
  }
  return -1
}
