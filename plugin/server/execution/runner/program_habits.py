"""How programs are written by habit, made to work or explained (SPEC §6). Loaded by runner.py.

- `asyncio.run(main())` and `<loop>.run_until_complete(main())` as top-level code (also under
  `if __name__ == "__main__":`) become `await main()`: the program already runs in an event loop.
- A coroutine that never ran (a tool call without `await`, `main()` alone) fails the run with a
  hint naming it and its line; an error about a coroutine used as a value gets the same hint.
- Warnings never show the runner's paths.
"""

from __future__ import annotations

import ast
import inspect
import sys
from types import CodeType, FrameType
from typing import Any, TextIO

PROGRAM_FILE = "<program>"
_MAX_LISTED = 3


class _LoopCallsToAwait(ast.NodeTransformer):
    """`asyncio.run(x)` / `<anything>.run_until_complete(x)` → `await x`, outside functions only."""

    def __init__(self, asyncio_names: set[str], run_names: set[str]) -> None:
        self.asyncio_names = asyncio_names
        self.run_names = run_names
        self.changed = False

    def _skip(self, node: ast.AST) -> ast.AST:
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _skip

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
            return node
        is_run = (
            isinstance(func, ast.Attribute)
            and func.attr == "run"
            and isinstance(func.value, ast.Name)
            and func.value.id in self.asyncio_names
        ) or (isinstance(func, ast.Name) and func.id in self.run_names)
        is_until_complete = isinstance(func, ast.Attribute) and func.attr == "run_until_complete"
        if not (is_run or is_until_complete):
            return node
        self.changed = True
        return ast.copy_location(ast.Await(value=node.args[0]), node)


def compile_program(source: str, flags: int) -> CodeType:
    """The program's code object, with the event-loop habits rewritten (line numbers unchanged)."""
    if "run(" not in source and "run_until_complete" not in source:
        return compile(source, PROGRAM_FILE, "exec", flags=flags, dont_inherit=True)
    tree = ast.parse(source, PROGRAM_FILE)
    asyncio_names = {"asyncio"}
    run_names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "asyncio":
                    asyncio_names.add(alias.asname or "asyncio")
        elif isinstance(node, ast.ImportFrom) and node.module == "asyncio":
            for alias in node.names:
                if alias.name == "run":
                    run_names.add(alias.asname or "run")
    rewriter = _LoopCallsToAwait(asyncio_names, run_names)
    tree = rewriter.visit(tree)
    if not rewriter.changed:
        return compile(source, PROGRAM_FILE, "exec", flags=flags, dont_inherit=True)
    ast.fix_missing_locations(tree)
    return compile(tree, PROGRAM_FILE, "exec", flags=flags, dont_inherit=True)


def program_line(frame: FrameType | None) -> int | None:
    """The line of the innermost program frame at or above `frame`, or None."""
    while frame is not None:
        if frame.f_code.co_filename == PROGRAM_FILE:
            return frame.f_lineno
        frame = frame.f_back
    return None


class NeverAwaited:
    """Coroutines the program created and has not started: tool calls (recorded when made) and
    its own coroutines (reported by Python's "never awaited" warning when dropped)."""

    def __init__(self) -> None:
        self.pending: dict[int, list[Any]] = {}  # id(record) -> [name, line, coroutine]
        # (name, line) of the program's own coroutines, dropped unstarted
        self.dropped: list[tuple[str, int | None]] = []

    def created(self, name: str, line: int | None, coroutine: Any) -> list[Any]:
        record = [name, line, coroutine]
        self.pending[id(record)] = record
        return record

    def started(self, record: list[Any]) -> None:
        self.pending.pop(id(record), None)

    def unstarted(self) -> list[tuple[str, int | None]]:
        # A coroutine closed before it started (a cancelled task) did not go unawaited.
        found = [
            (name, line)
            for name, line, coroutine in self.pending.values()
            if coroutine is not None and coroutine.cr_frame is not None
        ] + self.dropped
        return sorted(found, key=lambda item: item[1] or 0)

    def close_all(self) -> None:
        """Closes what never ran, so Python does not warn about it after the run."""
        for record in list(self.pending.values()):
            try:
                record[2].close()
            except BaseException:
                pass
        self.pending.clear()

    def describe(self) -> str | None:
        """`line 3: mcp__x__y(...) was never awaited ...`, or None when every coroutine ran."""
        found = self.unstarted()
        if not found:
            return None
        lines = []
        for name, line in found[:_MAX_LISTED]:
            where = f"line {line}: " if line else ""
            lines.append(f"  {where}{name}(...) was never awaited: write `await {name}(...)`")
        if len(found) > _MAX_LISTED:
            lines.append(f"  ... and {len(found) - _MAX_LISTED} more")
        return "\n".join(lines)


def not_awaited_error(never_awaited: NeverAwaited) -> str | None:
    """The run's error when it ended with coroutines that never ran, else None."""
    details = never_awaited.describe()
    if details is None:
        return None
    return (
        "RuntimeError: a coroutine was never awaited, so it never ran (add await):\n" + details
    )


_LOOP_RUNNING_MESSAGES = (
    "cannot be called from a running event loop",
    "This event loop is already running",
    "Cannot close a running event loop",
)


