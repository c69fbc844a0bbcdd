import {z} from 'zod'

import {SANDBOX_SETTINGS} from '../sandbox/index.js'
import {isRecord} from '../shared/guards.js'
import {
  DEFAULT_MAX_SCRATCH_BYTES,
  DEFAULT_MAX_TOOL_RESULT_BYTES,
  MAX_STATE_KEY_CHARS,
  MAX_TOOL_RESULT_CEILING,
  SCRATCH_BYTES_PER_FILE,
  STATE_DEFAULTS,
} from '../shared/limits.js'
import {normaliseName, serverPrefix} from '../shared/naming.js'
import {flowsSchema, permissionsSchema, toolsSchema} from './rules-schema.js'
import {isHttpUrl, positiveInt, positiveSeconds} from './schema-parts.js'
import {oauthSchema, serverSchema} from './transports.js'

/**
 * The single source of truth for config.yaml (SPEC §3): the types below, the JSON Schema shipped as
 * config.schema.json and the comments of config.example.yaml all follow it. The schema validates the
 * file *after* `${VAR}` expansion (see expand.ts), so string fields that may hold `${VAR}` carry no
 * format in the JSON Schema and are checked here with refinements instead.
 */

/** A problem with a config, before it is formatted: where (`['servers', 1, 'url']`) and what. */
export interface ConfigIssue {
  path: readonly PropertyKey[]
  message: string
  /** An environment variable the value names is not set: fixed in the environment, not the file. */
  unsetVariable?: string
}

/**
 * A section left empty in YAML (`servers:` with every entry commented out) parses as null: treat it as
 * absent rather than as a mistake, so commenting out the last entry never breaks a config.
 */
function section<T extends z.ZodType>(schema: T, fallback: z.output<T>) {
  return schema
    .default(fallback as never)
    .nullable()
    .transform((value): z.output<T> => value ?? fallback)
}

export const executionSchema = z
  .strictObject({
    timeout_seconds: positiveSeconds(
      'Wall-clock limit for a whole program, CPU-bound code included.',
    ).default(120),
    max_output_bytes: positiveInt('Cap on printed output (UTF-8 bytes) and on the emit() value.').default(
      65_536,
    ),
    sandbox: z
      .enum(SANDBOX_SETTINGS)
      .default('auto')
      .describe(
        'auto: seatbelt on macOS, linux on Linux. none: no OS isolation (explicit opt-in). An unavailable backend refuses to run.',
      ),
    max_tool_calls: positiveInt(
      'Tool calls a program may send; calls past it are refused, never sent (queued ones included); the helpers are not counted.',
    ).default(100),
    max_concurrent_calls: positiveInt('Tool calls in flight at once per program.').default(8),
    tool_call_timeout_seconds: positiveSeconds('Limit for one tool call.').default(60),
    trace: z
      .enum(['summary', 'full', 'off'])
      .default('summary')
      .describe(
        'summary: append a summary of tool calls (count, failures) to the output. full: the summary, and every call with its arguments in the structured content. off: nothing.',
      ),
    max_tool_result_bytes: positiveInt(
      `Largest tool result passed to a program, in bytes (at most ${MAX_TOOL_RESULT_CEILING}).`,
      MAX_TOOL_RESULT_CEILING,
    ).default(DEFAULT_MAX_TOOL_RESULT_BYTES),
    max_scratch_bytes: positiveInt(
      `Bytes a program may keep in its scratch directory (a private tmpfs; one file per ${SCRATCH_BYTES_PER_FILE / 1024} KiB of it).`,
    ).default(DEFAULT_MAX_SCRATCH_BYTES),
    python: z
      .string()
      .min(1)
      .default('python3')
      .describe('Python interpreter (>= 3.10) for programs: a name on PATH or a path.'),
    warm_pool: z
      .number()
      .int()
      .min(0)
      .default(1)
      .describe(
        'Sandboxed interpreters started ahead of time, each used once (0 = off). On Linux (forked, ~5 MB each), twice max_concurrent_programs wait ready, so programs sent at once start at once.',
      ),
    max_concurrent_programs: positiveInt(
      'Programs run at once; up to 64 more wait in a queue (with progress), beyond that they are refused.',
    ).default(4),
    artifacts_dir: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Where files a program leaves are kept, one directory per run, pruned after 7 days or beyond 1 GiB (default: $XDG_STATE_HOME/ptc-mcp/artifacts).',
      ),
    record_samples: z
      .boolean()
      .default(false)
      .describe(
        "inspect_tool's observed_result shows the shapes of results seen (types, keys, list lengths); true adds short samples of the values.",
      ),
  })
  .describe('How programs run.')

