import oclif from 'eslint-config-oclif'

export default [
  {ignores: ['dist/', 'node_modules/', '.test-deps/', 'scratch/', 'coverage/', 'oclif.manifest.json']},
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
