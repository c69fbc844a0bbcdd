import {Document, isMap, isSeq} from 'yaml'

import type {ServerConfig} from '../config/schema.js'

import {transportEntry} from '../config/transports.js'

/** Claude Code's scopes for `claude mcp add --scope`. */
export const CLAUDE_SCOPES = ['user', 'project', 'local'] as const
export type ClaudeScope = (typeof CLAUDE_SCOPES)[number]

export interface ConfigEntry {
  server: ServerConfig
  /** Comment lines written above the entry. */
  comments: string[]
}

/**
 * config.yaml text: the header comment, then one entry per server with its comments. Empty `args`,
 * `env` and `headers` are left out (they default to empty); `args` are written in flow style, as a
 * command line reads.
 */
export function renderConfigYaml(entries: readonly ConfigEntry[], header: readonly string[]): string {
  const servers = entries.map(({server}) => compact(server))
  const doc = new Document({servers})
  doc.commentBefore = header.map((line) => (line ? ` ${line}` : '')).join('\n')
  const list = doc.get('servers', true)
  if (isSeq(list)) {
    for (const [index, item] of list.items.entries()) {
      if (!isMap(item)) continue
      const comments = entries[index]?.comments ?? []
      if (comments.length > 0) item.commentBefore = comments.map((line) => ` ${line}`).join('\n')
      if (index > 0) item.spaceBefore = true
      const args = item.get('args', true)
      if (isSeq(args)) args.flow = true
    }
  }
  return doc.toString({lineWidth: 0, flowCollectionPadding: false})
}

/** The fields worth writing, in the order people read them. */
function compact(server: ServerConfig): Record<string, unknown> {
  return transportEntry(server).written(server)
}

/** The argv that starts ptc-mcp with this config; `launcher` starts ptc-mcp itself (see launcher.ts). */
export function ptcMcpLaunch(configPath: string, launcher: readonly string[]): string[] {
  return [...launcher, 'serve', '--config', configPath]
}

/**
 * `claude mcp add --scope user ptc-mcp -- /usr/local/bin/ptc-mcp serve --config /abs/config.yaml`.
 * Claude Code wants every option before the name, and `--` before the server's own command line.
 */
export function claudeAddCommand(
  configPath: string,
  scope: ClaudeScope,
  platform: NodeJS.Platform,
  launcher: readonly string[],
): string {
  const quote = (word: string) => shellQuote(word, platform)
  return ['claude', 'mcp', 'add', '--scope', scope, 'ptc-mcp', '--', ...ptcMcpLaunch(configPath, launcher)]
    .map(quote)
    .join(' ')
}

/** The same registration as a `.mcp.json` (or Claude Desktop) entry. */
export function mcpJsonEntry(
  configPath: string,
  launcher: readonly string[],
): {
  mcpServers: Record<string, {type: 'stdio'; command: string; args: string[]}>
} {
  const [command = 'node', ...args] = ptcMcpLaunch(configPath, launcher)
  return {mcpServers: {'ptc-mcp': {type: 'stdio', command, args}}}
}

/** A word as a shell reads it back: bare when safe, else single-quoted (double-quoted on Windows). */
export function shellQuote(word: string, platform: NodeJS.Platform = process.platform): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word
  if (platform === 'win32') return `"${word.replaceAll('"', '\\"')}"`
  return `'${word.replaceAll("'", `'\\''`)}'`
}
