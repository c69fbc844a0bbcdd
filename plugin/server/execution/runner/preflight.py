"""The preflight check (SPEC §6.1): the program's AST checked against the tools in force before
anything runs. Loaded by runner.py.

The parent sends, in the run message's `preflight`, what it knows of the tools the program's text
names (src/execution/preflight-spec.ts): per tool its signature, parameters (JSON types, enums),
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
import json
from collections.abc import Callable
from typing import Any

MAX_PROBLEMS = 20
_MAX_VALUE_CHARS = 40
# Wrong names matched to the names they most likely meant, per call; longer names are not matched.
_MAX_MATCHED = 50
_MAX_MATCHED_CHARS = 100
# Names a program can bind without binding them visibly: then no name is said to be unknown.
_DYNAMIC_NAMES = frozenset({"globals", "locals", "vars", "exec", "eval", "__builtins__", "__import__"})
_JSON_TYPE_WORDS = {
    "string": "a str",
    "integer": "an int",
    "number": "a number",
    "boolean": "a bool",
    "null": "None",
    "array": "a list",
    "object": "a dict",
}


class _Unknown:
    """A value the check cannot know (computed at run time)."""


_UNKNOWN = _Unknown()


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


def literal_value(node: ast.AST) -> Any:
    """The JSON value of a literal argument, `_UNKNOWN` when it is computed at run time; an
    f-string is a str of unknown value (`str`)."""
    if isinstance(node, ast.JoinedStr):
        return str
    if not isinstance(node, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.UnaryOp)):
        return _UNKNOWN
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNKNOWN


def _json_type(value: Any) -> str | None:
    if value is str:
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_VALUE_CHARS else text[: _MAX_VALUE_CHARS - 1] + "…"


def _value_problem(name: str | None, value: Any, param: Any, required: bool) -> str | None:
    """What is wrong with a literal value for a parameter, or None."""
    if value is _UNKNOWN or not isinstance(param, dict):
        return None
    kind = _json_type(value)
    if kind is None:
        return None
    if value is None and not required:
        return None  # an optional argument passed as None is left out
    types = param.get("types")
    if isinstance(types, list) and types:
        fits = kind in types or (kind == "integer" and "number" in types)
        if not fits:
            wanted = " or ".join(_JSON_TYPE_WORDS.get(t, t) for t in types)  # pyright: ignore[reportCallIssue, reportArgumentType]
            got = "None" if value is None else f"{_JSON_TYPE_WORDS[kind]} ({_shown(value)})"
            return f"argument '{name}' is {got}; it must be {wanted}"
    enum = param.get("enum")
    if isinstance(enum, list) and value is not str:
        try:
            wanted = {json.dumps(v, sort_keys=True) for v in enum}
            if json.dumps(value, sort_keys=True) not in wanted:
                allowed = ", ".join(_shown(v) for v in enum[:10]) + (", ..." if len(enum) > 10 else "")
                return f"argument '{name}' is {_shown(value)}, not one of {allowed}"
        except (TypeError, ValueError, RecursionError):
            return None
    return None


def _closeness(wrong: str, right: str) -> float:
    a = wrong.lower().replace("-", "_")
    b = right.lower().replace("-", "_")
    if a == b:
        return 1.0
    ratio = difflib.SequenceMatcher(None, a, b).ratio()
    if min(len(a), len(b)) >= 3 and (a in b or b in a):
        ratio = max(ratio, 0.8)
    # Short names (x, y; a, b) are near nothing by ratio: one edit away still counts.
    if len(a) <= 2 and len(b) <= 2:
        ratio = max(ratio, 0.5)
    return ratio


def match_names(
    wrong: list[Any],
    candidates: list[str],
    weigh: Callable[[Any, str], float | None] | None = None,
) -> dict[Any, str]:
    """{wrong name: the candidate it most likely meant}, one to one: two wrong names never get
    the same candidate (`get_sum(x=1, y=2)` meant a and b, not a twice). `weigh(wrong, candidate)`
    adds to the names' likeness what else is known (None: that candidate cannot be it)."""
    # Bounded: a call with thousands of made-up names costs the program's time, not much of it.
    wrong = [w for w in wrong if len(w) <= _MAX_MATCHED_CHARS][:_MAX_MATCHED]
    candidates = [c for c in candidates if len(c) <= _MAX_MATCHED_CHARS][: _MAX_MATCHED * 4]
    scored = []
    for i, w in enumerate(wrong):
        for j, c in enumerate(candidates):
            extra = weigh(w, c) if weigh else 0.0
            if extra is not None:
                scored.append((_closeness(w, c) + extra, i, j, w, c))
    pairs = sorted((-score, i, j, w, c) for score, i, j, w, c in scored if score >= 0.5)
    meant, taken = {}, set()
    for _score, _i, _j, w, c in pairs:
        if w in meant or c in taken:
            continue
        meant[w] = c
        taken.add(c)
    return meant


