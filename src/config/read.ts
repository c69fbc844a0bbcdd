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

/** A YAML syntax error as the parser reports it. */
interface YamlProblem {
  code: string
  message: string
  pos: [number, number]
}

/** The YAML document as plain data (an empty document is `{}`), with its warnings. Throws a ConfigError on bad syntax. */
export function parseYaml(text: string, path: string | null): {raw: unknown; warnings: string[]} {
  const where = path === null ? 'config' : path
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, {prettyErrors: false, lineCounter, uniqueKeys: true})
  const describe = (error: YamlProblem) => {
    const {line, col} = lineCounter.linePos(error.pos[0])
    return `line ${line}, column ${col}: ${error.code === 'MULTIPLE_DOCS' ? 'the file holds several YAML documents ("---"); keep one' : error.message}`
  }

  if (doc.errors.length > 0) {
    const lines = text.split(/\r?\n/)
    const reported = new Set<number>()
    const problems = doc.errors.flatMap((error) => {
      const problem = syntaxProblem(error, lines, lineCounter)
      if (reported.has(problem.line)) return []
      reported.add(problem.line)
      return [`  ${problem.text}\n${excerpt(lines, problem.line)}`]
    })
    throw new ConfigError(`Invalid YAML in ${where}:\n${problems.join('\n')}`, {
      suggestion:
        'Correct the YAML syntax at the lines shown (indentation with spaces, matching brackets and quotes).',
    })
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

/**
 * Where a syntax error is and what it means. A key indented deeper than the key above it is
 * reported by the parser at the end of the line above (the value it would be nested in): it is
 * the deeper line that is wrong.
 */
function syntaxProblem(
  error: YamlProblem,
  lines: readonly string[],
  lineCounter: LineCounter,
): {line: number; text: string} {
  const {line, col} = lineCounter.linePos(error.pos[0])
  if (error.code === 'BLOCK_AS_IMPLICIT_KEY' || error.code === 'MULTILINE_IMPLICIT_KEY') {
    let next = line + 1
    while (next <= lines.length && (lines[next - 1] ?? '').trim() === '') next++
    const indent = /^ */.exec(lines[next - 1] ?? '')?.[0].length ?? 0
    return {
      line: next,
      text: `line ${next}, column ${indent + 1}: this line is indented deeper than the key above it, which already has a value: indent it as its neighbours are`,
    }
  }
  const first = error.message.split('\n')[0] ?? ''
  let message = first
  if (error.code === 'MULTIPLE_DOCS') message = 'the file holds several YAML documents ("---"); keep one'
  else if (MISALIGNED.has(error.code))
    message = `${first}: this line is not aligned with its neighbours; indent it as they are`
  return {line, text: `line ${line}, column ${col}: ${message}`}
}

/** Codes of errors that come from a line indented wrongly. */
const MISALIGNED = new Set(['BAD_INDENT', 'MISSING_CHAR'])

/** Keys whose values an excerpt shows; any other value (a header, an env value, a URL) is hidden. */
const SHOWN_VALUES = new Set(['command', 'cwd', 'name', 'python', 'sandbox', 'trace', 'transport'])

/**
 * The line before `line` and the line itself, numbered, with the values of keys that could hold a
 * secret hidden: a config error reaches logs and, from serve, the model.
 */
function excerpt(lines: readonly string[], line: number): string {
  const width = String(line).length
  return [line - 1, line]
    .filter((number) => number >= 1 && number <= lines.length)
    .map((number) => `    ${String(number).padStart(width)} | ${masked(lines[number - 1] ?? '')}`)
    .join('\n')
}

function masked(line: string): string {
  const pair = /^(\s*(?:- )?)([^\s#:][^#:]*?):(\s+)(\S.*)$/.exec(line)
  if (pair) {
    const [, lead = '', key = '', space = '', value = ''] = pair
    if (SHOWN_VALUES.has(key.trim())) return line
    return `${lead}${key}:${space}${/^[[{]/.test(value) ? `${value[0]}...` : '...'}`
  }
  const item = /^(\s*(?:- |# ?))\S/.exec(line)
  return item ? `${item[1]}...` : line
}
