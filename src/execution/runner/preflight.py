"""The preflight check (SPEC §6.1): the program's AST checked against the tools in force before
anything runs. Loaded by runner.py; a tool call's arguments are checked by arguments.py.

The parent sends, in the run message's `preflight`, what it knows of the tools the program's text
names (src/execution/calls/preflight-spec.ts): per tool its signature, parameters (JSON types, enums),
required ones and whether other names are allowed; per unknown `mcp__` name the message saying so
and the closest tool's signature. Helpers are checked against their Python signatures, so a helper
added to helpers.py is known here without a list of its own. Only what is certain statically is
reported: a call through a name the program binds itself, `*args`, `**kwargs` and values computed
at run time are left to the run-time checks.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import inspect
from collections.abc import Iterable
from typing import Any

from .arguments import match_names, tool_call_problems

MAX_PROBLEMS = 20
# Names a program can bind without binding them visibly: then no name is said to be unknown.
_DYNAMIC_NAMES = frozenset({"globals", "locals", "vars", "exec", "eval", "__builtins__", "__import__"})
def bound_names(tree: ast.AST) -> tuple[set[str], bool]:
    """Every name the program binds anywhere (assignment, def, import, argument, except, match...),
    and whether it may bind names unseen (`from x import *`, globals(), exec...)."""
    bound: set[str] = set()
    dynamic = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                bound.add(node.id)
            elif node.id in _DYNAMIC_NAMES:
                dynamic = True
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    dynamic = True
                bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
    return bound, dynamic


def parents_of(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _never_awaited(call: ast.Call, parent: ast.AST | None) -> bool:
    """Whether the coroutine a call makes is certainly dropped or used as a value."""
    if isinstance(parent, ast.Expr):
        return True
    if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is call:
        return True
    if isinstance(parent, (ast.FormattedValue, ast.BinOp, ast.UnaryOp, ast.Compare)):
        return True
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is call:
        return True
    if isinstance(parent, ast.keyword):
        return False
    # An argument of a builtin (print, len, str, list...): a coroutine is never what it wants.
    return (
        isinstance(parent, ast.Call)
        and call in parent.args
        and isinstance(parent.func, ast.Name)
        and hasattr(builtins, parent.func.id)
    )


def _name_loads(tree: ast.AST, parents: dict[ast.AST, ast.AST]) -> dict[str, list[tuple[ast.AST, Any]]]:
    """Every read of each name, with the node it is read in."""
    loads: dict[str, list[tuple[ast.AST, Any]]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads.setdefault(node.id, []).append((node, parents.get(node)))
    return loads


def _await_problem(
    name: str, call: ast.Call, parent: ast.AST | None, loads: dict[str, list[tuple[ast.AST, Any]]]
) -> str | None:
    """Why the coroutine of an async call is certainly never awaited, or None. `x = load("k")` counts
    when no read of `x` anywhere may await it (each is dropped, printed, indexed...): a name that is
    awaited, passed to a function of the program's or kept in a list is left to run time."""
    if _never_awaited(call, parent):
        return f"never awaited, so it would never run: write `await {name}(...)`"
    target = None
    if isinstance(parent, ast.Assign) and parent.value is call and len(parent.targets) == 1:
        target = parent.targets[0]
    elif isinstance(parent, ast.AnnAssign) and parent.value is call:
        target = parent.target
    if not isinstance(target, ast.Name):
        return None
    if all(_never_awaited(node, node_parent) for node, node_parent in loads.get(target.id, [])):  # type: ignore[arg-type]
        return (
            f"never awaited, so {target.id} would be a coroutine, not the result:"
            f" write `{target.id} = await {name}(...)`"
        )
    return None


