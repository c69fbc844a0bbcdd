// @tier integration
// A misspelt command given with its arguments is answered with the command it meant, arguments
// kept (oclif hands the hook the words joined into one id).
import {expect, it} from 'vitest'

import {spawnCli} from '../helpers/serve.js'

const flat = (text: string) => text.replaceAll(/\s*›\s*/g, ' ').trim()

it('ptc-mcp inspct mcp__fs__read_file suggests inspect, with the argument', async () => {
  const result = await spawnCli(['inspct', 'mcp__fs__read_file']).done
  expect(result.code).toBe(2)
  expect(flat(result.stderr)).toBe(
    'Error: "inspct" is not a ptc-mcp command. Did you mean "inspect" (ptc-mcp inspect mcp__fs__read_file)? Run `ptc-mcp help` for the list of commands.',
  )
})
