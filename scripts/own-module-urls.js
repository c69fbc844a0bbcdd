// An esbuild plugin for our bundles: our modules find the files they ship beside them (Python,
// package.json) from `import.meta.url`, which CommonJS has not. Each module's own URL is rebuilt
// at run time from the bundle's directory and `locate(path)`: where that module's file would sit,
// relative to the bundle, in the tree the bundle is shipped with.
import {readFile} from 'node:fs/promises'

/**
 * @param {RegExp} filter which modules are ours
 * @param {(path: string) => string} locate a module's place relative to the bundle's directory, `/`-separated
 */
export function ownModuleUrls(filter, locate) {
  return {
    name: 'own-module-urls',
    setup(bundle) {
      bundle.onLoad({filter}, async ({path}) => {
        const source = await readFile(path, 'utf8')
        if (!source.includes('import.meta.url')) return
        return {
          contents: source.replaceAll(
            'import.meta.url',
            `require('node:url').pathToFileURL(require('node:path').join(__dirname, ${JSON.stringify(locate(path))})).href`,
          ),
          loader: path.endsWith('.ts') ? 'ts' : 'js',
        }
      })
    },
  }
}
