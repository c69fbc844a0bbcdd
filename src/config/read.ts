/**
 * The config file as data: its text read (with a reason and a fix when it cannot be), then parsed as
 * one YAML document (with line and column for each syntax error).
 */
import {readFile, stat} from 'node:fs/promises'
import {LineCounter, parseDocument} from 'yaml'

import {ConfigError} from '../shared/errors.js'
import {CONFIG_ENV_VARIABLE, CONFIG_FILE_NAME} from './discover.js'

/** The text of the config file; a ConfigError saying why when it is a directory or cannot be read. */
export async function readConfigFile(path: string): Promise<string> {
  try {
    if ((await stat(path)).isDirectory()) {
      throw new ConfigError(`Config path ${path} is a directory, not a file`, {
        suggestion: `Point --config or ${CONFIG_ENV_VARIABLE} at the YAML file itself (usually ${CONFIG_FILE_NAME}).`,
      })
    }

    return await readFile(path, 'utf8')
  } catch (error) {
    if (error instanceof ConfigError) throw error
    const {code} = error as NodeJS.ErrnoException
    const reasons: Record<string, string> = {
      EACCES: 'permission denied',
      EPERM: 'permission denied',
      ENOENT: 'the file does not exist (a broken link?)',
    }
    const reason = (code && reasons[code]) ?? code ?? (error as Error).message
    throw new ConfigError(`Cannot read config ${path}: ${reason}`, {
      suggestion: 'Make the file readable by the user running ptc-mcp, or point --config at another one.',
      cause: error,
    })
  }
}

/** The YAML document as plain data (an empty document is `{}`), with its warnings. Throws a ConfigError on bad syntax. */
export function parseYaml(text: string, path: string | null): {raw: unknown; warnings: string[]} {
  const where = path === null ? 'config' : path
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, {prettyErrors: false, lineCounter, uniqueKeys: true})
  const at = (offset: number | undefined) => {
    const {line, col} = lineCounter.linePos(offset ?? 0)
    return `line ${line}, column ${col}`
  }

  const describe = (error: {code: string; message: string; pos: [number, number]}) =>
    `${at(error.pos[0])}: ${error.code === 'MULTIPLE_DOCS' ? 'the file holds several YAML documents ("---"); keep one' : error.message}`
  if (doc.errors.length > 0) {
    throw new ConfigError(
      `Invalid YAML in ${where}:\n${doc.errors.map((e) => `  ${describe(e)}`).join('\n')}`,
      {
        suggestion:
          'Correct the YAML syntax at the lines shown (indentation with spaces, matching brackets and quotes).',
      },
    )
  }

  let raw: unknown
  try {
    raw = doc.toJS({maxAliasCount: 1000})
  } catch (error) {
    throw new ConfigError(`Invalid YAML in ${where}: ${(error as Error).message}`, {
      suggestion: 'Check the anchors (&name) and aliases (*name) in the file.',
      cause: error,
    })
  }

  return {raw: raw ?? {}, warnings: doc.warnings.map((w) => `${where}: ${describe(w)}`)}
}
