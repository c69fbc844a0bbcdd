import {normaliseName} from '../shared/naming.js'

/**
 * Claude Code's permission rules for MCP tools (SPEC §12), validated and matched the way Claude
 * Code 2.1 validates and matches them:
 *
 * - a rule equal to the tool's name matches it (`mcp__github__get_issue`);
 * - a rule with `*` is a glob over the whole name, `*` standing for any characters, `__` included
 *   (`mcp__filesystem__write_*`, `mcp__*__move_file`, `mcp__*`); nothing else is glob syntax;
 * - `mcp__<server>`, `mcp__<server>__*` and `mcp__<server>__<glob>` cover that server's tools;
 * - in deny and ask lists, `mcp__a__b` also covers every tool of a server named `a__b`, and a
 *   bare glob (`*`, `*__delete_*`) matches MCP tools as any glob does.
 *
 * Claude Code rejects (skips, with a warning) MCP rules with parentheses, and allow rules with a
 * `*` anywhere but the tool position after a literal `mcp__<server>__` (`mcp__*`, `mcp__gh*`,
 * `mcp__*__get`): an allow pattern must name the scope it widens. Such rules match nothing here
 * either, and are reported.
 *
 * Claude Code keeps `-` in server and tool names where ptc-mcp turns it into `_`: a rule is
 * normalised exactly as ptc-mcp's names are (`mcp__my-srv__get-x` is `mcp__my_srv__get_x`), so a
 * rule written for Claude Code applies to the same tool here.
 */

export type RuleList = 'allow' | 'ask' | 'deny'

/** A rule Claude Code accepts, normalised as ptc-mcp's names are. */
export interface ClaudeRule {
  list: RuleList
  /** The whole rule, normalised (`*` kept). */
  name: string
  /** Its server part (before the first `__` after `mcp__`), normalised; '' for `mcp__`. */
  server: string
  /** Its tool part, normalised, when it has one (`*` kept). */
  tool?: string
}

/** The part of a tool the rules look at: its namespaced name and its server's config name. */
export interface RuleTarget {
  name: string
  server: string
}

const PREFIX = 'mcp__'
const SEPARATOR = '__'

/**
 * Parses one rule from a settings file. Returns `undefined` for a rule about something other than
 * MCP tools (`Bash(...)`, `Read`), and `{rejected}` with Claude Code's reason for an MCP rule it
 * skips.
 */
export function parseClaudeRule(rule: string, list: RuleList): ClaudeRule | {rejected: string} | undefined {
  if (!rule.startsWith(PREFIX)) {
    // A bare glob (`*`, `*__write_file`) in a deny or ask list reaches MCP tools in Claude Code too.
    const bareGlob = list !== 'allow' && rule.includes('*') && !rule.includes('(')
    return bareGlob ? {list, name: normaliseRule(rule), server: '*'} : undefined
  }
  const {server, tool} = splitName(rule)
  if (rule.includes('(') || rule.includes(')')) {
    const base = rule.split('(')[0]!
    return {
      rejected: `MCP rules do not support patterns in parentheses; use "${base}" without parentheses, or "mcp__${splitName(base).server}__*" for all tools of the server`,
    }
  }
  if (list === 'allow' && rule.includes('*') && server.includes('*')) {
    return {
      rejected:
        'Claude Code does not support wildcard tool names in allow rules except in the tool position after a literal mcp__<server>__ (e.g. "mcp__github__get_*")',
    }
  }
  return {
    list,
    name: normaliseRule(rule),
    server: normaliseRule(server),
    ...(tool !== undefined && {tool: normaliseRule(tool)}),
  }
}

export function ruleMatches(rule: ClaudeRule, target: RuleTarget): boolean {
  if (target.name === rule.name) return true
  if (rule.name.includes('*') && globMatches(rule.name, target.name)) return true
  const {server, tool} = splitName(target.name)
  if (rule.server === server && !rule.server.includes('*')) {
    if (rule.tool === undefined || rule.tool === '*') return true
    if (rule.tool.includes('*') && tool !== undefined && globMatches(rule.tool, tool)) return true
  }
  // Deny and ask rules also name a server by the head of the name: `mcp__a__b` covers server `a__b`.
  return rule.list !== 'allow' && `${PREFIX}${normaliseName(target.server)}` === rule.name
}

/** `mcp__<server>__<tool>` split at the first `__` after `mcp__`, as Claude Code splits it. */
function splitName(name: string): {server: string; tool?: string} {
  const body = name.slice(PREFIX.length)
  const at = body.indexOf(SEPARATOR)
  return at === -1 ? {server: body} : {server: body.slice(0, at), tool: body.slice(at + SEPARATOR.length)}
}

/** A rule spelt as ptc-mcp spells names: every character but `[A-Za-z0-9_*]` becomes `_`. */
function normaliseRule(rule: string): string {
  return rule
    .split('*')
    .map((part) => normaliseName(part))
    .join('*')
}

/**
 * Claude Code's glob: `*` matches any run of characters, everything else itself. The literal parts
 * are found left to right (the leftmost place of each is always the right one), so matching is
 * linear in the name, whatever the rule.
 */
export function globMatches(pattern: string, name: string): boolean {
  const parts = pattern.split('*')
  const head = parts[0]!
  const tail = parts.at(-1)!
  if (parts.length === 1) return pattern === name
  if (name.length < head.length + tail.length || !name.startsWith(head) || !name.endsWith(tail)) return false
  let at = head.length
  const end = name.length - tail.length
  for (const part of parts.slice(1, -1)) {
    if (part === '') continue
    const found = name.indexOf(part, at)
    if (found === -1 || found + part.length > end) return false
    at = found + part.length
  }
  return true
}
