#!/usr/bin/env -S node --import tsx --no-warnings
// As bin/run.js, from src/: `serve` with plain arguments starts without oclif. Only with tsx loaded
// (the line above): `node bin/dev.js` goes through oclif, which loads it (and shows any error).
const serving = process.argv[2] === 'serve'
if (serving) {
  // eslint-disable-next-line n/no-unpublished-import -- bin/dev.js runs from a checkout
  const fastPath = await import('../src/cli/serve-fast-path.ts').catch(() => {})
  // eslint-disable-next-line n/no-process-exit -- the CLI's own entry point
  if (fastPath && (await fastPath.serveFastPath(process.argv.slice(3)))) process.exit(0)
}

const {execute} = await import('@oclif/core')

await execute({development: true, dir: import.meta.url})
