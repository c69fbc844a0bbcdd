import {homedir} from 'node:os'
import {dirname} from 'node:path'

import type {Config} from './config/schema.js'
import type {ToolRegistry, UpstreamClient} from './downstream/index.js'
import type {ProgramEngine} from './execution/index.js'
import type {SavedPrograms} from './programs/saved-programs.js'
import type {PtcError} from './shared/errors.js'
import type {Logger} from './shared/log.js'

import {loadConfigLeniently} from './config/degrade.js'
import {loadConfig} from './config/load.js'
import {deferredRegistry, loadToolRegistry, Redactor} from './downstream/index.js'
import {KeptState, loadProgramEngine, resolvePython} from './execution/index.js'
import {FlowRules} from './permissions/flows.js'
import {PermissionPolicy} from './permissions/policy.js'
import {selectBackend} from './sandbox/index.js'
import {Memo} from './shared/memo.js'
import {shutdownTelemetry} from './telemetry/tracer.js'

export interface RuntimeOptions {
  /** `--config` flag value, if any. */
  configFlag?: string
  logger: Logger
  /** Start connecting to downstream servers at once (default true). */
  connect?: boolean
  /**
   * Keep going on config problems, as `serve` must (SPEC §3): unusable entries become unavailable
   * servers, an unusable file leaves `configError` set. Default false: every problem throws.
   */
  lenient?: boolean
  /** serve's client, which downstream elicitation and sampling requests are passed on to (SPEC §12). */
  upstream?: UpstreamClient
  /**
   * Load the downstream code only once the registry is started or waited for (see
   * {@link deferredRegistry}): `serve` answers its first request before. Default false.
   */
  deferDownstream?: boolean
  /** Which of the configured servers to connect, given their names (`run`). Default: every one. */
  servers?: (configured: string[]) => string[]
}

/**
 * The engine as every front end uses it: the config, the downstream registry, and the program
 * engine (created on first use, since resolving Python and probing the sandbox take time). The
 * registry's and the engine's modules are imported when they are made, not with this one.
 */
export class Runtime {
  /** A failed start (no Python, sandbox unavailable) is retried on the next program, not cached. */
  private readonly engineStart = new Memo(() => this.createEngine())
  private closing = false

  /** Why the config file cannot be used at all (lenient mode only; then there are no servers), else null. */
  configError: null | PtcError = null

  /** Redacts the config's secrets (SPEC §15): from logs, and from what saved programs record. */
  redactor: Redactor = new Redactor([])

  /** The saved programs (SPEC §17), read once the engine's Python is known; watched by serve. */
  private readonly savedPrograms = new Memo(async () => {
    const [{SavedPrograms}, {programDirectories}] = await Promise.all([
      import('./programs/saved-programs.js'),
      import('./programs/directories.js'),
    ])
    const python = await resolvePython(this.config.execution.python)
    const programs = new SavedPrograms(
      programDirectories(this.config.programs, process.cwd(), process.env, this.configDir),
      python.executable,
      this.logger.child('programs'),
    )
    await programs.reload()
    return programs
  })

  /**
   * What programs keep for the next ones (SPEC §6.2): one per runtime, that is per serve process
   * (one client's MCP session) or `run`, in memory only. Made on first use.
   */
  private readonly kept = new Memo(async () => new KeptState(this.config.state))

  private constructor(
    readonly config: Config,
    readonly configPath: string | null,
    readonly searched: string[],
    readonly registry: ToolRegistry,
    /** The registry itself, once its module is loaded (the same object unless `deferDownstream`). */
    private readonly loadRegistry: () => Promise<ToolRegistry>,
    /** The user's permission rules (SPEC §12): what is hidden, what needs approval. */
    readonly permissions: PermissionPolicy,
    /** Redacts the config's secrets from every line (SPEC §15): what serve and the engine log through. */
    readonly logger: Logger,
  ) {}

