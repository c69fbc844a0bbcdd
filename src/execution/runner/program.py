"""The one program a child runs: waits for it inside the running event loop, runs it with its tools
and helpers in its globals, reports `done` and exits (SPEC §6)."""

from __future__ import annotations

import ast
import asyncio
import builtins
import inspect
import linecache
import os
import time
import warnings
from collections.abc import Callable, Iterable
from types import CodeType
from typing import TYPE_CHECKING, Any, NoReturn

from . import (
    call_plan,
    calls,
    errors,
    helpers,
    kept_files,
    media,
    output,
    preflight,
    program_habits,
    session_files,
)

if TYPE_CHECKING:
    from .channel import Channel

_CO_COROUTINE = inspect.CO_COROUTINE


def _refuse_nested_run(original_run: Callable[..., Any]) -> Callable[..., Any]:
    """asyncio.run for a program that already runs in the event loop: refused with the fix."""

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

    return asyncio_run


def looked_up_names(code_obj: CodeType) -> set[str]:
    """Every name the program's code looks up by name (globals and builtins, attributes and
    imports too), its nested functions', classes' and comprehensions' included."""
    found: set[str] = set()
    code_type = type(code_obj)
    stack = [code_obj]
    while stack:
        code = stack.pop()
        found.update(code.co_names)
        stack.extend(const for const in code.co_consts if type(const) is code_type)
    return found


def _tool_like_names(names: Iterable[str]) -> set[str]:
    """The names of the form mcp__<server>__<tool> among `names`."""
    found = set()
    for name in names:
        if name.startswith("mcp__"):
            end = name.find("__", 5)
            if 5 < end < len(name) - 2:
                found.add(name)
    return found


