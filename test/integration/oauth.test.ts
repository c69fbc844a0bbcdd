// @tier integration
import type {AddressInfo} from 'node:net'

// OAuth sign-in end to end (SPEC §13): a fixture authorization server and the MCP server it
// protects (streamable HTTP and SSE) on loopback, `ptc-mcp auth` with a $BROWSER script that
// follows the consent redirects, then `serve` and `run` calling the protected tools, through token
// expiry, refresh, a revoked refresh token and a new sign-in.
import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  registerClient,
  startAuthorization,
} from '@modelcontextprotocol/client'
import {spawn} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {fileURLToPath} from 'node:url'
import {afterEach, describe, expect, it} from 'vitest'

import {type OAuthFixture, type OAuthFixtureOptions, startOAuthFixture} from '../fixtures/oauth-fixture.js'
import {type RawServe, startRawServe} from '../helpers/json-rpc.js'
import {type Finished, spawnCollect} from '../helpers/processes.js'
import {execute, waitForListing} from '../helpers/serve-session.js'
import {BIN, prepareServe, type ServeSetup} from '../helpers/serve.js'

const BROWSER_SCRIPT = fileURLToPath(new URL('../fixtures/oauth-browser.mjs', import.meta.url))

interface Scenario {
  fixture: OAuthFixture
  setup: ServeSetup
  stateDir: string
  browserLog: string
  /** Every byte ptc-mcp showed anyone: CLI output, serve's log and protocol, program output. */
  shown: string[]
  cli(args: string[]): Promise<Finished>
}

const open: Array<() => Promise<void> | void> = []

afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close()
})

interface ScenarioOptions {
  /** Put `oauth:` in the config (default true): its value is `oauth` (default {}). */
  oauthKey?: boolean
  oauth?: Record<string, unknown>
  ttl?: number
  fixture?: Partial<OAuthFixtureOptions>
  env?: Record<string, string>
}

async function scenario(transport: 'http' | 'sse', options: ScenarioOptions = {}): Promise<Scenario> {
  const fixture = await startOAuthFixture({transport, accessTtlSeconds: options.ttl, ...options.fixture})
  open.push(() => fixture.close())
  const server = {
    name: 'issues',
    transport,
    url: fixture.url,
    ...(options.oauthKey === false ? {} : {oauth: options.oauth ?? {}}),
  }
  const setup = prepareServe({servers: [server], execution: {timeout_seconds: 30}})
  open.push(() => setup.cleanup())
  const stateDir = mkdtempSync(join(tmpdir(), 'ptc-oauth-state-'))
  open.push(() => rmSync(stateDir, {recursive: true, force: true}))
  const browserLog = join(stateDir, 'browser.log')
  setup.env.XDG_STATE_HOME = stateDir
  setup.env.BROWSER = `${process.execPath} ${BROWSER_SCRIPT}`
  setup.env.OAUTH_BROWSER_LOG = browserLog
  // Everything at debug level, so the secret check sees every line ptc-mcp could log.
  setup.env.PTC_MCP_LOG_LEVEL = 'debug'
  Object.assign(setup.env, options.env)
  const shown: string[] = []
  const cli = async (args: string[]): Promise<Finished> => {
    const {done} = spawnCollect(process.execPath, [BIN, ...args, '--config', setup.configPath], {
      env: setup.env,
    })
    const finished = await done
    shown.push(finished.stdout, finished.stderr)
    return finished
  }
  return {fixture, setup, stateDir, browserLog, shown, cli}
}

async function serve(s: Scenario): Promise<RawServe> {
  const raw = await startRawServe(s.setup)
  open.push(async () => {
    s.shown.push(raw.stderr(), JSON.stringify(raw.lines.all))
    await raw.kill()
  })
  return raw
}

