import {Flags} from '@oclif/core'
import {homedir} from 'node:os'
import {createInterface} from 'node:readline'

import {BaseCommand} from '../cli/base-command.js'
import {table} from '../cli/display.js'
import {tildify} from '../init/paths.js'
import {
  assertWritable,
  CLAUDE_SCOPES,
  type InitOptions,
  type InitPlan,
  planInit,
  writeConfigFile,
} from '../init/plan.js'
import {PtcError} from '../shared/errors.js'

export interface InitResult extends InitPlan {
  /** The file written, or null with --dry-run. */
  written: string | null
  /** Where the replaced file was kept (--force), or null. */
  backup: string | null
}

export default class Init extends BaseCommand {
  static override summary = 'Write a config from the MCP servers Claude Code or Claude Desktop already has.'
  static override description = `Reads Claude Code's servers (the project's .mcp.json, and ~/.claude.json: user scope and this directory's local scope; when a name is in several, Claude Code's own order wins: local, then project, then user), or Claude Desktop's, or a JSON file with "mcpServers". Converts stdio, http and sse servers, skips ptc-mcp itself and what it cannot convert, and says why. Project (.mcp.json) servers Claude Code has not approved for this directory (pending approval, as in a freshly cloned repository, or turned down) are left out unless --include-unapproved.

Literal secrets (env and header values such as API keys and "Bearer ..." tokens) are copied and flagged; --env-refs writes \${VAR} references instead and lists the variables to export. Asked interactively when run in a terminal without --env-refs or --no-env-refs.

Writes --output (default: --config, else $XDG_CONFIG_HOME/ptc-mcp/config.yaml), never over an existing file without --force. Prints the "claude mcp add" line that registers ptc-mcp with that config, as it is installed right now (the absolute path of this bin, or "node /abs/bin/run.js" from a clone; never a package fetched by npx). Exit code 2 when the file exists or the source cannot be read.`

  static override enableJsonFlag = true
  static override examples = [
    '<%= config.bin %> init',
    '<%= config.bin %> init --from claude-desktop --env-refs',
    '<%= config.bin %> init --from ./.mcp.json --output ./config.yaml --force',
    '<%= config.bin %> init --dry-run > config.yaml',
  ]

  static override flags = {
    from: Flags.string({
      summary: 'Where to read servers: claude (Claude Code), claude-desktop, or the path of a JSON file.',
      default: 'claude',
    }),
    output: Flags.string({
      char: 'o',
      summary: 'Config file to write (default: --config, else ~/.config/ptc-mcp/config.yaml).',
    }),
    force: Flags.boolean({char: 'f', summary: 'Replace an existing file (kept as <file>.bak).'}),
    'dry-run': Flags.boolean({summary: 'Print the config on stdout instead of writing it.'}),
    'env-refs': Flags.boolean({
      allowNo: true,
      summary:
        'Write ${VAR} references instead of literal secrets (--no-env-refs: copy them without asking).',
    }),
    'include-unapproved': Flags.boolean({
      summary:
        "Also import the project's .mcp.json servers Claude Code has not approved here (pending or turned down).",
    }),
    scope: Flags.option({
      options: CLAUDE_SCOPES,
      default: 'user' as const,
      summary: 'Claude Code scope in the printed "claude mcp add" line.',
    })(),
  }

  async run(): Promise<InitResult> {
    const {flags} = await this.parse(Init)
    const dryRun = flags['dry-run']
    const options: InitOptions = {
      from: flags.from,
      output: flags.output ?? flags.config,
      envRefs: flags['env-refs'] ?? false,
      scope: flags.scope,
      includeUnapproved: flags['include-unapproved'],
    }
    let plan = await planInit(options)
    if (!dryRun) await assertWritable(plan.output, flags.force)
    if (
      flags['env-refs'] === undefined &&
      plan.secrets.length > 0 &&
      this.interactive() &&
      (await this.askEnvRefs(plan))
    ) {
      plan = await planInit({...options, envRefs: true})
    }
    const {backup} = dryRun ? {backup: null} : await writeConfigFile(plan.output, plan.yaml, flags.force)
    const result: InitResult = {written: dryRun ? null : plan.output, backup, ...plan}
    if (!this.jsonEnabled()) this.display(result)
    return result
  }

  private interactive(): boolean {
    return !this.jsonEnabled() && process.stdin.isTTY === true && process.stderr.isTTY === true
  }

  private async askEnvRefs(plan: InitPlan): Promise<boolean> {
    const fields = plan.secrets.map((s) => `${s.server} ${s.field}`).join(', ')
    const question = `Found ${plan.secrets.length} literal secret(s) (${fields}).\nWrite \${VAR} references instead, for you to export? [Y/n] `
    const prompt = createInterface({input: process.stdin, output: process.stderr})
    const answer = await new Promise<string>((resolve, reject) => {
      prompt.question(question, resolve)
      // End of input takes the default; Ctrl-C stops before anything is written.
      prompt.on('close', () => resolve(''))
      prompt.on('SIGINT', () =>
        reject(new PtcError('USAGE', 'Cancelled; nothing was written.', {exitCode: 130})),
      )
    }).finally(() => prompt.close())
    return !/^n/i.test(answer.trim())
  }

