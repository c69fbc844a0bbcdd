import type {PermissionsConfig} from '../config/schema.js'
import type {ToolInfo} from '../downstream/index.js'
import type {Logger} from '../shared/log.js'
import type {FlowReason} from './flows.js'

import {patternMatcher} from '../downstream/index.js'
import {ruleMatches, type RuleTarget} from './claude-rules.js'
import {
  type ClaudeRuleEntry,
  ClaudeSettings,
  type RejectedRule,
  type SettingsFileState,
} from './claude-settings.js'
import {describeFlow} from './flows.js'

/** Why a call needs the user's approval: the rule that says so, for the prompt, the log and the CLI. */
export type ApprovalReason =
  | {source: 'claude_code'; rule: string; file: string}
  | {source: 'ask'; pattern: string}
  | {source: 'destructive'}
  | {source: 'unlisted'}
  | FlowReason

/** `permissions.ask_unlisted` as in force, the old `ask_destructive` read into it. */
export type AskUnlisted = boolean | 'destructive'

export interface PermissionPolicyOptions {
  /** `~` for `~/.claude/settings.json`. */
  home: string
  /** The project whose `.claude/` settings apply: serve's working directory. */
  projectDir: string
  logger: Logger
  /** The directory of Claude Code's managed settings. Default: the platform's (see managedSettingsDir). */
  managedDir?: string
  /** How often Claude Code's settings are checked for changes; 0 = never. Default 1000 ms. */
  watchIntervalMs?: number
}

/** `ask_unlisted` when set, else the old `ask_destructive` (false: never, true: destructive), else true. */
export function askUnlisted(config: PermissionsConfig): AskUnlisted {
  if (config.ask_unlisted !== undefined) return config.ask_unlisted
  if (config.ask_destructive !== undefined) return config.ask_destructive ? 'destructive' : false
  return true
}

/**
 * Which tools the user's rules hide and which calls need their approval (SPEC §12), as Claude Code
 * would decide for the same tool called directly. Strictest wins: a Claude Code deny rule hides the
 * tool (as tools.block does, which the registry applies itself); a Claude Code ask rule or a
 * `permissions.ask` pattern asks; a Claude Code allow rule, a `permissions.allow` pattern or
 * `readOnlyHint: true` exempts the tool; everything else asks when `ask_unlisted` is true, asks
 * unless the tool declares `destructiveHint: false` when it is `destructive`, and runs when false.
 * "Allow for the rest of this session" exempts a tool until serve exits or the rules change.
 */
export class PermissionPolicy {
  readonly approvalTimeoutMs: number
  /** Question rounds one program may put to a client (permissions.max_question_rounds). */
  readonly maxQuestionRounds: number
  private readonly claude: ClaudeSettings | undefined
  private readonly askPatterns: {pattern: string; matches: (name: string) => boolean}[]
  private readonly allowPatterns: {pattern: string; matches: (name: string) => boolean}[]
  private readonly askUnlisted: AskUnlisted
  /** Tools the user allowed for the rest of this session, by namespaced name. */
  private readonly sessionAllowed = new Set<string>()
  /** Per tool object (a refreshed tool list brings new objects); cleared when the rules change. */
  private reasons = new WeakMap<ToolInfo, ApprovalReason | null>()
  private readonly listeners = new Set<() => void>()

  constructor(
    private readonly config: PermissionsConfig,
    options: PermissionPolicyOptions,
  ) {
    this.approvalTimeoutMs = config.approval_timeout_seconds * 1000
    this.maxQuestionRounds = config.max_question_rounds
    this.askPatterns = config.ask.map((pattern) => ({pattern, matches: patternMatcher(pattern)}))
    this.allowPatterns = config.allow.map((pattern) => ({pattern, matches: patternMatcher(pattern)}))
    this.askUnlisted = askUnlisted(config)
    if (config.claude_code) {
      this.claude = new ClaudeSettings({
        home: options.home,
        projectDir: options.projectDir,
        managedDir: options.managedDir,
        logger: options.logger,
        watchIntervalMs: options.watchIntervalMs,
      })
      this.claude.onChange(() => {
        this.reasons = new WeakMap()
        // A changed rule may be stricter: what the user allowed under the old rules is asked again.
        this.sessionAllowed.clear()
        for (const listener of this.listeners) listener()
      })
    }
  }

  /** Whether Claude Code's permission rules are read (`permissions.claude_code`). */
  get readsClaudeCode(): boolean {
    return this.claude !== undefined
  }

  /** The Claude Code settings files consulted (none when `permissions.claude_code` is off). */
  get claudeFiles(): readonly string[] {
    return this.claude?.files ?? []
  }

  /** Each Claude Code settings file and whether its rules are in force, for doctor. */
  settingsStates(): SettingsFileState[] {
    return this.claude?.states() ?? []
  }

  /** The MCP rules of those files that Claude Code skips, with file and reason. */
  rejectedRules(): RejectedRule[] {
    return this.claude?.rejected() ?? []
  }

  /** "Allow for the rest of this session": later calls of the tool run without asking, in every program. */
  allowForSession(tool: Pick<ToolInfo, 'name'>): void {
    this.sessionAllowed.add(tool.name)
  }

  allowedForSession(tool: Pick<ToolInfo, 'name'>): boolean {
    return this.sessionAllowed.has(tool.name)
  }

  /** The Claude Code deny rule that hides this tool, as `deny rule "mcp__x" in <file>`; undefined when none does. */
  hiddenBy(tool: RuleTarget): string | undefined {
    const rule = this.claudeRule('deny', tool)
    return rule && `hidden by Claude Code's deny rule ${JSON.stringify(rule.rule)} (${rule.file})`
  }

  /** What makes a tool a deny rule hides callable: `remove the deny rule "mcp__x" from <file>`. */
  unhideFix(tool: RuleTarget): string | undefined {
    const rule = this.claudeRule('deny', tool)
    return rule && `remove the deny rule ${JSON.stringify(rule.rule)} from ${rule.file} (permissions.deny)`
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
    if (this.allowPatterns.some((p) => p.matches(tool.name))) return undefined
    const hints = tool.annotations
    if (hints?.readOnlyHint === true) return undefined
    if (this.askUnlisted === true) return {source: 'unlisted'}
    // The MCP spec's defaults: a tool that is not read-only may be destructive unless it says otherwise.
    if (this.askUnlisted === 'destructive' && hints?.destructiveHint !== false) return {source: 'destructive'}
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
      return 'the tool does not declare itself read-only or non-destructive (permissions.ask_unlisted: destructive)'
    }
    case 'unlisted': {
      return 'no allow rule covers the tool and it does not declare itself read-only (permissions.ask_unlisted)'
    }
    case 'flow': {
      return describeFlow(reason)
    }
  }
}