/** Runs a program through serve and keeps what it returned for the secret check. */
async function program(s: Scenario, raw: RawServe, code: string) {
  const result = await execute(raw, code)
  s.shown.push(result.text, JSON.stringify(result.structured))
  return result
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

const WHOAMI = 'r = await mcp__issues__whoami()\nprint(r["client"], r["scope"])'
const TRY_WHOAMI = `try:
    r = await mcp__issues__whoami()
    print("ok", r["client"])
except ToolError as e:
    print("error", e.kind, e.message)`

function expectNoSecrets(s: Scenario): void {
  const secrets = s.fixture.secrets()
  expect(secrets.length).toBeGreaterThan(3)
  const text = s.shown.join('\n')
  for (const secret of secrets)
    expect(text.includes(secret), `a token or code was shown: ${secret.slice(0, 4)}...`).toBe(false)
}

describe('ptc-mcp auth', () => {
  it('signs in through discovery, dynamic registration and PKCE, keeps the tokens 0700/0600, and run calls the tool', async () => {
    const s = await scenario('http')
    const signedIn = await s.cli(['auth', 'issues', '--json'])
    expect(signedIn.code, signedIn.stderr).toBe(0)
    // The URL is always printed; the browser got exactly that URL, with a PKCE S256 challenge.
    const opened = readFileSync(s.browserLog, 'utf8').trim()
    expect(signedIn.stderr).toContain(opened)
    expect(new URL(opened).searchParams.get('code_challenge_method')).toBe('S256')
    expect(new URL(opened).origin).toBe(s.fixture.issuer)
    expect(s.fixture.stats).toMatchObject({registrations: 1, codeExchanges: 1, pkceFailures: 0})
    const result = JSON.parse(signedIn.stdout) as {
      action: string
      scopes: string[]
      expires: string
      path: string
    }
    expect(result).toMatchObject({action: 'sign-in', scopes: ['tools', 'offline_access']})
    expect(Date.parse(result.expires)).toBeGreaterThan(Date.now())

    const dir = join(s.stateDir, 'ptc-mcp', 'oauth')
    expect(statSync(dir).mode.toString(8)).toMatch(/700$/)
    const files = readdirSync(dir)
    expect(files).toHaveLength(1)
    expect(statSync(join(dir, files[0]!)).mode.toString(8)).toMatch(/600$/)
    expect(join(dir, files[0]!)).toBe(result.path)

    const script = join(s.stateDir, 'whoami.py')
    writeFileSync(script, WHOAMI)
    const run = await s.cli(['run', script])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/^client-\S+ tools offline_access$/m)

    const listed = await s.cli(['auth', '--list', '--json'])
    expect(JSON.parse(listed.stdout)).toMatchObject({
      servers: [
        {server: 'issues', state: 'signed-in', refreshable: true, scopes: ['tools', 'offline_access']},
      ],
    })
    const list = await s.cli(['list'])
    expect(list.stdout).toMatch(/issues: signed in, expires \S+ \(refreshed automatically\)/)

    const logout = await s.cli(['auth', 'issues', '--logout'])
    expect(logout.code, logout.stderr).toBe(0)
    expect(logout.stdout).toMatch(/tokens revoked at the authorization server; local tokens deleted/)
    expect(s.fixture.stats.revocations).toBe(2)
    expect(readdirSync(dir)).toEqual([])
    const after = await s.cli(['auth', '--list'])
    expect(after.stdout).toMatch(/issues\s+needs sign-in\s.*run `ptc-mcp auth issues`/m)
    const doctor = await s.cli(['doctor', '--json'])
    const check = (
      JSON.parse(doctor.stdout) as {checks: Array<{id: string; detail: string; fix?: string}>}
    ).checks.find((c) => c.id === 'server:issues')
    expect(check).toMatchObject({
      detail: expect.stringMatching(/needs sign-in/),
      fix: 'run `ptc-mcp auth issues`',
    })
    expectNoSecrets(s)
  })

  it('signs in with a client registered in advance (client_id, a ${VAR} secret, a fixed callback_port); --no-browser only prints the URL', async () => {
    const port = await freePort()
    const secret = 'client-secret-value-7f3a9c'
    const s = await scenario('http', {
      oauth: {
        client_id: 'ptc-local',
        client_secret: '${ISSUES_SECRET}',
        callback_port: port,
        scopes: ['tools'],
      },
      fixture: {
        preRegistered: {
          client_id: 'ptc-local',
          client_secret: secret,
          redirect_uri: `http://127.0.0.1:${port}/callback`,
        },
      },
      env: {ISSUES_SECRET: secret},
    })
    // The user: reads the printed URL and opens it.
    const child = spawn(
      process.execPath,
      [BIN, 'auth', 'issues', '--no-browser', '--config', s.setup.configPath],
      {
        env: s.setup.env,
      },
    )
    let stderr = ''
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    const printed = new Promise<string>((resolve) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk
        const url = /^ {2}(http\S+)$/m.exec(stderr)?.[1]
        if (url) resolve(url)
      })
    })
    const exited = new Promise<number | null>((resolve) => {
      child.once('close', resolve)
    })
    const url = await printed
    expect(new URL(url).searchParams.get('redirect_uri')).toBe(`http://127.0.0.1:${port}/callback`)
    const consent = await fetch(url, {redirect: 'follow'})
    expect(await consent.text()).toMatch(/Signed in/)
    expect(await exited, stderr).toBe(0)
    s.shown.push(stdout, stderr)
    expect(() => statSync(s.browserLog)).toThrow() // no browser was started
    expect(s.fixture.stats).toMatchObject({registrations: 0, codeExchanges: 1})
    // The configured scope, plus offline_access (the SDK asks for it when the server offers refresh tokens).
    expect(s.fixture.grantedScopes).toEqual(['tools offline_access'])
    // The secret stays in the config: the store has only the tokens.
    const dir = join(s.stateDir, 'ptc-mcp', 'oauth')
    const stored = readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8')
    expect(stored).not.toContain(secret)
    expect(JSON.parse(stored)).not.toHaveProperty('client')

    const script = join(s.stateDir, 'whoami.py')
    writeFileSync(script, WHOAMI)
    const run = await s.cli(['run', script, '--json'])
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ok: true, output: 'ptc-local tools offline_access\n'})
    const raw = await serve(s)
    await waitForListing(raw, ['issues'], (l) => l.names.includes('mcp__issues__whoami'), {what: 'connected'})
    s.fixture.expireAccessTokens()
    expect((await program(s, raw, TRY_WHOAMI)).text).toMatch(/^ok ptc-local/m)
    expect(s.fixture.stats.refreshes).toBe(1)
    await raw.kill()
    s.shown.push(raw.stderr(), JSON.stringify(raw.lines.all))
    expectNoSecrets(s)
  })

  it('enforces PKCE: the code exchange fails with a wrong verifier and works with the right one', async () => {
    const fixture = await startOAuthFixture({transport: 'http'})
    open.push(() => fixture.close())
    const metadata = await discoverAuthorizationServerMetadata(fixture.issuer)
    const redirectUrl = 'http://127.0.0.1:9/callback'
    const client = await registerClient(fixture.issuer, {
      metadata,
      clientMetadata: {redirect_uris: [redirectUrl], token_endpoint_auth_method: 'none'},
    })
    const codeFor = async (): Promise<{code: string; verifier: string}> => {
      const {authorizationUrl, codeVerifier} = await startAuthorization(fixture.issuer, {
        metadata,
        clientInformation: client,
        redirectUrl,
        resource: new URL(fixture.url),
      })
      let next = authorizationUrl.href
      for (;;) {
        const response = await fetch(next, {redirect: 'manual'})
        const location = response.headers.get('location') ?? ''
        if (location.startsWith(redirectUrl))
          return {code: new URL(location).searchParams.get('code')!, verifier: codeVerifier}
        expect(response.status).toBe(302)
        next = location
      }
    }
    const exchange = (code: string, codeVerifier: string) =>
      exchangeAuthorization(fixture.issuer, {
        metadata,
        clientInformation: client,
        authorizationCode: code,
        codeVerifier,
        redirectUri: redirectUrl,
        resource: new URL(fixture.url),
      })
    const first = await codeFor()
    await expect(exchange(first.code, `${first.verifier}x`)).rejects.toThrow(/PKCE verification failed/)
    expect(fixture.stats.pkceFailures).toBe(1)
    const second = await codeFor()
    await expect(exchange(second.code, second.verifier)).resolves.toMatchObject({token_type: 'Bearer'})
  })
})

