// @tier unit
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'

import type {PermissionsConfig} from '../config/schema.js'
import type {ToolInfo} from '../downstream/types.js'

import {permissionsSchema} from '../config/schema.js'
import {type Logger} from '../shared/log.js'
import {namespacedName} from '../shared/naming.js'
import {askUnlisted, describeReason, PermissionPolicy} from './policy.js'

function tool(server: string, name: string, annotations?: ToolInfo['annotations']): ToolInfo {
  return {
    name: namespacedName(server, name),
    server,
    tool: name,
    description: '',
    inputSchema: {type: 'object'},
    ...(annotations ? {annotations} : {}),
  }
}

function recordingLogger(lines: string[]): Logger {
  const at = (level: string) => (message: string) => lines.push(`${level}: ${message}`)
  const logger: Logger = {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    child: () => logger,
  }
  return logger
}

interface Scopes {
  managed?: unknown
  /** Drop-ins of managed-settings.d, by file name. */
  dropIns?: Record<string, unknown>
  user?: unknown
  project?: unknown
  local?: unknown
}

const dirs: string[] = []
const policies: PermissionPolicy[] = []
afterEach(() => {
  for (const policy of policies.splice(0)) policy.close()
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

function settingsDirs(scopes: Scopes): {home: string; project: string; managed: string} {
  const root = mkdtempSync(join(tmpdir(), 'ptc-perm-'))
  dirs.push(root)
  const home = join(root, 'home')
  const project = join(root, 'project')
  mkdirSync(join(home, '.claude'), {recursive: true})
  mkdirSync(join(project, '.claude'), {recursive: true})
  const managed = join(root, 'managed')
  mkdirSync(join(managed, 'managed-settings.d'), {recursive: true})
  const write = (file: string, value: unknown) =>
    value !== undefined && writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value))
  write(join(home, '.claude', 'settings.json'), scopes.user)
  write(join(project, '.claude', 'settings.json'), scopes.project)
  write(join(project, '.claude', 'settings.local.json'), scopes.local)
  write(join(managed, 'managed-settings.json'), scopes.managed)
  for (const [name, value] of Object.entries(scopes.dropIns ?? {}))
    write(join(managed, 'managed-settings.d', name), value)
  return {home, project, managed}
}

function policyFor(
  scopes: Scopes,
  config: Partial<PermissionsConfig> = {},
  options: {logs?: string[]; watchIntervalMs?: number} = {},
): PermissionPolicy {
  const {home, project, managed} = settingsDirs(scopes)
  const policy = new PermissionPolicy(permissionsSchema.parse(config), {
    home,
    projectDir: project,
    managedDir: managed,
    logger: recordingLogger(options.logs ?? []),
    watchIntervalMs: options.watchIntervalMs ?? 0,
  })
  policies.push(policy)
  return policy
}

const rules = (list: 'allow' | 'ask' | 'deny', ...entries: string[]) => ({permissions: {[list]: entries}})

