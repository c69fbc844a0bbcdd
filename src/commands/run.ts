import {Args, Flags} from '@oclif/core'
import {readFile} from 'node:fs/promises'

import type {RunOutcome, StructuredOutcome} from '../execution/index.js'

import {BaseCommand} from '../cli/base-command.js'
import {callsWaitedFor, serversWaitedFor} from '../cli/cancel-waiting.js'
import {showConnectProgress} from '../cli/connect-progress.js'
import {CANCELLED_HEADER, formatCancelled} from '../cli/display.js'
import {EXAMPLE_CONFIG, exampleProgram} from '../cli/help-examples.js'
import {EXIT_INTERRUPTED, onInterrupt} from '../cli/interrupt.js'
import {LiveOutput} from '../cli/live-output.js'
import {APPROVE_ALL, TerminalPrompter} from '../cli/terminal-prompter.js'
import {readStateFile, serversNamedBy, structuredOutcome, writeStateFile} from '../execution/index.js'
import {programLookup} from '../programs/run-program.js'
import {Runtime} from '../runtime.js'
import {PtcError} from '../shared/errors.js'
import {CLI_CONNECT_WAIT_MS} from '../shared/limits.js'
import {createLogger} from '../shared/log.js'
import {terminalSafe} from '../shared/terminal-safe.js'
import {tracedRun} from '../telemetry/traced-run.js'

export default class Run extends BaseCommand {
  static override summary = 'Run a Python program exactly as execute_program would.'
  static override description =
    'Prints what execute_program returns to the model. Exit code 1 when the program failed, 3 when the sandbox is unavailable. Ctrl-C stops the program, prints what it had printed and [Script execution cancelled], and exits 130.'
  static override enableJsonFlag = true
  static override examples = [
    `<%= config.bin %> run --config ${EXAMPLE_CONFIG} ${exampleProgram('revenue-trend.py')}`,
    `echo "print(await list_callable_tools())" | <%= config.bin %> run --config ${EXAMPLE_CONFIG} -`,
    `<%= config.bin %> run --config ${EXAMPLE_CONFIG} ${exampleProgram('ledger-summary.py')} --json`,
    `<%= config.bin %> run --config ${EXAMPLE_CONFIG} ${exampleProgram('revenue-trend.py')} --yes`,
  ]
  static override flags = {
    raw: Flags.boolean({
      summary: 'Print control characters in the output as they are.',
      description:
        'By default, on a terminal, escape sequences and other control characters the program printed are shown as visible symbols (␛[31m), so a program cannot drive the terminal (clipboard writes, cursor moves).',
    }),
    state: Flags.string({
      summary: 'Read and write what programs keep for the next ones in this file.',
      description:
        'What the program stores (store()) and leaves in ./session/ is read from FILE before it runs and written back after (0600, replaced whole), so the next run with the same FILE finds it, as programs of one serve session do. Without it, a run starts with nothing and keeps nothing.',
    }),
    server: Flags.string({
      summary: 'Also connect this server (repeatable).',
      description:
        'run connects only the servers the program names (mcp__<server>__...), or every server when it uses list_callable_tools, inspect_tool or server_status; name here a server whose tools the program reaches another way.',
      multiple: true,
    }),
    yes: Flags.boolean({
      char: 'y',
      summary: 'Approve every call that needs approval (permissions) without asking.',
      description:
        'Without it, such calls are asked about on the terminal (y once, n no, a all calls of that tool), and denied when there is no terminal.',
    }),
  }
  static override args = {
    file: Args.string({description: 'Python file to run, or - for stdin.', required: true}),
  }

