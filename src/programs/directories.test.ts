// @tier unit
import {describe, expect, it} from 'vitest'

import {programDirectories} from './directories.js'

describe('programs directories (SPEC §17)', () => {
  it("searches the project's, then the user's, then programs.dirs (relative to the config's directory), each once", () => {
    const dirs = programDirectories(
      {dirs: ['team', '/abs/progs', '/proj/.ptc-mcp/programs']},
      '/proj',
      {XDG_CONFIG_HOME: '/xdg'},
      '/etc/ptc',
    )
    expect(dirs).toEqual([
      {dir: '/proj/.ptc-mcp/programs', scope: 'project'},
      {dir: '/xdg/ptc-mcp/programs', scope: 'user'},
      {dir: '/etc/ptc/team', scope: 'config'},
      {dir: '/abs/progs', scope: 'config'},
    ])
  })
})
