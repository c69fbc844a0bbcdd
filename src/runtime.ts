import type {Config} from './config/schema.js'
import type {Logger} from './log.js'

import {loadConfig} from './config/load.js'
import {ToolRegistry} from './downstream/registry.js'
import {ProgramEngine} from './execution/engine.js'
import {resolvePython} from './execution/python.js'
import {selectBackend} from './sandbox/index.js'

export interface RuntimeOptions {
  /** `--config` flag value, if any. */
  configFlag?: string
  logger: Logger
  /** Start connecting to downstream servers at once (default true). */
  connect?: boolean
}

/**
 * The engine as every front end uses it: the config, the downstream registry, and the program
 * engine (created on first use, since resolving Python and probing the sandbox take time).
 */
export class Runtime {
  private enginePromise?: Promise<ProgramEngine>

  private constructor(
    readonly config: Config,
    readonly configPath: string | null,
    readonly searched: string[],
    readonly registry: ToolRegistry,
    /** Redacts the config's secrets from every line (SPEC §15): what serve and the engine log through. */
    readonly logger: Logger,
  ) {}

  static async open(options: RuntimeOptions): Promise<Runtime> {
    const {config, path, searched, warnings, secrets} = await loadConfig({flag: options.configFlag})
    for (const warning of warnings) options.logger.warn(warning)
    const registry = new ToolRegistry(config, {logger: options.logger.child('downstream'), secrets})
    if (options.connect !== false) registry.start()
    return new Runtime(config, path, searched, registry, registry.redactor.logger(options.logger))
  }

  /** The program engine; the first call resolves Python, checks the sandbox and starts the warm pool. */
  engine(): Promise<ProgramEngine> {
    this.enginePromise ??= this.createEngine()
    // A failed start (no Python, sandbox unavailable) is retried on the next program, not cached.
    this.enginePromise.catch(() => {
      this.enginePromise = undefined
    })
    return this.enginePromise
  }

  async close(): Promise<void> {
    const engine = this.enginePromise?.catch(() => {})
    await Promise.allSettled([engine?.then((e) => e?.close()), this.registry.close()])
  }

  private async createEngine(): Promise<ProgramEngine> {
    const {execution} = this.config
    const python = await resolvePython(execution.python)
    const backend = await selectBackend(execution.sandbox)
    await backend.check(python)
    return new ProgramEngine({
      execution,
      host: this.registry,
      backend,
      python,
      logger: this.logger.child('exec'),
    })
  }
}