_TOP_LEVEL_ONLY = "works only as a top-level statement"
# How Python's TypeErrors name a coroutine used where its value was meant: r["x"], len(r), json.dumps(r).
_COROUTINE_AS_VALUE = ("'coroutine'", "coroutine object", "type coroutine")
_MAX_KEYS_NAMED = 3
_MAX_LOCALS_LOOKED_AT = 200


def _coroutine_used_as_value(exc: BaseException | None) -> bool:
    """Whether the exception is Python's about a coroutine used as a value: read from the
    exception's type (and for AttributeError, the object itself), not from any text."""
    if isinstance(exc, AttributeError):
        obj = getattr(exc, "obj", None)
        if obj is not None:
            return inspect.iscoroutine(obj)
        return str(exc).startswith("'coroutine' object has no attribute")
    if type(exc) is TypeError:
        text = str(exc)
        return any(words in text for words in _COROUTINE_AS_VALUE)
    return False


def _text_keys(value: dict[Any, Any]) -> list[str]:
    return [key for key, item in value.items() if type(key) is str and type(item) is str]


def _dict_passed_as_text_hint(exc: BaseException | None) -> str | None:
    """`json.loads(r)`, `re.findall(p, r)` with r a dict such as {"content": str}: Python's TypeError
    does not carry the dict, so the hint looks for it among the failing program line's variables
    (only plain dicts holding one text)."""
    if type(exc) is not TypeError or "dict" not in str(exc):
        return None
    tb = exc.__traceback__
    frame = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == PROGRAM_FILE:
            frame = tb.tb_frame
        tb = tb.tb_next
    if frame is None:
        return None
    found = [
        (name, _text_keys(value))
        for name, value in list(frame.f_locals.items())[:_MAX_LOCALS_LOOKED_AT]
        if type(name) is str and type(value) is dict and len(_text_keys(value)) == 1
    ]
    if len(found) != 1:
        return None
    name, (key,) = found[0]
    return f"hint: {name} is a dict, not a str: its text is under {key!r}: {name}[{key!r}]"


def _dict_as_text_hint(exc: BaseException | None) -> str | None:
    """`r.splitlines()` on a dict such as {"content": str}: the hint names the key holding the text."""
    if not isinstance(exc, AttributeError):
        return _dict_passed_as_text_hint(exc)
    obj = getattr(exc, "obj", None)
    name = getattr(exc, "name", None)
    if not (isinstance(obj, dict) and isinstance(name, str)) or not hasattr(str, name) or hasattr(dict, name):
        return None
    texts = _text_keys(obj)
    if len(texts) == 1:
        key = texts[0]
        return f"hint: this value is a dict, not a str: its text is under {key!r}: value[{key!r}].{name}(...)"
    keys = ", ".join(repr(key)[:40] for key in list(obj)[:_MAX_KEYS_NAMED])
    more = ", ..." if len(obj) > _MAX_KEYS_NAMED else ""
    return f"hint: this value is a dict, not a str (keys: {keys}{more}): pick the text out by its key first"


def _import_hint(exc: BaseException | None) -> str | None:
    """An import of a module that is not in the standard library (requests, pandas...)."""
    if not isinstance(exc, ModuleNotFoundError) or not isinstance(exc.name, str):
        return None
    top = exc.name.split(".", 1)[0]
    if top in getattr(sys, "stdlib_module_names", ()):
        return None
    return (
        f"hint: programs have the Python standard library only ({top!r} is not part of it):"
        " call a tool instead (list_callable_tools(query=...) finds one)"
    )


def hint_for_error(exc: BaseException | None, never_awaited: NeverAwaited) -> str | None:
    """A hint line to add to the error of the exception the program ended with, or None."""
    if _coroutine_used_as_value(exc):
        details = never_awaited.describe()
        if details:
            return "hint: a coroutine was used as a value; add await:\n" + details
        return "hint: a coroutine was used as a value; add await where it is made"
    if type(exc) is RuntimeError:
        text = str(exc)
        if any(message in text for message in _LOOP_RUNNING_MESSAGES) and _TOP_LEVEL_ONLY not in text:
            return (
                "hint: the program already runs in an event loop: call async code with `await`"
                f" (top-level await works; asyncio.run(main()) {_TOP_LEVEL_ONLY})"
            )
    return _dict_as_text_hint(exc) or _import_hint(exc)


def install_warning_hook(
    warnings_module: Any, runner_files: frozenset[str], never_awaited: NeverAwaited, out: TextIO
) -> None:
    """Warnings are printed with the program's line, never a runner path; Python's "coroutine
    'main' was never awaited" becomes part of the run's hint instead."""
    original_format = warnings_module.formatwarning

    def show(message, category, filename, lineno, file=None, line=None):
        text = str(message)
        if filename in runner_files:
            lineno = program_line(sys._getframe(1))
            filename = PROGRAM_FILE if lineno is not None else None
        if category is RuntimeWarning and text.startswith("coroutine '") and "never awaited" in text:
            name = text.split("'", 2)[1]
            never_awaited.dropped.append((name, lineno if filename == PROGRAM_FILE else None))
            return
        try:
            if filename is None:
                rendered = f"{category.__name__}: {text}\n"
            elif filename == PROGRAM_FILE:
                rendered = f"{PROGRAM_FILE}:{lineno}: {category.__name__}: {text}\n"
            else:
                rendered = original_format(message, category, filename, lineno, line)
            (file or out).write(rendered)
        except BaseException:
            pass

    warnings_module.showwarning = show
