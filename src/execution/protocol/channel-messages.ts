/**
 * The channel between the engine and a program child, written down once (SPEC §6): newline-delimited
 * JSON on fd 3 of the child, one object per line, both ways. Every message: who sends it, when, and
 * its fields besides `type`. The TypeScript side (protocol.ts's types and its parser of the child's
 * messages) and the Python side (src/execution/runner/: what it sends, what it reads) are checked
 * against this table by channel-messages.integration.test.ts: a field added on one side only fails that test.
 */
export const CHANNEL_MESSAGES = {
  start: {
    from: 'parent',
    when: 'the first line, before the child confines itself (a forked child gets it from the fork server instead)',
    fields: {
      confine: "the sandbox backend's object for confine.py's apply() (its `module` path), or null",
      limits:
        "rlimits the child sets on itself, soft = hard, the CPU limit's hard one a second above (ChildLimits)",
    },
  },
  ready: {
    from: 'child',
    when: 'confined, the runner loaded: waiting for the program',
    fields: {confine: 'what apply() returned (e.g. {"tier": ...}), or null'},
  },
  startup_failed: {
    from: 'child',
    when: 'instead of ready; the child then exits',
    fields: {stage: 'start, limits, confine or load', error: 'the exception, as text'},
  },
  run: {
    from: 'parent',
    when: 'once, after ready: hands the program over',
    fields: {
      code: "the program's source",
      tools: 'namespaced tool names bound as async functions in its globals',
      preflight:
        'what the preflight check (runner/preflight.py) knows of the tools the text names: {tools: {name: {signature, params, required, open}}, unknown: {name: [message, the closest tool signature or null]}}',
      max_emit_bytes: 'largest emit() value, as JSON (UTF-8 bytes)',
      max_call_bytes: 'largest call or helper message; bigger arguments raise ToolError before sending',
      end_marker: 'written to fd 1 after the final flush: the output is complete',
      state:
        'the session bounds (max_value_bytes, max_bytes, max_session_files): store() and ./session/ are checked against them in the child too',
      steps: 'present (true) only when serve times steps (PTC_MCP_STEPS=1, shared/steps.ts)',
      main_args:
        'present only for a saved program (SPEC §17): the runner awaits main(**main_args) after the module and emits what it returns (unless None)',
    },
  },
  session_file: {
    from: 'parent',
    when: "before run: a file of the session's ./session/ begins (its data follows); the child writes it there",
    fields: {name: 'its path under session/, with / (checked when it came out)'},
  },
  session_data: {
    from: 'parent',
    when: 'the next bytes of that file; it ends at the next session_file or run',
    fields: {data: 'base64 of at most MAX_FILE_CHUNK_BYTES (limits.ts)'},
  },
  call: {
    from: 'child',
    when: 'the program calls a tool (counted); `id` comes last, so a refused line still names it',
    fields: {tool: 'mcp__<server>__<tool>', args: 'the keyword arguments', id: 'positive, unique per run'},
  },
  helper: {
    from: 'child',
    when: 'the program calls a helper the parent answers (program-helpers.ts; not counted)',
    fields: {name: 'a name of PROGRAM_HELPERS', args: 'the arguments given', id: 'as for call'},
  },
  plan: {
    from: 'child',
    when: 'after the preflight check, before the program runs, when its text calls described tools; no answer (SPEC §12: one question before the run)',
    fields: {
      calls:
        'per tool: {tool, times: how many calls the text shows or "many" (a loop, a function), samples: up to 3 calls as written}',
    },
  },
  cancel: {
    from: 'child',
    when: 'the program stopped waiting for a call; no answer',
    fields: {id: 'the call'},
  },
  show: {
    from: 'child',
    when: 'show(); no answer',
    fields: {mime_type: 'image/...', data: 'base64'},
  },
  file: {
    from: 'child',
    when: 'after the program, before done: a regular file of ./out/, then of ./session/, begins (runner/kept_files.py)',
    fields: {name: 'its path under out/ (or session/), with /', area: 'out or session'},
  },
  file_data: {
    from: 'child',
    when: 'the next bytes of that file; it ends at the next file, file_skipped or done',
    fields: {data: 'base64 of at most MAX_FILE_CHUNK_BYTES (limits.ts)'},
  },
  file_skipped: {
    from: 'child',
    when: 'an entry of ./out/ or ./session/ not sent (a link, too deep, over the limits...); no answer',
    fields: {
      name: 'its path under out/ (or session/)',
      reason: 'a FILE_SKIPPED_REASONS value',
      area: 'out or session',
    },
  },
  result: {
    from: 'parent',
    when: 'answers a call or helper',
    fields: {
      id: 'the request answered',
      ok: 'true: `value`; false: `error` and `kind`',
      value: 'the result',
      media: "true: the value's `_media` entries become Media objects",
      error: 'what failed and what to do next',
      kind: 'a ToolErrorKind',
      text_bytes:
        'a tool\'s lone text item: the line {"text_bytes":L,"type":"result","id":N,"ok":true}, then L bytes of text and a newline; the value is its JSON if it parses, else the text',
    },
  },
  done: {
    from: 'child',
    when: 'the program ended, its output complete; the child then waits to be killed',
    fields: {
      ok: 'false: the program failed',
      error: 'its traceback (clipped), or null',
      has_result: 'emit() was called',
      result: "emit()'s last value, or null",
      steps: "when the run asked: the child's steps as [name, perf_counter_ns] pairs; else null",
    },
  },
} as const satisfies Record<string, ChannelMessage>

interface ChannelMessage {
  from: 'child' | 'parent'
  when: string
  fields: Record<string, string>
}

export type ChannelMessageType = keyof typeof CHANNEL_MESSAGES

/** The fields of message `T`, besides `type`. */
export type ChannelFields<T extends ChannelMessageType> = keyof (typeof CHANNEL_MESSAGES)[T]['fields']
