import {defineConfig} from 'vitest/config'

// Four layers, each file in exactly one (`npm test` runs them all):
// - unit: next to the code, no process spawned (test/setup/no-spawn.ts fails a test that tries);
// - integration: spawns real servers, clients, the binary (test/, and *.integration.test.ts next to the code),
//   and the stress tests next to the code (*.stress.test.ts: nothing spawned, but seconds of work);
// - sandbox: the escape, isolation and hostile suites that .ci/sandbox-tiers.sh runs again in every tier;
// - claude-code: the real `claude -p` driving `serve`.
const sandbox = [
  'test/integration/sandbox-escape.test.ts',
  'test/integration/sandbox-isolation.test.ts',
  'test/reliability/hostile-*.test.ts',
  'test/sandbox/**/*.test.ts',
  'src/sandbox/**/*.test.ts',
  'src/execution/files/artifacts.test.ts',
]
const claudeCode = ['test/claude-code/**/*.test.ts']
const integrationNextToCode = [
  'src/**/*.integration.test.ts',
  'bench/**/*.integration.test.ts',
  'src/**/*.stress.test.ts',
]
// Unit tests outside src/ and bench/: they read the repository and spawn nothing.
const unitInTest = ['test/lint/contract-citations.test.ts']

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 30_000,
    disableConsoleIntercept: true,
    globalSetup: ['test/setup/leaks.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'bench/**/*.test.ts', ...unitInTest],
          // Unit files spawn nothing and share no state, so one worker may run many of them: starting
          // a fresh worker per file was two thirds of this layer's time.
          isolate: false,
          exclude: [...integrationNextToCode, ...sandbox],
          setupFiles: ['test/setup/no-spawn.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', ...integrationNextToCode],
          exclude: [...sandbox, ...claudeCode, ...unitInTest],
        },
      },
      {extends: true, test: {name: 'sandbox', include: sandbox}},
      {extends: true, test: {name: 'claude-code', include: claudeCode}},
    ],
  },
})
