"""What a saved program declares (SPEC §17), read from its AST without running it: its description
(the module docstring), its parameters (the keyword-only parameters of a top-level
`async def main(*, ...)`) as a JSON Schema, and the tools and saved programs it calls.

Run by src/programs/analyze.ts with the configured Python: stdin is a JSON list of sources, stdout
a JSON list of findings in the same order. Standard library only; the program is parsed, never run.
"""

from __future__ import annotations

import ast
import json
import sys
from typing import Any

_PLAIN = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "list": {"type": "array"},
    "dict": {"type": "object"},
    "None": {"type": "null"},
}
_LISTS = {"list", "List", "Sequence"}
_DICTS = {"dict", "Dict", "Mapping"}
_WRITTEN_AS = "str, int, float, bool, list[T], dict[str, T], Literal[...] or T | None"
_PLAIN_VALUES = "Literal[...] takes plain values (strings, numbers, booleans)"


class AnnotationError(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def _name_of(node: ast.AST) -> str | None:
    """`list`, `typing.List` -> `List`; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    return None


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str) and "enum" not in schema:
        return {**schema, "type": [kind, "null"]}
    if isinstance(kind, list):
        return schema if "null" in kind else {**schema, "type": [*kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _literal_values(node: ast.expr) -> list[Any]:
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    values = []
    for item in items:
        try:
            value = ast.literal_eval(item)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise AnnotationError(item.lineno, _PLAIN_VALUES) from None
        if not (value is None or isinstance(value, (str, int, float, bool))):
            raise AnnotationError(item.lineno, _PLAIN_VALUES)
        values.append(value)
    return values


def _literal_schema(values: list[Any]) -> dict[str, Any]:
    kinds = set()
    for value in values:
        if isinstance(value, bool):
            kinds.add("boolean")
        elif isinstance(value, int):
            kinds.add("integer")
        elif isinstance(value, float):
            kinds.add("number")
        elif isinstance(value, str):
            kinds.add("string")
    schema: dict[str, Any] = {"enum": values}
    if len(kinds) == 1 and None not in values:
        schema = {"type": kinds.pop(), **schema}
    return schema


def schema_of(node: ast.AST) -> dict[str, Any]:
    """The JSON Schema of one annotation; AnnotationError naming the line when there is none."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            parsed = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            raise AnnotationError(node.lineno, f"annotation {node.value!r} is not Python") from None
        ast.increment_lineno(parsed, node.lineno - 1)
        return schema_of(parsed)
    name = _name_of(node)
    if name is not None and name in _PLAIN:
        return dict(_PLAIN[name])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [node.left, node.right]
        nones = [side for side in sides if _name_of(side) == "None"]
        if len(nones) == 1:
            other = sides[0] if nones[0] is sides[1] else sides[1]
            return _nullable(schema_of(other))
        return {"anyOf": [schema_of(side) for side in sides]}
    if isinstance(node, ast.Subscript):
        outer = _name_of(node.value)
        inner = node.slice
        if outer in _LISTS:
            return {"type": "array", "items": schema_of(inner)}
        if outer in _DICTS:
            keys = inner.elts[0] if isinstance(inner, ast.Tuple) and len(inner.elts) == 2 else None
            if not (isinstance(inner, ast.Tuple) and keys is not None and _name_of(keys) == "str"):
                raise AnnotationError(
                    node.lineno, "a dict parameter is dict[str, T]: JSON object keys are strings"
                )
            return {"type": "object", "additionalProperties": schema_of(inner.elts[1])}
        if outer == "Literal":
            return _literal_schema(_literal_values(inner))
        if outer == "Optional":
            return _nullable(schema_of(inner))
    shown = ast.unparse(node)
    raise AnnotationError(
        getattr(node, "lineno", 0),
        f"cannot turn the annotation `{shown}` into a JSON Schema: write {_WRITTEN_AS}",
    )


def _default(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise AnnotationError(
            node.lineno, "a default must be a plain value (a string, number, list...)"
        ) from None


def _main_schema(main: ast.AsyncFunctionDef) -> dict[str, Any]:
    args = main.args
    positional = [*args.posonlyargs, *args.args]
    if positional or args.vararg:
        first = positional[0] if positional else args.vararg
        raise AnnotationError(
            first.lineno if first else main.lineno,
            "main takes keyword-only parameters: write `async def main(*, name: type, ...)`",
        )
    if args.kwarg:
        raise AnnotationError(args.kwarg.lineno, "main cannot take **kwargs: name each parameter")
    properties: dict[str, Any] = {}
    required = []
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if arg.annotation is None:
            raise AnnotationError(arg.lineno, f"parameter '{arg.arg}' has no annotation: write {_WRITTEN_AS}")
        schema = schema_of(arg.annotation)
        if default is None:
            required.append(arg.arg)
        else:
            value = _default(default)
            if value is None:
                schema = _nullable(schema)
            schema["default"] = value
        properties[arg.arg] = schema
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def _calls(tree: ast.Module, main: ast.AST | None) -> tuple[list[str], list[str], bool, bool]:
    """The tools called (mcp__ names), the saved programs run (run_program("name")), whether
    some run_program name is computed, and whether the module calls main() itself."""
    tools: list[str] = []
    programs: list[str] = []
    dynamic = False
    calls_main = False
    inside_main = {id(node) for node in ast.walk(main)} if main is not None else set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        name = node.func.id
        if name.startswith("mcp__") and name not in tools:
            tools.append(name)
        elif name == "run_program":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                if first.value not in programs:
                    programs.append(first.value)
            else:
                dynamic = True
        elif name == "main" and id(node) not in inside_main:
            calls_main = True
    return tools, programs, dynamic, calls_main


def analyze(source: str) -> dict[str, Any]:
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return {"error": {"line": exc.lineno or 0, "message": f"SyntaxError: {exc.msg}"}}
    except (ValueError, MemoryError, RecursionError) as exc:
        return {"error": {"line": 0, "message": f"{type(exc).__name__}: {exc}"}}
    docstring = ast.get_docstring(tree)
    main = next(
        (node for node in tree.body if isinstance(node, ast.AsyncFunctionDef) and node.name == "main"), None
    )
    sync_main = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"), None)
    tools, programs, dynamic, calls_main = _calls(tree, main)
    found: dict[str, Any] = {
        "docstring": docstring,
        "tools": tools,
        "programs": programs,
        "dynamic_programs": dynamic,
        "main": main is not None and not calls_main,
    }
    try:
        if sync_main is not None and main is None:
            raise AnnotationError(sync_main.lineno, "main must be `async def main(*, ...)`")
        if main is not None and not calls_main:
            found["schema"] = _main_schema(main)
        else:
            found["schema"] = {"type": "object", "properties": {}, "additionalProperties": False}
    except AnnotationError as exc:
        found["error"] = {"line": exc.line, "message": exc.message}
    return found


def main() -> None:
    sources = json.loads(sys.stdin.read())
    not_text = {"error": {"line": 0, "message": "the program is not text"}}
    findings = [analyze(source) if isinstance(source, str) else not_text for source in sources]
    sys.stdout.write(json.dumps(findings))


if __name__ == "__main__":
    main()
