import {McpServer} from '@modelcontextprotocol/server'
import {z} from 'zod'

import type {PtcError} from '../shared/errors.js'

import {executionSchema} from '../config/schema.js'
import {cutWithin} from '../shared/cut.js'
import {
  executeProgramDescription,
  INSPECT_TOOL_DESCRIPTION,
  LIST_CALLABLE_TOOLS_DESCRIPTION,
} from './descriptions.js'
import {MAX_INSTRUCTIONS_CHARS} from './instructions.js'

/**
 * The server `serve` offers when its config file cannot be used at all (SPEC §3): the same three
 * tools, each answering `isError` with the config error and its fix, and instructions that say
 * the same, so the client sees why instead of a closed connection. Any arguments are accepted: the answer is the same.
 */
export function createConfigErrorServer(error: PtcError, version: string): McpServer {
  const text = [
    `ptc-mcp cannot use its config file, so no tools are available: ${error.message}`,
    ...(error.suggestion ? [`Fix: ${error.suggestion}`] : []),
    'Then restart ptc-mcp (in Claude Code: /mcp, then reconnect).',
  ].join('\n')
  // Claude Code shows instructions from the first turn: the model (and the user) learn it there.
  const instructions = cutWithin(text, MAX_INSTRUCTIONS_CHARS)
  const server = new McpServer({name: 'ptc-mcp', version}, {capabilities: {tools: {}}, instructions})
  const answer = async () => ({isError: true, content: [{type: 'text' as const, text}]})
  const tools: [string, string][] = [
    ['list_callable_tools', LIST_CALLABLE_TOOLS_DESCRIPTION],
    ['inspect_tool', INSPECT_TOOL_DESCRIPTION],
    ['execute_program', executeProgramDescription(executionSchema.parse({}))],
  ]
  for (const [name, description] of tools) {
    server.registerTool(name, {description, inputSchema: z.looseObject({})}, answer)
  }
  return server
}
