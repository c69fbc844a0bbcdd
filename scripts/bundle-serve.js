// Bundles `serve`'s start (dist/cli/serve-fast-path.js and everything it imports, dependencies
// included) into dist/serve/: an MCP client waits only briefly for serve's first answer, and Node
// spends most of a cold start finding, reading and compiling the ~150 modules one by one. Each
// dynamic import() (the program engine, the downstream code) stays a chunk of its own, loaded
// only when used, as in dist/.
import {build} from 'esbuild'
import {readFile, rm} from 'node:fs/promises'
import {dirname, join, relative, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const outdir = join(root, 'dist', 'serve')
await rm(outdir, {recursive: true, force: true})

/**
 * Our modules find the files they ship beside them (Python, package.json) from `import.meta.url`:
 * in a chunk it is the chunk's, so each module's own URL is rebuilt from the chunk's location.
 */
const ownModuleUrls = {
  name: 'own-module-urls',
  setup(bundle) {
    bundle.onLoad({filter: /[/\\]dist[/\\].*\.js$/}, async ({path}) => {
      const source = await readFile(path, 'utf8')
      if (!source.includes('import.meta.url')) return
      const fromChunk = relative(outdir, path).split(sep).join('/')
      return {
        contents: source.replaceAll(
          'import.meta.url',
          `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`,
        ),
        loader: 'js',
      }
    })
  },
}

const result = await build({
  entryPoints: {main: join(root, 'dist', 'cli', 'serve-fast-path.js')},
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Only on a failure before serving (printed as oclif prints it): resolved from node_modules then.
  external: ['@oclif/core'],
  // The CommonJS dependencies (yaml, ajv, cross-spawn) require Node's own modules.
  banner: {
    js: "import {createRequire as __ptcCreateRequire} from 'node:module'; const require = __ptcCreateRequire(import.meta.url);",
  },
  plugins: [ownModuleUrls],
  minify: process.env.PTC_BUNDLE_MINIFY !== '0',
  metafile: true,
  logLevel: 'warning',
})

const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'))
const bytes = outputs.reduce((sum, [, output]) => sum + output.bytes, 0)
process.stderr.write(
  `bundle-serve: ${outputs.length} file(s), ${(bytes / 1024 / 1024).toFixed(1)} MB in dist/serve/\n`,
)
