import {z} from 'zod'

import {isRecord} from '../shared/guards.js'
import {positiveSeconds, toolPatterns} from './schema-parts.js'

/**
 * The config's rules about tools and calls (SPEC §3): which tools programs see (`tools:`), which
 * calls ask the user (`permissions:`), and the data-flow rules (`flows:`). Part of schema.ts's
 * `configSchema`, which re-exports them.
 */

export const toolsSchema = z
  .strictObject({
    allow: toolPatterns(
      'Only these namespaced tools (names or globs, e.g. mcp__fin__*) are listed and callable; not with block. Default: every tool.',
    ).optional(),
    block: toolPatterns(
      'These namespaced tools (names or globs) are hidden and not callable; not with allow. Default: none.',
    ).optional(),
  })
  // `when` lets this run even when a list item is invalid, so every mistake is reported at once.
  .refine((tools: unknown) => !(isRecord(tools) && tools.allow !== undefined && tools.block !== undefined), {
    message: 'use either allow or block, not both',
    when: () => true,
  })
  .describe(
    'Which downstream tools programs may see and call. Use allow or block, never both; omit both for everything.',
  )

export const permissionsSchema = z
  .strictObject({
    claude_code: z
      .boolean()
      .default(true)
      .describe(
        "Honour Claude Code's permission rules for mcp__ names (permissions.allow / ask / deny in its managed settings, ~/.claude/settings.json, and .claude/settings.json and .claude/settings.local.json of the working directory), matched as Claude Code matches them: deny hides the tool, ask asks the user, allow exempts it from asking.",
      ),
    ask: toolPatterns(
      "Calls to these namespaced tools (names or globs) need the user's approval, call by call, even when an allow rule covers them. Default: none.",
    ).default([]),
    allow: toolPatterns(
      'Calls to these namespaced tools (names or globs) run without asking, unless a deny or ask rule says otherwise. Default: none.',
    ).default([]),
    ask_unlisted: z
      .union([z.boolean(), z.literal('destructive')])
      .optional()
      // Read as true when unset (see askUnlisted): no zod default, so the old key can still decide.
      .meta({default: true})
      .describe(
        "Whether a call no rule mentions needs the user's approval, as Claude Code asks for an MCP tool no allow rule covers. true (default): unless the tool declares readOnlyHint: true. destructive: also not when it declares destructiveHint: false. false: never.",
      ),
    ask_destructive: z
      .boolean()
      .optional()
      .describe(
        'Replaced by ask_unlisted (read with a warning): false is ask_unlisted: false, true is ask_unlisted: destructive.',
      ),
    approval_timeout_seconds: positiveSeconds(
      'How long a program waits for the user to decide (its own clock stopped meanwhile); no answer denies the call.',
    ).default(300),
    max_question_rounds: z
      .number()
      .int()
      .min(1)
      .default(8)
      .describe(
        "Most question rounds one program may put to the user (several calls waiting are asked in one round); past it, a call that would ask is denied, so the program still ends with its output. Below Claude Code's 10, after which it drops the call.",
      ),
  })
  .describe(
    "Which calls a program may make only with the user's approval, asked through the MCP client (elicitation) or, in ptc-mcp run, on the terminal.",
  )

export const FLOW_ACTIONS = ['ask', 'deny'] as const

export const flowsSchema = z
  .strictObject({
    private: toolPatterns(
      'Private sources: namespaced tools (names or globs, e.g. mcp__mail__*) whose results are private. Once a program received a result from one, its later calls to external sinks ask (or are denied). Default: none (no program is marked).',
    ).default([]),
    external: toolPatterns(
      'External sinks: namespaced tools (names or globs, e.g. mcp__web__*) that send data outside, besides every tool that declares openWorldHint: true. Default: none.',
    ).default([]),
    trust_open_world: z
      .boolean()
      .default(false)
      .describe(
        'true: tools that declare openWorldHint: true are sinks only when external names them. Default false: every such tool is a sink.',
      ),
    action: z
      .enum(FLOW_ACTIONS)
      .default('ask')
      .describe(
        "What a marked program's call to a sink does: ask (default: the user is asked, even where an allow rule covers the sink; run --yes answers yes) or deny (refused, even with run --yes).",
      ),
  })
  .describe(
    "Data-flow rules (SPEC §12.1): a program that read a private source cannot send data to an external sink without the user's say.",
  )
