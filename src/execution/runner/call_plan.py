"""What a program's text shows it will call (SPEC §12): per described tool, how many times (or
"many") and a few calls as written, for the one approval question asked before the run."""

from __future__ import annotations

import ast
from typing import Any

from . import preflight
from .arguments import literal_value

_MAX_PLAN_SAMPLES = 3
_MAX_PLAN_SAMPLE_CHARS = 200
_MANY = "many"


def _range_times(node: ast.AST) -> int | None:
    """How many items `range(<literals>)` yields, or None for anything else."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"):
        return None
    if node.keywords or not 1 <= len(node.args) <= 3:
        return None
    values = [literal_value(arg) for arg in node.args]
    if not all(type(value) is int for value in values):
        return None
    try:
        return len(range(*values))
    except (ValueError, OverflowError):
        return None


def _times(call: ast.Call, parents: dict[ast.AST, ast.AST]) -> int | str:
    """How often a call site runs, as far as the text shows: loops over `range(<literals>)`
    multiply; any other loop, a function or a lambda may run it any number of times."""
    times = 1
    child: ast.AST = call
    node = parents.get(call)
    while node is not None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.While)):
            return _MANY
        if isinstance(node, (ast.For, ast.AsyncFor)) and child in node.body:
            count = _range_times(node.iter)
            if count is None:
                return _MANY
            times *= count
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for generator in node.generators:
                count = _range_times(generator.iter)
                if count is None or generator.ifs:
                    return _MANY
                times *= count
        child, node = node, parents.get(node)
    return times


def plan(source: str, spec: Any) -> list[dict[str, Any]]:
    """The calls of described tools the program's text shows (SPEC §12): per tool, how many times
    it is called (or "many") and a few calls as written, for the one question asked before the run.
    A call through a name the program binds itself is not seen (run time asks for it)."""
    tools = spec.get("tools") if isinstance(spec, dict) and isinstance(spec.get("tools"), dict) else {}
    if not tools:
        return []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    bound, _dynamic = preflight.bound_names(tree)
    parents = preflight.parents_of(tree)
    found: dict[str, dict[str, Any]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        name = node.func.id
        if name not in tools or name in bound:
            continue
        entry = found.setdefault(name, {"tool": name, "times": 0, "samples": []})
        times = _times(node, parents)
        entry["times"] = _MANY if _MANY in (times, entry["times"]) else entry["times"] + times
        samples = entry["samples"]
        if len(samples) < _MAX_PLAN_SAMPLES:
            segment = ast.get_source_segment(source, node) or ""
            if segment and len(segment) <= _MAX_PLAN_SAMPLE_CHARS and segment not in samples:
                samples.append(segment)
    return [entry for entry in found.values() if entry["times"] != 0]
