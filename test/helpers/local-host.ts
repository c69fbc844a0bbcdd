// A small real ToolHost for engine tests: tools are in-process functions, and the host records
// what reached it (calls, concurrency peak, the options passed) so tests can check the engine's
// limits from the outside.
import {unknownToolMessage} from '../../src/downstream/tools/tool-lookup.js'
import {
  type CallToolOptions,
  type ServerStatus,
  ToolError,
  type ToolHost,
  type ToolInfo,
  type UnavailableServer,
} from '../../src/downstream/types.js'

export type LocalTool = (args: Record<string, unknown>, options: CallToolOptions) => unknown

export class LocalHost implements ToolHost {
  /** Every call that reached the host, in arrival order. */
  readonly calls: {tool: string; args: Record<string, unknown>; options: CallToolOptions}[] = []
  inFlight = 0
  peak = 0
  private readonly tools: Map<string, {info: ToolInfo; run: LocalTool}>
  private readonly listeners = new Set<(tool: string) => void>()

  constructor(
    tools: Record<string, LocalTool>,
    readonly server = 'local',
  ) {
    this.tools = new Map(
      Object.entries(tools).map(([tool, run]) => {
        const name = `mcp__${server}__${tool}`
        const info: ToolInfo = {
          name,
          server,
          tool,
          description: `${tool} (test tool)`,
          inputSchema: {type: 'object'},
        }
        return [name, {info, run}]
      }),
    )
  }

  /** Calls `listener` whenever a call reaches the host. Returns the unsubscribe function. */
  onCall(listener: (tool: string) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  listTools(): ToolInfo[] {
    return [...this.tools.values()].map((t) => t.info).sort((a, b) => a.name.localeCompare(b.name))
  }

  getTool(name: string): ToolInfo | undefined {
    return this.tools.get(name)?.info
  }

  unavailableServers(): UnavailableServer[] {
    return []
  }

  serverStatus(): ServerStatus[] {
    return [
      {
        name: this.server,
        transport: 'stdio',
        connected: true,
        tools: this.tools.size,
        lastError: null,
        attempts: 0,
        since: '2026-01-01T00:00:00.000Z',
      },
    ]
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallToolOptions): Promise<unknown> {
    const tool = this.tools.get(name)
    if (!tool) throw new ToolError(unknownToolMessage(name, [...this.tools.keys()]))
    this.calls.push({tool: name, args, options})
    this.inFlight++
    this.peak = Math.max(this.peak, this.inFlight)
    for (const listener of this.listeners) listener(name)
    try {
      return await tool.run(args, options)
    } catch (error) {
      throw error instanceof ToolError ? error : new ToolError((error as Error).message)
    } finally {
      this.inFlight--
    }
  }

  async waitForInitialConnections(): Promise<void> {}
}

/** Resolves after `ms`, or rejects with ToolError at the call's timeout or when its signal aborts. */
export function sleepTool(ms: number, options: CallToolOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const done = (fn: () => void) => {
      clearTimeout(sleeping)
      clearTimeout(limit)
      options.signal?.removeEventListener('abort', onAbort)
      fn()
    }
    const sleeping = setTimeout(() => done(() => resolve(`slept ${ms}`)), ms)
    const limit = setTimeout(
      () => done(() => reject(new ToolError(`timed out after ${options.timeoutMs} ms`))),
      options.timeoutMs,
    )
    const onAbort = () => done(() => reject(new ToolError('aborted')))
    options.signal?.addEventListener('abort', onAbort, {once: true})
  })
}

/** The tools most engine tests use. */
export function standardTools(): Record<string, LocalTool> {
  return {
    echo: (args) => args,
    fail(args) {
      throw new ToolError(typeof args.message === 'string' ? args.message : 'nope')
    },
    sleep: (args, options) => sleepTool(Number(args.ms ?? 0), options),
    big: (args) => 'x'.repeat(Number(args.bytes ?? 0)),
  }
}
