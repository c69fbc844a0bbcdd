import {BaseCommand} from '../cli/base-command.js'
import {createLogger} from '../log.js'
import {serveStdio} from '../mcp/serve.js'
import {Runtime} from '../runtime.js'

export default class Serve extends BaseCommand {
  static override summary = 'Run the MCP server on stdio (what Claude Code starts).'
  static override description = `Exposes list_callable_tools, inspect_tool and execute_program to the MCP client on stdin/stdout, and connects to the downstream servers of the config. Logs go to stderr.`
  static override examples = [
    '<%= config.bin %> serve --config ~/.config/ptc-mcp/config.yaml',
    'claude mcp add ptc -- npx ptc-mcp serve --config /abs/path/config.yaml',
  ]

  async run(): Promise<void> {
    const {flags} = await this.parse(Serve)
    const logger = createLogger(this.logLevel(flags, 'warn'))
    const runtime = await Runtime.open({configFlag: flags.config, logger})
    await serveStdio(runtime, runtime.logger, this.config.version)
    // Downstream stdio children and sockets are closed; leave no timers holding the process open.
    this.exit(0)
  }
}
