/** Where this package is installed, and the files it ships there for its users. */
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

/** From src/shared/ or dist/shared/, the package root is two levels up. */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** The config's JSON Schema, for editors. */
export const CONFIG_SCHEMA_FILE = join(PACKAGE_ROOT, 'config.schema.json')

/** Every config key with its default, commented. */
export const CONFIG_EXAMPLE_FILE = join(PACKAGE_ROOT, 'config.example.yaml')