describe.each(['http', 'sse'] as const)('serve with an OAuth server over %s', (transport) => {
  it('needs sign-in until `auth`, refreshes expired tokens mid-session, needs sign-in again when refresh is refused, and comes back without a restart', async () => {
    // No `oauth:` key: the server's 401 with protected-resource metadata is enough.
    const s = await scenario(transport, {oauthKey: false})
    const raw = await serve(s)
    const needs = await waitForListing(raw, ['issues'], (l) => l.unavailable.issues !== undefined, {
      what: 'unavailable',
    })
    expect(needs.unavailable.issues).toBe('needs sign-in: run `ptc-mcp auth issues`')
    const before = {...s.fixture.stats}
    // No retry storm: three initial backoffs later, nobody was asked anything again.
    await sleep(3000)
    expect(s.fixture.stats).toEqual(before)
    expect(before).toMatchObject({unauthorized: 1, registrations: 0, refreshes: 0})

    const signedIn = await s.cli(['auth', 'issues'])
    expect(signedIn.code, signedIn.stderr).toBe(0)
    await waitForListing(raw, ['issues'], (l) => l.names.includes('mcp__issues__whoami'), {what: 'signed in'})
    expect((await program(s, raw, WHOAMI)).text).toMatch(/^client-\S+ tools offline_access$/m)
    expect(s.fixture.stats.refreshes).toBe(0)

    // The access token stops working mid-session: the next call refreshes and succeeds.
    s.fixture.expireAccessTokens()
    const refreshed = await program(s, raw, TRY_WHOAMI)
    expect(refreshed.text).toMatch(/^ok client-/m)
    expect(s.fixture.stats.refreshes).toBe(1)

    // The refresh token is revoked too: the call fails with the fix, the server needs sign-in.
    s.fixture.revokeAll()
    const refused = await program(s, raw, TRY_WHOAMI)
    expect(refused.text).toMatch(
      /^error unavailable server 'issues' needs sign-in: run `ptc-mcp auth issues`/m,
    )
    const listing = await waitForListing(raw, ['issues'], (l) => l.unavailable.issues !== undefined, {
      what: 'needs sign-in',
    })
    expect(listing.unavailable.issues).toBe('needs sign-in: run `ptc-mcp auth issues`')
    expect(s.fixture.stats.refusedRefreshes).toBe(1)

    // A new sign-in while serve runs: the server comes back by itself.
    const again = await s.cli(['auth', 'issues'])
    expect(again.code, again.stderr).toBe(0)
    await waitForListing(raw, ['issues'], (l) => l.names.includes('mcp__issues__whoami'), {what: 'back'})
    expect((await program(s, raw, TRY_WHOAMI)).text).toMatch(/^ok client-/m)
    // No retry storm: the refused refresh token was tried once, never again.
    expect(s.fixture.stats.refusedRefreshes).toBe(1)
    const status = await program(s, raw, 'import json\nprint(json.dumps(await server_status()))')
    expect(status.text).toContain('"connected": true')

    await raw.kill()
    s.shown.push(raw.stderr(), JSON.stringify(raw.lines.all))
    expectNoSecrets(s)
  })
})

