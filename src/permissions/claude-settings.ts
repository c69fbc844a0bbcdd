import {readdirSync, readFileSync, statSync, unwatchFile, watchFile} from 'node:fs'
import {join} from 'node:path'

import type {Logger} from '../shared/log.js'

import {isRecord} from '../shared/guards.js'
import {type ClaudeRule, parseClaudeRule, type RuleList} from './claude-rules.js'

/** Where a settings file sits in Claude Code's stack. */
export type SettingsScope = 'local' | 'managed' | 'project' | 'user'

/** One MCP rule from one of Claude Code's settings files. */
export interface ClaudeRuleEntry {
  list: RuleList
  /** As written in the file. */
  rule: string
  parsed: ClaudeRule
  file: string
}

/** A rule Claude Code skips (it warns and goes on), with its reason: reported by doctor and list. */
export interface RejectedRule {
  list: RuleList
  rule: string
  file: string
  reason: string
}

/** One settings file as last read, for doctor. */
export interface SettingsFileState {
  scope: SettingsScope
  file: string
  /** read: its rules are in force; ignored: managed settings allow only managed rules; invalid: not JSON (its last rules kept). */
  state: 'absent' | 'ignored' | 'invalid' | 'read'
  rules: number
}

export interface ClaudeSettingsOptions {
  /** The user's home (`~/.claude/settings.json`). */
  home: string
  /** The project: serve's working directory (`.claude/settings.json`, `.claude/settings.local.json`). */
  projectDir: string
  /** The directory of `managed-settings.json` and `managed-settings.d/`. Default: {@link managedSettingsDir}. */
  managedDir?: string
  logger: Logger
  /** How often the files are checked for changes; 0 = never (one-shot commands). Default 1000 ms. */
  watchIntervalMs?: number
}

const LISTS: readonly RuleList[] = ['deny', 'ask', 'allow']

/** Points ptc-mcp at another managed-settings directory (tests; a relocated policy). */
export const MANAGED_DIR_ENV = 'PTC_MCP_CLAUDE_MANAGED_DIR'

/** Where Claude Code reads file-based managed settings on this platform (as Claude Code 2.1 does). */
export function managedSettingsDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env[MANAGED_DIR_ENV]
  if (override) return override
  if (process.platform === 'darwin') return '/Library/Application Support/ClaudeCode'
  if (process.platform === 'win32') return String.raw`C:\Program Files\ClaudeCode`
  return '/etc/claude-code'
}

/** The settings files of the user and the project, user scope first. */
export function claudeSettingsFiles(
  home: string,
  projectDir: string,
): {scope: SettingsScope; file: string}[] {
  return [
    {scope: 'user', file: join(home, '.claude', 'settings.json')},
    {scope: 'project', file: join(projectDir, '.claude', 'settings.json')},
    {scope: 'local', file: join(projectDir, '.claude', 'settings.local.json')},
  ]
}

interface FileRead {
  entries: ClaudeRuleEntry[]
  rejected: RejectedRule[]
  managedOnly: boolean
  invalid: boolean
}

/**
 * The MCP rules of Claude Code's managed, user and project settings, kept current: each file is
 * read again when it changes (created, edited, removed), and the managed drop-in directory
 * (`managed-settings.d/*.json`, merged in name order after `managed-settings.json`) is listed again
 * when it changes. Every list of every file applies (deny beats ask beats allow whatever the file),
 * except that `allowManagedPermissionRulesOnly: true` in managed settings leaves only the managed
 * rules, as in Claude Code. A file that cannot be parsed keeps the rules it had (an editor's
 * half-written save must not lift a deny rule), with a warning.
 */
export class ClaudeSettings {
  private readonly fixed: {scope: SettingsScope; file: string}[]
  private readonly dropInDir: string
  private dropIns: string[] = []
  private readonly byFile = new Map<string, FileRead>()
  /** What each file looked like when it was last read, to catch a change the first poll took as its baseline. */
  private readonly readAs = new Map<string, string>()
  private merged: ClaudeRuleEntry[] = []
  private readonly listeners = new Set<() => void>()
  private readonly log: Logger
  private readonly interval: number
  private readonly watched = new Set<string>()

  constructor(options: ClaudeSettingsOptions) {
    this.log = options.logger
    const managedDir = options.managedDir ?? managedSettingsDir()
    this.dropInDir = join(managedDir, 'managed-settings.d')
    this.fixed = [
      {scope: 'managed', file: join(managedDir, 'managed-settings.json')},
      ...claudeSettingsFiles(options.home, options.projectDir),
    ]
    this.dropIns = listDropIns(this.dropInDir)
    for (const file of this.files) this.read(file)
    this.merge()
    this.interval = options.watchIntervalMs ?? 1000
    if (this.interval > 0) {
      // watchFile polls with stat: it sees a file appear that does not exist yet, unlike fs.watch.
      // Its first poll of an absent file calls back too (zeroed stats): only a real change reloads.
      for (const file of this.files) this.watch(file)
      this.watch(this.dropInDir, () => this.relistDropIns())
      // A file written between the read above and the watcher's first poll would go unnoticed.
      setTimeout(() => {
        this.relistDropIns()
        for (const file of this.files) this.reloadIfChanged(file)
      }, 2 * this.interval).unref()
    }
  }

  /** Every settings file consulted, managed ones first. */
  get files(): string[] {
    return [this.fixed[0]!.file, ...this.dropIns, ...this.fixed.slice(1).map((f) => f.file)]
  }

