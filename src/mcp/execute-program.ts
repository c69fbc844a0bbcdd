import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  inputRequired,
  type McpServer,
  PROTOCOL_VERSION_META_KEY,
  type ServerContext,
} from '@modelcontextprotocol/server'
import {pathToFileURL} from 'node:url'

import type {ExecutionConfig} from '../config/schema.js'
import type {ProgramEngine, ProgramLookup, RunOutcome} from '../execution/index.js'
import type {ApprovalPrompter} from '../permissions/approvals.js'
import type {Runtime} from '../runtime.js'
import type {Logger} from '../shared/log.js'
import type {Caller} from './caller.js'
import type {UpstreamBridge} from './upstream-bridge.js'

import {composeOutcome, fitAnswer, startFailureOutcome, structuredOutcome} from '../execution/index.js'
import {type RecordedCall, recordingHost} from '../programs/recording.js'
import {programLookup} from '../programs/run-program.js'
import {isRecord} from '../shared/guards.js'
import {INITIAL_CONNECT_WAIT_MS} from '../shared/limits.js'
import {markStep, stepsOf} from '../shared/steps.js'
import {tracedRun} from '../telemetry/traced-run.js'
import {elicitationPrompter, FIRST_MODERN_REVISION, inputRequestPrompter} from './approval-prompter.js'
import {executeProgramDescription} from './descriptions.js'
import {listedOutputSchema} from './execute-output-schema.js'
import {userOutputLimit} from './output-limit.js'
import {ProgramRounds, type RoundAnswer} from './program-rounds.js'
import {startProgress} from './progress.js'
import {
  executeProgramInput,
  legacySaveQuestion,
  modernSaveQuestion,
  saveAfterRun,
  saveAsCheck,
  type SaveAsRequest,
  saveAsRequest,
  type SavedOutcome,
  type SaveQuestion,
} from './save-program.js'

/** The tool `_meta` key with which Claude Code loads a tool on the first turn, without a tool search. */
export const ALWAYS_LOAD_META_KEY = 'anthropic/alwaysLoad'

/** The tool `_meta` key with which Claude Code lets a result this long reach the model inline. */
export const MAX_RESULT_SIZE_META_KEY = 'anthropic/maxResultSizeChars'

/**
 * The longest answer Claude Code should pass on inline (SPEC §5): the output and the emit() value
 * (each up to max_output_bytes), room for JSON escaping, and the structure around them; never
 * above the user's limit (`limitChars`, from MAX_MCP_OUTPUT_TOKENS).
 */
export function maxResultSizeChars(execution: ExecutionConfig, limitChars?: number): number {
  const fits = Math.ceil(2.5 * execution.max_output_bytes) + 16_384
  return limitChars === undefined ? fits : Math.min(fits, limitChars)
}

/** Programs paused on a question, one set per process (a requestState is good only where it was made). */
const roundsOf = new WeakMap<Runtime, ProgramRounds>()

/** How a program call runs besides its code: a saved program's arguments, a save after a good run. */
export interface ProgramCallOptions {
  /** A saved program's arguments (SPEC §17): the runner awaits `main(**arguments)`. */
  mainArguments?: Record<string, unknown>
  /** execute_program's save_as (SPEC §17): asked and done once the run succeeded. */
  save?: SaveAsRequest
}

/** Runs a program as execute_program does, for execute_program and each saved program's tool. */
export type ProgramCall = ((
  code: string,
  ctx: ServerContext,
  options?: ProgramCallOptions,
) => Promise<CallToolResult | ReturnType<typeof inputRequired>>) & {
  /** The user's limit on one answer, in characters (MAX_MCP_OUTPUT_TOKENS), when set. */
  limitChars?: number
}

/** Who else takes part in a program call: the upstream client's requests, the gateway's caller. */
export interface ProgramCallContext {
  upstream?: UpstreamBridge
  /** The principal calling through the gateway (SPEC §18): their state, their paused programs. */
  caller?: Caller
}

