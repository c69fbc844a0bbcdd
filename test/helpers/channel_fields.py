"""What the runner's Python sends and reads on the channel, read from its source (for
src/execution/protocol/channel-messages.integration.test.ts). argv: the runner's directory; prints JSON:

  {"sends": {type: [field, ...]}, "reads": {type: [field, ...]}, "asks": [helper name, ...]}

- sends: every dict literal whose first key is "type" with a constant value, and every bytes
  literal that begins {"type":"<t>" (a message written as bytes);
- reads: `<t>.get("field")` and `<t>["field"]` where <t> is a variable named after the message
  type it holds (start, run, result), "type" left out;
- asks: the constant first argument of every `ask(...)` / `<x>.ask(...)` call.
"""

import ast
import json
import os
import re
import sys

BYTES_MESSAGE = re.compile(rb'^\{"type":"(\w+)"')
BYTES_FIELD = re.compile(rb'"(\w+)":')


def scan(directory, received):
    sends, reads, asks = {}, {}, set()
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(directory, name), encoding="utf-8") as file:
            tree = ast.parse(file.read(), name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and node.keys:
                first = node.keys[0]
                value = node.values[0]
                if (
                    isinstance(first, ast.Constant)
                    and first.value == "type"
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ):
                    fields = sends.setdefault(value.value, set())
                    fields.update(key.value for key in node.keys[1:] if isinstance(key, ast.Constant))
            elif isinstance(node, ast.Constant) and isinstance(node.value, bytes):
                match = BYTES_MESSAGE.match(node.value)
                if match:
                    fields = sends.setdefault(match.group(1).decode(), set())
                    found = BYTES_FIELD.findall(node.value)
                    fields.update(field.decode() for field in found if field != b"type")
            elif isinstance(node, ast.Call):
                func = node.func
                if (
                    isinstance(func, ast.Attribute)
                    and func.attr == "get"
                    and isinstance(func.value, ast.Name)
                    and func.value.id in received
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                ):
                    reads.setdefault(func.value.id, set()).add(node.args[0].value)
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if called == "ask" and node.args and isinstance(node.args[0], ast.Constant):
                    asks.add(node.args[0].value)
            elif (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name)
                and node.value.id in received
                and isinstance(node.slice, ast.Constant)
            ):
                reads.setdefault(node.value.id, set()).add(node.slice.value)
    for fields in reads.values():
        fields.discard("type")
    return {
        "sends": {key: sorted(value) for key, value in sends.items()},
        "reads": {key: sorted(value) for key, value in reads.items()},
        "asks": sorted(asks),
    }


if __name__ == "__main__":
    print(json.dumps(scan(sys.argv[1], set(sys.argv[2:]))))