  static async open(options: RuntimeOptions): Promise<Runtime> {
    const lookup = {flag: options.configFlag, logger: options.logger}
    const loaded = options.lenient
      ? await loadConfigLeniently(lookup)
      : {...(await loadConfig(lookup)), unusable: [], error: null}
    const redactor = Redactor.fromConfig(loaded.config.servers, loaded.secrets)
    const logger = redactor.logger(options.logger)
    for (const warning of loaded.warnings) logger.warn(warning)
    for (const server of loaded.unusable)
      logger.warn(`server ${server.name} is unavailable: ${server.reason}`)
    if (loaded.error) {
      const fix = loaded.error.suggestion ? ` (${loaded.error.suggestion})` : ''
      logger.error(`${loaded.error.message}${fix}; every tool call answers with this error until it is fixed`)
    }
    const permissions = new PermissionPolicy(loaded.config.permissions, {
      home: homedir(),
      projectDir: process.cwd(),
      logger: logger.child('permissions'),
    })
    const chosen = new Set(options.servers?.(loaded.config.servers.map((server) => server.name)) ?? [])
    const connected = options.servers
      ? {...loaded.config, servers: loaded.config.servers.filter((server) => chosen.has(server.name))}
      : loaded.config
    const createRegistry = async (): Promise<ToolRegistry> => {
      const {ToolRegistry} = await loadToolRegistry()
      logger.debug('downstream code loaded')
      return new ToolRegistry(connected, {
        logger: logger.child('downstream'),
        unusable: loaded.unusable,
        visibility: permissions,
        upstream: options.upstream,
        redactor,
      })
    }
    let registry: ToolRegistry
    let loadRegistry: () => Promise<ToolRegistry>
    if (options.deferDownstream) {
      const deferred = deferredRegistry(createRegistry, (error) =>
        logger.error(`the downstream servers cannot start: ${String(error)}`),
      )
      registry = deferred.registry
      loadRegistry = deferred.load
    } else {
      const created = await createRegistry()
      registry = created
      loadRegistry = async () => created
    }
    if (options.connect !== false) registry.start()
    const runtime = new Runtime(
      loaded.config,
      loaded.path,
      loaded.searched,
      registry,
      loadRegistry,
      permissions,
      logger,
    )
    runtime.configError = loaded.error
    runtime.redactor = redactor
    return runtime
  }

  /** The program engine; the first call resolves Python, checks the sandbox and starts the warm pool. */
  engine(): Promise<ProgramEngine> {
    this.markWarm()
    return this.engineStart.get()
  }

  private markWarm!: () => void
  /**
   * Resolves once the engine is first asked for: serve does so after its first answer (SPEC §5),
   * and what starts Python (the saved programs' reading) waits for it.
   */
  readonly warm = new Promise<void>((resolve) => {
    this.markWarm = resolve
  })

  /** The kept state: what programs store and leave in ./session/ for the next ones. */
  keptState(): Promise<KeptState> {
    return this.kept.get()
  }

  /** The config file's directory (relative paths in it are from there), else the working directory. */
  get configDir(): string {
    return this.configPath ? dirname(this.configPath) : process.cwd()
  }

  /** The saved programs, read from their directories on first use. */
  programs(): Promise<SavedPrograms> {
    return this.savedPrograms.get()
  }

  /** True once close() was called: an engine failing to start then is not worth reporting. */
  get closed(): boolean {
    return this.closing
  }

  async close(): Promise<void> {
    // An engine still starting when we close must not start its warm pool: a client such as Claude
    // Code's health check kills the process a few hundred milliseconds after asking it to stop.
    this.closing = true
    const engine = this.engineStart.current?.catch(() => {})
    this.permissions.close()
    this.savedPrograms.current?.then((programs) => programs.close()).catch(() => {})
    await Promise.allSettled([
      engine?.then((e) => e?.close()),
      this.registry.close(),
      // The spans still buffered are sent, within a bound (SPEC §18).
      shutdownTelemetry(),
    ])
  }

  private async createEngine(): Promise<ProgramEngine> {
    const {execution} = this.config
    this.logger.debug('starting the program engine (Python, the sandbox check, the warm pool)')
    const [{ProgramEngine}, host] = await Promise.all([loadProgramEngine(), this.loadRegistry()])
    const python = await resolvePython(execution.python)
    const backend = await selectBackend(execution.sandbox)
    await backend.check(python)
    if (this.closing) throw new Error('ptc-mcp is shutting down')
    return new ProgramEngine({
      execution,
      state: this.config.state,
      host,
      backend,
      python,
      logger: this.logger.child('exec'),
      permissions: this.permissions,
      flows: new FlowRules(this.config.flows),
    })
  }
}
