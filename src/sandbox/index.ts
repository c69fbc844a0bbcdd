import type {SandboxBackend} from './backend.js'

import {SandboxError} from '../shared/errors.js'
import {NO_ISOLATION_FIX} from './backend.js'
import {noneBackend} from './none.js'

export type {Launch, LaunchRequest, PythonInfo, SandboxBackend} from './backend.js'
export {USUAL_SANDBOX_TIERS} from './backend.js'

interface BackendEntry {
  /** The platform it runs on; none: every platform. */
  platform?: NodeJS.Platform
  /** Whether `auto` picks it on its platform (`none` is only ever chosen explicitly). */
  auto: boolean
  /** The backend; an OS backend's module is loaded only where it applies. */
  load(): Promise<SandboxBackend>
}

/**
 * Every sandbox backend (SPEC §7), by its `execution.sandbox` name. Adding one: its module
 * (src/sandbox/<name>/index.ts, exporting a SandboxBackend with this name) and a row here; the
 * config schema, `doctor` and selectBackend take their names from this table.
 */
const BACKENDS = {
  linux: {platform: 'linux', auto: true, load: async () => (await import('./linux/index.js')).linuxBackend},
  seatbelt: {
    platform: 'darwin',
    auto: true,
    load: async () => (await import('./seatbelt/index.js')).seatbeltBackend,
  },
  none: {auto: false, load: async () => noneBackend},
} satisfies Record<string, BackendEntry>

export type SandboxName = keyof typeof BACKENDS
export type SandboxSetting = 'auto' | SandboxName

const NAMES = Object.keys(BACKENDS) as SandboxName[]

/** The values of `execution.sandbox`: auto, then every backend. */
export const SANDBOX_SETTINGS = ['auto', ...NAMES] as const

/**
 * The backend for `execution.sandbox` (SPEC §7). `auto` is the backend of this platform. A
 * backend that is configured but unavailable here throws SandboxError with the fix; there is no
 * silent fallback. Availability on this machine is the backend's own `check()`.
 */
export async function selectBackend(
  setting: SandboxSetting,
  platform: NodeJS.Platform = process.platform,
): Promise<SandboxBackend> {
  const name = setting === 'auto' ? autoBackend(platform) : setting
  const entry: BackendEntry = BACKENDS[name]
  if (entry.platform !== undefined && entry.platform !== platform) {
    throw new SandboxError(`the ${name} sandbox is not available on ${platform}`, {
      suggestion: `set execution.sandbox: auto, or ${NO_ISOLATION_FIX}`,
    })
  }
  try {
    return await entry.load()
  } catch (error) {
    throw new SandboxError(`the ${name} sandbox backend is not available here`, {
      suggestion: `reinstall ptc-mcp, or ${NO_ISOLATION_FIX}`,
      cause: error,
    })
  }
}

function autoBackend(platform: NodeJS.Platform): SandboxName {
  const name = NAMES.find((candidate) => {
    const entry: BackendEntry = BACKENDS[candidate]
    return entry.auto && entry.platform === platform
  })
  if (name) return name
  throw new SandboxError(`no sandbox backend exists for ${platform}`, {
    suggestion: `${NO_ISOLATION_FIX} (explicit opt-in)`,
  })
}