describe('PermissionPolicy', () => {
  const destructive = tool('github', 'delete_issue', {destructiveHint: true})
  const readOnly = tool('github', 'get_issue', {readOnlyHint: true})

  it('a deny rule in user scope hides the tool, naming the rule and the file', () => {
    const policy = policyFor({user: rules('deny', 'mcp__github__delete_issue')})
    expect(policy.hiddenBy(destructive)).toMatch(
      /^hidden by Claude Code's deny rule "mcp__github__delete_issue" \(.*home\/\.claude\/settings\.json\)$/,
    )
    expect(policy.hiddenBy(readOnly)).toBeUndefined()
  })

  it('an ask rule in project scope asks, even for a read-only tool', () => {
    const policy = policyFor({project: rules('ask', 'mcp__github')})
    expect(policy.approvalReason(readOnly)).toMatchObject({source: 'claude_code', rule: 'mcp__github'})
    expect(policy.approvalReason(tool('fin', 'query', {readOnlyHint: true}))).toBeUndefined()
    expect(policy.approvalReason(tool('fin', 'query'))).toEqual({source: 'unlisted'})
  })

  it('a tool no allow rule covers asks by default, as in Claude Code, unless it declares readOnlyHint', () => {
    const unannotated = tool('filesystem', 'write_file')
    expect(policyFor({}).approvalReason(unannotated)).toEqual({source: 'unlisted'})
    expect(policyFor({}).approvalReason(destructive)).toEqual({source: 'unlisted'})
    expect(policyFor({}).approvalReason(readOnly)).toBeUndefined()
    expect(policyFor({}).approvalReason(tool('x', 'y', {destructiveHint: true, readOnlyHint: true}))).toBe(
      undefined,
    )
    // An allow rule exempts it: Claude Code's (local scope), or permissions.allow in ptc-mcp's config.
    expect(policyFor({local: rules('allow', 'mcp__github__*')}).approvalReason(destructive)).toBeUndefined()
    expect(policyFor({local: rules('allow', 'mcp__filesystem__write_*')}).approvalReason(unannotated)).toBe(
      undefined,
    )
    expect(policyFor({}, {allow: ['mcp__filesystem__*']}).approvalReason(unannotated)).toBeUndefined()
    expect(policyFor({}, {allow: ['mcp__filesystem__*']}).approvalReason(destructive)).toEqual({
      source: 'unlisted',
    })
  })

  it('ask_unlisted: destructive asks unless the tool declares destructiveHint: false; false never asks', () => {
    const destructiveOnly = {ask_unlisted: 'destructive' as const}
    expect(policyFor({}, destructiveOnly).approvalReason(tool('x', 'y'))).toEqual({source: 'destructive'})
    expect(policyFor({}, destructiveOnly).approvalReason(destructive)).toEqual({source: 'destructive'})
    expect(policyFor({}, destructiveOnly).approvalReason(tool('x', 'y', {destructiveHint: false}))).toBe(
      undefined,
    )
    expect(policyFor({}, {ask_unlisted: false}).approvalReason(destructive)).toBeUndefined()
    expect(
      policyFor({local: rules('ask', 'mcp__github')}, {ask_unlisted: false}).approvalReason(destructive),
    ).toMatchObject({source: 'claude_code'})
  })

  it('the old ask_destructive reads as ask_unlisted: false → false, true → destructive; ask_unlisted wins', () => {
    const read = (config: Partial<PermissionsConfig>) => askUnlisted(permissionsSchema.parse(config))
    expect(read({})).toBe(true)
    expect(read({ask_destructive: false})).toBe(false)
    expect(read({ask_destructive: true})).toBe('destructive')
    expect(read({ask_destructive: false, ask_unlisted: true})).toBe(true)
    expect(policyFor({}, {ask_destructive: false}).approvalReason(destructive)).toBeUndefined()
    expect(policyFor({}, {ask_destructive: true}).approvalReason(tool('x', 'y'))).toEqual({
      source: 'destructive',
    })
    expect(() => permissionsSchema.parse({ask_unlisted: 'sometimes'})).toThrow()
  })

  it('"allow for the rest of this session" holds across programs until the rules change', async () => {
    const {home, project, managed} = settingsDirs({})
    const policy = new PermissionPolicy(permissionsSchema.parse({}), {
      home,
      projectDir: project,
      managedDir: managed,
      logger: recordingLogger([]),
      watchIntervalMs: 50,
    })
    policies.push(policy)
    const writer = tool('filesystem', 'write_file')
    policy.allowForSession(writer)
    expect(policy.allowedForSession(writer)).toBe(true)
    expect(policy.allowedForSession(tool('filesystem', 'move_file'))).toBe(false)
    writeFileSync(join(project, '.claude', 'settings.json'), JSON.stringify(rules('ask', 'mcp__filesystem')))
    await until(() => !policy.allowedForSession(writer))
  })

  it('strictest wins: an explicit ask (Claude Code or permissions.ask) beats an allow rule', () => {
    const both = policyFor({
      user: rules('allow', 'mcp__github'),
      project: rules('ask', 'mcp__github__get_issue'),
    })
    expect(both.approvalReason(readOnly)).toMatchObject({source: 'claude_code'})
    const configured = policyFor({user: rules('allow', 'mcp__github')}, {ask: ['mcp__github__get-*']})
    expect(configured.approvalReason(readOnly)).toEqual({source: 'ask', pattern: 'mcp__github__get-*'})
    expect(describeReason({source: 'ask', pattern: 'mcp__github__get_*'})).toBe(
      'permissions.ask "mcp__github__get_*"',
    )
  })

  it('every rule form from the files: mcp__* (user), mcp__server__* with a dashed name (project), exact (local)', () => {
    const everything = policyFor({user: rules('deny', 'mcp__*')})
    expect(everything.hiddenBy(readOnly)).toContain('"mcp__*"')
    expect(everything.hiddenBy(tool('my-srv', 'x'))).toContain('"mcp__*"')

    const dashed = policyFor({
      project: rules('ask', 'mcp__my-srv__*'),
      local: rules('deny', 'mcp__my-srv__drop-all'),
    })
    expect(dashed.approvalReason(tool('my-srv', 'get-data'))).toMatchObject({rule: 'mcp__my-srv__*'})
    expect(dashed.approvalReason(tool('my_srv', 'get_data'))).toMatchObject({rule: 'mcp__my-srv__*'})
    expect(dashed.approvalReason(tool('other', 'get-data'))).toEqual({source: 'unlisted'})
    expect(dashed.hiddenBy(tool('my-srv', 'drop-all'))).toContain('settings.local.json')
    expect(dashed.hiddenBy(tool('my-srv', 'get-data'))).toBeUndefined()
  })

  it('managed settings: a managed deny rule hides the tool, drop-ins merge in name order, all listed for doctor', () => {
    const policy = policyFor({
      managed: rules('deny', 'mcp__filesystem__write_*'),
      dropIns: {
        '20-ask.json': rules('ask', 'mcp__github'),
        '10-x.json': rules('deny', 'mcp__x'),
        '.hidden.json': rules('deny', 'mcp__*'),
        'notes.txt': rules('deny', 'mcp__*'),
      },
      user: rules('allow', 'mcp__filesystem', 'mcp__github'),
    })
    expect(policy.hiddenBy(tool('filesystem', 'write_file'))).toMatch(
      /^hidden by Claude Code's deny rule "mcp__filesystem__write_\*" \(.*managed\/managed-settings\.json\)$/,
    )
    // Deny and ask beat allow whatever the file: the user's allow rule does not lift the managed ask.
    expect(policy.approvalReason(readOnly)).toMatchObject({
      source: 'claude_code',
      file: expect.stringContaining('20-ask.json'),
    })
    expect(policy.approvalReason(tool('filesystem', 'read_file'))).toBeUndefined()
    expect(
      policy
        .settingsStates()
        .map(({scope, file, state}) => [scope, file.split('/').slice(-2).join('/'), state]),
    ).toEqual([
      ['managed', 'managed/managed-settings.json', 'read'],
      ['managed', 'managed-settings.d/10-x.json', 'read'],
      ['managed', 'managed-settings.d/20-ask.json', 'read'],
      ['user', '.claude/settings.json', 'read'],
      ['project', '.claude/settings.json', 'absent'],
      ['local', '.claude/settings.local.json', 'absent'],
    ])
  })

  it('allowManagedPermissionRulesOnly: only the managed rules apply, the others are listed as ignored', () => {
    const policy = policyFor({
      managed: {allowManagedPermissionRulesOnly: true, permissions: {ask: ['mcp__filesystem__move_file']}},
      user: rules('deny', 'mcp__filesystem__write_file'),
      local: rules('allow', 'mcp__filesystem'),
    })
    expect(policy.hiddenBy(tool('filesystem', 'write_file'))).toBeUndefined()
    expect(policy.approvalReason(tool('filesystem', 'read_file'))).toEqual({source: 'unlisted'})
    expect(policy.approvalReason(tool('filesystem', 'move_file'))).toMatchObject({source: 'claude_code'})
    expect(
      policy
        .settingsStates()
        .filter((s) => s.state === 'ignored')
        .map((s) => s.scope),
    ).toEqual(['user', 'local'])
  })

  it('a managed drop-in that appears while serving is read', async () => {
    const {home, project, managed} = settingsDirs({})
    const policy = new PermissionPolicy(permissionsSchema.parse({}), {
      home,
      projectDir: project,
      managedDir: managed,
      logger: recordingLogger([]),
      watchIntervalMs: 50,
    })
    policies.push(policy)
    expect(policy.hiddenBy(readOnly)).toBeUndefined()
    writeFileSync(
      join(managed, 'managed-settings.d', '50-deny.json'),
      JSON.stringify(rules('deny', 'mcp__*')),
    )
    await until(() => policy.hiddenBy(readOnly) !== undefined)
    expect(policy.hiddenBy(readOnly)).toContain('50-deny.json')
    rmSync(join(managed, 'managed-settings.d', '50-deny.json'))
    await until(() => policy.hiddenBy(readOnly) === undefined)
  })

  it('claude_code: false ignores the settings files', () => {
    const policy = policyFor({user: rules('deny', 'mcp__*')}, {claude_code: false})
    expect(policy.hiddenBy(readOnly)).toBeUndefined()
    expect(policy.claudeFiles).toEqual([])
  })

  it('a rule Claude Code skips is reported, with its file; a broken file is reported, not fatal', () => {
    const logs: string[] = []
    const policy = policyFor({user: rules('allow', 'mcp__*'), project: '{not json'}, {}, {logs})
    expect(policy.approvalReason(destructive)).toEqual({source: 'unlisted'})
    expect(logs.join('\n')).toMatch(
      /^warn: Claude Code skips the rule "mcp__\*" \(permissions\.allow in .*home\/\.claude\/settings\.json\)/m,
    )
    expect(policy.rejectedRules()).toEqual([
      expect.objectContaining({
        list: 'allow',
        rule: 'mcp__*',
        file: expect.stringContaining('home/.claude/settings.json'),
      }),
    ])
    expect(policy.settingsStates().find((s) => s.scope === 'project')).toMatchObject({state: 'invalid'})
    expect(logs.join('\n')).toMatch(/project\/\.claude\/settings\.json is not valid JSON/)
  })

  it('follows changes to the settings files, and keeps the last rules while a file is half-written', async () => {
    const {home, project, managed} = settingsDirs({})
    const policy = new PermissionPolicy(permissionsSchema.parse({}), {
      home,
      projectDir: project,
      managedDir: managed,
      logger: recordingLogger([]),
      watchIntervalMs: 50,
    })
    policies.push(policy)
    let changes = 0
    policy.onChange(() => changes++)
    const file = join(project, '.claude', 'settings.local.json')
    expect(policy.hiddenBy(readOnly)).toBeUndefined()

    writeFileSync(file, JSON.stringify(rules('deny', 'mcp__github')))
    await until(() => policy.hiddenBy(readOnly) !== undefined)
    expect(changes).toBeGreaterThan(0)

    writeFileSync(file, '{"permissions": {"deny": [')
    const seen = changes
    await until(() => changes > seen)
    expect(policy.hiddenBy(readOnly)).toBeDefined()

    rmSync(file)
    await until(() => policy.hiddenBy(readOnly) === undefined)
  })
})

/** Waits (bounded) until `condition` holds: vitest's own polling. */
async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  await vi.waitFor(() => expect(condition()).toBe(true), {timeout: timeoutMs, interval: 20})
}
