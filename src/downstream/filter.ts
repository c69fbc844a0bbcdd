import {minimatch} from 'minimatch'

import type {ToolsConfig} from '../config/schema.js'

/** Decides whether a namespaced tool name is listed and callable. */
export type ToolFilter = (name: string) => boolean

/**
 * `tools.allow` / `tools.block` (SPEC §4): namespaced names or globs (`mcp__fin__*`). With `allow`,
 * only matching tools pass; with `block`, matching tools are hidden; with neither, everything passes.
 * The schema forbids both at once; should both arrive anyway, a tool must be allowed and not blocked.
 */
export function createToolFilter(tools: ToolsConfig = {}): ToolFilter {
  const allow = tools.allow?.map(compile)
  const block = tools.block?.map(compile) ?? []
  return (name) =>
    (allow === undefined || allow.some((matches) => matches(name))) && !block.some((matches) => matches(name))
}

function compile(pattern: string): (name: string) => boolean {
  // Names never contain "/" or a leading ".", so minimatch's path rules do not get in the way.
  return (name) => name === pattern || minimatch(name, pattern, {dot: true, nobrace: false, noext: false})
}
