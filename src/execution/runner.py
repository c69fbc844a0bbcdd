"""Bootstrap of every program child (SPEC §6, §7). Standard library only, Python >= 3.10.

Started as `python -I -S -B runner.py` with an empty environment, cwd = the run's scratch dir, and
fd 3 = a private stream socket to the parent (Node's `'pipe'` stdio entry is a unix socketpair).
fd 1 and fd 2 are captured by the parent, which counts them itself; nothing written there is ever
read as a message.

Channel: newline-delimited JSON, one object per line, both ways.

  parent -> child  {"type":"start","confine":{...}|null,"limits":{...}}   first line, before confinement
  child  -> parent {"type":"ready","confine":<what apply() returned>}     confined, runner loaded
  child  -> parent {"type":"startup_failed","stage":"start|limits|confine|load","error":"..."}
  parent -> child  {"type":"run","code":"...","tools":[...],"max_emit_bytes":N,"max_call_bytes":N,
                    "end_marker":"..."}
  child  -> parent {"type":"call","id":N,"tool":"mcp__x__y","args":{...}}                 counted
  child  -> parent {"type":"helper","id":N,"name":"list_callable_tools|inspect_tool|server_status","args":{...}}
  child  -> parent {"type":"cancel","id":N}            the program stopped waiting for call N
  child  -> parent {"type":"show","mime_type":"image/...","data":base64}   show(); no answer
  parent -> child  {"type":"result","id":N,"ok":true,"value":...} | {...,"ok":false,"error":"..."}
                   "media":true: the value's "_media" entries become Media objects
  parent -> child  {"text_bytes":L,"type":"result","id":N,"ok":true} + L bytes of text + newline:
                   a tool's lone text item, unparsed; its value is its JSON if it parses, else the text
  child  -> parent {"type":"file","name":"a/b.csv"} | {"type":"file_data","data":base64}
                   | {"type":"file_skipped","name":"...","reason":"..."}   after the program, before
                   `done`: the files under ./out/ (kept_files.py)
  child  -> parent {"type":"done","ok":bool,"error":str|null,"has_result":bool,"result":...}

While the program runs, fd 2 is the stdout pipe too (one ordered stream). At the end the runner
flushes, writes `end_marker` to fd 1 (so the parent knows it has all the output even while a
wrapper still holds the pipe), points fd 1 and 2 at /dev/null, sends `done` and exits at once
(os._exit), so leftover tasks and threads cannot print later.

Confinement hook: when `start.confine` is an object, its "module" key is the absolute path of a
Python file. The runner imports it by path and calls `apply(confine)` with the whole object, after
the rlimits are set and before the program is read. `apply` may return a JSON-serialisable report
(for example {"tier": "linux:landlock+seccomp"}) that the runner passes back in `ready`. If it
raises, the child reports `startup_failed` (stage "confine") and exits.
"""

import os
import sys

_CHANNEL_FD = 3
# Where the channel lives once the runner holds it: out of the way of the descriptors a program
# opens, not inherited by anything, and fd 3 itself is closed.
_PRIVATE_FD = 255
_CO_COROUTINE = 0x80
_RUNNER_FILE = __file__ if "__file__" in globals() else ""
_CALL_FILE = "<tool call>"
_MAX_ERROR_CHARS = 20000
_READ_SIZE = 65536
# A result whose value is a tool's lone text item arrives as this header line (the parent always
# writes `text_bytes` first), then exactly `text_bytes` bytes of UTF-8 and a newline; the runner
# decodes it as JSON when it parses, else keeps the string (SPEC §6). Large results thus cross
# the channel once, unescaped, and are parsed once, here.
_TEXT_HEADER = b'{"text_bytes":'
# The first character of every JSON text, after whitespace.
_JSON_STARTS = frozenset('{["-0123456789tfn')


def _fatal_exit(code):
    os._exit(code)