def _helper_call_problems(name: str, call: ast.Call, helper: Any) -> tuple[list[str], str | None]:
    """The problems of a helper call, read from the helper's own Python signature."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(kw.arg is None for kw in call.keywords):
        return [], None
    try:
        signature = inspect.signature(helper)
    except (TypeError, ValueError):
        return [], None
    try:
        signature.bind(*call.args, **{kw.arg: kw.value for kw in call.keywords})  # pyright: ignore[reportCallIssue]
        return [], None
    except TypeError as exc:
        problem = str(exc)
    names = list(signature.parameters)
    wrong = [kw.arg for kw in call.keywords if kw.arg not in signature.parameters]
    meant = match_names(wrong, [n for n in names if n not in {kw.arg for kw in call.keywords}])
    for given, right in meant.items():
        problem += f" ('{given}': did you mean '{right}'?)"
    return [problem], f"{name}{signature}"


def _unknown_name_message(name: str, program_globals: dict[str, Any]) -> str:
    candidates = [n for n in program_globals if not n.startswith("_")]
    helpers = [n for n in candidates if not n.startswith("mcp__")]
    close = difflib.get_close_matches(name, helpers, 3, 0.6)
    # A tool written without its mcp__<server>__ prefix.
    close += [n for n in candidates if n.startswith("mcp__") and n.rsplit("__", 1)[-1] == name][:3]
    hint = f"; did you mean {' or '.join(close[:3])}?" if close else ""
    return f"name '{name}' is not defined{hint}"


class _Report:
    def __init__(self) -> None:
        # (line, text, signature or None): one per call or name
        self.entries: list[tuple[int, str, str | None]] = []

    def add(self, line: int, text: str, signature: str | None = None) -> None:
        self.entries.append((line, text, signature))

    def add_call(self, line: int, name: str, problems: list[str], signature: str | None) -> None:
        """One entry per call, with all its problems."""
        if problems:
            self.add(line, f"{name}(): {'; '.join(problems)}", signature)

    def render(self) -> str | None:
        if not self.entries:
            return None
        self.entries.sort(key=lambda entry: entry[0])
        lines = []
        for line, text, signature in self.entries[:MAX_PROBLEMS]:
            lines.append(f"  line {line}: {text}")
            if signature:
                lines.append(f"    {signature}")
        if len(self.entries) > MAX_PROBLEMS:
            lines.append(f"  ... and {len(self.entries) - MAX_PROBLEMS} more")
        count = len(self.entries)
        head = (
            f"PreflightError: {count} problem{'s' if count > 1 else ''} found before the program ran;"
            " nothing ran and no tool was called. Fix "
            + ("them all" if count > 1 else "it")
            + " and run the program again:"
        )
        return "\n".join([head, *lines])


def _only_builtins(names: Iterable[str], program_globals: dict[str, Any], spec: dict[str, Any]) -> bool:
    """Whether every name the compiled program looks up by name is a builtin that no global, tool
    or unknown name shadows (print(1)): check() then finds nothing, and its AST passes are left
    out. Every name check() can report is among those names: a name the program reads without
    binding it in its function is looked up by name, and one it binds is never reported."""
    tools = spec.get("tools")
    unknown = spec.get("unknown")
    tools = tools if isinstance(tools, dict) else {}
    unknown = unknown if isinstance(unknown, dict) else {}
    builtin = builtins.__dict__
    return all(
        name in builtin and name not in program_globals and name not in tools and name not in unknown
        for name in names
    )


def check(
    source: str, program_globals: dict[str, Any], spec: Any, names: Iterable[str] | None = None
) -> str | None:
    """The PreflightError text for a program with problems, else None. `spec`: the run message's
    `preflight` ({"tools": {name: {...}}, "unknown": {name: [message, signature or None]}}).
    `names`: every name the compiled program looks up by name, when the caller has them (a
    program that looks up builtins alone is not parsed again)."""
    spec = spec if isinstance(spec, dict) else {}
    if names is not None and _only_builtins(names, program_globals, spec):
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None  # compiling it reports that
    tools = spec.get("tools") if isinstance(spec.get("tools"), dict) else {}
    unknown = spec.get("unknown") if isinstance(spec.get("unknown"), dict) else {}
    bound, dynamic = bound_names(tree)
    parents = parents_of(tree)
    loads = _name_loads(tree, parents)
    report = _Report()
    reported_unknown = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in unknown:
            if node.id not in bound and not dynamic and (node.id, node.lineno) not in reported_unknown:
                reported_unknown.add((node.id, node.lineno))
                message, signature = [*list(unknown[node.id]), None, None][:2]
                report.add(node.lineno, str(message), signature if isinstance(signature, str) else None)
            continue
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        name = node.func.id
        if name in bound:
            continue
        parent = parents.get(node)
        line = node.lineno
        if name in tools and isinstance(tools[name], dict):
            spec_of = tools[name]
            signature = spec_of.get("signature") if isinstance(spec_of.get("signature"), str) else None
            problems = tool_call_problems(node, spec_of)
            unawaited = _await_problem(name, node, parent, loads)
            if unawaited:
                problems.append(unawaited)
            report.add_call(line, name, problems, signature)
        elif name in program_globals and not name.startswith("mcp__"):
            helper = program_globals[name]
            if not callable(helper) or isinstance(helper, type):
                continue
            problems, signature = _helper_call_problems(name, node, helper)
            is_async = inspect.iscoroutinefunction(helper)
            unawaited = _await_problem(name, node, parent, loads) if is_async else None
            if unawaited:
                problems.append(unawaited)
            elif not is_async and isinstance(parent, ast.Await):
                problems.append(f"is not async: call it without await, `{name}(...)`")
            report.add_call(line, name, problems, signature)
        elif not (dynamic or hasattr(builtins, name) or name.startswith("mcp__") or name in program_globals):
            report.add(line, _unknown_name_message(name, program_globals))
    return report.render()
