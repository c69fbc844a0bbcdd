// Test tiers, declared by each test file on its first line (`// @tier unit`), by what the test does:
// - unit: spawns nothing (test/setup/no-spawn.ts fails one that tries) and needs nothing `npm ci`
//   does not install;
// - sandbox: spawns sandboxed program children (.ci/sandbox-tiers.sh runs this tier again in every
//   Linux tier);
// - integration: spawns servers, clients, the built binary, or an unconfined child;
// - claude-code: the real `claude -p` driving `serve`.
// vitest.config.ts builds its projects from these declarations; test/lint/tiers.test.ts checks them.
import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, normalize, sep} from 'node:path'

export const TIERS = ['unit', 'sandbox', 'integration', 'claude-code'] as const
export type Tier = (typeof TIERS)[number]

const TIER_LINE = /^\/\/ @tier (\S+)\s*$/
/** Where test files live: `*.test.ts` anywhere under these folders. */
const TEST_ROOTS = ['src', 'bench', 'test']
const SKIPPED = new Set(['.git', '__pycache__', 'dist', 'node_modules'])

/** The `*.test.ts` files of the repository at `root`, as posix paths relative to it, sorted. */
export function testFiles(root: string): string[] {
  return TEST_ROOTS.flatMap((top) =>
    readdirSync(join(root, top), {encoding: 'utf8', recursive: true})
      .map((file) => join(top, file).split(sep).join('/'))
      .filter((file) => file.endsWith('.test.ts') && !file.split('/').some((part) => SKIPPED.has(part))),
  ).sort()
}

/** The tier a test file's first line declares, or why it declares none. */
export function declaredTier(text: string): {tier: Tier} | {problem: string} {
  const first = text.split('\n', 1)[0] ?? ''
  const tier = TIER_LINE.exec(first)?.[1]
  if (tier === undefined) return {problem: `its first line is not \`// @tier <${TIERS.join('|')}>\``}
  if (!(TIERS as readonly string[]).includes(tier))
    return {problem: `unknown tier "${tier}" (${TIERS.join(', ')})`}
  return {tier: tier as Tier}
}

/** Every test file by its declared tier; throws, naming each file, when one declares none. */
export function testsByTier(root: string): Record<Tier, string[]> {
  const byTier = Object.fromEntries(TIERS.map((tier) => [tier, [] as string[]])) as Record<Tier, string[]>
  const problems: string[] = []
  for (const file of testFiles(root)) {
    const declared = declaredTier(readFileSync(join(root, file), 'utf8'))
    if ('tier' in declared) byTier[declared.tier].push(file)
    else problems.push(`${file}: ${declared.problem}`)
  }

  if (problems.length > 0) {
    throw new Error(
      `test files without a tier: begin each with \`// @tier unit\` (spawns nothing), \`sandbox\` (sandboxed children), \`integration\` (servers, clients, processes) or \`claude-code\`:\n  ${problems.join('\n  ')}`,
    )
  }

  return byTier
}

// What a unit test may not import: the module that starts processes, and the test and bench
// helpers that start them (a helper spawns when it imports child_process, or a helper that does).
// Product modules are not judged here: a unit test may test the pure part of one that can spawn;
// test/setup/no-spawn.ts fails the test if it spawns after all.
const SPAWNING_MODULES = new Set(['child_process', 'node:child_process'])
const IMPORT =
  /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm

/** The modules a TypeScript file imports for their values (not `import type`), as written. */
export function valueImports(text: string): string[] {
  return [...text.matchAll(IMPORT)].map((match) => (match[1] ?? match[2]) as string)
}

/** A relative specifier as a repository path (`./x.js` is `x.ts` when that exists), or undefined. */
function resolveRelative(root: string, from: string, specifier: string, exists: (path: string) => boolean) {
  if (!specifier.startsWith('.')) return
  const target = normalize(join(dirname(from), specifier))
    .split(sep)
    .join('/')
  const candidates = [target, target.replace(/\.js$/, '.ts'), `${target}.ts`]
  return candidates.find((candidate) => exists(join(root, candidate)))
}

/**
 * Why the test file at `file` (relative to `root`) may spawn: each import of a process module or of
 * a test or bench helper that spawns, as `specifier (via a → b → node:child_process)`. Empty when
 * none. `read` returns a file's text, or undefined when it does not exist.
 */
export function spawningImports(
  root: string,
  file: string,
  read: (path: string) => string | undefined,
): string[] {
  const chains = new Map<string, string[] | null>()
  const helperChain = (path: string): string[] | null => {
    if (chains.has(path)) return chains.get(path) ?? null
    chains.set(path, null) // a cycle spawns only through another import
    const chain = importChain(path)
    chains.set(path, chain)
    return chain
  }

  const exists = (path: string) => read(path) !== undefined
  const importChain = (path: string): string[] | null => {
    for (const specifier of valueImports(read(join(root, path)) ?? '')) {
      if (SPAWNING_MODULES.has(specifier)) return [specifier]
      const target = resolveRelative(root, path, specifier, exists)
      if (target === undefined || target.startsWith('src/') || target.endsWith('.test.ts')) continue
      const chain = helperChain(target)
      if (chain) return [target, ...chain]
    }

    return null
  }

  const found: string[] = []
  for (const specifier of valueImports(read(join(root, file)) ?? '')) {
    if (SPAWNING_MODULES.has(specifier)) {
      found.push(specifier)
      continue
    }

    const target = resolveRelative(root, file, specifier, exists)
    if (target === undefined || target.startsWith('src/')) continue
    const chain = helperChain(target)
    if (chain) found.push(`${specifier} (via ${[target, ...chain].join(' → ')})`)
  }

  return found
}

/** The helper that starts sandboxed program children: a test file that imports it is a sandbox test. */
export const SANDBOX_HARNESS = 'test/sandbox/harness.ts'

/** Whether the test file at `file` imports the sandbox harness (directly). */
export function usesSandboxHarness(
  root: string,
  file: string,
  read: (path: string) => string | undefined,
): boolean {
  const exists = (path: string) => read(path) !== undefined
  return valueImports(read(join(root, file)) ?? '').some(
    (specifier) => resolveRelative(root, file, specifier, exists) === SANDBOX_HARNESS,
  )
}