class _Channel:
    """The private socket to the parent. Blocking writes; reads are blocking before the program
    runs and non-blocking (driven by the event loop) while it runs."""

    def __init__(self, sock, json_module):
        self.sock = sock
        self.partial = []
        # Complete messages, in order: a JSON line, or (JSON header line, text payload).
        self.lines = []
        # [header line, bytearray for the payload and its newline, bytes filled] while a text arrives.
        self.text = None
        self.json = json_module
        self.encode = json_module.JSONEncoder(
            ensure_ascii=False, allow_nan=False, separators=(",", ":")
        ).encode
        self.encode_ascii = json_module.JSONEncoder(
            ensure_ascii=True, allow_nan=False, separators=(",", ":")
        ).encode

    def feed(self, chunk):
        start = 0
        end = len(chunk)
        lines = self.lines
        while start < end:
            if self.text is not None:
                start = self._fill_text(chunk, start)
                continue
            nl = chunk.find(b"\n", start)
            if nl < 0:
                self.partial.append(chunk[start:])
                return
            if self.partial:
                self.partial.append(chunk[start:nl])
                line = b"".join(self.partial)
                self.partial = []
            else:
                line = chunk[start:nl]
            start = nl + 1
            if line.startswith(_TEXT_HEADER):
                size = int(line[len(_TEXT_HEADER) : line.index(b",")])
                # Room for the payload and the newline after it.
                self.text = [line, bytearray(size + 1), 0]
            else:
                lines.append(line)

    def _fill_text(self, chunk, start):
        text = self.text
        buffer, filled = text[1], text[2]
        count = min(len(buffer) - filled, len(chunk) - start)
        buffer[filled : filled + count] = memoryview(chunk)[start : start + count]
        text[2] = filled + count
        if text[2] == len(buffer):
            self._text_done()
        return start + count

    def _text_done(self):
        header, buffer, _ = self.text
        self.text = None
        del buffer[-1]  # the newline after the payload
        self.lines.append((header, buffer))

    def receive(self, flags=0):
        """One read from the socket: a chunk of lines, or straight into the text payload being
        received. Returns the number of bytes read (0: the parent is gone); with MSG_DONTWAIT,
        raises BlockingIOError when there is nothing to read."""
        text = self.text
        if text is None:
            chunk = self.sock.recv(_READ_SIZE, flags)
            if chunk:
                self.feed(chunk)
            return len(chunk)
        count = self.sock.recv_into(memoryview(text[1])[text[2] :], 0, flags)
        text[2] += count
        if text[2] == len(text[1]):
            self._text_done()
        return count

    def receive_blocking(self):
        while not self.lines:
            try:
                count = self.receive()
            except InterruptedError:
                continue
            except OSError:
                count = 0
            if not count:
                _fatal_exit(0)  # the parent is gone: nothing left to do
        return self.json.loads(self.lines.pop(0))

    def to_bytes(self, obj):
        """Serialises a message. Raises TypeError/ValueError for values that are not JSON."""
        text = self.encode(obj)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            # Lone surrogates: \\ud800 escapes are valid JSON and survive the trip.
            return self.encode_ascii(obj).encode("ascii")

    def send_bytes(self, data):
        try:
            self.sock.sendall(data + b"\n")
        except OSError:
            _fatal_exit(1)

    def send(self, obj):
        self.send_bytes(self.to_bytes(obj))


def _describe_exception(exc):
    return f"{type(exc).__name__}: {exc}"


def _tool_like_names(code_obj):
    """The names of the form mcp__<server>__<tool> that the program's code refers to."""
    found = set()
    code_type = type(code_obj)
    stack = [code_obj]
    while stack:
        code = stack.pop()
        for name in code.co_names:
            if name.startswith("mcp__"):
                end = name.find("__", 5)
                if 5 < end < len(name) - 2:
                    found.add(name)
        stack.extend(const for const in code.co_consts if type(const) is code_type)
    return found


def _set_limits(limits):
    import resource

    def hard_set(which, value):
        if value is None:
            return
        value = int(value)
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY and value > hard:
            value = hard
        resource.setrlimit(which, (value, value))

    hard_set(resource.RLIMIT_CORE, 0)
    hard_set(resource.RLIMIT_CPU, limits.get("cpu_seconds"))
    hard_set(resource.RLIMIT_FSIZE, limits.get("file_size_bytes"))
    hard_set(resource.RLIMIT_NOFILE, limits.get("open_files"))
    # Address space last: the limits above must not fail for lack of memory.
    if hasattr(resource, "RLIMIT_AS"):
        hard_set(resource.RLIMIT_AS, limits.get("address_space_bytes"))


def _apply_confine(spec):
    import importlib.util

    path = spec.get("module")
    if not isinstance(path, str) or not os.path.isabs(path):
        raise ValueError('confine spec needs an absolute "module" path')
    module_spec = importlib.util.spec_from_file_location("_ptc_confine", path)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(f"cannot load confine module {path}")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.apply(spec)


