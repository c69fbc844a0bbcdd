// A client's first request, as Claude Code sends it: spawn a stdio server, write one 2026-07-28
// `server/discover` line at once, and time until its answer arrives (SPEC §5: Claude Code waits
// ~2.5 s, then falls back to the 2025 protocol).
import {spawn} from 'node:child_process'
import {performance} from 'node:perf_hooks'

import type {Launch} from './client.js'

import {ROOT} from './paths.js'

export const DISCOVER_REQUEST = {
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': {name: 'bench', version: '1.0.0'},
      'io.modelcontextprotocol/clientCapabilities': {elicitation: {form: {}, url: {}}},
    },
  },
}

/**
 * Milliseconds from spawn until the answer to `server/discover` (a result, or an error: either is
 * an answer) has been read; the server is then killed and reaped. Rejects after `timeoutMs`.
 */
export async function spawnToDiscover(launch: Launch, timeoutMs = 10_000): Promise<number> {
  const started = performance.now()
  const child = spawn(launch.command, launch.args, {
    env: {...(process.env as Record<string, string>), ...launch.env},
    cwd: launch.cwd ?? ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 10_000) stderr += chunk
  })
  child.stdin.on('error', () => {})
  child.stdin.write(`${JSON.stringify(DISCOVER_REQUEST)}\n`)
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer to server/discover in ${timeoutMs} ms; stderr: ${stderr}`)),
        timeoutMs,
      )
      let buffer = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk
        for (let newline; (newline = buffer.indexOf('\n')) >= 0; buffer = buffer.slice(newline + 1)) {
          const message = JSON.parse(buffer.slice(0, newline)) as {id?: unknown}
          if (message.id !== DISCOVER_REQUEST.id) continue
          clearTimeout(timer)
          resolve(performance.now() - started)
        }
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`exited (${code}) before answering server/discover; stderr: ${stderr}`))
      })
    })
  } finally {
    child.kill('SIGKILL')
    await exited
  }
}