class Runner:
    """Everything a run needs, made before the program arrives. `runner_files`: the runtime's paths,
    left out of tracebacks and warnings; `limits` the sandbox's limits that errors are hinted with."""

    def __init__(
        self, channel: Channel, devnull: int, runner_files: frozenset[str], limits: dict[str, Any]
    ) -> None:
        self.channel = channel
        self.runner_files = runner_files
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self.output = output.Output(devnull)
        self.never_awaited = program_habits.NeverAwaited()
        self.calls = calls.ToolCalls(
            self.loop, channel, media, program_habits, self.never_awaited
        )
        self.errors = errors.ErrorFormatter(runner_files, limits)
        # Set by the run message, and by the program's emit().
        self.max_emit_bytes = 0
        self.end_marker = b""
        self.emitted: bytes | None = None
        self.helpers = helpers.build(self)
        self.run_waiter = self.loop.create_future()
        # The exception the program ended with: hints are chosen from it, not from its text.
        self.failure: BaseException | None = None
        # The scratch dir, before the program can change directory: ./out/ is kept from there.
        self.scratch = os.getcwd()
        # The session's ./session/ files arrive before the program; its bounds with the run message.
        self.session_files = session_files.SessionFiles(self.scratch)
        self.state_limits = {}
        # Timed steps (src/shared/steps.ts), only when the run message asks: [name, ns] pairs.
        self.steps = None
        self.woke = 0
        # The tools of the run message: a saved program run by run_program() gets them too.
        self.tool_names: Iterable[Any] = ()

    def step(self, name: str) -> None:
        if self.steps is not None:
            self.steps.append([name, time.perf_counter_ns()])

    def on_readable(self) -> None:
        if not self.run_waiter.done():
            self.woke = time.perf_counter_ns()
        channel = self.channel
        channel.receive_available()
        for message, text in channel.messages():
            kind = message.get("type")
            if kind == "result":
                self.calls.on_result(message, text)
            elif kind == "session_file":
                session_file = message
                self.session_files.begin(session_file.get("name"))
            elif kind == "session_data":
                session_data = message
                self.session_files.append(session_data.get("data"))
            elif kind == "run" and not self.run_waiter.done():
                self.run_waiter.set_result(message)

    async def execute(self, code_obj: CodeType, program_globals: dict[str, Any]) -> str | None:
        """The program's error as text, or None; the exception itself is kept in `self.failure`."""
        try:
            value = eval(code_obj, program_globals)
            if code_obj.co_flags & _CO_COROUTINE:
                await value
        except BaseException as exc:  # SystemExit and CancelledError included: both are failures
            self.failure = exc
            return self.errors.format(exc)
        return None

    async def call_main(self, program_globals: dict[str, Any], arguments: dict[str, Any]) -> str | None:
        """A saved program (SPEC §17): awaits `main(**arguments)` and emits what it returns."""
        main = program_globals.get("main")
        if not inspect.iscoroutinefunction(main):
            if not arguments:
                return None
            return "TypeError: this program has no `async def main(*, ...)` to pass arguments to"
        try:
            value = await main(**arguments)
            if value is not None:
                program_globals["emit"](value)
        except BaseException as exc:
            self.failure = exc
            return self.errors.format(exc)
        return None

    async def run_saved(self, name: str, found: Any) -> Any:
        """run_program() (SPEC §17): the saved program the parent sent, in globals of its own; what
        its main() returns, else what it emitted."""
        if not isinstance(found, dict) or not isinstance(found.get("code"), str):
            raise RuntimeError("run_program(): the parent sent no program")
        source = found["code"]
        filename = f"<program {name}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        code_obj = compile(source, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
        program_globals = self.program_globals(code_obj, self.tool_names)
        emitted: list[Any] = []
        program_globals["emit"] = emitted.append
        value = eval(code_obj, program_globals)
        if code_obj.co_flags & _CO_COROUTINE:
            await value
        arguments = found.get("arguments")
        if found.get("main") is True and inspect.iscoroutinefunction(program_globals.get("main")):
            result = await program_globals["main"](**(arguments if isinstance(arguments, dict) else {}))
            if result is not None:
                return result
        return emitted[-1] if emitted else None

    def finish(self, error: str | None) -> NoReturn:
        """Ends the output, sends `done` and exits (never returns)."""
        channel = self.channel
        self.output.end(self.end_marker)
        self.step("output ended")
        # The program's ./out/ files, then its ./session/ ones, read with what the program may
        # read, never through a link.
        try:
            kept_files.send_kept_files(self.scratch, channel.send_bytes, channel.to_bytes)
        except BaseException:
            pass
        self.step("out/ sent")
        limits = self.state_limits
        if limits:
            try:
                kept_files.send_kept_files(
                    self.scratch,
                    channel.send_bytes,
                    channel.to_bytes,
                    "session",
                    int(limits.get("max_session_files") or 0),
                    int(limits.get("max_bytes") or 0),
                )
            except BaseException:
                pass
            self.step("session/ sent")
        self.step("done written")
        head = b'{"type":"done","ok":%s,"error":%s,"has_result":%s,"steps":%s,"result":' % (
            b"false" if error is not None else b"true",
            b"null" if error is None else channel.to_bytes(error),
            b"true" if self.emitted is not None else b"false",
            b"null" if self.steps is None else channel.to_bytes(self.steps),
        )
        channel.send_bytes(head + (self.emitted or b"null") + b"}")
        # Linger until the parent kills this process (or closes the channel): it does so once it
        # has answered its client, so that tearing the process down does not compete with that.
        channel.linger()
        os._exit(0)

    def compile(self, source: str) -> CodeType:
        """The program's code object; a program that does not compile ends the run here."""
        # The source stays in linecache so tracebacks (and traceback.print_exc() inside the
        # program) show the program's own lines. mtime None: checkcache never drops it.
        habits = program_habits
        name = habits.PROGRAM_FILE
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        try:
            return habits.compile_program(source, ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        except UnicodeEncodeError as exc:  # a lone surrogate: the text sent is not valid Unicode
            line = source.count("\n", 0, exc.start) + 1
            column = exc.start - source.rfind("\n", 0, exc.start)
            self.finish(
                f"SyntaxError: the program is not valid Unicode text: lone surrogate"
                f" {source[exc.start]!r} at line {line}, column {column}"
            )
        except BaseException as exc:  # SyntaxError, ValueError (null bytes), MemoryError...
            self.finish(self.errors.format(exc, compile_time=isinstance(exc, SyntaxError)))

    def program_globals(
        self, code_obj: CodeType, tools: Iterable[Any], names: set[str] | None = None
    ) -> dict[str, Any]:
        """`names`: looked_up_names(code_obj), when the caller has them."""
        # asyncio without an import (SPEC §6): fan-out examples use it, and models forget the import.
        program_globals = {
            "__name__": "__main__",
            "__builtins__": builtins,
            "asyncio": asyncio,
            **self.helpers,
        }
        make_tool = self.calls.make_tool
        for name in tools:
            if isinstance(name, str) and name.isidentifier():
                program_globals[name] = make_tool(name)
        # A tool name the program uses that is not listed (its server is down, or a typo) is
        # callable too: the call raises a ToolError saying why, which the program can catch,
        # where a NameError would say nothing.
        for name in _tool_like_names(looked_up_names(code_obj) if names is None else names):
            if name not in program_globals:
                program_globals[name] = make_tool(name)
        return program_globals

    def on_loop_error(self, _loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        # asyncio's own report ("Task exception was never retrieved") names the task's code
        # and frames; this one names the program's only.
        exc = context.get("exception")
        try:
            detail = f"\n{self.errors.format(exc)}" if isinstance(exc, BaseException) else ""
            self.output.stream.write(f"{context.get('message') or 'asyncio error'}{detail}\n")
        except BaseException:
            pass

    async def run_program(self) -> NoReturn:
        run = await self.run_waiter
        if run.get("steps") is True:
            self.steps = [["woke", self.woke]]
            self.step("run read")
        source = run.get("code")
        if not isinstance(source, str):
            os._exit(72)
        self.calls.max_call_bytes = int(run.get("max_call_bytes") or 0)
        self.max_emit_bytes = int(run.get("max_emit_bytes") or 0)
        self.end_marker = str(run.get("end_marker") or "").encode("utf-8")
        state = run.get("state")
        self.state_limits = state if isinstance(state, dict) else {}
        self.session_files.end()
        self.step("session/ ready")
        code_obj = self.compile(source)
        self.step("compiled")
        self.tool_names = run.get("tools") or ()
        names = looked_up_names(code_obj)
        program_globals = self.program_globals(code_obj, self.tool_names, names)
        # SPEC §6.1: a program with a mistake that can be seen before it runs does not run at all.
        problems = preflight.check(source, program_globals, run.get("preflight"), names)
        if problems is not None:
            self.finish(problems)
        # SPEC §12: the calls the text shows, so that one question before the run covers them.
        planned = call_plan.plan(source, run.get("preflight"))
        if planned:
            self.channel.send({"type": "plan", "calls": planned})
        self.step("preflight")
        error = await self.execute(code_obj, program_globals)
        main_args = run.get("main_args")
        if error is None and isinstance(main_args, dict):
            error = await self.call_main(program_globals, main_args)
        self.step("program")
        habits = program_habits
        if error is None:
            error = habits.not_awaited_error(self.never_awaited)
        else:
            failure = self.failure
            try:
                hint = habits.hint_for_error(failure, self.never_awaited) or self.errors.limit_hint(failure)
            except BaseException:  # a hostile __str__ or attribute: no hint, the error stands
                hint = None
            if hint:
                error = f"{error}\n{hint}"
        self.never_awaited.close_all()
        self.finish(error)

    def prepare(self) -> None:
        """What every program runs with, set up before it arrives (its run then starts sooner):
        the output stream, the warning hook, the loop's error handler, the refusal of a nested
        asyncio.run."""
        self.output.begin()
        program_habits.install_warning_hook(
            warnings, self.runner_files, self.never_awaited, self.output.stream
        )
        self.loop.set_exception_handler(self.on_loop_error)
        asyncio.run = _refuse_nested_run(asyncio.run)

    def serve(self) -> NoReturn:
        """Prepares, waits for the program, runs it and exits (never returns)."""
        self.prepare()
        channel = self.channel
        self.loop.add_reader(channel.sock.fileno(), self.on_readable)
        if channel.lines:  # anything that arrived with the start message
            self.on_readable()
        try:
            self.loop.run_until_complete(self.run_program())
        except BaseException as exc:  # e.g. the program stopped the loop
            self.finish(self.errors.format(exc))
        os._exit(0)
