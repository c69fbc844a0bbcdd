import type {FlowsConfig} from '../config/schema.js'
import type {ToolRegistry} from '../downstream/index.js'
import type {CheckResult, DoctorCheck} from './check.js'

import {FlowRules} from '../permissions/flows.js'

/** Names listed per kind; the rest are counted. */
const MAX_LISTED = 8

/** Whether the config says anything about data flows (else doctor has nothing to report on them). */
function flowsConfigured(flows: FlowsConfig): boolean {
  return (
    flows.private.length > 0 || flows.external.length > 0 || flows.trust_open_world || flows.action !== 'ask'
  )
}

/** doctor's `flows` check, when the config has data-flow rules and its servers are checked. */
export function flowsChecks(
  registry: ToolRegistry | undefined,
  flows: FlowsConfig | undefined,
): DoctorCheck[] {
  if (!registry || !flows || !flowsConfigured(flows)) return []
  return [{id: 'flows', title: 'Data-flow rules', run: () => checkFlows(registry, flows)}]
}

/**
 * The data-flow rules in force (SPEC §12.1): the private sources and external sinks among the
 * connected servers' tools; a warning for an open-world tool no rule makes a sink, and for a
 * pattern that matches no tool (a typo protects nothing).
 */
export async function checkFlows(
  registry: ToolRegistry,
  config: FlowsConfig,
): Promise<Omit<CheckResult, 'id' | 'ms' | 'title'>> {
  await Promise.all(registry.serverStatus().map((server) => registry.firstAttempt(server.name)))
  const rules = new FlowRules(config)
  const tools = registry.listTools()
  const sources = tools.filter((tool) => rules.sourceRule(tool.name) !== undefined).map((tool) => tool.name)
  const sinks = tools.flatMap((tool) => {
    const why = rules.sinkRule(tool)
    return why === undefined ? [] : [`${tool.name} (${why.replace(/^it declares /, '')})`]
  })
  const detail = `sources: ${listed(sources)}; sinks: ${listed(sinks)}; action: ${config.action}`
  const uncovered = tools
    .filter((tool) => tool.annotations?.openWorldHint === true && rules.sinkRule(tool) === undefined)
    .map((tool) => tool.name)
  const unmatched = [
    ...rules.private.map((rule) => ({list: 'flows.private', rule})),
    ...rules.external.map((rule) => ({list: 'flows.external', rule})),
  ].filter(({rule}) => !tools.some((tool) => rule.matches(tool.name)))
  const problems = [
    ...uncovered.map(
      (name) =>
        `${name} declares openWorldHint: true but is no sink (flows.trust_open_world: true and no flows.external pattern names it)`,
    ),
    ...unmatched.map(
      ({list, rule}) =>
        `${list} pattern ${JSON.stringify(rule.pattern)} matches no tool of the connected servers`,
    ),
  ]
  if (sources.length === 0 && unmatched.length === 0)
    problems.push('no private source: flows.private names none, so no program is ever marked')
  if (problems.length === 0) return {status: 'pass', detail}
  return {
    status: 'warn',
    detail: `${detail}; ${problems.join('; ')}`,
    fix: 'add each open-world tool that can send data out to flows.external, and write patterns as "ptc-mcp list" names the tools (mcp__<server>__<tool>)',
  }
}

function listed(names: string[]): string {
  if (names.length === 0) return 'none'
  const shown = names.slice(0, MAX_LISTED)
  if (names.length > shown.length) shown.push(`${names.length - shown.length} more`)
  return shown.join(', ')
}