export const stateSchema = z
  .strictObject({
    max_bytes: positiveInt(
      'Bytes one session keeps between programs: stored values (as JSON) and ./session/ files, all told.',
    ).default(STATE_DEFAULTS.max_bytes),
    max_value_bytes: positiveInt(
      `Largest value one store() keeps, as JSON (at most ${MAX_TOOL_RESULT_CEILING}).`,
      MAX_TOOL_RESULT_CEILING,
    ).default(STATE_DEFAULTS.max_value_bytes),
    max_keys: positiveInt(
      `Keys stored at once per session, each at most ${MAX_STATE_KEY_CHARS} characters.`,
    ).default(STATE_DEFAULTS.max_keys),
    max_session_files: positiveInt(
      'Files under ./session/ kept for the next program, within max_bytes.',
    ).default(STATE_DEFAULTS.max_session_files),
  })
  .describe(
    'What programs keep for the next ones (store(), load(), ./session/): in memory, for the life of one serve process (one client session) or one `ptc-mcp run` (unless --state FILE).',
  )

export const serveSchema = z
  .strictObject({
    always_load: z
      .boolean()
      .default(true)
      .describe(
        "execute_program is loaded on Claude Code's first turn (_meta anthropic/alwaysLoad), without a tool search first; false defers it like other MCP tools.",
      ),
  })
  .describe('How `ptc-mcp serve` presents its tools to the client (SPEC §5).')

const gatewayOAuthSchema = z
  .strictObject({
    issuer: z
      .string()
      .refine(isHttpUrl, 'expected a URL (http:// or https://)')
      .describe("The authorization server's issuer URL, as tokens' iss claim names it. ${VAR} expanded."),
    jwks_uri: z
      .string()
      .refine(isHttpUrl, 'expected a URL (http:// or https://)')
      .describe(
        "Where the issuer publishes its signing keys (JWKS), e.g. its metadata's jwks_uri. ${VAR} expanded.",
      ),
    resource: z
      .string()
      .refine(isHttpUrl, 'expected a URL (http:// or https://)')
      .describe(
        'The /mcp URL clients reach (https://mcp.example.com/mcp): the RFC 9728 resource, and the audience tokens must name unless audience is set. ${VAR} expanded.',
      ),
    audience: z
      .string()
      .min(1)
      .optional()
      .describe('The aud tokens must carry. Default: resource. ${VAR} expanded.'),
    principal_claim: z
      .string()
      .min(1)
      .default('sub')
      .describe("The token's claim that names the principal (their state, approvals and limits)."),
    scopes: z
      .array(z.string().min(1))
      .default([])
      .describe('Scopes every token must carry (scope or scp claim); advertised in the metadata.'),
  })
  .describe(
    "OAuth 2.1 resource server: JWT access tokens checked against the issuer's JWKS (signature, iss, aud, exp).",
  )

export const gatewaySchema = z
  .strictObject({
    auth: z
      .strictObject({
        bearer: z
          .array(
            z.strictObject({
              principal: z
                .string()
                .regex(/^[\w.@-]{1,64}$/, 'letters, digits, _ . @ - (at most 64)')
                .describe('Who presents this token: their state and paused programs are theirs alone.'),
              token: z
                .string()
                .min(1)
                .describe('The bearer token, from the environment: "${ALICE_TOKEN}". Never logged.'),
            }),
          )
          .default([])
          .describe('Bearer tokens, one per principal (`Authorization: Bearer ...`).'),
        oauth: gatewayOAuthSchema.optional(),
      })
      .default({bearer: []})
      .describe(
        'Who may call `serve --http`. Required when listening beyond loopback; when set, it applies on loopback too.',
      ),
    store: z
      .string()
      .regex(/^(memory|rediss?:\/\/\S+)$/, 'memory, or a redis:// URL')
      .default('memory')
      .describe(
        'Where state and paused programs live: memory (one replica), or redis://host:port shared by replicas. ${VAR} expanded.',
      ),
    state_idle_seconds: positiveSeconds("A principal's state expires after this long without use.").default(
      86_400,
    ),
    shutdown_seconds: positiveSeconds('On SIGTERM, how long running programs may take to finish.').default(
      30,
    ),
    per_principal: z
      .strictObject({
        max_concurrent_programs: positiveInt(
          'Programs one principal may have running at once in each replica (paused ones count).',
        ).default(4),
        programs_per_minute: positiveInt(
          'Programs one principal may start in a minute, across replicas when gateway.store is Redis.',
        ).default(60),
      })
      .default({max_concurrent_programs: 4, programs_per_minute: 60})
      .describe(
        "Each principal's share of the gateway: a program over a limit is refused, and nothing runs.",
      ),
    metrics_auth: z
      .boolean()
      .default(false)
      .describe('/metrics asks for a token of gateway.auth, as /mcp does (false: it answers anyone).'),
  })
  .describe('The team gateway (`ptc-mcp serve --http`): who may call it, and where replicas share state.')

export const telemetrySchema = z
  .strictObject({
    otlp: z
      .string()
      .regex(/^https?:\/\/\S+$/, 'an http:// or https:// URL')
      .optional()
      .describe(
        "Where spans are sent by OTLP/HTTP (JSON): the collector's base URL, e.g. http://127.0.0.1:4318 (/v1/traces is added). Unset: OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else no telemetry.",
      ),
    arguments: z
      .boolean()
      .default(false)
      .describe(
        "Put the program's code and each tool call's arguments in the spans (gen_ai.tool.call.arguments). Default: names, outcomes, durations and sizes only.",
      ),
  })
  .describe(
    "OpenTelemetry spans (SPEC §18): one per program, one per tool call, joined to the traceparent in the request's _meta and passed on to HTTP servers.",
  )

