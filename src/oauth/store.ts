import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client'

import {createHash, randomBytes} from 'node:crypto'
import {type Stats, unwatchFile, watchFile} from 'node:fs'
import {open, readdir, rename, rm, unlink} from 'node:fs/promises'
import {homedir} from 'node:os'
import {join} from 'node:path'

import {isRecord} from '../shared/guards.js'
import {ownDirSync, type OwnedDir} from '../shared/private-dir.js'
import {readRegularFile} from '../shared/regular-file.js'
import {xdgHome} from '../shared/xdg.js'

/** What is kept for one server (SPEC §13): one JSON file per server URL. */
export interface OAuthRecord {
  version: 1
  /** The MCP server's URL, as configured (the key). */
  server_url: string
  /** The client ptc-mcp registered dynamically; absent when the config names a client_id. */
  client?: StoredOAuthClientInformation
  tokens?: StoredOAuthTokens
  /** When `tokens` were obtained (ms since the epoch): `expires_in` counts from here. */
  obtained_at?: number
  /** Discovery results, so refreshing needs no new discovery. */
  discovery?: OAuthDiscoveryState
}

export interface TokenStoreOptions {
  /** The directory. Default `$XDG_STATE_HOME/ptc-mcp/oauth` (`~/.local/state/ptc-mcp/oauth`). */
  dir?: string
  /** How often a watched record is checked for changes. Default 500 ms. */
  watchIntervalMs?: number
}

/** `$XDG_STATE_HOME/ptc-mcp/oauth`, or `~/.local/state/ptc-mcp/oauth` (a relative XDG_STATE_HOME is ignored). */
export function defaultStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgHome('state', env, env.HOME || homedir()), 'ptc-mcp', 'oauth')
}

/** The record's file name: a hash of the normalised URL, so any URL makes a safe name. */
export function recordFileName(serverUrl: string): string {
  const normalised = URL.canParse(serverUrl) ? new URL(serverUrl).href : serverUrl
  return `${createHash('sha256').update(normalised).digest('hex').slice(0, 32)}.json`
}

/**
 * Tokens and client registrations on disk: a 0700 directory, one 0600 file per server URL, each
 * written whole to a temporary file and renamed over the old one, so a reader (another ptc-mcp
 * process) never sees half a record. Values never leave this module except to the OAuth code.
 */
export class TokenStore {
  readonly dir: string
  private readonly watchIntervalMs: number

  constructor(options: TokenStoreOptions = {}) {
    this.dir = options.dir ?? defaultStoreDir()
    this.watchIntervalMs = options.watchIntervalMs ?? 500
  }

  pathFor(serverUrl: string): string {
    return join(this.dir, recordFileName(serverUrl))
  }

  /** The record for a server URL, or undefined (none, or unreadable: treated as not signed in). */
  async read(serverUrl: string): Promise<OAuthRecord | undefined> {
    const record = await this.held(false, (dir) => readRecord(dir, recordFileName(serverUrl))).catch(() => {})
    return record?.server_url === serverUrl ? record : undefined
  }

  /** Reads, changes and writes back a record (creating it when missing). */
  async update(serverUrl: string, change: (record: OAuthRecord) => OAuthRecord): Promise<OAuthRecord> {
    const current = (await this.read(serverUrl)) ?? {version: 1, server_url: serverUrl}
    const next = change(current)
    await this.write(next)
    return next
  }

  async write(record: OAuthRecord): Promise<void> {
    await this.held(true, async (dir) => {
      const name = recordFileName(record.server_url)
      const temporary = dir.at(`${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
      // 'wx': O_CREAT|O_EXCL, which never follows a link.
      const handle = await open(temporary, 'wx', 0o600)
      try {
        await handle.writeFile(`${JSON.stringify(record, null, 2)}\n`)
        await handle.sync()
      } finally {
        await handle.close()
      }
      try {
        await rename(temporary, dir.at(name))
      } catch (error) {
        await rm(temporary, {force: true})
        throw error
      }
    })
  }

  /** Deletes the record of a server URL; true when there was one. */
  async delete(serverUrl: string): Promise<boolean> {
    const existed = await this.held(false, (dir) =>
      unlink(dir.at(recordFileName(serverUrl))).then(
        () => true,
        () => false,
      ),
    ).catch(() => false)
    return existed ?? false
  }

  /** Every readable record in the store. */
  async list(): Promise<OAuthRecord[]> {
    const records = await this.held(false, async (dir) => {
      const names = await readdir(dir.at()).catch(() => [] as string[])
      return Promise.all(names.filter((name) => name.endsWith('.json')).map((name) => readRecord(dir, name)))
    }).catch(() => {})
    return (records ?? []).filter((record): record is OAuthRecord => record !== undefined)
  }

  /**
   * Calls `onChange` whenever the record of `serverUrl` is written or deleted (by this process or
   * another: `ptc-mcp auth` in a terminal while `serve` runs). Polls the file's metadata, which
   * also sees a record replaced by rename. Returns the function that stops watching.
   */
  watch(serverUrl: string, onChange: () => void): () => void {
    const path = this.pathFor(serverUrl)
    const listener = (current: Stats, previous: Stats): void => {
      if (current.mtimeMs !== previous.mtimeMs || current.ino !== previous.ino) onChange()
    }
    watchFile(path, {interval: this.watchIntervalMs, persistent: false}, listener)
    return () => unwatchFile(path, listener)
  }

  /**
   * Runs `use` on the store's directory held as an OwnedDir (SPEC §15: a directory of this user no
   * one else can write to, reached through its descriptor; group and other permissions are taken
   * off), created 0700 when `create`. Undefined when it does not exist and is not to be made.
   * Rejects with what is wrong with it (another user's, a link, writable by others).
   */
  private async held<T>(create: boolean, use: (dir: OwnedDir) => Promise<T>): Promise<T | undefined> {
    let dir: OwnedDir
    try {
      dir = ownDirSync(this.dir, {create})
    } catch (error) {
      if (!create && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw new Error(
        `the sign-in store cannot be used: ${(error as Error).message}. Fix: remove ${this.dir} (ptc-mcp creates it again, private)`,
        {cause: error},
      )
    }
    try {
      return await use(dir)
    } finally {
      dir.close()
    }
  }
}

/** Largest record read back: tokens and a client registration take a few KiB. */
const MAX_RECORD_BYTES = 1024 * 1024

/** A record file of the directory held, read only when regular and small; undefined otherwise. */
async function readRecord(dir: OwnedDir, name: string): Promise<OAuthRecord | undefined> {
  try {
    return parseRecord((await readRegularFile(dir.at(name), MAX_RECORD_BYTES)).toString('utf8'))
  } catch {
    return undefined
  }
}

function parseRecord(text: string): OAuthRecord | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isRecord(value) || value.version !== 1 || typeof value.server_url !== 'string') return undefined
  return value as unknown as OAuthRecord
}

/** When the access token of a record expires (ms since the epoch), or null when the server did not say. */
export function expiresAt(record?: OAuthRecord): number | null {
  const seconds = record?.tokens?.expires_in
  if (typeof seconds !== 'number' || record?.obtained_at === undefined) return null
  return record.obtained_at + seconds * 1000
}
