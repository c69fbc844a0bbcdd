import type {FlowsConfig} from '../config/schema.js'
import type {ToolInfo} from '../downstream/index.js'
import type {Logger} from '../shared/log.js'

import {patternMatcher} from '../downstream/index.js'

/**
 * Data-flow rules (SPEC §12.1): once a program received a result from a private source, its later
 * calls to an external sink ask the user (or are refused), whatever the per-call rules say. The
 * mark is per program and errs on the side of asking; it follows the data through the session's
 * state (execution/state/program-state.ts carries it across store()/load() and ./session/ files).
 */

/** Where a program's private data came from: the source tool, and how it reached this program. */
export interface FlowOrigin {
  /** The private source's namespaced name. */
  tool: string
  /** How it reached the program when not by its own call: `load("k")`, `./session/ files`. */
  via?: string
}

/** Why a call asks (or is refused): the program read `read`, and `sink` reaches outside. */
export interface FlowReason {
  source: 'flow'
  read: FlowOrigin
  sink: string
  /** Why `sink` counts as external: `flows.external "mcp__web__*"` or `it declares openWorldHint: true`. */
  sinkRule: string
  action: FlowsConfig['action']
}

/** One flow decision, as the trace and the log show it. */
export interface FlowRecord {
  source: string
  sink: string
  decision: 'approved' | 'denied'
}

interface Rule {
  pattern: string
  matches(name: string): boolean
}

const rules = (patterns: readonly string[]): Rule[] =>
  patterns.map((pattern) => ({pattern, matches: patternMatcher(pattern)}))

/** The `flows:` config compiled: which tools are private sources and which are external sinks. */
export class FlowRules {
  readonly action: FlowsConfig['action']
  readonly trustOpenWorld: boolean
  readonly private: readonly Rule[]
  readonly external: readonly Rule[]

  constructor(config: FlowsConfig) {
    this.action = config.action
    this.trustOpenWorld = config.trust_open_world
    this.private = rules(config.private)
    this.external = rules(config.external)
  }

  /** The flows.private pattern that makes `name` a private source; undefined when none does. */
  sourceRule(name: string): string | undefined {
    return this.private.find((rule) => rule.matches(name))?.pattern
  }

  /** Why `tool` is an external sink; undefined when it is not one. */
  sinkRule(tool: Pick<ToolInfo, 'annotations' | 'name'>): string | undefined {
    const rule = this.external.find((r) => r.matches(tool.name))
    if (rule) return `flows.external ${JSON.stringify(rule.pattern)}`
    if (!this.trustOpenWorld && tool.annotations?.openWorldHint === true)
      return 'it declares openWorldHint: true'
    return undefined
  }
}

/**
 * The decision for one call (pure): a program that read private data (`read`) calling an external
 * sink asks or is refused (`rules.action`); anything else runs under the usual rules (undefined).
 */
export function flowDecision(
  rules: FlowRules,
  read: FlowOrigin | undefined,
  tool: Pick<ToolInfo, 'annotations' | 'name'>,
): FlowReason | undefined {
  if (read === undefined) return undefined
  const sinkRule = rules.sinkRule(tool)
  if (sinkRule === undefined) return undefined
  return {source: 'flow', read, sink: tool.name, sinkRule, action: rules.action}
}

/** `mcp__vault__read_secret (through load("k"))`: the source as questions and messages name it. */
export function describeOrigin(origin: FlowOrigin): string {
  return origin.via === undefined ? origin.tool : `${origin.tool} (through ${origin.via})`
}

/** One line saying why a flow asks: for the question, the log and the denial. */
export function describeFlow(reason: FlowReason): string {
  return `data-flow rule: this program read ${describeOrigin(reason.read)}, a private source (flows.private), and now calls ${reason.sink}, which reaches outside (${reason.sinkRule})`
}

/** What the user can change so the sink runs without asking after a private read. */
export function flowFix(reason: FlowReason): string {
  const sink = reason.sinkRule.startsWith('flows.external')
    ? `remove ${reason.sinkRule.slice('flows.external '.length)} from flows.external`
    : 'set flows.trust_open_world: true'
  return `to let it run without asking, ${sink}, or take ${reason.read.tool} out of flows.private, in ptc-mcp's config`
}

/** The refusal of `flows.action: deny`. */
export function flowDenied(reason: FlowReason): string {
  return `${describeFlow(reason)}; flows.action is deny, so the call was not made. Do not retry it: the user's config forbids sending what a program read from private sources out`
}

/**
 * The mark of one program: the first private source it read (or loaded, or found in ./session/),
 * and every flow decision made for it.
 */
export class FlowMark {
  private origin: FlowOrigin | undefined
  private readonly decisions: FlowRecord[] = []

  constructor(private readonly rules?: FlowRules) {}

  /** The private source this program read, if any. */
  get read(): FlowOrigin | undefined {
    return this.origin
  }

  get records(): readonly FlowRecord[] {
    return this.decisions
  }

  /** A result came back from `tool`: the program is marked when it is a private source. */
  received(tool: string): void {
    if (this.origin === undefined && this.rules?.sourceRule(tool) !== undefined) this.origin = {tool}
  }

  /** Data marked by `origin` reached the program `via` state (load, ./session/). */
  reached(origin: FlowOrigin | undefined, via: string): void {
    if (origin !== undefined && this.origin === undefined) this.origin = {tool: origin.tool, via}
  }

  /** What a call to `tool` needs now (see flowDecision). */
  check(tool: ToolInfo): FlowReason | undefined {
    return this.rules && flowDecision(this.rules, this.origin, tool)
  }

  /** Records a decision for the trace, and logs it (`flow: A → B: denied`). */
  record(reason: FlowReason, decision: FlowRecord['decision'], logger: Logger): void {
    this.decisions.push({source: reason.read.tool, sink: reason.sink, decision})
    logger.info(`flow: ${reason.read.tool} → ${reason.sink}: ${decision}`)
  }
}

/** Approves one call; `flow` set when the data-flow rules decide it (ProgramApprovals.check). */
export type FlowAwareCheck<D> = (
  tool: ToolInfo,
  args: Record<string, unknown>,
  signal: AbortSignal,
  flow?: FlowReason,
) => Promise<D | undefined>

/**
 * The gate of one program's calls with the data-flow rules in front: a call the mark decides goes
 * through `check` with its flow reason (one question, or a refusal), and the decision is recorded.
 */
export function withFlowRules<D>(
  mark: FlowMark,
  logger: Logger,
  check: FlowAwareCheck<D>,
): (tool: ToolInfo, args: Record<string, unknown>, signal: AbortSignal) => Promise<D | undefined> {
  return async (tool, args, signal) => {
    const flow = mark.check(tool)
    if (!flow) return check(tool, args, signal)
    try {
      const decision = await check(tool, args, signal, flow)
      mark.record(flow, 'approved', logger)
      return decision
    } catch (error) {
      mark.record(flow, 'denied', logger)
      throw error
    }
  }
}
