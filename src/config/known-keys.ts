/**
 * Which keys a mapping of the config may hold, read from the config's JSON Schema (itself generated
 * from the zod schema, as the README reference is): what an unknown key is compared with.
 */
import {isRecord} from '../shared/guards.js'
import {alternatives, configJsonSchema} from './json-schema.js'

type Schema = Record<string, unknown>

export interface KnownKeys {
  /** The keys allowed here, in schema order. */
  known: string[]
  /** For a server entry, the keys of the other transports, each labelled with its transport. */
  elsewhere: {label: string; keys: string[]}[]
}

let configRoot: Schema | undefined

/**
 * The keys allowed in the mapping at `path`, which holds `input`. For a list of variants (servers,
 * told apart by `transport`), those of the variant `input` is, and the other variants' keys; when
 * `input` is none of them, the keys of all.
 */
export function keysAt(path: readonly PropertyKey[], input: unknown): KnownKeys {
  configRoot ??= configJsonSchema()
  let schema: Schema | undefined = configRoot
  for (const key of path) {
    if (schema === undefined) break
    schema = typeof key === 'number' ? itemsOf(schema) : propertyOf(schema, String(key))
  }

  if (schema === undefined) return {known: [], elsewhere: []}
  const variants = alternatives(schema)
    .slice(1)
    .filter((s) => isRecord(s.properties))
  const discriminator = discriminatorOf(variants)
  if (discriminator === undefined) {
    const object = alternatives(schema).find((s) => isRecord(s.properties))
    return {known: object ? keysOf(object) : [], elsewhere: []}
  }

  const value = isRecord(input) ? input[discriminator] : undefined
  const chosen = variants.find((variant) => {
    const property = propertiesOf(variant)[discriminator] ?? {}
    return property.const === (value === undefined ? property.default : value)
  })
  if (!chosen) return {known: [...new Set(variants.flatMap((variant) => keysOf(variant)))], elsewhere: []}
  return {
    known: keysOf(chosen),
    elsewhere: variants
      .filter((variant) => variant !== chosen)
      .map((variant) => ({
        label: String(propertiesOf(variant)[discriminator]?.const),
        keys: keysOf(variant),
      })),
  }
}

function propertiesOf(schema: Schema): Record<string, Schema> {
  return isRecord(schema.properties) ? (schema.properties as Record<string, Schema>) : {}
}

const keysOf = (schema: Schema) => Object.keys(propertiesOf(schema))

function propertyOf(schema: Schema, key: string): Schema | undefined {
  for (const candidate of alternatives(schema)) {
    const property = propertiesOf(candidate)[key]
    if (isRecord(property)) return property
  }

  return undefined
}

function itemsOf(schema: Schema): Schema | undefined {
  const array = alternatives(schema).find((s) => s.type === 'array')
  return array && isRecord(array.items) ? array.items : undefined
}

/** The property every variant fixes to a value of its own (`transport`). */
function discriminatorOf(variants: readonly Schema[]): string | undefined {
  const [first] = variants
  if (first === undefined || variants.length < 2) return undefined
  return keysOf(first).find((key) =>
    variants.every((variant) => propertiesOf(variant)[key]?.const !== undefined),
  )
}
