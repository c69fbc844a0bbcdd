/** C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides and isolates. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/gu

/**
 * Program output made safe for a terminal: a program must not drive the user's terminal (OSC 52
 * writes the clipboard, CSI moves the cursor and rewrites lines, a lone CR hides what was printed
 * before it, bidi overrides reorder text). Each control character is shown instead of obeyed: C0
 * ones as their Unicode control pictures (ESC → ␛, BEL → ␇), the others as `\u{...}`. Newlines,
 * tabs and CRLF line ends are kept.
 */
export function terminalSafe(text: string): string {
  return text.replaceAll(CONTROL, (char, offset: number) => {
    const code = char.codePointAt(0)!
    if (char === '\r' && text[offset + 1] === '\n') return char
    if (code < 0x20) return String.fromCodePoint(0x24_00 + code)
    if (code === 0x7f) return '\u2421'
    return `\\u{${code.toString(16)}}`
  })
}
