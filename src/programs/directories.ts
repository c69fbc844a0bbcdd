import {isAbsolute, join, resolve} from 'node:path'

import type {ProgramsConfig} from '../config/schema.js'

import {xdgHome} from '../shared/xdg.js'

/** Where a programs directory comes from (SPEC §17), in the order they are searched. */
export type ProgramScope = 'project' | 'user' | 'config'

export interface ProgramDirectory {
  dir: string
  scope: ProgramScope
}

/** The project's programs directory under `cwd`: checked into the project's repository. */
export function projectProgramsDir(cwd: string): string {
  return join(cwd, '.ptc-mcp', 'programs')
}

/** The user's programs directory: `$XDG_CONFIG_HOME/ptc-mcp/programs`. */
export function userProgramsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgHome('config', env), 'ptc-mcp', 'programs')
}

/**
 * The programs directories, first found wins (SPEC §17): the project's `.ptc-mcp/programs/` (under
 * `cwd`), the user's, then `programs.dirs` (relative ones from `base`: the config file's directory,
 * as its servers' paths are). A directory named twice is searched once.
 */
export function programDirectories(
  config: Pick<ProgramsConfig, 'dirs'>,
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
  base: string = cwd,
): ProgramDirectory[] {
  const all: ProgramDirectory[] = [
    {dir: projectProgramsDir(cwd), scope: 'project'},
    {dir: userProgramsDir(env), scope: 'user'},
    ...config.dirs.map((dir) => ({
      dir: isAbsolute(dir) ? dir : resolve(base, dir),
      scope: 'config' as const,
    })),
  ]
  const seen = new Set<string>()
  return all.filter(({dir}) => !seen.has(dir) && seen.add(dir))
}
