import {existsSync} from 'node:fs'
import {dirname} from 'node:path'

import type {Config} from '../config/schema.js'
import type {ToolHost} from '../downstream/index.js'
import type {PythonInfo} from '../sandbox/backend.js'
import type {CheckResult, DoctorCheck} from './check.js'

import {loadPrograms} from '../programs/catalogue.js'
import {programDirectories} from '../programs/directories.js'
import {serverPrefix} from '../shared/naming.js'
import {counted} from '../shared/plural.js'

/** Bound on waiting for the servers whose tools the programs call. */
const SERVERS_WAIT_MS = 30_000

/** `doctor`'s check of the saved programs, when any programs directory exists. */
export function programsChecks(
  config: Config | undefined,
  python: Promise<PythonInfo>,
  host: ToolHost | undefined,
  loaded: {ok: boolean; path?: null | string},
): DoctorCheck[] {
  if (!config || !host) return []
  const configDir = loaded.path ? dirname(loaded.path) : process.cwd()
  const directories = programDirectories(config.programs, process.cwd(), process.env, configDir)
  if (!directories.some(({dir}) => existsSync(dir))) return []
  return [
    {id: 'programs', title: 'Saved programs', run: () => checkPrograms(config, python, host, configDir)},
  ]
}

/**
 * `doctor`'s saved programs (SPEC §17): names that clash (the first found wins), files that are no
 * program, programs that cannot be tools, and programs that call tools no server offers any more.
 */
export async function checkPrograms(
  config: Config,
  python: Promise<PythonInfo>,
  host: ToolHost,
  configDir: string = process.cwd(),
): Promise<Omit<CheckResult, 'id' | 'ms' | 'title'>> {
  const directories = programDirectories(config.programs, process.cwd(), process.env, configDir)
  const found = await python.then(
    (info) => info,
    () => null,
  )
  // The Python check says why and how to fix it.
  if (!found) return {status: 'warn', detail: 'not read: reading them runs Python (see the Python check)'}
  const catalogue = await loadPrograms(directories, found.executable)
  const programs = [...catalogue.programs.values()]
  const files = programs.length + catalogue.shadowed.length + catalogue.skipped.length
  if (files === 0) return {status: 'pass', detail: `none (in ${directories.map((d) => d.dir).join(', ')})`}
  await host.waitForInitialConnections(SERVERS_WAIT_MS)
  const down = new Set(host.unavailableServers().map((server) => server.name))
  const problems = [
    ...catalogue.shadowed.map((s) => `${s.name}: ${s.path} is hidden by ${s.by} (the first found wins)`),
    ...catalogue.skipped.map((s) => `${s.path}: ${s.reason}`),
    ...programs.filter((p) => p.problem).map((p) => `${p.name} is not a tool: ${p.path} ${p.problem}`),
    ...programs.flatMap((program) =>
      program.tools
        .filter((tool) => !host.getTool(tool) && !down.has(serverOf(tool, config)))
        .map((tool) => `${program.name} calls ${tool}, which no server offers`),
    ),
  ]
  const detail = counted(programs.length, 'saved program')
  if (problems.length === 0) return {status: 'pass', detail}
  return {
    status: 'warn',
    detail: `${detail}; ${problems.join('; ')}`,
    fix: 'rename or remove the programs named, or fix them (`ptc-mcp programs show NAME`)',
  }
}

/** The configured server a namespaced tool name belongs to, or '' when none. */
function serverOf(tool: string, config: Config): string {
  const server = config.servers.find((entry) => tool.startsWith(serverPrefix(entry.name)))
  return server?.name ?? ''
}
