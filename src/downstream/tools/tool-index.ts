import type {Logger} from '../../shared/log.js'
import type {ServerSupervisor} from '../connection/supervisor.js'
import type {HiddenTool, ToolInfo} from '../types.js'

interface Entry {
  tool: ToolInfo
  supervisor: ServerSupervisor
}

/** How the index is built: which tools are hidden (and why), and how a listed tool is cleaned. */
export interface IndexRules {
  hiddenBy(tool: ToolInfo): Omit<HiddenTool, 'tool'> | undefined
  /** The tool with the config's secrets taken out of everything it says. */
  redact(tool: ToolInfo): ToolInfo
}

/** The tools of the connected servers by namespaced name, as of one change: permitted, hidden, offered. */
export class ToolIndex {
  private constructor(
    private readonly entries: Map<string, Entry>,
    private readonly hidden: Map<string, HiddenTool>,
    /** Every tool of the connected servers, allowed or not, for checking the rules. */
    readonly offered: readonly string[],
    /** Permitted tools, sorted by name. */
    readonly sorted: readonly ToolInfo[],
  ) {}

  static readonly EMPTY = new ToolIndex(new Map(), new Map(), [], [])

  /** Every listed tool of `supervisors`, in config order: the first server to offer a name keeps it. */
  static build(supervisors: readonly ServerSupervisor[], rules: IndexRules, log: Logger): ToolIndex {
    const entries = new Map<string, Entry>()
    const hidden = new Map<string, HiddenTool>()
    const offered: string[] = []
    for (const supervisor of supervisors) {
      for (const listed of supervisor.listTools()) {
        const tool = rules.redact(listed)
        offered.push(tool.name)
        const hiddenAs = rules.hiddenBy(tool)
        if (hiddenAs !== undefined) {
          if (!hidden.has(tool.name)) hidden.set(tool.name, {tool, ...hiddenAs})
          continue
        }
        const existing = entries.get(tool.name)
        if (existing) {
          // Possible only across servers (`a` + `x__y` vs `a__x` + `y`): the first configured wins.
          log.warn(
            `${tool.name} is offered by '${existing.supervisor.name}' and '${supervisor.name}'; using '${existing.supervisor.name}'`,
          )
          continue
        }
        entries.set(tool.name, {tool, supervisor})
      }
    }
    const sorted = [...entries.values()].map((e) => e.tool).sort(byName)
    return new ToolIndex(entries, hidden, offered, sorted)
  }

  get(name: string): Entry | undefined {
    return this.entries.get(name)
  }

  /** How many permitted tools each server has. */
  countsByServer(): Map<string, number> {
    const counts = new Map<string, number>()
    for (const {tool} of this.entries.values()) counts.set(tool.server, (counts.get(tool.server) ?? 0) + 1)
    return counts
  }

  hiddenTools(): HiddenTool[] {
    return [...this.hidden.values()].sort((a, b) => byName(a.tool, b.tool))
  }

  hiddenTool(name: string): HiddenTool | undefined {
    return this.hidden.get(name)
  }
}

/** Code-point order, as Python's sorted() gives, whatever the locale. */
function byName(a: ToolInfo, b: ToolInfo): number {
  if (a.name === b.name) return 0
  return a.name < b.name ? -1 : 1
}