/** execute_program (SPEC §5): runs a program, asking the user in whichever way the client's protocol allows. */
export function registerExecuteProgram(
  server: McpServer,
  runtime: Runtime,
  logger: Logger,
  context: ProgramCallContext = {},
): ProgramCall {
  const call = programCall(server, runtime, logger, context)
  server.registerTool(
    'execute_program',
    {
      description: executeProgramDescription(runtime.config.execution, runtime.config.state),
      inputSchema: executeProgramInput,
      outputSchema: listedOutputSchema,
      // Claude Code keeps a longer result in a file and shows the model 2 KB of it (SPEC §5).
      _meta: {
        [MAX_RESULT_SIZE_META_KEY]: maxResultSizeChars(runtime.config.execution, call.limitChars),
        // The model can write a program from the first turn (SPEC §5, serve.always_load).
        ...(runtime.config.serve.always_load ? {[ALWAYS_LOAD_META_KEY]: true} : {}),
      },
    },
    async ({code, ...save}, ctx) => {
      const request = saveAsRequest(save)
      if (typeof request === 'string') return {isError: true, content: [text(request)]}
      if (!request) return call(code, ctx)
      const check = await saveAsCheck(runtime, code)
      if ('refused' in check) return {isError: true, content: [text(check.refused)]}
      return call(code, ctx, {save: request, ...check})
    },
  )
  return call
}

function programCall(
  server: McpServer,
  runtime: Runtime,
  logger: Logger,
  {upstream, caller}: ProgramCallContext,
): ProgramCall {
  const {execution} = runtime.config
  const limitChars = userOutputLimit(process.env, logger)
  let rounds = roundsOf.get(runtime)
  if (!rounds) {
    rounds = new ProgramRounds(runtime.permissions.approvalTimeoutMs)
    roundsOf.set(runtime, rounds)
  }
  if (upstream) upstream.rounds = rounds
  const answer = async (result: RoundAnswer) => {
    if (result.kind === 'input') await caller?.onPaused?.(result.requestState)
    if (result.kind === 'done') return toCallResult(result.outcome, execution, limitChars)
    if (result.kind === 'input')
      return inputRequired({inputRequests: result.inputRequests, requestState: result.requestState})
    return {isError: true, content: [text(result.message)]}
  }

  const call: ProgramCall = async (code, ctx, options = {}) => {
    const steps = stepsOf(ctx.mcpReq.id)
    markStep(steps, 'handler')
    const progress = startProgress(ctx, logger)
    try {
      const modern = speaksModernProtocol(server, ctx)
      const state = modern ? ctx.mcpReq.requestState<unknown>() : undefined
      if (state !== undefined) {
        if (typeof state !== 'string')
          return answer({kind: 'refused', message: 'requestState must be a string'})
        return answer(
          await rounds.resume(state, code, ctx.mcpReq.inputResponses, ctx.mcpReq.signal, caller?.principal),
        )
      }
      await runtime.registry.waitForInitialConnections(INITIAL_CONNECT_WAIT_MS)
      let engine: ProgramEngine
      try {
        engine = await runtime.engine()
      } catch (error) {
        return toCallResult(startFailureOutcome(error, execution, execution.sandbox), execution, limitChars)
      }
      const recorded: RecordedCall[] = []
      const report = {
        onToolCallDone: (completed: number) => progress.toolCallsCompleted(completed),
        onServerWait: (server: string, waitMs: number) => progress.serverStarting(server, waitMs),
        onQueue: (ahead?: number) => progress.queued(ahead),
        // What programs keep for the next ones in this session (SPEC §6.2).
        state: await (caller ? caller.state() : runtime.keptState()),
        steps,
        ...(options.mainArguments && {mainArguments: options.mainArguments}),
        ...(options.save && {host: recordingHost(runtime.registry, recorded)}),
        programs: await savedProgramLookup(runtime),
      }
      const untraced: ProgramEngine['run'] = caller
        ? (...args) => runFor(caller, engine, execution, ...args)
        : engine.run.bind(engine)
      // A span per program and per tool call, in the client's trace (SPEC §18), when configured.
      const run = await tracedRun(untraced, {
        telemetry: runtime.config.telemetry,
        host: runtime.registry,
        meta: ctx.mcpReq._meta,
        header: ctx.http?.req?.headers.get('traceparent'),
        tool: options.mainArguments ? 'saved_program' : 'execute_program',
        principal: caller?.principal,
      })
      const saveAfter = async (outcome: RunOutcome, ask: SaveQuestion): Promise<RunOutcome> =>
        options.save
          ? {
              ...outcome,
              ...(await saveAfterRun(runtime, options.save, {
                code,
                outcome,
                calls: recorded,
                question: ask,
                mainArguments: options.mainArguments,
              })),
            }
          : outcome
      if (!modern) {
        const outcome = await run(code, {
          ...report,
          signal: ctx.mcpReq.signal,
          prompter: scoped(elicitationPrompter(server, ctx), caller),
        })
        markStep(steps, 'outcome')
        const result = toCallResult(
          await saveAfter(outcome, legacySaveQuestion(server, ctx)),
          execution,
          limitChars,
        )
        markStep(steps, 'result built')
        return result
      }
      const capabilities = envelopeCapabilities(ctx)
      return answer(
        await rounds.start(
          code,
          async (round) => {
            const outcome = await run(code, {
              ...report,
              signal: round.signal,
              prompter: scoped(inputRequestPrompter(capabilities, round.ask, round.rounds), caller),
            })
            return saveAfter(outcome, modernSaveQuestion(capabilities, round))
          },
          ctx.mcpReq.signal,
          caller?.principal,
        ),
      )
    } finally {
      progress.stop()
    }
  }
  call.limitChars = limitChars
  return call
}