export const PROGRAM_SAVE_POLICIES = ['ask', 'allow', 'deny'] as const

export const programsSchema = z
  .strictObject({
    dirs: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "More directories of saved programs, after the project's .ptc-mcp/programs/ and the user's $XDG_CONFIG_HOME/ptc-mcp/programs/ (the first found wins on a name clash). Relative paths: from the config file's directory.",
      ),
    expose: z
      .boolean()
      .default(true)
      .describe(
        'List each saved program as a tool of serve (false: only run_program() and the CLI reach them).',
      ),
    save: z
      .enum(PROGRAM_SAVE_POLICIES)
      .default('ask')
      .describe(
        "execute_program's save_as: ask the user (elicitation) before saving, allow without asking, or deny saving.",
      ),
  })
  .describe(
    'Saved programs (SPEC §17): a program that worked, kept as a .py file, becomes a tool of its own.',
  )

/**
 * Server names must stay unique after normalisation (`my-srv` and `my_srv` both become `my_srv`).
 * Written against unknown data: with `when` it also runs when other parts of the file are invalid.
 */
function checkUniqueServerNames(config: unknown, ctx: z.core.$RefinementCtx): void {
  if (!isRecord(config) || !Array.isArray(config.servers)) return
  const first = new Map<string, {index: number; name: string}>()
  for (const [index, server] of (config.servers as unknown[]).entries()) {
    if (!isRecord(server) || typeof server.name !== 'string') continue
    const normalised = normaliseName(server.name)
    const earlier = first.get(normalised)
    if (!earlier) {
      first.set(normalised, {index, name: server.name})
      continue
    }

    const same = earlier.name === server.name
    ctx.addIssue({
      code: 'custom',
      path: ['servers', index, 'name'],
      input: server.name,
      message: same
        ? `duplicate server name "${server.name}" (also servers[${earlier.index}])`
        : `server name "${server.name}" clashes with "${earlier.name}" (servers[${earlier.index}]): both become ${serverPrefix(server.name)}*`,
    })
  }
}

export const configSchema = z
  .strictObject({
    servers: section(z.array(serverSchema), []).describe(
      'Downstream MCP servers whose tools programs may call. Default: none (ptc-mcp starts with no tools).',
    ),
    tools: section(toolsSchema, {}).describe(toolsSchema.description ?? ''),
    permissions: section(permissionsSchema, permissionsSchema.parse({})).describe(
      permissionsSchema.description ?? '',
    ),
    execution: section(executionSchema, executionSchema.parse({})).describe(
      executionSchema.description ?? '',
    ),
    state: section(stateSchema, stateSchema.parse({})).describe(stateSchema.description ?? ''),
    flows: section(flowsSchema, flowsSchema.parse({})).describe(flowsSchema.description ?? ''),
    serve: section(serveSchema, serveSchema.parse({})).describe(serveSchema.description ?? ''),
    gateway: section(gatewaySchema, gatewaySchema.parse({})).describe(gatewaySchema.description ?? ''),
    programs: section(programsSchema, programsSchema.parse({})).describe(programsSchema.description ?? ''),
    telemetry: section(telemetrySchema, telemetrySchema.parse({})).describe(
      telemetrySchema.description ?? '',
    ),
    connect_timeout_seconds: positiveSeconds(
      "Default for every server's connect_timeout_seconds: the bound on one connection attempt (a first npx start downloads the package: raise it).",
    )
      .optional()
      // Applied to the servers when set (see validateConfig); unset, the engine's 30 s holds.
      .meta({default: 30}),
  })
  .superRefine(checkUniqueServerNames, {when: () => true})
  .describe('ptc-mcp configuration')

export type Config = z.infer<typeof configSchema>
export type ExecutionConfig = z.infer<typeof executionSchema>
export type StateConfig = z.infer<typeof stateSchema>
export type ServeConfig = z.infer<typeof serveSchema>
export type GatewayConfig = z.infer<typeof gatewaySchema>
export type ToolsConfig = z.infer<typeof toolsSchema>
export type PermissionsConfig = z.infer<typeof permissionsSchema>
export type FlowsConfig = z.infer<typeof flowsSchema>
export type ProgramsConfig = z.infer<typeof programsSchema>
export type TelemetryConfig = z.infer<typeof telemetrySchema>

export {MAX_TOOL_RESULT_CEILING} from '../shared/limits.js'
export {FLOW_ACTIONS, flowsSchema, permissionsSchema, toolsSchema} from './rules-schema.js'
export {isHttpUrl} from './schema-parts.js'
export {
  DEFAULT_TRANSPORT,
  isRemoteServer,
  isStdioServer,
  oauthSchema,
  type RemoteServerConfig,
  type ServerConfig,
  serverSchema,
  type StdioServerConfig,
  TRANSPORT_KINDS,
  transportEntry,
  type TransportKind,
  TRANSPORTS,
} from './transports.js'

export type OAuthConfig = z.infer<typeof oauthSchema>
