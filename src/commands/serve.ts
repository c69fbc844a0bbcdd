import {Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {EXAMPLE_CONFIG} from '../cli/help-examples.js'
import {runServe} from '../mcp/serve.js'

export default class Serve extends BaseCommand {
  static override summary = 'Run the MCP server on stdio (what Claude Code starts).'
  static override description = `Exposes list_callable_tools, inspect_tool and execute_program to the MCP client on stdin/stdout, and connects to the downstream servers of the config. Logs go to stderr. A config problem never stops it: a broken server entry makes that server unavailable (with the reason), and a file that cannot be used at all makes every tool call answer with the error and its fix.`
  static override examples = [
    `<%= config.bin %> serve --config ${EXAMPLE_CONFIG}`,
    '<%= config.bin %> init   # prints the "claude mcp add" line that starts serve for this install',
  ]

  static override flags = {
    http: Flags.boolean({
      description:
        'Serve streamable HTTP at /mcp for many clients (the team gateway), with /healthz, /readyz, /metrics.',
    }),
    host: Flags.string({
      description: 'Address to listen on, with --http.',
      default: '127.0.0.1',
      dependsOn: ['http'],
    }),
    port: Flags.integer({
      description: 'Port to listen on, with --http (0: any free one).',
      default: 8808,
      min: 0,
      max: 65_535,
      dependsOn: ['http'],
    }),
  }

  // bin/run.js starts serve without oclif when the arguments are plain (src/cli/serve-fast-path.ts);
  // this is the path for everything else, and for bin/dev.js.
  async run(): Promise<void> {
    const {flags} = await this.parse(Serve)
    if (flags.http) {
      const {runGateway} = await import('../gateway/serve-http.js')
      await runGateway({
        configFlag: flags.config,
        logLevel: this.logLevel(flags, 'warn'),
        version: this.config.version,
        host: flags.host,
        port: flags.port,
      })
      this.exit(0)
    }
    await runServe({
      configFlag: flags.config,
      logLevel: this.logLevel(flags, 'warn'),
      version: this.config.version,
    })
    // Downstream stdio children and sockets are closed; leave no timers holding the process open.
    this.exit(0)
  }
}