describe('a server that names its OAuth metadata only at the well-known URL', () => {
  it('is recognised from its bare Bearer 401, signs in, and connects without a restart', async () => {
    const s = await scenario('http', {oauthKey: false, fixture: {challengeMetadata: false}})
    const raw = await serve(s)
    const needs = await waitForListing(raw, ['issues'], (l) => l.unavailable.issues !== undefined, {
      what: 'unavailable',
    })
    expect(needs.unavailable.issues).toBe('needs sign-in: run `ptc-mcp auth issues`')
    const signedIn = await s.cli(['auth', 'issues'])
    expect(signedIn.code, signedIn.stderr).toBe(0)
    await waitForListing(raw, ['issues'], (l) => l.names.includes('mcp__issues__whoami'), {what: 'signed in'})
    expect((await program(s, raw, WHOAMI)).text).toMatch(/^client-\S+ tools offline_access$/m)
    await raw.kill()
    s.shown.push(raw.stderr(), JSON.stringify(raw.lines.all))
    expectNoSecrets(s)
  })

  it('a server that answers 401 without OAuth metadata keeps the plain HTTP 401 reason', async () => {
    const s = await scenario('http', {
      oauthKey: false,
      fixture: {challengeMetadata: false, resourceMetadata: false},
    })
    const raw = await serve(s)
    const listing = await waitForListing(raw, ['issues'], (l) => l.unavailable.issues !== undefined, {
      what: 'unavailable',
    })
    expect(listing.unavailable.issues).toMatch(/^HTTP 401 Unauthorized/)
  })
})

describe('redaction of OAuth tokens', () => {
  it('takes a token a server quotes back out of the ToolError the program sees', async () => {
    const s = await scenario('sse')
    expect((await s.cli(['auth', 'issues'])).code).toBe(0)
    const raw = await serve(s)
    await waitForListing(raw, ['issues'], (l) => l.names.includes('mcp__issues__leak'), {what: 'connected'})
    const code = 'try:\n    await mcp__issues__leak()\nexcept ToolError as e:\n    print(e.message)'
    expect((await program(s, raw, code)).text).toMatch(/^token \[redacted\] is not allowed here$/m)
    await raw.kill()
    s.shown.push(raw.stderr(), JSON.stringify(raw.lines.all))
    expectNoSecrets(s)
  })
})