  rules(): readonly ClaudeRuleEntry[] {
    return this.merged
  }

  /** The MCP rules Claude Code itself skips, with the file and the reason. */
  rejected(): RejectedRule[] {
    return this.files.flatMap((file) => this.byFile.get(file)?.rejected ?? [])
  }

  /** Each settings file and whether its rules are in force. */
  states(): SettingsFileState[] {
    const managedOnly = this.managedOnly()
    return this.files.map((file) => {
      const scope = this.scopeOf(file)
      const read = this.byFile.get(file)
      const rules = read?.entries.length ?? 0
      if (!read) return {scope, file, state: 'absent', rules}
      if (read.invalid) return {scope, file, state: 'invalid', rules}
      return {scope, file, state: managedOnly && scope !== 'managed' ? 'ignored' : 'read', rules}
    })
  }

  /** Called after the rules changed. Returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  close(): void {
    for (const file of this.watched) unwatchFile(file)
    this.watched.clear()
    this.listeners.clear()
  }

  private scopeOf(file: string): SettingsScope {
    return this.fixed.find((f) => f.file === file)?.scope ?? 'managed'
  }

  private managedOnly(): boolean {
    return this.files.some((file) => this.scopeOf(file) === 'managed' && this.byFile.get(file)?.managedOnly)
  }

  private watch(file: string, onChange = () => this.reloadIfChanged(file)): void {
    if (this.watched.has(file)) return
    this.watched.add(file)
    watchFile(file, {interval: this.interval, persistent: false}, onChange)
  }

  private relistDropIns(): void {
    if (this.watched.size === 0) return
    const now = listDropIns(this.dropInDir)
    const gone = this.dropIns.filter((file) => !now.includes(file))
    const added = now.filter((file) => !this.dropIns.includes(file))
    if (gone.length === 0 && added.length === 0) return
    this.dropIns = now
    for (const file of gone) {
      unwatchFile(file)
      this.watched.delete(file)
      this.byFile.delete(file)
      this.readAs.delete(file)
    }
    for (const file of added) {
      this.watch(file)
      this.read(file)
    }
    this.changed(this.dropInDir)
  }

  private reloadIfChanged(file: string): void {
    if (this.watched.size === 0 || signature(file) === this.readAs.get(file)) return
    this.read(file)
    this.changed(file)
  }

  private changed(file: string): void {
    this.merge()
    this.log.info(
      `Claude Code settings changed (${file}): ${this.merged.length} MCP permission rules in force`,
    )
    for (const listener of this.listeners) {
      try {
        listener()
      } catch (error) {
        this.log.error(`permission change listener failed: ${(error as Error).message}`)
      }
    }
  }

  private read(file: string): void {
    this.readAs.set(file, signature(file))
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (error) {
      const {code} = error as NodeJS.ErrnoException
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        this.log.warn(`cannot read Claude Code settings ${file}: ${(error as Error).message}`)
      this.byFile.delete(file)
      return
    }
    let settings: unknown
    try {
      settings = text.trim() === '' ? {} : JSON.parse(text)
    } catch (error) {
      const kept = this.byFile.get(file)
      this.log.warn(
        `Claude Code settings ${file} is not valid JSON (${(error as Error).message}); ` +
          `keeping the ${kept?.entries.length ?? 0} rules read from it before`,
      )
      this.byFile.set(file, {entries: [], rejected: [], managedOnly: false, ...kept, invalid: true})
      return
    }
    this.byFile.set(file, this.extract(file, settings))
  }

  private extract(file: string, settings: unknown): FileRead {
    const permissions = isRecord(settings) ? settings.permissions : undefined
    const read: FileRead = {entries: [], rejected: [], managedOnly: false, invalid: false}
    if (!isRecord(permissions)) return read
    read.managedOnly = isRecord(settings) && settings.allowManagedPermissionRulesOnly === true
    for (const list of LISTS) {
      const rules = permissions[list]
      if (!Array.isArray(rules)) continue
      for (const rule of rules) {
        if (typeof rule !== 'string') continue
        const parsed = parseClaudeRule(rule, list)
        if (parsed === undefined) continue
        if ('rejected' in parsed) {
          this.log.warn(rejectedLine({list, rule, file, reason: parsed.rejected}))
          read.rejected.push({list, rule, file, reason: parsed.rejected})
          continue
        }
        read.entries.push({list, rule, parsed, file})
      }
    }
    return read
  }

  private merge(): void {
    const managedOnly = this.managedOnly()
    this.merged = this.files
      .filter((file) => !managedOnly || this.scopeOf(file) === 'managed')
      .flatMap((file) => this.byFile.get(file)?.entries ?? [])
  }
}

/** `Claude Code skips the rule "mcp__*" (permissions.allow in <file>): <why>`, for the log, doctor and list. */
export function rejectedLine(rule: RejectedRule): string {
  return `Claude Code skips the rule ${JSON.stringify(rule.rule)} (permissions.${rule.list} in ${rule.file}), so ptc-mcp does too: ${rule.reason}`
}

/** `managed-settings.d/*.json` in name order, as Claude Code merges them (hidden files left out). */
function listDropIns(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
      .sort()
      .map((name) => join(dir, name))
  } catch {
    return []
  }
}

function signature(file: string): string {
  try {
    const stat = statSync(file)
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`
  } catch {
    return 'absent'
  }
}