def _load_sibling(name):
    """A module next to this file, by path (the runner is not on sys.path)."""
    import importlib.util

    path = os.path.join(os.path.dirname(_RUNNER_FILE), f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"_ptc_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    # (a) Take the channel before anything else, then read the start message.
    try:
        try:
            channel_fd = os.dup2(_CHANNEL_FD, _PRIVATE_FD, inheritable=False)
        except OSError:  # an open-files limit below 256: any free descriptor will do
            channel_fd = os.dup(_CHANNEL_FD)
        os.close(_CHANNEL_FD)
        import json
        import socket

        sock = socket.socket(fileno=channel_fd)
        sock.setblocking(True)
    except Exception as exc:  # no channel: nobody to tell
        sys.stderr.write(f"ptc-mcp runner: no channel on fd {_CHANNEL_FD}: {exc}\n")
        _fatal_exit(70)
    channel = _Channel(sock, json)

    def startup_failed(stage, exc):
        channel.send({"type": "startup_failed", "stage": stage, "error": _describe_exception(exc)})
        _fatal_exit(71)

    try:
        start = channel.receive_blocking()
        if not isinstance(start, dict) or start.get("type") != "start":
            raise ValueError("expected a start message")
        # Opened before confinement: where fd 1 and 2 point after `done`.
        devnull = os.open(os.devnull, os.O_WRONLY)
    except Exception as exc:
        startup_failed("start", exc)

    # (b) Limits first (a seccomp filter may forbid setrlimit afterwards), then confinement.
    try:
        _set_limits(start.get("limits") or {})
    except Exception as exc:
        startup_failed("limits", exc)
    confine_report = None
    confine = start.get("confine")
    if confine is not None:
        try:
            confine_report = _apply_confine(confine)
            channel.to_bytes(confine_report)
        except BaseException as exc:
            startup_failed("confine", exc)

    # (c) The rest of the runtime, already confined.
    try:
        program = _load_runtime(channel, devnull)
    except BaseException as exc:
        startup_failed("load", exc)

    # (d) Ready; (e) wait for the program inside the already running event loop, so that handing
    # it over costs one wake-up; (f) run it; (g) report and exit (`program` never returns).
    channel.send({"type": "ready", "confine": confine_report})
    program()


def _load_runtime(channel, devnull):
    """Imports what programs need, warms the code paths a program takes, and returns the function
    that waits for the program, runs it and exits."""
    import ast
    import io
    import linecache
    import types

    # asyncio imports ssl for TLS transports only; programs have no network, and OpenSSL is the
    # slowest part of a child's start. Block it while asyncio loads, then let programs import it.
    saved_ssl = sys.modules.get("ssl", False)
    sys.modules["ssl"] = None
    try:
        import asyncio
    finally:
        if saved_ssl is False:
            del sys.modules["ssl"]
        else:
            sys.modules["ssl"] = saved_ssl
    import traceback  # noqa: F401  (loaded now so that formatting an error costs nothing later)
    import warnings

    habits = _load_sibling("program_habits")
    media = _load_sibling("media")
    kept_files = _load_sibling("kept_files")
    # The scratch dir (cwd before the program can change it): out/ is kept from there.
    scratch = os.getcwd()
    runner_files = frozenset((_RUNNER_FILE, habits.__file__, media.__file__, _CALL_FILE))

    top_level_await = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)

    out = io.TextIOWrapper(
        io.FileIO(1, "w", closefd=False),
        encoding="utf-8",
        errors="backslashreplace",
        line_buffering=True,
    )

    class ToolError(Exception):
        """A tool call failed. .message: what happened and what to do next; .tool: the tool's
        name; .kind: tool_error, invalid_arguments, unknown_tool, unavailable, timeout, budget,
        too_large, schema_mismatch, denied or protocol."""

        def __init__(self, message="", tool=None, kind="tool_error"):
            super().__init__(message)
            self.message = message
            self.tool = tool
            self.kind = kind

    ToolError.__module__ = "__main__"
    ToolError.__qualname__ = "ToolError"

    pending = {}
    state = {"next_id": 0, "emitted": None, "max_call_bytes": 0, "max_emit_bytes": 0, "end_marker": b""}
    sock = channel.sock
    json_loads = channel.json.loads
    to_bytes = channel.to_bytes
    send_bytes = channel.send_bytes
    lines = channel.lines
    receive = channel.receive
    dontwait = getattr(__import__("socket"), "MSG_DONTWAIT", 0)

    def reject_constant(name):
        raise ValueError(f"{name} is not JSON")

    # NaN and Infinity are Python's extensions, not JSON: such a text stays a string.
    decode_json = channel.json.JSONDecoder(parse_constant=reject_constant).decode

    def json_or_text(payload):
        """A lone text item's value: its JSON when it parses, else the string (SPEC §6)."""
        text = payload.decode("utf-8", "replace")
        # Plain prose cannot be JSON: spare it the failed parse (and its exception).
        head = text[:64].lstrip(" \t\r\n")
        if head and head[0] not in _JSON_STARTS:
            return text
        try:
            return decode_json(text)
        except (ValueError, RecursionError):
            return text

    run_waiter = loop.create_future()

    def dispatch(message):
        kind = message.get("type")
        if kind == "run":
            if not run_waiter.done():
                run_waiter.set_result(message)
            return
        if kind != "result":
            return
        entry = pending.pop(message.get("id"), None)
        if entry is None or entry[0].done():
            return
        future, tool_name = entry
        if message.get("ok"):
            text = message.get("text")
            if text is not None:
                future.set_result(json_or_text(text))
            elif message.get("media"):
                future.set_result(media.from_result(message.get("value")))
            else:
                future.set_result(message.get("value"))
        else:
            kind = message.get("kind")
            future.set_exception(
                ToolError(
                    str(message.get("error")),
                    tool=tool_name,
                    kind=kind if isinstance(kind, str) else "tool_error",
                )
            )

    def on_readable():
        while True:
            try:
                count = receive(dontwait)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                count = 0
            if not count:
                _fatal_exit(1)  # parent gone
            # A short read of lines means the socket is drained: save the syscall that says so.
            if count < _READ_SIZE and channel.text is None:
                break
        while lines:
            line = lines.pop(0)
            if type(line) is tuple:
                message = json_loads(line[0])
                message["text"] = line[1]
            else:
                message = json_loads(line)
            dispatch(message)

    async def request(message, what, tool_name):
        state["next_id"] += 1
        call_id = state["next_id"]
        message["id"] = call_id
        try:
            data = to_bytes(message)
        except (TypeError, ValueError, RecursionError) as exc:
            raise TypeError(f"{what}: arguments must be JSON-serialisable ({exc})") from None
        if len(data) > state["max_call_bytes"]:
            raise ToolError(
                f"{what}: arguments are {len(data)} bytes, over the {state['max_call_bytes']}-byte limit;"
                " pass less data per call",
                tool=tool_name,
                kind="too_large",
            )
        future = loop.create_future()
        pending[call_id] = (future, tool_name)
        send_bytes(data)
        try:
            return await future
        except asyncio.CancelledError:
            if pending.pop(call_id, None) is not None:
                send_bytes(to_bytes({"type": "cancel", "id": call_id}))
            raise

    never_awaited = habits.NeverAwaited()
    get_frame = sys._getframe

    # The coroutine of every tool call runs this code, compiled under a name of its own: a task's
    # repr ("running at ...") and its traceback frames never show the runner's path.
    call_namespace = {}
    exec(
        compile(
            "async def call(name, record, kwargs, started, request):\n"
            "    started(record)\n"
            '    return await request({"type": "call", "tool": name, "args": kwargs}, f"{name}()", name)\n',
            _CALL_FILE,
            "exec",
        ),
        call_namespace,
    )
    call_tool = call_namespace["call"]
    started = never_awaited.started

    def make_tool(name):
        # A plain function returning the call's coroutine: the line that made it is known, so a
        # call that is never awaited can be named.
        def tool(*args, **kwargs):
            if args:
                raise TypeError(
                    f"{name}() takes keyword arguments only (got {len(args)} positional);"
                    f" write: await {name}(name=value, ...)"
                )
            record = never_awaited.created(name, habits.program_line(get_frame(1)), None)
            coroutine = call_tool(name, record, kwargs, started, request)
            coroutine.__name__ = coroutine.__qualname__ = name
            record[2] = coroutine
            return coroutine

        tool.__name__ = tool.__qualname__ = name
        return tool

    def helper_args(**given):
        return {key: value for key, value in given.items() if value is not None}

    async def list_callable_tools(query=None, server=None):
        """The names of the tools this program can call; with `query`, the best 20 matches and
        their first description line; with `server`, that server's only (not counted)."""
        return await request(
            {
                "type": "helper",
                "name": "list_callable_tools",
                "args": helper_args(query=query, server=server),
            },
            "list_callable_tools()",
            "list_callable_tools",
        )

    async def inspect_tool(tool_name=None, tool_names=None, brief=False):
        """Description, schemas and Python signature of a tool, or of several (`tool_names`: a
        list, or a glob like mcp__server__*); `brief=True`: signature and first line (not counted)."""
        return await request(
            {
                "type": "helper",
                "name": "inspect_tool",
                "args": helper_args(tool_name=tool_name, tool_names=tool_names, brief=brief or None),
            },
            "inspect_tool()",
            "inspect_tool",
        )

    async def server_status():
        """Connection state of every downstream server (not counted)."""
        return await request(
            {"type": "helper", "name": "server_status", "args": {}}, "server_status()", "server_status"
        )

    def emit(value):
        """Return `value` (JSON-serialisable) as the program's structured result; the last call wins."""
        try:
            data = to_bytes(value)
        except (TypeError, ValueError, RecursionError) as exc:
            raise TypeError(f"emit() needs a JSON-serialisable value ({exc})") from None
        if len(data) > state["max_emit_bytes"]:
            raise ValueError(
                f"emit() value is {len(data)} bytes of JSON, over the {state['max_emit_bytes']}-byte"
                " limit (max_output_bytes); emit a summary instead"
            )
        state["emitted"] = data

    show = media.make_show(
        lambda mime_type, data: send_bytes(to_bytes({"type": "show", "mime_type": mime_type, "data": data}))
    )

    def user_frames(tb):
        """The program's frames: the runner's own (and what they call) are left out."""
        kept = []
        entered = False
        while tb is not None:
            is_runner = tb.tb_frame.f_code.co_filename in runner_files
            if not entered:
                if not is_runner:
                    entered = True
            elif is_runner:
                break
            if entered:
                kept.append(tb)
            tb = tb.tb_next
        rebuilt = None
        for item in reversed(kept):
            rebuilt = types.TracebackType(rebuilt, item.tb_frame, item.tb_lasti, item.tb_lineno)
        return rebuilt

    def strip_runner_frames(exc, seen):
        if exc is None or id(exc) in seen:
            return
        seen.add(id(exc))
        exc.__traceback__ = user_frames(exc.__traceback__)
        strip_runner_frames(exc.__cause__, seen)
        strip_runner_frames(exc.__context__, seen)
        for inner in getattr(exc, "exceptions", None) or ():
            if isinstance(inner, BaseException):
                strip_runner_frames(inner, seen)

    def clip(text):
        if len(text) <= _MAX_ERROR_CHARS:
            return text
        half = _MAX_ERROR_CHARS // 2
        return f"{text[:half]}\n... ({len(text) - 2 * half} characters omitted) ...\n{text[-half:]}"

    def format_error(exc, compile_time=False):
        try:
            if compile_time:
                text = "".join(traceback.format_exception_only(type(exc), exc))
            else:
                strip_runner_frames(exc, set())
                text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        except BaseException as failure:  # a hostile __str__ must not take the runner down
            text = f"{type(exc).__name__} (unprintable: {type(failure).__name__})"
        return clip(text.rstrip("\n"))

    async def execute(code_obj, program_globals):
        try:
            value = eval(code_obj, program_globals)
            if code_obj.co_flags & _CO_COROUTINE:
                await value
        except BaseException as exc:  # SystemExit and CancelledError included: both are failures
            return format_error(exc)
        return None

    def flush_everything():
        for stream in (out, sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                if stream is not None:
                    stream.flush()
            except BaseException:
                pass

    def finish(error):
        flush_everything()
        marker = state["end_marker"]
        try:
            while marker:
                marker = marker[os.write(1, marker) :]
        except OSError:
            pass
        # Whatever still runs (threads, tasks) now writes into /dev/null, and the parent sees EOF
        # on both pipes before it reads `done`.
        try:
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
        except OSError:
            pass
        # The program's ./out/ files, read with what the program may read, never through a link.
        try:
            kept_files.send_kept_files(scratch, send_bytes, to_bytes)
        except BaseException:
            pass
        head = b'{"type":"done","ok":%s,"error":%s,"has_result":%s,"result":' % (
            b"false" if error is not None else b"true",
            b"null" if error is None else to_bytes(error),
            b"true" if state["emitted"] is not None else b"false",
        )
        send_bytes(head + (state["emitted"] or b"null") + b"}")
        # Linger until the parent kills this process (or closes the channel): it does so once it
        # has answered its client, so that tearing the process down does not compete with that.
        try:
            while sock.recv(_READ_SIZE):
                pass
        except BaseException:
            pass
        _fatal_exit(0)

    async def run_program():
        run = await run_waiter
        source = run.get("code")
        if not isinstance(source, str):
            _fatal_exit(72)
        state["max_call_bytes"] = int(run.get("max_call_bytes") or 0)
        state["max_emit_bytes"] = int(run.get("max_emit_bytes") or 0)
        state["end_marker"] = str(run.get("end_marker") or "").encode("utf-8")
        # One ordered stream: what the program (or C code) writes to fd 2 goes where fd 1 goes.
        try:
            os.dup2(1, 2)
        except OSError:
            pass
        sys.stdout = sys.stderr = out
        # The source stays in linecache so tracebacks (and traceback.print_exc() inside the
        # program) show the program's own lines. mtime None: checkcache never drops it.
        linecache.cache["<program>"] = (len(source), None, source.splitlines(True), "<program>")
        try:
            code_obj = habits.compile_program(source, top_level_await)
        except UnicodeEncodeError as exc:  # a lone surrogate: the text sent is not valid Unicode
            line = source.count("\n", 0, exc.start) + 1
            column = exc.start - source.rfind("\n", 0, exc.start)
            finish(
                f"SyntaxError: the program is not valid Unicode text: lone surrogate"
                f" {source[exc.start]!r} at line {line}, column {column}"
            )
        except BaseException as exc:  # SyntaxError, ValueError (null bytes), MemoryError...
            finish(format_error(exc, compile_time=isinstance(exc, SyntaxError)))
        program_globals = {
            "__name__": "__main__",
            "__builtins__": __builtins__,
            "ToolError": ToolError,
            "Media": media.Media,
            "emit": emit,
            "show": show,
            "list_callable_tools": list_callable_tools,
            "inspect_tool": inspect_tool,
            "server_status": server_status,
        }
        for name in run.get("tools") or ():
            if isinstance(name, str) and name.isidentifier():
                program_globals[name] = make_tool(name)
        # A tool name the program uses that is not listed (its server is down, or a typo) is
        # callable too: the call raises a ToolError saying why, which the program can catch,
        # where a NameError would say nothing.
        for name in _tool_like_names(code_obj):
            if name not in program_globals:
                program_globals[name] = make_tool(name)
        habits.install_warning_hook(warnings, runner_files, never_awaited, out)

        def on_loop_error(_loop, context):
            # asyncio's own report ("Task exception was never retrieved") names the task's code
            # and frames; this one names the program's only.
            exc = context.get("exception")
            try:
                detail = f"\n{format_error(exc)}" if isinstance(exc, BaseException) else ""
                out.write(f"{context.get('message') or 'asyncio error'}{detail}\n")
            except BaseException:
                pass

        loop.set_exception_handler(on_loop_error)
        original_run = asyncio.run

        def asyncio_run(main, **options):
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # a thread of the program, with no loop of its own yet
                return original_run(main, **options)
            if asyncio.iscoroutine(main):
                main.close()
            raise RuntimeError(
                "asyncio.run() cannot be called from a running event loop: the program already"
                " runs in one, so write `await main()` (asyncio.run(main()) works only as a"
                " top-level statement)"
            )

        asyncio.run = asyncio_run
        error = await execute(code_obj, program_globals)
        if error is None:
            error = habits.not_awaited_error(never_awaited)
        else:
            hint = habits.hint_for_error(error, never_awaited)
            if hint:
                error = f"{error}\n{hint}"
        never_awaited.close_all()
        finish(error)

    def warm_up():
        """Runs the paths a program takes once, so the first real program does not pay for them."""
        code_obj = compile(
            "async def _w():\n    return 1\nawait _w()\n",
            "<warm-up>",
            "exec",
            flags=top_level_await,
            dont_inherit=True,
        )
        loop.run_until_complete(execute(code_obj, {"__builtins__": __builtins__}))
        try:
            raise NameError("warm-up")
        except NameError as exc:
            format_error(exc)
        to_bytes({"type": "call", "id": 0, "tool": "", "args": {"a": [1, "b", None]}})
        json_or_text(bytearray(b'{"a": [1, "b", null]}'))
        json_or_text(bytearray(b"not JSON"))

    def serve():
        loop.add_reader(sock.fileno(), on_readable)
        if lines:  # anything that arrived with the start message
            on_readable()
        try:
            loop.run_until_complete(run_program())
        except BaseException as exc:  # e.g. the program stopped the loop
            finish(format_error(exc))
        _fatal_exit(0)

    warm_up()
    return serve


if __name__ == "__main__":
    main()