def _fits(value: Any, param: Any) -> bool:
    """Whether a literal value can be given to a parameter of the tool's schema (unknown: yes)."""
    kind = _json_type(value) if value is not _UNKNOWN else None
    types = param.get("types") if isinstance(param, dict) else None
    if kind is None or not isinstance(types, list) or not types:
        return True
    return kind in types or (kind == "integer" and "number" in types)


def _argument_weigher(
    call: ast.Call, params: dict[str, Any], required: list[str]
) -> Callable[[Any, str], float | None]:
    """What a wrong keyword's value and the schema say about which parameter was meant: one whose
    type cannot take the value was not (`file="a.txt"` is not `tail`, a number), and a required one
    left out most likely was (`file` meant `path`), however unlike the names are."""
    values = {kw.arg: literal_value(kw.value) for kw in call.keywords if kw.arg is not None}

    def weigh(wrong: Any, candidate: str) -> float | None:
        if not _fits(values.get(wrong, _UNKNOWN), params.get(candidate)):
            return None
        return 0.5 if candidate in required else 0.0

    return weigh


def _tool_call_problems(call: ast.Call, spec: dict[str, Any]) -> list[str]:
    """The problems of one call of a tool the parent described."""
    problems = []
    positional = [arg for arg in call.args if not isinstance(arg, ast.Starred)]
    if positional:
        problems.append(f"takes keyword arguments only (got {len(positional)} positional)")
    params = spec.get("params") if isinstance(spec.get("params"), dict) else None
    required = [name for name in spec.get("required") or () if isinstance(name, str)]
    given = [kw.arg for kw in call.keywords if kw.arg is not None]
    unpacked = any(kw.arg is None for kw in call.keywords) or len(positional) < len(call.args)
    meant = {}
    if params is not None and not spec.get("open"):
        unexpected = [name for name in given if name not in params]
        unused = [name for name in params if name not in given]
        meant = match_names(unexpected, unused, _argument_weigher(call, params, required))
        for name in unexpected:
            if name in meant:
                problems.append(f"unexpected argument '{name}' (did you mean '{meant[name]}'?)")
            elif params:
                problems.append(f"unexpected argument '{name}' (accepted: {', '.join(params)})")
            else:
                problems.append(f"unexpected argument '{name}' (this tool takes no arguments)")
    if not unpacked:
        # A required name already suggested for a wrong one is not listed again.
        missing = [name for name in required if name not in given and name not in meant.values()]
        if missing:
            listed = ", ".join(f"'{name}'" for name in missing)
            problems.append(f"missing required argument{'s' if len(missing) > 1 else ''} {listed}")
    if params is not None:
        for kw in call.keywords:
            if kw.arg in params:
                problem = _value_problem(kw.arg, literal_value(kw.value), params[kw.arg], kw.arg in required)
                if problem:
                    problems.append(problem)
    return problems


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


def check(source: str, program_globals: dict[str, Any], spec: Any) -> str | None:
    """The PreflightError text for a program with problems, else None. `spec`: the run message's
    `preflight` ({"tools": {name: {...}}, "unknown": {name: [message, signature or None]}})."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None  # compiling it reports that
    spec = spec if isinstance(spec, dict) else {}
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
            problems = _tool_call_problems(node, spec_of)
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