  private display(result: InitResult): void {
    const home = homedir()
    // With --dry-run stdout carries only the config, so it can be redirected to a file.
    const say = (text = '') => (result.written === null ? this.logToStderr(text) : this.log(text))
    if (result.written === null) this.log(result.yaml.trimEnd())
    for (const secret of result.secrets.filter((s) => !s.replaced)) {
      this.warn(
        `${secret.server}: ${secret.field} is a literal secret, copied into the config (use --env-refs for \${${secret.variable}}).`,
      )
    }
    for (const line of formatReport(result, home)) say(line)
  }
}

/** The human report: what was read, converted, skipped, written, and what to do next. */
export function formatReport(result: InitResult, home: string): string[] {
  const path = (p: string) => tildify(p, home)
  const lines: string[] = []
  const read = result.sources.filter((s) => s.found).map((s) => path(s.path))
  lines.push(`Read ${read.join(', ')}.`, '')
  if (result.servers.length === 0) lines.push('No servers to convert.')
  else {
    lines.push(
      table(
        ['SERVER', 'TRANSPORT', 'FROM'],
        result.servers.map((s) => [
          s.claudeName ? `${s.name} (${s.claudeName})` : s.name,
          s.transport,
          s.from,
        ]),
      ),
    )
  }
  if (result.skipped.length > 0) {
    lines.push(
      '',
      `Skipped ${result.skipped.length}:`,
      ...result.skipped.map((s) => `  ${s.name}: ${s.reason} [${s.from}]`),
    )
  }
  const replaced = result.secrets.filter((s) => s.replaced)
  if (replaced.length > 0) {
    lines.push(
      '',
      'Secrets written as references:',
      ...replaced.map((s) => `  ${s.server} ${s.field} → \${${s.variable}}`),
    )
  }
  if (result.envVars.length > 0) {
    lines.push(
      '',
      'ptc-mcp will need these variables: export them where Claude Code starts (e.g. your shell profile):',
      ...table(
        ['VARIABLE', 'USED BY'],
        result.envVars.map((v) => [v.name, v.servers.join(', ')]),
      )
        .split('\n')
        .map((l) => `  ${l}`),
    )
  }
  if (result.notes.length > 0) lines.push('', 'Notes:', ...result.notes.map((n) => `  ${n}`))
  lines.push('')
  if (result.written === null) lines.push(`Dry run: nothing written (would write ${path(result.output)}).`)
  else
    lines.push(
      `Wrote ${path(result.written)}${result.backup ? ` (previous file kept as ${path(result.backup)})` : ''}.`,
    )
  lines.push(
    '',
    'Register ptc-mcp with Claude Code:',
    `  ${result.claudeAddCommand}`,
    'or add this to a .mcp.json (or Claude Desktop config):',
    ...JSON.stringify(result.mcpJson, null, 2)
      .split('\n')
      .map((l) => `  ${l}`),
  )
  if (result.projectRegistration !== null) {
    lines.push(
      '',
      "The project's .mcp.json servers belong to this project; in this config ptc-mcp starts them in every",
      'project. To have them in a config of this project only, registered at project scope:',
      `  ${result.projectRegistration}`,
    )
  }
  if (result.signIn.length > 0) {
    lines.push(
      '',
      'These servers sign in with OAuth: sign in once each (tokens are kept and refreshed):',
      ...result.signIn.map((s) => `  ${s.command}`),
    )
  }
  const fromDesktop = result.servers.some((s) => s.scope === 'claude-desktop')
  if (result.removeCommands.length > 0 || fromDesktop) {
    lines.push(
      '',
      'Claude still has these servers itself. To reach their tools only through programs, you may remove them',
      'there (init changed nothing in Claude):',
    )
    const directories = [...new Set(result.removeCommands.map((c) => c.cwd))]
    for (const cwd of directories) {
      const commands = result.removeCommands.filter((c) => c.cwd === cwd).map((c) => c.command)
      if (cwd === null) lines.push(...commands.map((c) => `  ${c}`))
      else lines.push(`  in ${path(cwd)}:`, ...commands.map((c) => `    ${c}`))
    }
    if (result.servers.some((s) => s.scope === 'project')) {
      lines.push('  (project scope edits the .mcp.json your team shares)')
    }
    if (fromDesktop)
      lines.push('  Claude Desktop: Settings > Developer > Edit Config, and delete their entries.')
  }
  // `claude mcp list` shows ✔ once serve answers, even when no server behind it can start: doctor checks them.
  lines.push('', `Next: ${result.doctorCommand}`)
  return lines
}
