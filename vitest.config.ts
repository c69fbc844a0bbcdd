import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    disableConsoleIntercept: true,
    globalSetup: ['test/setup/leaks.ts'],
  },
})