  async run(): Promise<StructuredOutcome> {
    const {args, flags} = await this.parse(Run)
    const code = await readProgram(args.file)
    // Before opening: the servers start connecting then, and a Ctrl-C from then on is ours.
    const interrupt = onInterrupt()
    let runtime: Runtime
    try {
      runtime = await Runtime.open({
        configFlag: flags.config,
        logger: createLogger(this.logLevel(flags)),
        servers: (configured) => serversToConnect(code, configured, flags.server ?? []),
      })
    } catch (error) {
      interrupt.dispose()
      throw error
    }
    try {
      // The state file first: one that cannot be used is refused at once, before Python starts.
      const state = await runtime.keptState()
      if (flags.state !== undefined) readStateFile(flags.state, state)
      const ready = Promise.all([
        runtime.engine(),
        showConnectProgress(runtime.registry, CLI_CONNECT_WAIT_MS, this.jsonEnabled(), interrupt.signal),
      ])
      // Ctrl-C while servers connect or Python starts: nothing ran, nothing to wait for.
      const engine = await Promise.race([ready.then(([ready]) => ready), interrupt.stopped.then(() => null)])
      if (engine === null) {
        ready.catch(() => {})
        return this.cancelledBeforeStart(runtime)
      }
      const started = performance.now()
      const prompter = flags.yes ? APPROVE_ALL : new TerminalPrompter()
      // On a terminal the output is shown as it comes; the outcome then follows it.
      const live = this.jsonEnabled() ? undefined : liveOutput(flags.raw)
      // run_program() (SPEC §17): the saved programs, unless they cannot be read.
      const programs = code.includes('run_program') ? await runtime.programs().catch(() => {}) : undefined
      // Traced when telemetry is configured (SPEC §18), in $TRACEPARENT's trace when it is set.
      const run = await tracedRun(engine.run.bind(engine), {
        telemetry: runtime.config.telemetry,
        host: runtime.registry,
        meta: {traceparent: process.env.TRACEPARENT},
        tool: 'run',
      })
      const outcome = await run(code, {
        signal: interrupt.signal,
        prompter,
        keepShownImages: true,
        state,
        onOutput: live?.onOutput,
        ...(programs && {programs: programLookup(() => programs.current)}),
      })
      if (flags.state !== undefined) writeStateFile(flags.state, state)
      const cancelled = interrupt.signal.aborted
      if (!this.jsonEnabled()) {
        const text = finalText(outcome, cancelled, performance.now() - started, live !== undefined)
        const gap = live?.end() ?? ''
        this.log(gap + (flags.raw || !process.stdout.isTTY ? text : terminalSafe(text)))
        for (const path of outcome.shownImageFiles ?? []) this.log(`[shown image: ${path}]`)
      }
      if (!outcome.ok) process.exitCode = cancelled ? EXIT_INTERRUPTED : 1
      return structuredOutcome(outcome, {allCalls: true})
    } finally {
      // The child is killed by the abort; closing removes scratch and stops the downstream servers.
      await runtime.close()
      interrupt.dispose()
    }
  }

  /** Ctrl-C while servers connected or Python started: nothing ran; says what was waited for. */
  private cancelledBeforeStart(runtime: Runtime): StructuredOutcome {
    const {registry} = runtime
    const waited = serversWaitedFor(registry.serverStatus(), (name) => registry.connectTimeoutMs(name))
    if (!this.jsonEnabled())
      this.log(waited === undefined ? CANCELLED_HEADER : `${CANCELLED_HEADER}\n${waited}`)
    process.exitCode = EXIT_INTERRUPTED
    return waited === undefined ? NOTHING_RAN : {...NOTHING_RAN, error: `${NOTHING_RAN.error}: ${waited}`}
  }
}

/** On a terminal, the program's output is shown as it comes. */
function liveOutput(raw: boolean): LiveOutput | undefined {
  return process.stdout.isTTY ? new LiveOutput((text) => process.stdout.write(text), raw) : undefined
}

const NOTHING_RAN: StructuredOutcome = {
  ok: false,
  error: 'CancelledError: interrupted (Ctrl-C) before the program started',
}

/** What run prints of an outcome: all of it, or what follows the output when it was shown live. */
function finalText(outcome: RunOutcome, cancelled: boolean, elapsedMs: number, outputShown: boolean): string {
  const waited = callsWaitedFor(outcome.tool_calls)
  if (cancelled) return formatCancelled(outputShown ? {...outcome, output: ''} : outcome, elapsedMs, waited)
  return outputShown ? outcome.afterOutput : outcome.text
}

/** The servers the program names, and those `--server` adds (each must be configured). */
function serversToConnect(code: string, configured: string[], added: string[]): string[] {
  const unknown = added.filter((name) => !configured.includes(name))
  if (unknown.length > 0) {
    throw new PtcError('USAGE', `--server ${unknown.join(', ')}: no such server in the config`, {
      suggestion:
        configured.length > 0
          ? `the configured servers are ${configured.join(', ')}`
          : 'the config lists no servers',
    })
  }
  return [...new Set([...added, ...serversNamedBy(code, configured)])]
}

async function readProgram(file: string): Promise<string> {
  try {
    return file === '-' ? await readStdin() : await readFile(file, 'utf8')
  } catch (error) {
    throw new PtcError('USAGE', `Cannot read program ${file}: ${(error as Error).message}`, {
      suggestion: 'Pass the path of a Python file, or - to read the program from stdin.',
      cause: error,
    })
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
