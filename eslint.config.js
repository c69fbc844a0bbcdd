import oclif from 'eslint-config-oclif'

import ptc from './scripts/eslint-plugin-ptc.js'

/**
 * The layers of src/, from the ground up (ARCHITECTURE.md): a folder imports only from the folders
 * before it in this list, never from one after it. Folders on one floor do not import each other.
 */
const LAYERS = [
  ['shared'],
  ['sandbox'],
  ['config'],
  ['oauth', 'init'],
  ['downstream'],
  ['permissions'],
  ['execution'],
  ['programs'],
  ['doctor', 'telemetry'],
  ['runtime.ts'],
  ['mcp'],
  ['gateway'],
  ['cli'],
  ['commands'],
  ['index.ts'],
]

/** One `import/no-restricted-paths` zone per folder: everything above it, and its floor's neighbours. */
const layerZones = LAYERS.flatMap((floor, level) =>
  floor.map((folder) => ({
    target: `./src/${folder}`,
    from: [...floor.filter((other) => other !== folder), ...LAYERS.slice(level + 1).flat()].map(
      (above) => `./src/${above}`,
    ),
    message: `src/${folder} is below this: layers import downwards only (ARCHITECTURE.md, eslint.config.js LAYERS).`,
  })),
)

/**
 * Folders with one way in (ARCHITECTURE.md): from anywhere else in src/, only their index.ts.
 * What lies past it (transport/, connection/, engine/, child/ …) is the folder's own to rearrange.
 */
const GATED = ['downstream', 'execution']

const gateZones = GATED.map((folder) => ({
  target: [`./src/!(${folder})/**`, './src/*.ts'],
  from: `./src/${folder}`,
  except: ['./index.ts'],
  message: `src/${folder} is entered through its index.ts only (ARCHITECTURE.md, eslint.config.js GATED).`,
}))

export default [
  {
    ignores: [
      'dist/',
      'node_modules/',
      '.test-deps/',
      'scratch/',
      'coverage/',
      'oclif.manifest.json',
      'plugin/server/',
    ],
  },
  ...oclif,
  {
    rules: {
      // Formatting belongs to prettier.
      '@stylistic/indent': 'off',
      '@stylistic/object-curly-spacing': 'off',
      '@stylistic/operator-linebreak': 'off',
      '@stylistic/indent-binary-ops': 'off',
      '@stylistic/quotes': 'off',
      '@stylistic/lines-between-class-members': 'off',
      'perfectionist/sort-classes': 'off',
      'perfectionist/sort-objects': 'off',
      'perfectionist/sort-object-types': 'off',
      'perfectionist/sort-interfaces': 'off',
      'perfectionist/sort-union-types': 'off',
      'perfectionist/sort-modules': 'off',
      'unicorn/prefer-string-raw': 'off',
      'no-await-in-loop': 'off',
      '@stylistic/arrow-parens': 'off',
      '@stylistic/function-paren-newline': 'off',
      '@stylistic/object-curly-newline': 'off',
      '@stylistic/padding-line-between-statements': 'off',
      '@stylistic/no-mixed-operators': 'off',
      // Config keys and MCP fields are snake_case by contract (SPEC §3, §5).
      camelcase: 'off',
      // Descriptions document the ${VAR} syntax.
      'no-template-curly-in-string': 'off',
      // The SDK's transports use onclose/onerror properties, not EventTarget.
      'unicorn/prefer-add-event-listener': 'off',
      // tsc resolves imports (including package subpaths); engines in package.json say Node >= 20.19.
      'import/no-unresolved': 'off',
      'n/no-unsupported-features/node-builtins': 'off',
      // Line length and array layout belong to prettier, which also lowercases hex literals.
      '@stylistic/max-len': 'off',
      '@stylistic/array-element-newline': 'off',
      'unicorn/number-literal-case': 'off',
      // noUncheckedIndexedAccess wants record['key'] where TS would otherwise widen.
      'dot-notation': 'off',
      // prettier puts a leading semicolon before a line that starts with ( or [.
      '@stylistic/semi-style': 'off',
      // Named callbacks read well (`.map(quote)`); the rule guards against parseInt-style surprises we test for.
      'unicorn/no-array-callback-reference': 'off',
      // Case order follows meaning, not the alphabet.
      'perfectionist/sort-switch-case': 'off',
      // Test helpers read best next to the test that uses them.
      'unicorn/consistent-function-scoping': ['error', {checkArrowFunctions: false}],
      'no-console': 'error',
    },
  },
  {
    // Layers point down (ARCHITECTURE.md): no cycle (type-only imports count: ptc/no-cycle), no
    // import from a layer above, and none past a gated folder's index.ts. Tests may reach across
    // layers and into folders to check how they meet.
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: {ptc},
    rules: {
      'ptc/no-cycle': 'error',
      'import/no-restricted-paths': ['error', {zones: [...layerZones, ...gateZones]}],
    },
  },
  {
    // vitest, not mocha: the oclif preset's mocha rules do not apply.
    files: ['**/*.test.ts', 'test/**'],
    rules: Object.fromEntries(
      Object.keys(oclif.find((c) => c.plugins?.mocha)?.plugins?.mocha?.rules ?? {}).map((r) => [
        `mocha/${r}`,
        'off',
      ]),
    ),
  },
  {
    files: ['src/cli/**', 'test/**', 'bench/**', 'scripts/**', 'examples/**'],
    rules: {'no-console': 'off'},
  },
]
