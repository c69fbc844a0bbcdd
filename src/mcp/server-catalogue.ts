import type {ServerConfig} from '../config/schema.js'
import type {CatalogueEntry, ToolRegistry} from '../downstream/index.js'
import type {Logger} from '../shared/log.js'

import {readCatalogue, writeCatalogueEntry} from '../downstream/index.js'
import {cutWithin} from '../shared/cut.js'
import {counted} from '../shared/plural.js'
import {serverInstructions} from './instructions.js'

/** How long the server list in a tool's first description line may be. */
const MAX_SERVERS_LINE_CHARS = 400

/**
 * What serve tells its client of the downstream servers (SPEC §5): the catalogue in its
 * instructions and the first lines of list_callable_tools and inspect_tool. It starts from the
 * last session's catalogue (serve answers before any server connects), follows the registry, keeps
 * what each server had for the next session, and says when a server's tools changed.
 */
export class ServerCatalogue {
  private readonly entries: Map<string, CatalogueEntry>
  private readonly listeners = new Set<() => void>()

  private constructor(
    private readonly servers: readonly ServerConfig[],
    cached: ReadonlyMap<string, CatalogueEntry>,
    private readonly dir: null | string,
    private readonly logger?: Logger,
  ) {
    this.entries = new Map(
      servers.map((server) => [server.name, cached.get(server.name) ?? {name: server.name}]),
    )
  }

  /** The catalogue of `servers` as the last session left it in `dir` (null: none kept). */
  static async load(
    servers: readonly ServerConfig[],
    dir: null | string,
    logger?: Logger,
  ): Promise<ServerCatalogue> {
    const cached = dir === null ? new Map<string, CatalogueEntry>() : await readCatalogue(dir, servers)
    logger?.debug(`catalogue: ${cached.size} of ${servers.length} servers known from the last session`)
    return new ServerCatalogue(servers, cached, dir, logger)
  }

  /** Every configured server, in config order. */
  list(): CatalogueEntry[] {
    return [...this.entries.values()]
  }

  /** serve's `instructions`. */
  instructions(): string {
    return serverInstructions(this.list())
  }

  /** `fs (14 tools), memory (9 tools), slow (connecting)`: for list_callable_tools' first line. */
  serversWithCounts(): string {
    return this.serversLine((entry) =>
      entry.tools === undefined
        ? `${entry.name} (connecting)`
        : `${entry.name} (${counted(entry.tools, 'tool')})`,
    )
  }

  /** `fs, memory, slow`: for inspect_tool's first line. */
  serverNames(): string {
    return this.serversLine((entry) => entry.name)
  }

  /** Called when a server's tools changed (not when they are what the catalogue said). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Follows the registry's connected servers; returns the function that stops. */
  follow(registry: Pick<ToolRegistry, 'catalogue' | 'onChange'>): () => void {
    return registry.onChange(() => this.update(registry.catalogue()))
  }

  /** Takes what the connected servers say now; keeps what changed for the next session. */
  update(live: readonly CatalogueEntry[]): void {
    let toolsChanged = false
    for (const entry of live) {
      const known = this.entries.get(entry.name)
      if (!known) continue
      const sameTools = known.tools === entry.tools && known.toolsKey === entry.toolsKey
      if (sameTools && known.about === entry.about) continue
      if (!sameTools) toolsChanged = true
      this.entries.set(entry.name, entry)
      this.keep(entry)
    }
    if (!toolsChanged) return
    for (const listener of this.listeners) listener()
  }

  private keep(entry: CatalogueEntry): void {
    const server = this.servers.find((s) => s.name === entry.name)
    if (!server || this.dir === null) return
    writeCatalogueEntry(this.dir, server, entry).then(
      (written) => {
        if (!written) this.logger?.debug(`catalogue: could not keep what ${entry.name} offers`)
      },
      () => {},
    )
  }

  private serversLine(show: (entry: CatalogueEntry) => string): string {
    const shown = this.list().map((entry) => show({...entry, name: cutWithin(entry.name, 64)}))
    if (shown.length === 0) return 'no servers configured'
    return cutWithin(shown.join(', '), MAX_SERVERS_LINE_CHARS)
  }
}
