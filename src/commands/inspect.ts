import {Args} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {formatToolDescription} from '../cli/display.js'
import {EXAMPLE_CONFIG} from '../cli/help-examples.js'
import {openConnectedRuntime} from '../cli/open-runtime.js'
import {describeTool, lookupTool, type ToolDescription, withApprovalNote} from '../downstream/index.js'
import {PtcError} from '../shared/errors.js'

export default class Inspect extends BaseCommand {
  static override summary = 'Show one tool: description, schemas and the Python call signature.'
  static override enableJsonFlag = true
  static override examples = [
    `<%= config.bin %> inspect mcp__finance__get_income_statements --config ${EXAMPLE_CONFIG}`,
  ]
  static override args = {
    tool: Args.string({description: 'Namespaced tool name, as printed by "ptc-mcp list".', required: true}),
  }

  async run(): Promise<ToolDescription> {
    const {args, flags} = await this.parse(Inspect)
    const runtime = await openConnectedRuntime(flags.config, this.logLevel(flags))
    try {
      const {tool, unknown} = lookupTool(runtime.registry, args.tool)
      // The server's own spelling (get-env) names the same hidden tool as get_env.
      const hidden = runtime.registry.hiddenTool(args.tool)
      if (!tool && hidden) {
        throw new PtcError(
          'TOOL_NOT_FOUND',
          `${args.tool} is ${hidden.reason}: programs can neither see nor call it.`,
          {exitCode: 1, suggestion: `To make it callable, ${hidden.fix}.`},
        )
      }
      if (!tool) {
        throw new PtcError('TOOL_NOT_FOUND', unknown, {
          exitCode: 1,
          suggestion: 'Run "ptc-mcp list" to see the callable tools.',
        })
      }
      const description = withApprovalNote(
        describeTool(tool, runtime.registry.observedResult(tool.name)),
        runtime.registry.approvalNote(tool),
      )
      if (!this.jsonEnabled()) this.log(formatToolDescription(description))
      return description
    } finally {
      await runtime.close()
    }
  }
}
