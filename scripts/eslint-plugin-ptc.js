// Our own ESLint rules (eslint.config.js). `ptc/no-cycle`: no import cycle between files, counting
// `import type` too. import/no-cycle skips type-only imports, so a circle of types passed unseen;
// a circle is a circle in the design whether or not the build erases it.
import {readFileSync, statSync} from 'node:fs'
import {dirname, relative, resolve} from 'node:path'
import ts from 'typescript'

/** Relative imports of each file on disk, read once per process (the linted file's come from its AST). */
const importsOnDisk = new Map()

/** The file a relative specifier names: `./x.js` is `./x.ts` in the source tree. */
function resolveImport(fromFile, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return
  const base = resolve(dirname(fromFile), specifier)
  const stem = base.replace(/\.(c|m)?js$/, '')
  const candidates = [`${stem}.ts`, `${stem}.tsx`, base, `${base}/index.ts`]
  return candidates.find((candidate) => statSync(candidate, {throwIfNoEntry: false})?.isFile())
}

function diskImports(file) {
  let imports = importsOnDisk.get(file)
  if (imports === undefined) {
    const {importedFiles} = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    imports = importedFiles.map(({fileName}) => resolveImport(file, fileName)).filter(Boolean)
    importsOnDisk.set(file, imports)
  }
  return imports
}

/** A chain of imports from `start` back to `target`, or undefined. */
function chainTo(start, target) {
  const seen = new Set()
  const stack = [[start, [start]]]
  while (stack.length > 0) {
    const [file, chain] = stack.pop()
    if (file === target) return chain
    if (seen.has(file) || !/\.tsx?$/.test(file)) continue
    seen.add(file)
    for (const next of diskImports(file)) if (!seen.has(next)) stack.push([next, [...chain, next]])
  }
}

const noCycle = {
  meta: {
    type: 'problem',
    docs: {description: 'No import cycle between files, type-only imports included.'},
    schema: [],
    messages: {
      cycle:
        'import cycle: {{chain}}. Move what both sides need to a module below both (ARCHITECTURE.md, Layers).',
    },
  },
  create(context) {
    const file = context.filename
    const check = (node, specifier) => {
      if (typeof specifier !== 'string') return
      const target = resolveImport(file, specifier)
      if (target === undefined || target === file) return
      const chain = chainTo(target, file)
      if (chain === undefined) return
      const shown = [file, ...chain].map((step) => relative(context.cwd, step)).join(' → ')
      context.report({node, messageId: 'cycle', data: {chain: shown}})
    }
    const fromSource = (node) => node.source && check(node, node.source.value)
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source.value : undefined),
      TSImportType: (node) => check(node, node.argument?.literal?.value ?? node.argument?.value),
    }
  },
}

export default {meta: {name: 'ptc'}, rules: {'no-cycle': noCycle}}
