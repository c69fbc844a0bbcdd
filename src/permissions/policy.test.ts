import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {afterEach, describe, expect, it} from 'vitest'

import type {PermissionsConfig} from '../config/schema.js'
import type {ToolInfo} from '../downstream/types.js'

import {permissionsSchema} from '../config/schema.js'
import {namespacedName} from '../downstream/naming.js'
import {type Logger} from '../log.js'
import {parseClaudeRule, ruleMatches} from './claude-rules.js'
import {describeReason, PermissionPolicy} from './policy.js'

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

function settingsDirs(scopes: Scopes): {home: string; project: string} {
  const root = mkdtempSync(join(tmpdir(), 'ptc-perm-'))
  dirs.push(root)
  const home = join(root, 'home')
  const project = join(root, 'project')
  mkdirSync(join(home, '.claude'), {recursive: true})
  mkdirSync(join(project, '.claude'), {recursive: true})
  const write = (file: string, value: unknown) =>
    value !== undefined && writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value))
  write(join(home, '.claude', 'settings.json'), scopes.user)
  write(join(project, '.claude', 'settings.json'), scopes.project)
  write(join(project, '.claude', 'settings.local.json'), scopes.local)
  return {home, project}
}

function policyFor(
  scopes: Scopes,
  config: Partial<PermissionsConfig> = {},
  options: {logs?: string[]; watchIntervalMs?: number} = {},
): PermissionPolicy {
  const {home, project} = settingsDirs(scopes)
  const policy = new PermissionPolicy(permissionsSchema.parse(config), {
    home,
    projectDir: project,
    logger: recordingLogger(options.logs ?? []),
    watchIntervalMs: options.watchIntervalMs ?? 0,
  })
  policies.push(policy)
  return policy
}

const rules = (list: 'allow' | 'ask' | 'deny', ...entries: string[]) => ({permissions: {[list]: entries}})

describe('Claude Code rule syntax', () => {
  const target = {name: 'mcp__my_srv__get_data', server: 'my-srv'}
  const matches = (rule: string, list: 'allow' | 'ask' | 'deny' = 'deny') => {
    const parsed = parseClaudeRule(rule, list)
    return parsed !== undefined && !('ignored' in parsed) && ruleMatches(parsed, target)
  }

  it('mcp__server, mcp__server__* and exact names, in the dashed spelling Claude Code keeps', () => {
    expect(matches('mcp__my-srv')).toBe(true)
    expect(matches('mcp__my_srv')).toBe(true)
    expect(matches('mcp__my-srv__*')).toBe(true)
    expect(matches('mcp__my-srv__get-data')).toBe(true)
    expect(matches('mcp__my_srv__get_data')).toBe(true)
    expect(matches('mcp__my-srv__get-other')).toBe(false)
    expect(matches('mcp__other')).toBe(false)
    expect(matches('mcp__my')).toBe(false)
  })

  it('mcp__* covers every tool in deny and ask, and nothing in allow (as in Claude Code)', () => {
    expect(matches('mcp__*', 'deny')).toBe(true)
    expect(matches('mcp__*', 'ask')).toBe(true)
    expect(parseClaudeRule('mcp__*', 'allow')).toMatchObject({ignored: expect.stringContaining('unanchored')})
  })

  it('other rules are not about MCP tools, or match nothing, as in Claude Code', () => {
    expect(parseClaudeRule('Bash(npm test)', 'allow')).toBeUndefined()
    expect(parseClaudeRule('Read', 'deny')).toBeUndefined()
    expect(matches('mcp__my-srv__get_*')).toBe(false)
    expect(parseClaudeRule('mcp__my-srv__get_*', 'deny')).toHaveProperty('ignored')
    expect(parseClaudeRule('mcp__my-srv__get_data(x)', 'deny')).toHaveProperty('ignored')
  })
})

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
    expect(policy.approvalReason(tool('fin', 'query'))).toBeUndefined()
  })

  it('destructive tools ask by default; an allow rule (local scope) exempts them; readOnlyHint wins', () => {
    expect(policyFor({}).approvalReason(destructive)).toEqual({source: 'destructive'})
    expect(policyFor({}).approvalReason(tool('x', 'y', {destructiveHint: true, readOnlyHint: true}))).toBe(
      undefined,
    )
    expect(policyFor({}, {ask_destructive: false}).approvalReason(destructive)).toBeUndefined()
    expect(policyFor({local: rules('allow', 'mcp__github__*')}).approvalReason(destructive)).toBeUndefined()
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
    expect(dashed.approvalReason(tool('other', 'get-data'))).toBeUndefined()
    expect(dashed.hiddenBy(tool('my-srv', 'drop-all'))).toContain('settings.local.json')
    expect(dashed.hiddenBy(tool('my-srv', 'get-data'))).toBeUndefined()
  })

  it('claude_code: false ignores the settings files', () => {
    const policy = policyFor({user: rules('deny', 'mcp__*')}, {claude_code: false})
    expect(policy.hiddenBy(readOnly)).toBeUndefined()
    expect(policy.claudeFiles).toEqual([])
  })

  it('a rule Claude Code ignores is reported; a broken file is reported, not fatal', () => {
    const logs: string[] = []
    const policy = policyFor({user: rules('allow', 'mcp__*'), project: '{not json'}, {}, {logs})
    expect(policy.approvalReason(destructive)).toEqual({source: 'destructive'})
    expect(logs.join('\n')).toMatch(/rule "mcp__\*" \(permissions\.allow in .*\) is ignored/)
    expect(logs.join('\n')).toMatch(/project\/\.claude\/settings\.json is not valid JSON/)
  })

  it('follows changes to the settings files, and keeps the last rules while a file is half-written', async () => {
    const {home, project} = settingsDirs({})
    const policy = new PermissionPolicy(permissionsSchema.parse({}), {
      home,
      projectDir: project,
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

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await sleep(20)
  }
}
