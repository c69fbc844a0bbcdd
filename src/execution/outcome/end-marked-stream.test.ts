import {describe, expect, it} from 'vitest'

import {EndMarkedStream} from './output-capture.js'

const MARKER = Buffer.from('<ptc-mcp output end 0123456789abcdef>')

function stream() {
  const passed: string[] = []
  const marked = new EndMarkedStream(MARKER, (chunk) => passed.push(chunk.toString()))
  return {marked, passed}
}

describe('EndMarkedStream passes output on as it comes', () => {
  it('a short line that cannot be the marker is passed on at once, not held back', () => {
    const {marked, passed} = stream()
    marked.write(Buffer.from('tick-1\n'))
    expect(passed.join('')).toBe('tick-1\n')
  })

  it('holds back only what may be the start of the marker, and knows the marker at the end', () => {
    const {marked, passed} = stream()
    marked.write(Buffer.from('a < b\n<ptc-mcp out'))
    expect(passed.join('')).toBe('a < b\n')
    marked.write(Buffer.from('put end 0123456789abcdef>'))
    expect(marked.endsWithMarker).toBe(true)
    marked.flush()
    expect(passed.join('')).toBe('a < b\n')
  })

  it('what looked like the start of the marker is passed on once it is not', () => {
    const {marked, passed} = stream()
    marked.write(Buffer.from('x <ptc'))
    marked.write(Buffer.from('-mcp is here\n'))
    expect(passed.join('')).toBe('x <ptc-mcp is here\n')
    expect(marked.endsWithMarker).toBe(false)
  })
})
