// What tests read of the repository itself: its source files, and the recipes of ARCHITECTURE.md.
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {PACKAGE_ROOT} from '../../src/shared/package-root.js'

/** The paragraph of ARCHITECTURE.md's recipe that starts with `**<title>**`, and the source files it names (tests left out). */
export function architectureRecipe(title: string): {text: string; files: Set<string>} {
  const architecture = readFileSync(join(PACKAGE_ROOT, 'ARCHITECTURE.md'), 'utf8')
  const escaped = title.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const text = new RegExp(`\\*\\*${escaped}\\*\\*([\\s\\S]*?)\\n\\n`).exec(architecture)?.[1] ?? ''
  const files = new Set(
    [...text.matchAll(/`(src\/[\w./-]+\.(?:ts|py))`/g)]
      .map(([, path]) => path!)
      .filter((path) => !path.endsWith('.test.ts')),
  )
  return {text, files}
}

/** The product's files under src/ whose names match `extension` (tests left out), for tests that read the code. */
export function productFiles(extension: RegExp, dir = join(PACKAGE_ROOT, 'src')): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return productFiles(extension, path)
    return extension.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}
