/**
 * The bounds (SPEC §15) in one place, below the config: the schema takes its defaults and ceilings
 * from here. How large one message may be on each channel the server reads is derived here and only
 * here from the execution config: a message over its bound is refused, never buffered whole.
 */

const MiB = 1024 * 1024

/** Ceiling for one tool result (and one stored value): what the child channel carries in one message. */
export const MAX_TOOL_RESULT_CEILING = 64 * MiB

/**
 * Longest duration a `*_seconds` key may name: Node's timers hold at most 2^31-1 ms, and a longer
 * delay fires at once (every program "exceeded its limit" the moment it starts).
 */
export const MAX_TIMER_SECONDS = 2_147_483

/** `execution.max_tool_result_bytes` when the config does not set it. */
export const DEFAULT_MAX_TOOL_RESULT_BYTES = 16 * MiB

/** `execution.max_scratch_bytes` when the config does not set it. */
export const DEFAULT_MAX_SCRATCH_BYTES = 256 * MiB

/** Most files and bytes a run keeps from ./out/ (SPEC §14; runner/kept_files.py has the same). */
export const MAX_KEPT_FILES = 64
export const MAX_KEPT_BYTES = 64 * MiB

/**
 * The `state:` section's defaults (SPEC §6.2): what one session (one serve process, one `run`) keeps
 * between programs, values and ./session/ files together.
 */
export const STATE_DEFAULTS = {
  /** Bytes per session: stored values (as JSON) and ./session/ files, all told. */
  max_bytes: 64 * MiB,
  /** Bytes of one stored value, as JSON. */
  max_value_bytes: 16 * MiB,
  /** Keys stored at once. */
  max_keys: 1000,
  /** Files under ./session/ kept between programs. */
  max_session_files: 256,
} as const

/** Longest key of a stored value, in characters. */
export const MAX_STATE_KEY_CHARS = 256

/**
 * Deepest nesting of a stored value. Below the channel's own bound (MAX_JSON_DEPTH below),
 * so a value refused here is refused with a ToolError naming it, not by the framing.
 */
export const MAX_STATE_DEPTH = 64

/** The execution settings the message bounds follow (config/schema.ts ExecutionConfig). */
interface MessageConfig {
  max_output_bytes: number
  max_tool_result_bytes: number
  /** state.max_value_bytes: a store() message carries one value. */
  max_value_bytes?: number
}

/** Bytes of image a program may pass to show(), all told (SPEC §14). */
export const MAX_SHOWN_BYTES = 4 * MiB

/** Bytes of a kept ./out/ file in one `file_data` message (runner/kept_files.py CHUNK_BYTES). */
export const MAX_FILE_CHUNK_BYTES = MiB

/** Characters of base64 that carry `bytes`. */
export function base64Chars(bytes: number): number {
  return Math.ceil(bytes / 3) * 4
}

/** Room in one child message for the traceback and framing around the largest payload. */
const CHILD_MESSAGE_MARGIN_BYTES = 256 * 1024

/**
 * A line from a program's child: a call's arguments (max_tool_result_bytes), the emit() value
 * (max_output_bytes), a show() image or a chunk of a kept file as base64, a stored value
 * (state.max_value_bytes), with room around it. Also the bound on answers
 * waiting for the child to read them, and on its calls waiting to be sent.
 */
export function childMessageBytes(execution: MessageConfig): number {
  const payload = Math.max(
    execution.max_tool_result_bytes,
    execution.max_output_bytes,
    base64Chars(MAX_SHOWN_BYTES),
    base64Chars(MAX_FILE_CHUNK_BYTES),
    execution.max_value_bytes ?? 0,
  )
  return payload + CHILD_MESSAGE_MARGIN_BYTES
}

/** The SDK's own bound on a stdio message (`STDIO_DEFAULT_MAX_BUFFER_SIZE`): never less than that. */
const SDK_STDIO_MESSAGE_BYTES = 10 * MiB

/**
 * A message from a downstream server: a result of max_tool_result_bytes, which may come twice (as
 * text and as structuredContent), with its JSON-RPC around it.
 */
export function downstreamMessageBytes(execution?: Partial<MessageConfig>): number {
  const result = execution?.max_tool_result_bytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES
  return Math.max(SDK_STDIO_MESSAGE_BYTES, 2 * result + MiB)
}

