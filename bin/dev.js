#!/usr/bin/env -S node --import tsx --no-warnings
// As bin/run.js, from src/: `serve` with plain arguments starts without oclif.
if (process.argv[2] === 'serve') {
  // eslint-disable-next-line n/no-unpublished-import -- bin/dev.js runs from a checkout
  const {serveFastPath} = await import('../src/cli/serve-fast-path.ts')
  // eslint-disable-next-line n/no-process-exit -- the CLI's own entry point
  if (await serveFastPath(process.argv.slice(3))) process.exit(0)
}

const {execute} = await import('@oclif/core')

await execute({development: true, dir: import.meta.url})
