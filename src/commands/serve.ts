import {BaseCommand} from '../cli/base-command.js'
import {createLogger} from '../log.js'
import {serveStdio} from '../mcp/serve.js'
import {UpstreamBridge} from '../mcp/upstream-bridge.js'
import {Runtime} from '../runtime.js'

export default class Serve extends BaseCommand {
  static override summary = 'Run the MCP server on stdio (what Claude Code starts).'
  static override description = `Exposes list_callable_tools, inspect_tool and execute_program to the MCP client on stdin/stdout, and connects to the downstream servers of the config. Logs go to stderr. A config problem never stops it: a broken server entry makes that server unavailable (with the reason), and a file that cannot be used at all makes every tool call answer with the error and its fix.`
  static override examples = [
    '<%= config.bin %> serve --config examples/config.yaml',
    '<%= config.bin %> init   # prints the "claude mcp add" line that starts serve for this install',
  ]

  async run(): Promise<void> {
    const {flags} = await this.parse(Serve)
    const logger = createLogger(this.logLevel(flags, 'warn'))
    const upstream = new UpstreamBridge(logger.child('client'))
    // serve starts the downstream connections itself, once the client has said what it supports.
    const runtime = await Runtime.open({
      configFlag: flags.config,
      logger,
      lenient: true,
      upstream,
      connect: false,
    })
    await serveStdio(runtime, runtime.logger, this.config.version, upstream)
    // Downstream stdio children and sockets are closed; leave no timers holding the process open.
    this.exit(0)
  }
}