/** A message from the MCP client: a program, up to the largest tool result there can be. */
export const CLIENT_MESSAGE_BYTES = MAX_TOOL_RESULT_CEILING

// A program's run (SPEC §15).

/**
 * Bound on starting a child (spawn, confinement, runner load), on a fork until both its connections
 * are in, and on the fork server's load; not part of the program's time.
 */
export const CHILD_START_TIMEOUT_MS = 30_000
/** Programs that may wait for a slot; one more is refused. */
export const MAX_WAITING_PROGRAMS = 64
/** Threads a program may run at once (SPEC §15). */
export const MAX_PROGRAM_THREADS = 256
/** A child's address space (RLIMIT_AS) before the room for parsed results: interpreter and thread stacks. */
export const CHILD_BASE_ADDRESS_SPACE_BYTES = 2048 * MiB
/** Largest file a program may write (RLIMIT_FSIZE), when its scratch bound is larger. */
export const MAX_FILE_SIZE_BYTES = 64 * MiB
/** Files a program may hold open at once (RLIMIT_NOFILE). */
export const MAX_OPEN_FILES = 256
/** Bytes of scratch per file the program may keep: its inode bound follows its byte bound. */
export const SCRATCH_BYTES_PER_FILE = 4096
/** Helper calls per program (SPEC §15); they are not counted against max_tool_calls. */
export const MAX_HELPER_CALLS = 1000
/** Distinct names looked up per program; names past it are left to the run-time checks. */
export const MAX_PREFLIGHT_NAMES = 64
/** Parameters described per tool; a tool with more gets no parameter checks before it runs. */
export const MAX_PREFLIGHT_PARAMS = 200
/** Values of an enum described before the run; a longer enum is left to the run-time check. */
export const MAX_PREFLIGHT_ENUM_VALUES = 64
/** An enum longer than this, as JSON, is left to the run-time check: the run message stays small. */
export const MAX_PREFLIGHT_ENUM_CHARS = 4096

// The child's channel (execution/protocol/protocol.ts checks them).

/** Most images one run may show() (the bytes they may hold in total: `MAX_SHOWN_BYTES`). */
export const MAX_SHOWN_IMAGES = 4
/**
 * Deepest nesting of arrays and objects accepted in a child message, the message itself included
 * (a call's arguments may nest 98 levels). Python's own encoder stops near 1,000.
 */
export const MAX_JSON_DEPTH = 100
/**
 * Most arrays and objects in one child message. Parsed, an empty object costs the server some 60
 * bytes for its 3 bytes of JSON: this bounds what a message can cost once parsed.
 */
export const MAX_JSON_CONTAINERS = 1_000_000
/**
 * Longest `done` error kept, in characters; runner.py clips its tracebacks to 20,000. A longer one
 * (only a forged `done` has it) keeps its head.
 */
export const MAX_DONE_ERROR_CHARS = 32_000
/** Deepest directory under out/ the runner descends into (out/a/b/... counts a, b, ...). */
export const MAX_KEPT_DEPTH = 8
/** Longest name of a kept file, relative to out/, in UTF-8 bytes. */
export const MAX_KEPT_NAME_BYTES = 1024

// Artifacts, caches and the fork server on disk.

/** Runs kept under the artifacts directory older than this are removed (SPEC §14). */
export const ARTIFACT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000
/** Bytes of all kept runs together; past it the oldest runs are removed (SPEC §14). */
export const ARTIFACTS_MAX_TOTAL_BYTES = 1024 * MiB
/** Schema versions of one tool kept on disk; the oldest goes when another comes. */
export const MAX_SHAPE_FILES_PER_TOOL = 4
/** Files in the cache directory; past it the oldest go. */
export const MAX_SHAPE_FILES = 512
/** Shapes held in memory (the most recently used). */
export const MAX_SHAPES_IN_MEMORY = 1024
/** A cache is a few MB for a 2 MB bundle; anything much larger is not ours. */
export const MAX_SERVE_CACHE_BYTES = 32 * MiB
/** Size of the fork server's own tmpfs (its mount point, which no child uses). */
export const ZYGOTE_TMPFS_BYTES = MiB
/** The first line a forked child sends on each connection to serve: `<token> channel|output`. */
export const MAX_FORK_HELLO_BYTES = 128
/** A line from the fork server (a forked child's pid, or its failure). */
export const MAX_FORK_SERVER_LINE_BYTES = 65_536
/** The fork server's stderr kept to explain a failed start. */
export const MAX_FORK_SERVER_STDERR_CHARS = 4096
/** Bound on one probe run: it is killed (with everything it started) after this. */
export const PROBE_TIMEOUT_MS = 20_000

