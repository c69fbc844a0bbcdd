import {BaseCommand} from '../cli/base-command.js'
import {formatCheck} from '../cli/display.js'
import {runChecksWithProgress} from '../cli/doctor-progress.js'
import {EXAMPLE_CONFIG} from '../cli/help-examples.js'
import {EXIT_INTERRUPTED, onInterrupt} from '../cli/interrupt.js'
import {type CheckResult, runChecks} from '../doctor/check.js'
import {doctorChecks} from '../doctor/checks.js'
import {EXIT} from '../shared/errors.js'
import {createLogger, silentLogger} from '../shared/log.js'

export interface DoctorResult {
  ok: boolean
  checks: CheckResult[]
}

export default class Doctor extends BaseCommand {
  static override summary = 'Check Node, Python, the sandbox, the config and every downstream server.'
  static override description =
    'Checks run concurrently. The sandbox check is a live probe: a program tries to read and write outside, open a socket and fork (each must be refused), and one that must work. Exit 1 when a check fails, 2 when the config cannot be used; warnings keep exit 0. Ctrl-C stops the checks and exits 130.'
  static override enableJsonFlag = true
  static override examples = [
    '<%= config.bin %> doctor',
    `<%= config.bin %> doctor --config ${EXAMPLE_CONFIG} --json`,
  ]

  async run(): Promise<DoctorResult> {
    const {flags} = await this.parse(Doctor)
    // Server chatter would interleave with the report; problems surface as failed checks instead.
    const logger = flags['log-level'] ? createLogger(flags['log-level']) : silentLogger
    const interrupt = onInterrupt()
    const {checks, close} = await doctorChecks({configFlag: flags.config, logger, signal: interrupt.signal})
    // Ctrl-C: the servers are stopped, so their checks end, and the sandbox probe cancels its program.
    interrupt.stopped.then(close, () => {})
    try {
      const interactive = !this.jsonEnabled() && process.stdout.isTTY === true
      const results = interactive ? await runChecksWithProgress(checks) : await runChecks(checks)
      if (interrupt.signal.aborted) {
        process.stderr.write('Stopped by Ctrl-C: the checks did not finish.\n')
        process.exitCode = EXIT_INTERRUPTED
        return {ok: false, checks: results}
      }
      if (!this.jsonEnabled() && !interactive) for (const result of results) this.log(formatCheck(result))
      const ok = results.every((r) => r.status !== 'fail')
      // A config that cannot be used is a config error (exit 2), as in every other command.
      const configFailed = results.some((r) => r.id === 'config' && r.status === 'fail')
      if (!ok) process.exitCode = configFailed ? EXIT.usage : EXIT.failed
      return {ok, checks: results}
    } finally {
      await close()
      interrupt.dispose()
    }
  }
}
