// Bundles `serve` (dist/cli/serve-fast-path.js and everything it imports, dependencies included)
// into one CommonJS file, dist/serve/main.cjs: an MCP client waits only briefly for serve's first
// answer, and Node spends most of a cold start finding, reading and compiling the ~150 modules one
// by one. What a dynamic import() reaches (the program engine, the downstream code) is in the file
// but runs only when imported. One CommonJS file is what src/cli/serve-bundle.ts can give a V8
// code cache on Node 20 (which has none for modules).
import {build} from 'esbuild'
import {rm} from 'node:fs/promises'
import {dirname, join, relative, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

import {ownModuleUrls} from './own-module-urls.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const outdir = join(root, 'dist', 'serve')
await rm(outdir, {recursive: true, force: true})

// Each module's own URL, as if it were still in dist/ beside the bundle's folder.
const ownUrls = ownModuleUrls(/[/\\]dist[/\\].*\.js$/, (path) => relative(outdir, path).split(sep).join('/'))

const result = await build({
  entryPoints: [join(root, 'dist', 'cli', 'serve-fast-path.js')],
  outfile: join(outdir, 'main.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // Only on a failure before serving (printed as oclif prints it): resolved from node_modules then.
  // OpenTelemetry too: it is loaded only when telemetry is configured (src/telemetry/tracer.ts), so
  // its 300 KB stay out of what every start reads; node_modules has it beside the bundle.
  external: ['@oclif/core', '@opentelemetry/*'],
  // import() of what stays outside (a Node module, @oclif/core) becomes require(): the bundle runs
  // as a vm.Script whose functions, once read from the code cache, have no dynamic import callback
  // (the OTLP exporter imports node:http so when it first sends).
  supported: {'dynamic-import': false},
  plugins: [ownUrls],
  minify: process.env.PTC_BUNDLE_MINIFY !== '0',
  metafile: true,
  logLevel: 'warning',
})

const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.cjs'))
const bytes = outputs.reduce((sum, [, output]) => sum + output.bytes, 0)
process.stderr.write(
  `bundle-serve: ${outputs.length} file(s), ${(bytes / 1024 / 1024).toFixed(1)} MB in dist/serve/\n`,
)
