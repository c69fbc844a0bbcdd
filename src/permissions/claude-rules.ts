import {normaliseName} from '../downstream/naming.js'

/**
 * Claude Code's permission rules for MCP tools (SPEC §12), matched the way Claude Code matches them:
 *
 * - `mcp__<server>` and `mcp__<server>__*`: every tool of that server;
 * - `mcp__<server>__<tool>`: that tool only;
 * - `mcp__*`: every MCP tool, in deny and ask lists only (Claude Code skips an unanchored allow
 *   wildcard: it auto-approves nothing);
 * - nothing else: a rule with parentheses, or any other `*`, matches no MCP tool in Claude Code
 *   either, so it matches nothing here (and is reported, since it was likely meant to).
 *
 * Claude Code keeps `-` in server and tool names where ptc-mcp turns it into `_`: a rule is
 * normalised exactly as ptc-mcp's names are (`mcp__my-srv__get-x` is `mcp__my_srv__get_x`), so a
 * rule written for Claude Code applies to the same tool here.
 */

export type RuleList = 'allow' | 'ask' | 'deny'

/** A parsed rule: which tools it covers, as normalised namespaced-name pieces. */
export type ClaudeRule =
  | {kind: 'all'}
  /** `mcp__<server>` or `mcp__<server>__*`: `prefix` is `mcp__<server>` normalised. */
  | {kind: 'server'; prefix: string}
  /** `mcp__a__b`: server `a`'s tool `b`, or, as Claude Code reads it too, every tool of a server `a__b`. */
  | {kind: 'name'; name: string}

/** The part of a tool the rules look at: its namespaced name and its server's config name. */
export interface RuleTarget {
  name: string
  server: string
}

const PREFIX = 'mcp__'

/**
 * Parses one rule from a settings file. Returns `undefined` for a rule about something other than MCP
 * tools (`Bash(...)`, `Read`), and `{ignored}` with the reason for an MCP rule Claude Code does not
 * apply.
 */
export function parseClaudeRule(rule: string, list: RuleList): ClaudeRule | {ignored: string} | undefined {
  if (!rule.startsWith(PREFIX)) return undefined
  if (rule.includes('(')) return {ignored: 'Claude Code does not apply MCP rules with parentheses'}
  if (rule === 'mcp__*') {
    return list === 'allow'
      ? {ignored: 'Claude Code does not auto-approve an unanchored mcp__* allow rule'}
      : {kind: 'all'}
  }
  const body = rule.slice(PREFIX.length)
  if (body.endsWith('__*')) {
    const server = body.slice(0, -3)
    if (server !== '' && !server.includes('*'))
      return {kind: 'server', prefix: PREFIX + normaliseName(server)}
  }
  if (body === '' || body.includes('*')) {
    return {ignored: 'Claude Code matches only mcp__<server>, mcp__<server>__* and exact tool names'}
  }
  return {kind: 'name', name: PREFIX + normaliseName(body)}
}

export function ruleMatches(rule: ClaudeRule, target: RuleTarget): boolean {
  switch (rule.kind) {
    case 'all': {
      return true
    }
    case 'name': {
      return target.name === rule.name || serverPrefix(target) === rule.name
    }
    case 'server': {
      return serverPrefix(target) === rule.prefix
    }
  }
}

function serverPrefix(target: RuleTarget): string {
  return PREFIX + normaliseName(target.server)
}