/** run_program()'s saved programs (SPEC §17), or none when they cannot be read. */
async function savedProgramLookup(runtime: Runtime): Promise<ProgramLookup | undefined> {
  try {
    const programs = await runtime.programs()
    return programLookup(() => programs.current)
  } catch {
    return undefined
  }
}

/** Runs a caller's program if the caller's limits admit it, telling the caller when it starts and ends. */
async function runFor(
  caller: Caller,
  engine: ProgramEngine,
  execution: ExecutionConfig,
  ...args: Parameters<ProgramEngine['run']>
): Promise<RunOutcome> {
  const refused = await caller.admit?.()
  if (refused !== undefined) {
    const nothing = {output: '', toolCalls: [], elapsedMs: 0, sandbox: ''}
    return composeOutcome({...nothing, end: {kind: 'crashed', reason: ''}, startFailure: refused}, execution)
  }
  caller.onStart?.()
  let outcome: RunOutcome | undefined
  try {
    outcome = await engine.run(...args)
    return outcome
  } finally {
    await caller.onEnd?.(outcome)
  }
}

/** A prompter whose "for the session" answers hold for the caller only (SPEC §18). */
function scoped(prompter: ApprovalPrompter, caller: Caller | undefined): ApprovalPrompter {
  if (caller) prompter.scope = caller.scope?.() ?? caller.principal
  return prompter
}

/** A request of the 2026-07-28 protocol (or later): it names its revision in its envelope. */
function speaksModernProtocol(server: McpServer, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  const version = envelope?.[PROTOCOL_VERSION_META_KEY] ?? server.server.getNegotiatedProtocolVersion()
  return typeof version === 'string' && version >= FIRST_MODERN_REVISION
}

function envelopeCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
    CLIENT_CAPABILITIES_META_KEY
  ]
  return isRecord(capabilities) ? (capabilities as ClientCapabilities) : undefined
}

const text = (value: string) => ({type: 'text' as const, text: value})

/** The answer to a call; within the user's limit on MCP output (`limitChars`), when there is one. */
function toCallResult(run: RunOutcome, execution: ExecutionConfig, limitChars: number | undefined) {
  const allCalls = execution.trace === 'full'
  const outcome = limitChars === undefined ? run : fitAnswer(run, limitChars, allCalls)
  // Rule: images the program passed to show() come after the text, then the kept files as
  // resource links (SPEC §14).
  const images = outcome.images.map((image) => ({
    type: 'image' as const,
    data: image.data,
    mimeType: image.mimeType,
  }))
  const links = outcome.files.map((file) => ({
    type: 'resource_link' as const,
    uri: pathToFileURL(file.path).href,
    name: file.name,
    size: file.bytes,
  }))
  const {saved} = outcome as SavedOutcome
  return {
    content: [text(outcome.text), ...(saved ? [text(saved)] : []), ...images, ...links],
    structuredContent: {
      ...structuredOutcome(outcome, {allCalls}),
      ...(saved && {saved}),
    },
    isError: !outcome.ok,
  }
}
