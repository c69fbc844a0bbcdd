"""A tool call's arguments against the tool's schema, for the preflight check (SPEC §6.1): the
literal values a program passes, their JSON types, the parameter a wrong keyword most likely meant.
Only what is certain statically is reported: a value computed at run time is UNKNOWN, and fits."""

from __future__ import annotations

import ast
import difflib
import json
from collections.abc import Callable
from typing import Any

_MAX_VALUE_CHARS = 40
# Wrong names matched to the names they most likely meant, per call; longer names are not matched.
_MAX_MATCHED = 50
_MAX_MATCHED_CHARS = 100
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


UNKNOWN = _Unknown()


def literal_value(node: ast.AST) -> Any:
    """The JSON value of a literal argument, `UNKNOWN` when it is computed at run time; an
    f-string is a str of unknown value (`str`)."""
    if isinstance(node, ast.JoinedStr):
        return str
    if not isinstance(node, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.UnaryOp)):
        return UNKNOWN
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return UNKNOWN


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
    if value is UNKNOWN or not isinstance(param, dict):
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
    kind = _json_type(value) if value is not UNKNOWN else None
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
        if not _fits(values.get(wrong, UNKNOWN), params.get(candidate)):
            return None
        return 0.5 if candidate in required else 0.0

    return weigh


def tool_call_problems(call: ast.Call, spec: dict[str, Any]) -> list[str]:
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
