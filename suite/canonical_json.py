"""The fixed JSON layout of case files: 2-space indent, UTF-8, arrays of plain values on one
line, keys in the order given, a trailing newline. The same object always gives the same bytes."""

from __future__ import annotations

import json
from typing import Any

INDENT = "  "


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _render(value: Any, depth: int) -> str:
    inner, outer = INDENT * (depth + 1), INDENT * depth
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{_scalar(k)}: {_render(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + outer + "}"
    if isinstance(value, list):
        if all(not isinstance(v, (dict, list)) for v in value):
            return "[" + ", ".join(_scalar(v) for v in value) + "]"
        items = [inner + _render(v, depth + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + outer + "]"
    return _scalar(value)


def dumps(value: Any) -> str:
    """`value` in the case-file layout, ending with a newline."""
    return _render(value, 0) + "\n"
