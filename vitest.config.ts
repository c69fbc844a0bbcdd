import {fileURLToPath} from 'node:url'
import {defineConfig} from 'vitest/config'

import {testsByTier} from './test/setup/tiers.js'

// Four tiers, each test file in exactly one, declared on its first line (`// @tier unit`; the
// tiers and what decides them: test/setup/tiers.ts). `npm test` runs them all; a file that declares
// no tier stops vitest here, with its name.
const tiers = testsByTier(fileURLToPath(new URL('.', import.meta.url)))

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
          include: tiers.unit,
          // Unit files spawn nothing and share no state, so one worker may run many of them: starting
          // a fresh worker per file was two thirds of this layer's time.
          isolate: false,
          setupFiles: ['test/setup/no-spawn.ts'],
        },
      },
      {extends: true, test: {name: 'integration', include: tiers.integration}},
      {extends: true, test: {name: 'sandbox', include: tiers.sandbox}},
      {extends: true, test: {name: 'claude-code', include: tiers['claude-code']}},
    ],
  },
})
