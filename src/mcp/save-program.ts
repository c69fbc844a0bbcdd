import {
  type ClientCapabilities,
  inputRequired,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server'
import {existsSync} from 'node:fs'
import {z} from 'zod'

import type {RunOutcome} from '../execution/index.js'
import type {RecordedCall} from '../programs/recording.js'
import type {Runtime} from '../runtime.js'
import type {RoundRun} from './program-rounds.js'

import {projectProgramsDir, userProgramsDir} from '../programs/directories.js'
import {programNameProblem} from '../programs/names.js'
import {recordingText} from '../programs/recording.js'
import {programFiles, saveProgram} from '../programs/save.js'
import {isRecord} from '../shared/guards.js'
import {supportsFormElicitation} from './approval-prompter.js'

/** Longest wait the SDK accepts for a request (a timer's limit); the user's own bound is shorter. */
const MAX_REQUEST_TIMEOUT_MS = 2_147_483_647

/** execute_program's arguments (SPEC §5, §17). */
export const executeProgramInput = z.object({
  code: z.string().describe('The Python program. Top-level await works.'),
  save_as: z
    .string()
    .optional()
    .describe(
      'Save the program, once it ran without error and the user agrees, as a tool of this name ([a-z][a-z0-9_]*).',
    ),
  description: z.string().optional().describe('With save_as: what the saved program does, in one line.'),
  save_to: z
    .enum(['user', 'project'])
    .optional()
    .describe("With save_as: the user's programs (default) or the project's .ptc-mcp/programs/."),
  replace: z.boolean().optional().describe('With save_as: overwrite a saved program of that name.'),
})

export interface SaveAsRequest {
  name: string
  description?: string
  to: 'user' | 'project'
  replace: boolean
}

/** Asks the user one form question; resolves with the client's answer (an ElicitResult). */
export type SaveQuestion =
  {ask: (form: SaveForm) => Promise<unknown>; unavailable?: undefined} | {unavailable: string}

type SaveForm = ReturnType<typeof saveForm>

/** A run's outcome with what became of its save_as. */
export type SavedOutcome = RunOutcome & {saved?: string}

/** The save request of execute_program's arguments, undefined without save_as, or why it is refused. */
export function saveAsRequest(args: {
  save_as?: string
  description?: string
  save_to?: 'user' | 'project'
  replace?: boolean
}): SaveAsRequest | string | undefined {
  if (args.save_as === undefined) {
    const stray = (['description', 'save_to', 'replace'] as const).filter((key) => args[key] !== undefined)
    return stray.length > 0 ? `${stray.join(', ')} go with save_as: nothing ran` : undefined
  }
  const problem = programNameProblem(args.save_as)
  if (problem) return `save_as: ${problem}; nothing ran`
  return {
    name: args.save_as,
    ...(args.description !== undefined && {description: args.description}),
    to: args.save_to ?? 'user',
    replace: args.replace === true,
  }
}

/**
 * Why a program cannot be saved, read before it runs (nothing runs then), or how it runs: a
 * program with `async def main(*, ...)` is run with main()'s defaults, as its tool runs it.
 */
export async function saveAsCheck(
  runtime: Runtime,
  code: string,
): Promise<{mainArguments?: Record<string, unknown>} | {refused: string}> {
  let analysis
  try {
    analysis = await (await runtime.programs()).analyze(code)
  } catch (error) {
    return {refused: `save_as: the program cannot be read (${(error as Error).message}); nothing ran`}
  }
  if (analysis.problem) return {refused: `save_as: ${analysis.problem}; nothing ran`}
  if (!analysis.callsMain) return {}
  const required = analysis.inputSchema.required as string[] | undefined
  if (required && required.length > 0)
    return {
      refused: `save_as: main() has required parameters (${required.join(', ')}): give them defaults to save it from a run, or save the file with \`ptc-mcp programs save NAME FILE\`; nothing ran`,
    }
  return {mainArguments: {}}
}

const CLIENT_CANNOT_ASK =
  'this client cannot ask the user (no MCP elicitation): set programs.save: allow in the config, or save it with `ptc-mcp programs save NAME FILE`'

/** The save question of a 2025-era client: an elicitation during the call. */
export function legacySaveQuestion(server: McpServer, ctx: ServerContext): SaveQuestion {
  if (!supportsFormElicitation(server.server.getClientCapabilities()?.elicitation))
    return {unavailable: CLIENT_CANNOT_ASK}
  return {
    ask: (form) => ctx.mcpReq.elicitInput(form, {signal: ctx.mcpReq.signal, timeout: MAX_REQUEST_TIMEOUT_MS}),
  }
}

/** The save question of a 2026-07-28 client: an input request of the answer, as approvals are asked. */
export function modernSaveQuestion(
  capabilities: ClientCapabilities | undefined,
  round: RoundRun,
): SaveQuestion {
  if (!supportsFormElicitation(capabilities?.elicitation)) return {unavailable: CLIENT_CANNOT_ASK}
  return {ask: (form) => round.ask(inputRequired.elicit(form), round.signal)}
}

function saveForm(name: string, dir: string, description: string | undefined, replacing: boolean) {
  return {
    mode: 'form' as const,
    message: [
      `Save the program that just ran as a tool named ${JSON.stringify(name)}${replacing ? ' (replacing the one of that name)' : ''}?`,
      ...(description ? [`Description: ${JSON.stringify(description)}`] : []),
      `It is written to ${dir}, with a recording of its tool results for \`ptc-mcp programs test\`.`,
    ].join('\n'),
    requestedSchema: {
      type: 'object' as const,
      properties: {save: {type: 'boolean' as const, title: `Save ${name}`, default: true}},
      required: ['save'],
    },
  }
}

/**
 * execute_program's save_as once the run ended (SPEC §17): only a successful run, only with the
 * user's yes (or `programs.save: allow`), never over an existing program without `replace`. Says
 * what became of it in `saved`.
 */
export async function saveAfterRun(
  runtime: Runtime,
  request: SaveAsRequest,
  run: {
    code: string
    outcome: RunOutcome
    calls: RecordedCall[]
    question: SaveQuestion
    mainArguments?: Record<string, unknown>
  },
): Promise<{saved: string}> {
  const {code, outcome, calls, question} = run
  const notSaved = (why: string) => ({saved: `not saved as ${request.name}: ${why}`})
  if (!outcome.ok) return notSaved('the program failed; save a program that runs without error')
  const policy = runtime.config.programs.save
  if (policy === 'deny') return notSaved('saving is turned off (programs.save: deny)')
  const dir = request.to === 'project' ? projectProgramsDir(process.cwd()) : userProgramsDir()
  const exists = existsSync(programFiles(dir, request.name).path)
  if (exists && !request.replace)
    return notSaved(`a program of that name exists in ${dir}; pass replace: true to overwrite it`)
  if (policy === 'ask') {
    if (question.unavailable !== undefined) return notSaved(question.unavailable)
    let answer: unknown
    try {
      answer = await question.ask(saveForm(request.name, dir, request.description, exists))
    } catch (error) {
      return notSaved(`nobody answered (${(error as Error).message})`)
    }
    if (!isRecord(answer) || answer.action === 'decline') return notSaved('the user declined')
    if (answer.action !== 'accept') return notSaved('nobody answered the question')
    if (isRecord(answer.content) && answer.content.save === false) return notSaved('the user declined')
  }
  try {
    const recording = recordingText(
      {
        calls,
        output: outcome.output,
        ...(outcome.result !== null && {result: outcome.result}),
        ...(run.mainArguments && {arguments: run.mainArguments}),
      },
      (text) => runtime.redactor.redact(text),
    )
    const saved = saveProgram({
      dir,
      name: request.name,
      code,
      description: request.description,
      replace: request.replace,
      recording,
    })
    runtime.programs().then(
      (programs) => programs.changed(),
      () => {},
    )
    return {
      saved: `saved as ${request.name}: ${saved.path}; call it as the tool ${request.name}, or await run_program("${request.name}") in a program`,
    }
  } catch (error) {
    return notSaved((error as Error).message)
  }
}
