import type {SandboxBackend, SandboxName} from './backend.js'

import {SandboxError} from '../errors.js'
import {noneBackend} from './none.js'

export type {Launch, LaunchRequest, PythonInfo, SandboxBackend, SandboxName} from './backend.js'

export type SandboxSetting = SandboxName | 'auto'

/** What each OS backend module exports, and the platform it runs on. */
const OS_BACKENDS = {
  linux: {module: './linux/index.js', exportName: 'linuxBackend', platform: 'linux'},
  seatbelt: {module: './seatbelt/index.js', exportName: 'seatbeltBackend', platform: 'darwin'},
} as const

/**
 * The backend for `execution.sandbox` (SPEC §7). `auto` is seatbelt on macOS and linux on Linux.
 * A backend that is configured but unavailable here throws SandboxError with the fix; there is no
 * silent fallback (and `none` is only ever chosen explicitly). Availability on this machine is
 * the backend's own `check()`.
 */
export async function selectBackend(
  setting: SandboxSetting,
  platform: NodeJS.Platform = process.platform,
): Promise<SandboxBackend> {
  if (setting === 'none') return noneBackend
  const name = setting === 'auto' ? autoBackend(platform) : setting
  const spec = OS_BACKENDS[name]
  if (platform !== spec.platform) {
    throw new SandboxError(`the ${name} sandbox is not available on ${platform}`, {
      suggestion: `set execution.sandbox to auto, or to none to run programs without isolation`,
    })
  }
  let loaded: Record<string, unknown>
  try {
    // A variable specifier: the OS backends are optional modules, loaded only where they apply.
    const specifier: string = spec.module
    loaded = (await import(specifier)) as Record<string, unknown>
  } catch (error) {
    throw new SandboxError(`the ${name} sandbox backend is not available here`, {
      suggestion: 'reinstall ptc-mcp, or set execution.sandbox to none to run programs without isolation',
      cause: error,
    })
  }
  const backend = loaded[spec.exportName] as SandboxBackend | undefined
  if (!backend || typeof backend.launch !== 'function') {
    throw new SandboxError(`the ${name} sandbox backend is not available here`, {
      suggestion: 'reinstall ptc-mcp, or set execution.sandbox to none to run programs without isolation',
    })
  }
  return backend
}

function autoBackend(platform: NodeJS.Platform): 'linux' | 'seatbelt' {
  if (platform === 'darwin') return 'seatbelt'
  if (platform === 'linux') return 'linux'
  throw new SandboxError(`no sandbox backend exists for ${platform}`, {
    suggestion: 'set execution.sandbox to none to run programs without isolation (explicit opt-in)',
  })
}
