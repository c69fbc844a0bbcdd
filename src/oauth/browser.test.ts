// @tier unit
import {describe, expect, it} from 'vitest'

import {browserCommand} from './browser.js'

const URL_ = 'https://as.example/authorize?a=1&b=2'

describe('browserCommand', () => {
  it('uses $BROWSER: its words, then the URL as one argument of its own', () => {
    expect(browserCommand(URL_, {BROWSER: 'firefox --new-window'}, 'linux')).toEqual({
      command: 'firefox',
      args: ['--new-window', URL_],
    })
  })

  it('puts the URL where $BROWSER says %s, and takes the first of several entries', () => {
    expect(browserCommand(URL_, {BROWSER: 'w3m %s -dump:lynx'}, 'linux')).toEqual({
      command: 'w3m',
      args: [URL_, '-dump'],
    })
  })

  it("falls back to the platform's opener", () => {
    expect(browserCommand(URL_, {}, 'linux')).toEqual({command: 'xdg-open', args: [URL_]})
    expect(browserCommand(URL_, {BROWSER: ' '}, 'darwin')).toEqual({command: 'open', args: [URL_]})
    expect(browserCommand(URL_, {}, 'win32')).toEqual({
      command: 'rundll32',
      args: ['url.dll,FileProtocolHandler', URL_],
    })
  })
})
