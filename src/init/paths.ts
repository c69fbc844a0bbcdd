import {homedir} from 'node:os'
import {join, resolve, sep} from 'node:path'

import {xdgHome} from '../shared/xdg.js'

/**
 * What `init` needs to know about the machine, injectable so tests never read the real home
 * directory. Every field defaults to the running process's own.
 */
export interface InitEnvironment {
  home: string
  cwd: string
  platform: NodeJS.Platform
  env: NodeJS.ProcessEnv
}

export function resolveEnvironment(overrides: Partial<InitEnvironment> = {}): InitEnvironment {
  return {
    home: overrides.home ?? homedir(),
    cwd: overrides.cwd ?? process.cwd(),
    platform: overrides.platform ?? process.platform,
    env: overrides.env ?? process.env,
  }
}

/** `$XDG_CONFIG_HOME/ptc-mcp/config.yaml`, else `~/.config/ptc-mcp/config.yaml` (SPEC §3). */
export function defaultConfigPath({env, home}: Pick<InitEnvironment, 'env' | 'home'>): string {
  return join(xdgHome('config', env, home), 'ptc-mcp', 'config.yaml')
}

/** Claude Code keeps user and local scopes in `~/.claude.json` (in `$CLAUDE_CONFIG_DIR` when set). */
export function claudeCodeUserConfigPath({env, home}: Pick<InitEnvironment, 'env' | 'home'>): string {
  const dir = env.CLAUDE_CONFIG_DIR
  return dir ? join(dir, '.claude.json') : join(home, '.claude.json')
}

/** Claude Desktop's config: per-OS application support directory. */
export function claudeDesktopConfigPath({env, home, platform}: Omit<InitEnvironment, 'cwd'>): string {
  const file = 'claude_desktop_config.json'
  switch (platform) {
    case 'darwin': {
      return join(home, 'Library', 'Application Support', 'Claude', file)
    }

    case 'win32': {
      return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Claude', file)
    }

    default: {
      return join(xdgHome('config', env, home), 'Claude', file)
    }
  }
}

/** A user-typed path: `~/x` expanded against home, relative paths against cwd. */
export function resolveUserPath(path: string, {cwd, home}: Pick<InitEnvironment, 'cwd' | 'home'>): string {
  if (path === '~') return home
  if (path.startsWith('~/')) return join(home, path.slice(2))
  return resolve(cwd, path)
}

/** `/home/me/.claude.json` → `~/.claude.json`, for display only. */
export function tildify(path: string, home: string): string {
  if (home && (path === home || path.startsWith(home + sep))) return '~' + path.slice(home.length)
  return path
}
