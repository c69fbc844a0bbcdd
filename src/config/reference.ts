import {alternatives, configJsonSchema} from './json-schema.js'
import {TRANSPORT_KINDS} from './transports.js'

type Schema = Record<string, unknown>

interface Row {
  key: string
  type: string
  default: string
  description: string
}

/**
 * The README's config reference: one row per key, generated from the JSON Schema (itself generated
 * from the zod schema), so the documentation cannot drift from what the loader accepts.
 */
const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ')

export function configReferenceMarkdown(): string {
  const rows = collect(configJsonSchema(), '')
  return [
    '| key | type | default | description |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| \`${r.key}\` | ${cell(r.type)} | ${cell(r.default)} | ${cell(r.description)} |`),
  ].join('\n')
}

function collect(schema: Schema, path: string, note = ''): Row[] {
  const object = objectBranch(schema)
  if (object) {
    const properties = (object.properties ?? {}) as Record<string, Schema>
    return Object.entries(properties).flatMap(([key, child]) =>
      collect(child, path ? `${path}.${key}` : key, note),
    )
  }
  const array = arrayBranch(schema)
  const items = array?.items as Schema | undefined
  const variants = (items?.oneOf ?? items?.anyOf) as Schema[] | undefined
  if (variants) {
    // One row per key across the variants (the server transports), saying which variants have it.
    const rows = new Map<string, Row & {variants: string[]}>()
    for (const variant of variants) {
      const name = String(((variant.properties as Record<string, Schema>).transport ?? {}).const ?? '')
      for (const row of collect(variant, `${path}[]`)) {
        const seen = rows.get(row.key)
        if (seen) seen.variants.push(name)
        else rows.set(row.key, {...row, variants: [name]})
      }
    }
    return [...rows.values()].map(({variants: names, ...row}) => ({
      ...row,
      type: row.key.endsWith('.transport')
        ? TRANSPORT_KINDS.map((kind) => `"${kind}"`).join(' | ')
        : row.type,
      description:
        names.length === variants.length ? row.description : `(${names.join(', ')}) ${row.description}`,
    }))
  }
  return [
    {
      key: path,
      type: typeName(schema),
      default: defaultText(schema, path),
      description: `${note}${String(schema.description ?? '')}`,
    },
  ]
}

/** The schema itself or its first branch of that kind (sections may also be null: left empty). */
function branch(schema: Schema, match: (s: Schema) => boolean): Schema | undefined {
  return alternatives(schema).find(match)
}

const objectBranch = (schema: Schema) =>
  branch(schema, (s) => s.type === 'object' && s.properties !== undefined)
const arrayBranch = (schema: Schema) => branch(schema, (s) => s.type === 'array')

function defaultText(schema: Schema, path: string): string {
  if (schema.default !== undefined) return `\`${JSON.stringify(schema.default)}\``
  return isRequired(path) ? 'required' : '—'
}

function typeName(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ')
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (Array.isArray(variants)) return variants.map((variant) => typeName(variant)).join(' | ')
  if (schema.type === 'array') return `list of ${typeName((schema.items ?? {}) as Schema)}`
  if (schema.type === 'object') return 'map of string'
  if (schema.type === 'integer' && schema.minimum === 0) return 'integer >= 0'
  if (schema.type === 'integer' || schema.type === 'number') return `${schema.type} > 0`
  return String(schema.type ?? 'any')
}

const REQUIRED = new Set(['servers[].command', 'servers[].name', 'servers[].url'])
const isRequired = (path: string) => REQUIRED.has(path)
