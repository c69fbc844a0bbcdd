// @tier unit
import {describe, expect, it} from 'vitest'

import {terminalSafe} from './terminal-safe.js'

describe('terminalSafe', () => {
  it('shows C0 controls as control pictures and DEL, C1 and bidi controls as \\u{...}', () => {
    expect(terminalSafe('\u001B]52;c;ZXZpbA==\u0007')).toBe('␛]52;c;ZXZpbA==␇')
    expect(terminalSafe('\u001B[2J\u0000\u007F')).toBe('␛[2J␀␡')
    expect(terminalSafe('\u009B6n \u202Eevil\u2066')).toBe('\\u{9b}6n \\u{202e}evil\\u{2066}')
  })

  it('keeps newlines, tabs and CRLF line ends, but shows a lone CR', () => {
    expect(terminalSafe('a\tb\nc\r\nd\re')).toBe('a\tb\nc\r\nd␍e')
  })

  it('leaves ordinary text, non-ASCII included, alone', () => {
    const text = 'Zürich — 東京 😀 "quoted" \\ back'
    expect(terminalSafe(text)).toBe(text)
  })
})
