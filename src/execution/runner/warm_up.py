"""A program's paths run before it arrives, so that it does not pay for them (SPEC §11): a forked
child's pages are the fork server's until written, and the first run of a path in a child copies
the ones it touches. A fork server runs all the paths once (warm_fork_server), so that what they
build on first use (the AST's types, caches, specialised bytecode) is in the pages its children
share; a child of one then runs a trivial program's own path alone, a spawned child all of them.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import linecache
import os
import socket
from typing import TYPE_CHECKING

from . import call_plan, kept_files, preflight, program_habits
from .program import Runner, looked_up_names

if TYPE_CHECKING:
    from .channel import Channel

# Whether this process's image ran a program's paths already (a fork server did, before its
# children were forked from it): then warm_up runs a trivial program's path alone.
_paths_warmed = False


def warm_paths(runner: Runner) -> None:
    """Runs the paths a program takes, up to what it would print or send, without the scratch
    directory: compiled, run in the loop, an error formatted, the preflight check, the plan, the
    channel's encoders and decoders, and a trivial program's own path (warm_program_path)."""
    code_obj = compile(
        "async def _w():\n    return 1\nawait _w()\n",
        "<warm-up>",
        "exec",
        flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
        dont_inherit=True,
    )
    runner.loop.run_until_complete(runner.execute(code_obj, {"__builtins__": builtins}))
    try:
        raise NameError("warm-up")
    except NameError as exc:
        runner.errors.format(exc)
    preflight.check("r = await mcp__a__b(x=1)\nprint(r)\n", {}, {"tools": {"mcp__a__b": {}}})
    channel = runner.channel
    channel.to_bytes({"type": "call", "id": 0, "tool": "", "args": {"a": [1, "b", None]}})
    channel.text_value(bytearray(b'{"a": [1, "b", null]}'))
    channel.text_value(bytearray(b"not JSON"))
    preflight.check("len(str(1))\n", {}, {"tools": {}, "unknown": {}})
    call_plan.plan("await mcp__a__b(x=1)\n", {"tools": {"mcp__a__b": {}}})
    warm_program_path(runner)


def warm_program_path(runner: Runner) -> None:
    """A trivial program's own path, up to what it would print: a run message parsed (by a
    channel of its own, fed by hand: nothing is read from or sent to the parent), compiled,
    given its globals, checked and run (it prints nothing)."""
    channel = runner.channel
    probe = type(channel)(channel.sock)
    probe.feed(b'{"code":"len(str(1))\\n","tools":["mcp__a__b"],"type":"run"}\n')
    for run, _ in probe.messages():
        source = str(run.get("code"))
        code_obj = runner.compile(source)
        names = looked_up_names(code_obj)
        program_globals = runner.program_globals(code_obj, run.get("tools") or [], names)
        preflight.check(source, program_globals, {"tools": {}, "unknown": {}}, names)
        runner.loop.run_until_complete(runner.execute(code_obj, program_globals))
    linecache.cache.pop(program_habits.PROGRAM_FILE, None)
    runner.failure = None


def warm_up(runner: Runner) -> None:
    """A child's warm-up before `ready`: a trivial program's own path when a fork server ran
    them all (~0.6 ms of CPU here; all of them: ~1.8 ms; none: 0.15-0.3 ms more latency for
    print(1)), else all of them. Then ./session/ and its scan for `done`."""
    if _paths_warmed:
        warm_program_path(runner)
    else:
        warm_paths(runner)
    # ./session/ exists when the program starts, even empty (SPEC §6.2).
    runner.session_files.make_root()
    kept_files.send_kept_files(runner.scratch, lambda _line: None, runner.channel.to_bytes, "session", 1, 1)


def warm_fork_server(channel_type: type[Channel], runner_files: frozenset[str]) -> None:
    """Runs a program's paths once in a fork server (warm_paths), with a Runner of its own over a
    socket pair that is closed afterwards, like its loop: nothing of it is left but what the paths
    built on first use, which the children then share."""
    global _paths_warmed
    mine, other = socket.socketpair()
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        runner = Runner(channel_type(mine), devnull, runner_files, {})
        try:
            warm_paths(runner)
            _paths_warmed = True
        finally:
            runner.loop.close()
            asyncio.set_event_loop(None)
    finally:
        mine.close()
        other.close()
        os.close(devnull)
