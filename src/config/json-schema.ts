import {z} from 'zod'

import {isRecord} from '../shared/guards.js'
import {configSchema} from './schema.js'

/** Where the published schema can be fetched (the npm package ships config.schema.json). */
export const CONFIG_SCHEMA_ID = 'https://unpkg.com/ptc-mcp/config.schema.json'

/**
 * The JSON Schema of config.yaml, generated from the zod schema so the two cannot drift. It describes
 * the file as written (`io: 'input'`): fields with defaults are optional, and string fields accept
 * `${VAR}` references, since expansion happens before validation.
 */
export function configJsonSchema(): Record<string, unknown> {
  const {$schema, ...schema} = z.toJSONSchema(configSchema, {io: 'input', target: 'draft-2020-12'})
  return {
    $schema,
    $id: CONFIG_SCHEMA_ID,
    title: 'ptc-mcp configuration (config.yaml)',
    ...schema,
  }
}

/** The text of config.schema.json as committed and shipped: pretty, with a trailing newline. */
export function renderConfigJsonSchema(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`
}

type Schema = Record<string, unknown>

/**
 * A node of the config's JSON Schema and, when it is a choice (`anyOf`, `oneOf`: a server's
 * transports, or a section that may also be left empty), its branches: where its keys are read from.
 */
export function alternatives(schema: Schema): Schema[] {
  const branches = schema.anyOf ?? schema.oneOf
  return [schema, ...(Array.isArray(branches) ? branches.filter((branch) => isRecord(branch)) : [])]
}
