import {readFileSync, statSync, unwatchFile, watchFile} from 'node:fs'
import {join} from 'node:path'

import type {Logger} from '../log.js'

import {isRecord} from '../guards.js'
import {type ClaudeRule, parseClaudeRule, type RuleList} from './claude-rules.js'

/** One MCP rule from one of Claude Code's settings files. */
export interface ClaudeRuleEntry {
  list: RuleList
  /** As written in the file. */
  rule: string
  parsed: ClaudeRule
  file: string
}

export interface ClaudeSettingsOptions {
  /** The user's home (`~/.claude/settings.json`). */
  home: string
  /** The project: serve's working directory (`.claude/settings.json`, `.claude/settings.local.json`). */
  projectDir: string
  logger: Logger
  /** How often the files are checked for changes; 0 = never (one-shot commands). Default 1000 ms. */
  watchIntervalMs?: number
}

const LISTS: readonly RuleList[] = ['deny', 'ask', 'allow']

/** The settings files Claude Code reads permission rules from, user scope first. */
export function claudeSettingsFiles(home: string, projectDir: string): string[] {
  return [
    join(home, '.claude', 'settings.json'),
    join(projectDir, '.claude', 'settings.json'),
    join(projectDir, '.claude', 'settings.local.json'),
  ]
}

/**
 * The MCP rules of Claude Code's user and project settings, kept current: each file is read again
 * when it changes (created, edited, removed). A file that cannot be parsed keeps the rules it had
 * (an editor's half-written save must not lift a deny rule), with a warning.
 */
export class ClaudeSettings {
  readonly files: readonly string[]
  private readonly byFile = new Map<string, ClaudeRuleEntry[]>()
  /** What each file looked like when it was last read, to catch a change the first poll took as its baseline. */
  private readonly readAs = new Map<string, string>()
  private merged: ClaudeRuleEntry[] = []
  private readonly listeners = new Set<() => void>()
  private readonly log: Logger
  private watching = false

  constructor(private readonly options: ClaudeSettingsOptions) {
    this.log = options.logger
    this.files = claudeSettingsFiles(options.home, options.projectDir)
    for (const file of this.files) this.read(file)
    this.merge()
    const interval = options.watchIntervalMs ?? 1000
    if (interval > 0) {
      this.watching = true
      for (const file of this.files) {
        // watchFile polls with stat: it sees a file appear that does not exist yet, unlike fs.watch.
        // Its first poll of an absent file calls back too (zeroed stats): only a real change reloads.
        watchFile(file, {interval, persistent: false}, () => this.reloadIfChanged(file))
      }
      // A file written between the read above and the watcher's first poll would go unnoticed.
      setTimeout(() => {
        for (const file of this.files) this.reloadIfChanged(file)
      }, 2 * interval).unref()
    }
  }

  rules(): readonly ClaudeRuleEntry[] {
    return this.merged
  }

  /** Called after the rules changed. Returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  close(): void {
    if (this.watching) for (const file of this.files) unwatchFile(file)
    this.watching = false
    this.listeners.clear()
  }

  private reloadIfChanged(file: string): void {
    if (signature(file) !== this.readAs.get(file)) this.reload(file)
  }

  private reload(file: string): void {
    if (!this.watching) return
    this.read(file)
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
      const kept = this.byFile.get(file)?.length ?? 0
      this.log.warn(
        `Claude Code settings ${file} is not valid JSON (${(error as Error).message}); ` +
          `keeping the ${kept} rules read from it before`,
      )
      return
    }
    this.byFile.set(file, this.extract(file, settings))
  }

  private extract(file: string, settings: unknown): ClaudeRuleEntry[] {
    const permissions = isRecord(settings) ? settings.permissions : undefined
    if (!isRecord(permissions)) return []
    const entries: ClaudeRuleEntry[] = []
    for (const list of LISTS) {
      const rules = permissions[list]
      if (!Array.isArray(rules)) continue
      for (const rule of rules) {
        if (typeof rule !== 'string') continue
        const parsed = parseClaudeRule(rule, list)
        if (parsed === undefined) continue
        if ('ignored' in parsed) {
          this.log.warn(
            `Claude Code rule "${rule}" (permissions.${list} in ${file}) is ignored: ${parsed.ignored}`,
          )
          continue
        }
        entries.push({list, rule, parsed, file})
      }
    }
    return entries
  }

  private merge(): void {
    this.merged = this.files.flatMap((file) => this.byFile.get(file) ?? [])
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
