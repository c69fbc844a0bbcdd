import type {PermissionsConfig} from '../config/schema.js'
import type {ToolInfo} from '../downstream/types.js'
import type {Logger} from '../log.js'

import {patternMatcher} from '../downstream/filter.js'
import {ruleMatches, type RuleTarget} from './claude-rules.js'
import {type ClaudeRuleEntry, ClaudeSettings} from './claude-settings.js'

/** Why a call needs the user's approval: the rule that says so, for the prompt, the log and the CLI. */
export type ApprovalReason =
  | {source: 'claude_code'; rule: string; file: string}
  | {source: 'ask'; pattern: string}
  | {source: 'destructive'}

export interface PermissionPolicyOptions {
  /** `~` for `~/.claude/settings.json`. */
  home: string
  /** The project whose `.claude/` settings apply: serve's working directory. */
  projectDir: string
  logger: Logger
  /** How often Claude Code's settings are checked for changes; 0 = never. Default 1000 ms. */
  watchIntervalMs?: number
}

/**
 * Which tools the user's rules hide and which calls need their approval (SPEC §12). Strictest wins:
 * a Claude Code deny rule hides the tool (as tools.block does, which the registry applies itself);
 * a Claude Code ask rule or a `permissions.ask` pattern asks; a Claude Code allow rule exempts the
 * tool from `ask_destructive`; a tool declaring `destructiveHint: true` (and not `readOnlyHint`)
 * asks when `ask_destructive` is on; everything else runs without asking.
 */
export class PermissionPolicy {
  readonly approvalTimeoutMs: number
  private readonly claude: ClaudeSettings | undefined
  private readonly askPatterns: {pattern: string; matches: (name: string) => boolean}[]
  /** Per tool object (a refreshed tool list brings new objects); cleared when the rules change. */
  private reasons = new WeakMap<ToolInfo, ApprovalReason | null>()
  private readonly listeners = new Set<() => void>()

  constructor(
    private readonly config: PermissionsConfig,
    options: PermissionPolicyOptions,
  ) {
    this.approvalTimeoutMs = config.approval_timeout_seconds * 1000
    this.askPatterns = config.ask.map((pattern) => ({pattern, matches: patternMatcher(pattern)}))
    if (config.claude_code) {
      this.claude = new ClaudeSettings({
        home: options.home,
        projectDir: options.projectDir,
        logger: options.logger,
        watchIntervalMs: options.watchIntervalMs,
      })
      this.claude.onChange(() => {
        this.reasons = new WeakMap()
        for (const listener of this.listeners) listener()
      })
    }
  }

  /** The Claude Code settings files consulted (none when `permissions.claude_code` is off). */
  get claudeFiles(): readonly string[] {
    return this.claude?.files ?? []
  }

  /** The Claude Code deny rule that hides this tool, as `deny rule "mcp__x" in <file>`; undefined when none does. */
  hiddenBy(tool: RuleTarget): string | undefined {
    const rule = this.claudeRule('deny', tool)
    return rule && `hidden by Claude Code's deny rule ${JSON.stringify(rule.rule)} (${rule.file})`
  }

  /** Why calls to this tool need approval; undefined when they do not. */
  approvalReason(tool: ToolInfo): ApprovalReason | undefined {
    let reason = this.reasons.get(tool)
    if (reason === undefined) {
      reason = this.computeReason(tool) ?? null
      this.reasons.set(tool, reason)
    }
    return reason ?? undefined
  }

  /**
   * For inspect_tool and `list`: `every call asks the user first (<why>); a refusal raises ToolError
   * (kind "denied")`; undefined when calls run without asking.
   */
  approvalNote(tool: ToolInfo): string | undefined {
    const reason = this.approvalReason(tool)
    return (
      reason &&
      `every call asks the user first (${describeReason(reason)}); a refusal raises ToolError (kind "denied")`
    )
  }

  /** Called when Claude Code's rules change. Returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  close(): void {
    this.claude?.close()
    this.listeners.clear()
  }

  private computeReason(tool: ToolInfo): ApprovalReason | undefined {
    const ask = this.claudeRule('ask', tool)
    if (ask) return {source: 'claude_code', rule: ask.rule, file: ask.file}
    const pattern = this.askPatterns.find((p) => p.matches(tool.name))
    if (pattern) return {source: 'ask', pattern: pattern.pattern}
    if (this.claudeRule('allow', tool)) return undefined
    const hints = tool.annotations
    if (this.config.ask_destructive && hints?.destructiveHint === true && hints.readOnlyHint !== true)
      return {source: 'destructive'}
    return undefined
  }

  private claudeRule(list: ClaudeRuleEntry['list'], tool: RuleTarget): ClaudeRuleEntry | undefined {
    return this.claude?.rules().find((entry) => entry.list === list && ruleMatches(entry.parsed, tool))
  }
}

/** One line saying why a call needs approval: `Claude Code's ask rule "mcp__gh" (<file>)`. */
export function describeReason(reason: ApprovalReason): string {
  switch (reason.source) {
    case 'ask': {
      return `permissions.ask ${JSON.stringify(reason.pattern)}`
    }
    case 'claude_code': {
      return `Claude Code's ask rule ${JSON.stringify(reason.rule)} (${reason.file})`
    }
    case 'destructive': {
      return 'the tool declares destructiveHint (permissions.ask_destructive)'
    }
  }
}
