#!/usr/bin/env node
// `serve` with plain arguments starts without oclif, from one bundle with a code cache: an MCP
// client waits only briefly for its first answer.
if (process.argv[2] === 'serve') {
  const {loadServeBundle} = await import('../dist/cli/serve-bundle.js')
  // Stopped: downstream children and sockets are closed; leave no timers holding the process open.
  // eslint-disable-next-line n/no-process-exit -- the CLI's own entry point
  if (await loadServeBundle().serveFastPath(process.argv.slice(3))) process.exit(0)
}

const {execute, settings} = await import('@oclif/core')

// The installed bin always runs the compiled commands, whatever NODE_ENV says (bin/dev.js is for src/).
settings.enableAutoTranspile = false

await execute({dir: import.meta.url})
