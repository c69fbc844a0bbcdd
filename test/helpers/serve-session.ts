// The three tools of a running `serve`, as a test calls them over raw JSON-RPC.
import {expect, vi} from 'vitest'

import type {StructuredOutcome} from '../../src/execution/outcome/structured-outcome.js'
import type {ToolCallTrace} from '../../src/execution/outcome/trace.js'
import type {ServeSetup} from './serve.js'

import {UNUSABLE_ENTRIES_PREFIX} from '../../src/mcp/server.js'
import {type RawServe, resultText, toolResult} from './json-rpc.js'
import {descendants, isAlive} from './processes.js'

export interface Execution {
  text: string
  isError: boolean
  structured: StructuredOutcome
  /** What the program printed ('' when structured content has no `output`). */
  output: string
  /** Every call, as structured content lists them with execution.trace: full ([] otherwise). */
  calls: ToolCallTrace[]
}

export interface Listing {
  names: string[]
  /** Unavailable servers and their reasons, from the second text item. */
  unavailable: Record<string, string>
}

const UNAVAILABLE_PREFIX = 'UNAVAILABLE SERVERS (their tools are not listed; reconnecting): '
const STARTING_PREFIX =
  'STARTING SERVERS (their tools are listed once they connect; a call to one waits for it): '

/** Runs a program through execute_program. */
export async function execute(serve: RawServe, code: string, timeoutMs = 60_000): Promise<Execution> {
  const result = toolResult(await serve.callTool('execute_program', {code}, timeoutMs))
  return {
    text: result.content?.[0]?.text ?? '',
    isError: result.isError === true,
    structured: result.structuredContent as unknown as StructuredOutcome,
    output: (result.structuredContent as unknown as StructuredOutcome | undefined)?.output ?? '',
    calls: (result.structuredContent as unknown as StructuredOutcome | undefined)?.calls ?? [],
  }
}

/**
 * list_callable_tools, parsed: servers starting or unavailable, with their reasons. Reasons may
 * contain "; " themselves, so those lines are split at the names of the configured servers.
 */
export async function listCallable(serve: RawServe, servers: readonly string[]): Promise<Listing> {
  const response = await serve.callTool('list_callable_tools', {})
  const names = JSON.parse(resultText(response)) as string[]
  const rest = (toolResult(response).content ?? []).slice(1).map((item) => item.text ?? '')
  const unavailable: Record<string, string> = {}
  for (const line of rest) {
    const prefix = [UNAVAILABLE_PREFIX, STARTING_PREFIX, UNUSABLE_ENTRIES_PREFIX].find((p) =>
      line.startsWith(p),
    )
    if (!prefix) continue
    const entries = line.slice(prefix.length)
    const alternatives = servers.map((name) => name.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')
    const entry = new RegExp(`(?:^|; )(${alternatives}): (.*?)(?=; (?:${alternatives}): |$)`, 'gs')
    for (const match of entries.matchAll(entry)) unavailable[match[1]!] = match[2]!
  }
  return {names, unavailable}
}

/**
 * Polls list_callable_tools until `check` holds (serve offers no other way to observe a server's
 * state); fails after `timeoutMs` with the last listing.
 */
export async function waitForListing(
  serve: RawServe,
  servers: readonly string[],
  check: (listing: Listing) => boolean,
  {what, timeoutMs = 20_000}: {what: string; timeoutMs?: number},
): Promise<Listing> {
  let last: Listing | undefined
  try {
    return await vi.waitFor(
      async () => {
        last = await listCallable(serve, servers)
        if (!check(last)) throw new Error(`not ${what}`)
        return last
      },
      {timeout: timeoutMs, interval: 50},
    )
  } catch {
    throw new Error(`not ${what} within ${timeoutMs} ms; last listing: ${JSON.stringify(last?.unavailable)}`)
  }
}

/** The shared "wait until connected": every server in `servers` lists its fixture tools. */
export async function waitForConnected(
  serve: RawServe,
  servers: readonly string[],
  timeoutMs = 30_000,
): Promise<Listing> {
  return waitForListing(serve, servers, (listing) => servers.every((server) => serves(listing, server)), {
    what: `${servers.join(' and ')} connected`,
    timeoutMs,
  })
}

/** Whether every tool of `server` in the fixture's base set is listed (its `add` is enough). */
export function serves(listing: Listing, server: string): boolean {
  return listing.names.includes(`mcp__${server.replaceAll(/\W/g, '_')}__add`)
}

/**
 * Closes serve's stdin and asserts the clean shutdown of SPEC §5: exit 0, every process it started
 * gone within 5 s, no scratch directory left.
 */
export async function expectCleanShutdown(serve: RawServe, setup: ServeSetup): Promise<void> {
  const tree = descendants(serve.child.pid!)
  serve.child.stdin.end()
  expect(await serve.exited).toBe(0)
  await vi.waitFor(() => expect(tree.every((pid) => !isAlive(pid))).toBe(true), {timeout: 5000})
  expect(setup.scratchDirs()).toEqual([])
}