// Downstream servers: connecting, listing, schemas, searching.

/**
 * Longest name that gets suggestions: the edit distance costs its length times every name's, and
 * no real name is longer (MCP tool names are at most 128 characters).
 */
export const MAX_SUGGESTED_NAME_CHARS = 128
/** How long one connection attempt may take when the server's entry does not say (SPEC §4). */
export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 30
/**
 * What `init` gives a server started by a package runner (npx, uvx...): its first start downloads
 * the package, which the default bound often does not cover.
 */
export const PACKAGE_RUNNER_CONNECT_TIMEOUT_SECONDS = 120
/** A server that sends `nextCursor` forever is cut off here rather than listed forever. */
export const MAX_TOOL_PAGES = 1000
/** Bound on the ping that checks whether a remote server is still there after a transport error. */
export const VERIFY_TIMEOUT_MS = 5000
/** A downstream server's stderr line longer than this is cut before it is logged or kept. */
export const MAX_STDERR_LINE_BYTES = 4096
/** A chain of references longer than this (or a cycle) stops being followed. */
export const MAX_REF_HOPS = 16
/**
 * Ajv keeps every schema an engine compiled for as long as the engine lives. An engine is replaced
 * after this many, so the schemas of tools that are gone (a refreshed list, a reconnected server)
 * can be collected; what was compiled before keeps working, and holds its engine while it is used.
 */
export const COMPILES_PER_ENGINE = 256
/** Values with more JSON than this are checked up to their first problem. */
export const ALL_ERRORS_MAX_CHARS = 65_536
/** Names longer than this never match a `patternProperties` pattern. */
export const MAX_PATTERN_NAME_CHARS = 256
/** Longest name or glob normalised and matched; tool names are at most 128 characters. */
export const MAX_INSPECT_PATTERN_CHARS = 256
/** Names (or globs) in one inspect_tool request; more are ignored. */
export const MAX_INSPECTED = 100
/** `list_callable_tools(query=...)` answers with at most this many tools (SPEC §5). */
export const MAX_SEARCH_RESULTS = 20
/** Words of a `list_callable_tools` query looked at; the rest are ignored. */
export const MAX_SEARCH_QUERY_WORDS = 20

// HTTP and OAuth.

/** What is read of an error answer (HTTP 4xx/5xx): enough for its message. */
export const ERROR_BODY_BYTES = 4096
/** Largest answer to an OAuth request (discovery, registration, token, revocation). */
export const OAUTH_MAX_BODY_BYTES = MiB
/** Longest an OAuth request may take, its answer read to the end. */
export const OAUTH_TIMEOUT_MS = 15_000
/** Longest a sign-in waits for the browser to come back with the authorization code. */
export const SIGN_IN_TIMEOUT_MS = 5 * 60_000
/** Longest part of an authorization endpoint's answer read to tell a refusal of the client. */
export const MAX_REFUSAL_BYTES = 4096
/** Longest the look at an authorization endpoint's refusal may take. */
export const REFUSAL_TIMEOUT_MS = 10_000

// The MCP client and the CLI.

/** How long list_callable_tools and execute_program wait for servers still on their first attempt. */
export const INITIAL_CONNECT_WAIT_MS = 5000
/** Bound on how long list / inspect / run wait for servers to finish their first connection attempt. */
export const CLI_CONNECT_WAIT_MS = 35_000
/**
 * How long downstream servers wait for the client's `initialized` before connecting anyway, and
 * the program engine for a first request before starting anyway.
 */
export const UPSTREAM_INITIALIZE_WAIT_MS = 1000
/** Longest forwarded message shown; the rest is cut with a note. */
export const MAX_FORWARDED_MESSAGE_CHARS = 4000

// Step timing (PTC_MCP_STEPS=1, the bench's --steps view; shared/steps.ts).

/** The most steps one request records: a child can add only what fits. */
export const MAX_STEPS = 32
/** A step name from the child. */
export const MAX_STEP_NAME_CHARS = 40
/** Requests whose steps are held until answered (one never answered, e.g. cancelled, stays held). */
export const MAX_STEPS_OPEN = 1024
