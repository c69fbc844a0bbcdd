// @tier unit
import {describe, expect, it} from 'vitest'

import {
  currentTraceparent,
  parseTraceparent,
  traceMeta,
  withTraceHeader,
  withTraceparent,
} from './trace-context.js'

const VALID = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'

describe('parseTraceparent', () => {
  it('reads a version 00 traceparent', () => {
    expect(parseTraceparent(VALID)).toEqual({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      flags: 1,
    })
  })

  it.each([
    ['not a string', 42],
    ['uppercase hex', VALID.toUpperCase()],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-b7ad6b7169203331-01`],
    ['an all-zero parent id', `00-0af7651916cd43dd8448eb211c80319c-${'0'.repeat(16)}-01`],
    ['another version', VALID.replace(/^00/, 'ff')],
    ['a short trace id', '00-0af7651916cd43dd-b7ad6b7169203331-01'],
  ])('refuses %s', (_, value) => {
    expect(parseTraceparent(value)).toBeUndefined()
  })
})

describe('the trace context of a call', () => {
  it('is absent outside a traced call: nothing is added', () => {
    expect(currentTraceparent()).toBeUndefined()
    expect(traceMeta()).toEqual({})
    const init = {method: 'POST'}
    expect(withTraceHeader(init)).toBe(init)
  })

  it('follows the call across awaits, into its _meta and its HTTP headers', async () => {
    const seen = await withTraceparent(VALID, async () => {
      await new Promise((done) => {
        setTimeout(done, 1)
      })
      return {meta: traceMeta(), init: withTraceHeader({method: 'POST', headers: {'x-a': '1'}})}
    })
    expect(seen.meta).toEqual({_meta: {traceparent: VALID}})
    const headers = new Headers(seen.init?.headers)
    expect(headers.get('traceparent')).toBe(VALID)
    expect(headers.get('x-a')).toBe('1')
    expect(currentTraceparent()).toBeUndefined()
  })
})