describe('token refresh before expiry', () => {
  it('refreshes an access token about to expire before using it, without a 401', async () => {
    const s = await scenario('http', {ttl: 4})
    expect((await s.cli(['auth', 'issues'])).code).toBe(0)
    const raw = await serve(s)
    await waitForListing(raw, ['issues'], (l) => l.names.includes('mcp__issues__whoami'), {what: 'connected'})
    const {unauthorized} = s.fixture.stats
    const file = readdirSync(join(s.stateDir, 'ptc-mcp', 'oauth'))[0]!
    const record = JSON.parse(readFileSync(join(s.stateDir, 'ptc-mcp', 'oauth', file), 'utf8')) as {
      obtained_at: number
    }
    // A quarter of the 4 s lifetime before expiry, the token is refreshed before it is sent.
    const due = record.obtained_at + 3000 + 50
    await sleep(Math.max(0, due - Date.now()))
    expect((await program(s, raw, TRY_WHOAMI)).text).toMatch(/^ok client-/m)
    expect(s.fixture.stats.refreshes).toBeGreaterThanOrEqual(1)
    expect(s.fixture.stats.unauthorized).toBe(unauthorized)
    await raw.kill()
    s.shown.push(raw.stderr())
    expectNoSecrets(s)
  })
})

describe('sign-in that recovers by itself', () => {
  it('an authorization server restarted with its registrations forgotten: `auth` registers again and completes without --logout', async () => {
    const s = await scenario('http')
    const first = await s.cli(['auth', 'issues'])
    expect(first.code, first.stderr).toBe(0)
    s.fixture.forgetEverything()
    const again = await s.cli(['auth', 'issues', '--json'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain(
      `The authorization server of "issues" does not know ptc-mcp's stored registration (HTTP 400: invalid_client: Client ID not found); registering again.`,
    )
    expect(s.fixture.stats.registrations).toBe(2)
    // The browser was sent to the new registration's page only: twice in all, never to the error page.
    const opened = readFileSync(s.browserLog, 'utf8').trim().split('\n')
    expect(opened).toHaveLength(2)
    expect(new URL(opened[1]!).searchParams.get('client_id')).not.toBe(
      new URL(opened[0]!).searchParams.get('client_id'),
    )
    expect(JSON.parse(again.stdout)).toMatchObject({action: 'sign-in', refreshable: true})
    const raw = await serve(s)
    await waitForListing(raw, ['issues'], (l) => l.names.includes('mcp__issues__whoami'), {what: 'signed in'})
    expect((await program(s, raw, TRY_WHOAMI)).text).toMatch(/^ok client-/m)
    expectNoSecrets(s)
  })

  for (const challengeMetadata of [true, false]) {
    it(`auth --list still shows a server found from its 401 after --logout (metadata ${challengeMetadata ? 'in the challenge' : 'at the well-known URL only'})`, async () => {
      const s = await scenario('http', {oauthKey: false, fixture: {challengeMetadata}})
      expect((await s.cli(['auth', 'issues'])).code).toBe(0)
      expect((await s.cli(['auth', 'issues', '--logout'])).code).toBe(0)
      const listed = await s.cli(['auth', '--list', '--json'])
      expect(JSON.parse(listed.stdout)).toMatchObject({
        servers: [{server: 'issues', state: 'needs-sign-in', fix: 'run `ptc-mcp auth issues`'}],
      })
    })
  }

  it('a server that answers a token it forgot with HTTP 500 is reported as a sign-in that may have expired', async () => {
    const s = await scenario('http', {fixture: {unknownTokenStatus: 500}})
    const signedIn = await s.cli(['auth', 'issues'])
    expect(signedIn.code, signedIn.stderr).toBe(0)
    s.fixture.forgetEverything()
    const raw = await serve(s)
    const listing = await waitForListing(raw, ['issues'], (l) => l.unavailable.issues !== undefined, {
      what: 'unavailable',
    })
    expect(listing.unavailable.issues).toMatch(
      /HTTP 500.*; sign-in may have expired: run `ptc-mcp auth issues`$/,
    )
    expectNoSecrets(s)
  })
})
