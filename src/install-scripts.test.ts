// @tier unit
/**
 * `npm ci` on a fresh clone prints no warning about held-back install scripts (npm 11 lists every
 * dependency with an install script that package.json's `allowScripts` does not cover). Each one
 * is reviewed there: esbuild's postinstall only checks the binary its platform package already
 * installed, so it is denied and the bundle scripts still work.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '..')
const read = (path: string): unknown => JSON.parse(readFileSync(join(ROOT, path), 'utf8'))

it("every dependency with an install script is reviewed in package.json's allowScripts", () => {
  const lock = read('package-lock.json') as {packages: Record<string, {hasInstallScript?: boolean}>}
  const {allowScripts = {}} = read('package.json') as {allowScripts?: Record<string, boolean>}
  const withScripts = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
  expect(withScripts).toContain('esbuild')
  const unreviewed = withScripts.filter((name) => !(name in allowScripts))
  expect(unreviewed, 'run `npm install-scripts approve|deny <name>`').toEqual([])
})
