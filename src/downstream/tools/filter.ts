import {minimatch} from 'minimatch'

import type {ToolsConfig} from '../../config/schema.js'

import {normalisePattern} from '../../shared/naming.js'

/** One pattern of `tools.allow` or `tools.block`, as written and as matched. */
export interface ToolRule {
  list: 'tools.allow' | 'tools.block'
  /** As written in the config. */
  pattern: string
  /** Normalised like names (SPEC §4): what is matched. */
  normalised: string
  matches(name: string): boolean
}

/** A rule that matches no tool of the connected servers (SPEC §4): warned about in the log and by doctor. */
export interface UnmatchedRule {
  list: ToolRule['list']
  pattern: string
  /** One line for the log and doctor, with what to check. */
  message: string
}

/**
 * `tools.allow` / `tools.block` (SPEC §4): namespaced names or globs (`mcp__fin__*`), normalised
 * exactly as names are, so `mcp__my-srv__get-x` and `mcp__my_srv__get_x` are the same rule. With
 * `allow`, only matching tools pass; with `block`, matching tools are hidden; with neither,
 * everything passes. The schema forbids both at once; should both arrive anyway, a tool must be
 * allowed and not blocked.
 */
export class ToolFilter {
  readonly rules: readonly ToolRule[]
  private readonly allow: readonly ToolRule[] | undefined
  private readonly block: readonly ToolRule[]

  constructor(tools: ToolsConfig = {}) {
    this.allow = tools.allow?.map((pattern) => compile('tools.allow', pattern))
    this.block = tools.block?.map((pattern) => compile('tools.block', pattern)) ?? []
    this.rules = [...(this.allow ?? []), ...this.block]
  }

  permits(name: string): boolean {
    return this.hiddenBy(name) === undefined
  }

  /**
   * Why a tool is hidden, for the CLI (the model is only told that the tool does not exist):
   * `hidden by tools.block ("mcp__x__get-env")`, `hidden by tools.allow (no pattern matches it)`;
   * undefined when it passes.
   */
  hiddenBy(name: string): string | undefined {
    const blocked = this.block.find((rule) => rule.matches(name))
    if (blocked) return `hidden by tools.block (${JSON.stringify(blocked.pattern)})`
    if (this.allow && !this.allow.some((rule) => rule.matches(name)))
      return 'hidden by tools.allow (no pattern matches it)'
    return undefined
  }

  /** The rules that match none of `names`: a typo, or a tool that no longer exists. */
  unmatched(names: readonly string[]): ToolRule[] {
    return this.rules.filter((rule) => !names.some((name) => rule.matches(name)))
  }

  /** The rules that match no tool `offered`, each with its line for the log and doctor; `down` servers were not checked. */
  unmatchedRules(offered: readonly string[], down: readonly string[]): UnmatchedRule[] {
    const unchecked =
      down.length > 0 ? ` (not connected, so not checked: ${down.map((name) => `'${name}'`).join(', ')})` : ''
    return this.unmatched(offered).map((rule) => ({
      list: rule.list,
      pattern: rule.pattern,
      message:
        `${rule.list} pattern ${JSON.stringify(rule.pattern)} matches no tool of the connected servers${unchecked}; ` +
        `check its spelling against "ptc-mcp list"`,
    }))
  }
}

function compile(list: ToolRule['list'], pattern: string): ToolRule {
  const normalised = normalisePattern(pattern)
  return {list, pattern, normalised, matches: normalisedMatcher(normalised)}
}

/** A tool pattern (name or glob) as every rule list matches it: normalised like names first. */
export function patternMatcher(pattern: string): (name: string) => boolean {
  return normalisedMatcher(normalisePattern(pattern))
}

function normalisedMatcher(normalised: string): (name: string) => boolean {
  // Names never contain "/" or a leading "." (normalisation turns both into "_"), so minimatch's
  // path rules do not get in the way.
  return (name) =>
    name === normalised || minimatch(name, normalised, {dot: true, nobrace: false, noext: false})
}
