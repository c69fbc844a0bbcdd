import {Ajv, type Options} from 'ajv'
import addFormatsPlugin from 'ajv-formats'
import {Ajv2019} from 'ajv/dist/2019.js'
import {Ajv2020} from 'ajv/dist/2020.js'
import {RE2JS} from 're2js'

import {cutAfter} from '../../shared/cut.js'
import {COMPILES_PER_ENGINE} from '../../shared/limits.js'

/**
 * The Ajv engines behind SchemaValidator: Ajv at the version the MCP SDK bundles, with the SDK's
 * options and dialect choice, whose `pattern` and `patternProperties` run on RE2 (re2js, linear time), so a
 * downstream schema's `^(a+)+$` cannot stall the server on a program's `"a"*28+"!"` (SPEC §15).
 * A pattern RE2 cannot compile (lookaround, backreferences) makes its schema fail to compile with
 * an UnsupportedPatternError.
 */

/** A schema pattern the linear-time engine cannot run. */
export class UnsupportedPatternError extends Error {
  constructor(
    readonly pattern: string,
    reason: string,
  ) {
    super(
      `its schema has the pattern ${JSON.stringify(cutAfter(pattern, 200))}, ` +
        `which ptc-mcp cannot check in linear time (${reason})`,
    )
    this.name = 'UnsupportedPatternError'
  }
}

export interface LinearRegExp {
  test(text: string): boolean
}

/**
 * Compiles a JSON Schema (ECMA-262) pattern for RE2. Throws UnsupportedPatternError for a valid
 * pattern RE2 cannot run, and a SyntaxError for one that is no regular expression at all.
 */
export function linearRegExp(pattern: string): LinearRegExp {
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern))
  } catch (error) {
    // Compiling (never running) a native RegExp is safe: it tells a broken pattern from ours.
    // eslint-disable-next-line no-new -- only its SyntaxError matters
    new RegExp(pattern, 'u')
    const reason =
      error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error)
    throw new UnsupportedPatternError(pattern, reason)
  }
}

/** Ajv's `code.regExp` hook: `code` names it in standalone code, which is not used here. */
const regExpEngine = Object.assign((pattern: string) => linearRegExp(pattern), {code: 'linearRegExp'})

type Dialect = '2019-09' | '2020-12' | 'draft-07'

const DIALECT_URIS: Record<string, Dialect> = {}
for (const [dialect, paths] of [
  ['2020-12', ['draft/2020-12/schema']],
  ['2019-09', ['draft/2019-09/schema']],
  ['draft-07', ['draft-07/schema', 'draft-06/schema']],
] as const) {
  for (const path of paths) {
    DIALECT_URIS[`https://json-schema.org/${path}`] = dialect
    DIALECT_URIS[`http://json-schema.org/${path}`] = dialect
  }
}

/** The SDK's rule: no `$schema` means 2020-12; draft-06 is checked as draft-07. */
function dialectOf(schema: Record<string, unknown>): Dialect {
  const declared = schema.$schema
  if (typeof declared !== 'string') return '2020-12'
  const dialect = DIALECT_URIS[declared.replace(/#$/, '')]
  if (!dialect) {
    throw new Error(
      `JSON Schema declares an unsupported dialect ("$schema": "${declared.slice(0, 200)}"); supported: 2020-12, 2019-09, draft-07, draft-06`,
    )
  }
  return dialect
}

// ajv-formats is CommonJS: its default export arrives as the module object under some loaders.
type FormatsPlugin = (ajv: Ajv) => Ajv
const formatsModule = addFormatsPlugin as unknown as FormatsPlugin & {default?: FormatsPlugin}
const addFormats: FormatsPlugin = formatsModule.default ?? formatsModule

function createEngine(dialect: Dialect, allErrors: boolean): Ajv {
  // The SDK's own options, with the linear-time regex engine.
  const options: Options = {
    strict: false,
    validateFormats: true,
    validateSchema: false,
    allErrors,
    code: {regExp: regExpEngine},
  }
  const Engine = {'2019-09': Ajv2019, '2020-12': Ajv2020, 'draft-07': Ajv}[dialect]
  const engine = new Engine(options)
  addFormats(engine)
  return engine
}

/**
 * One Ajv engine per dialect and error mode, made on first use. `allErrors: false` stops at the
 * first problem: for large values, where collecting every error could cost more than the value.
 */
export class SchemaEngines {
  private readonly engines = new Map<string, {engine: Ajv; compiles: number}>()

  /** The engine to compile `schema` with, for the dialect it declares; throws for one it does not support. */
  engine(schema: Record<string, unknown>, allErrors: boolean): Ajv {
    const dialect = dialectOf(schema)
    const key = `${dialect}:${allErrors}`
    let entry = this.engines.get(key)
    if (!entry || entry.compiles >= COMPILES_PER_ENGINE) {
      entry = {engine: createEngine(dialect, allErrors), compiles: 0}
      this.engines.set(key, entry)
    }

    entry.compiles++
    return entry.engine
  }
}
