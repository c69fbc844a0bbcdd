import oclif from 'eslint-config-oclif'

export default [
  {ignores: ['dist/', 'node_modules/', 'scratch/', 'coverage/', 'oclif.manifest.json']},
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
      'no-console': 'error',
    },
  },
  {
    files: ['src/cli/**', 'test/**', 'bench/**', 'scripts/**', 'examples/**'],
    rules: {'no-console': 'off'},
  },
]
