"""The JSON Schema of a configuration object, generated from ``spec/ndcg.yaml`` (anchor ``ndcg``).

The committed ``spec/schema/config.schema.json`` is this module's output; a test keeps the two
equal. Regenerate it with::

    python -m ndcgspec.measures.config_schema > spec/schema/config.schema.json

Everything the schema says comes from the spec: the axis ids, their choices and defaults, the
parameters with their types and bounds, and which choice each parameter belongs to. Decimal
bounds are exact in the spec; for numbers the schema states them as JSON numbers, and for
decimal strings, which JSON Schema cannot compare, `Config.from_mapping` enforces them. A
decimal string is the whole text matching ``ndcg.input.number``'s pattern, as
`Config.from_mapping` reads it.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from ndcgspec.reference.config import axes
from ndcgspec.spec import load_spec
from ndcgspec.spec.axes import Axis, ChoiceAxis, Param

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
# The whole text: `$` would also match before a final newline in Python's re, which Python's
# validators use; a lookahead that nothing follows means the end in ECMA-262 and in Python.
DECIMAL_PATTERN = f"^(?:{load_spec()['input']['number']['pattern']})(?![\\s\\S])"


def _json_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _decimal_value(param: Param) -> dict[str, Any]:
    """A decimal written as a JSON number (bounds checked here) or as a decimal string."""
    number: dict[str, Any] = {"type": "number"}
    if param.exclusive_minimum is not None:
        number["exclusiveMinimum"] = _json_number(param.exclusive_minimum)
    if param.exclusive_maximum is not None:
        number["exclusiveMaximum"] = _json_number(param.exclusive_maximum)
    return {"oneOf": [number, {"type": "string", "pattern": DECIMAL_PATTERN}]}


def _param_schema(param: Param) -> dict[str, Any]:
    """The value schema of one parameter, by its spec ``type``."""
    kind = param.kind
    if kind == "label_map":
        decimal = {"oneOf": [{"type": "number"}, {"type": "string", "pattern": DECIMAL_PATTERN}]}
        value: dict[str, Any] = {
            "type": "object",
            "propertyNames": {"pattern": DECIMAL_PATTERN},
            "additionalProperties": decimal,
            "minProperties": 1,
        }
    elif kind == "log_base":
        value = {"anyOf": [{"const": "e"}, _decimal_value(param)]}
    elif kind == "decimal":
        value = _decimal_value(param)
    else:
        raise ValueError(f"spec parameter {param.id!r} has an unknown type {kind!r}")
    value["description"] = f"{param.description} ({param.anchor})"
    if param.default is not None:
        value["default"] = param.default
    return value


def _axis_schema(axis: Axis) -> dict[str, Any]:
    """The value schema of one axis: one of its choices' ids, or for the cutoff an integer
    within its bounds."""
    values: dict[str, Any]
    if isinstance(axis, ChoiceAxis):
        values = {"enum": [c.id for c in axis.choices]}
    else:
        bounds = axis.value
        values = {
            "type": [bounds.type, "null"] if bounds.nullable else bounds.type,
            "minimum": bounds.minimum,
        }
    description = " ".join(axis.description.split())
    return {**values, "default": axis.default, "description": f"{description} ({axis.anchor})"}


def _param_rules(param: Param, default: str) -> list[dict[str, Any]]:
    """A parameter is allowed only with a choice that takes it (`default` the choice of its
    axis when none is given); a required one must be given."""
    users = list(param.users)
    allowed: dict[str, Any] = {"properties": {param.axis: {"enum": users}}}
    if default not in users:
        allowed["required"] = [param.axis]
    rules: list[dict[str, Any]] = [{"if": {"required": [param.id]}, "then": allowed}]
    if param.required:
        chosen = {"properties": {param.axis: {"enum": users}}, "required": [param.axis]}
        rules.append({"if": chosen, "then": {"required": [param.id]}})
    return rules


def config_schema() -> dict[str, Any]:
    """The JSON Schema of a configuration object: axis and parameter ids as keys (``ndcg``)."""
    properties: dict[str, Any] = {}
    rules: list[dict[str, Any]] = []
    for axis in axes():
        properties[axis.id] = _axis_schema(axis)
        if isinstance(axis, ChoiceAxis):
            for param in axis.params:
                properties[param.id] = _param_schema(param)
                rules.extend(_param_rules(param, axis.default))
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": "config.schema.json",
        "title": f"nDCG configuration (spec {load_spec()['spec_version']})",
        "description": (
            "A configuration object: one choice per axis and the parameters of the chosen "
            "choices; omitted keys take the spec's defaults. Generated from spec/ndcg.yaml by "
            "ndcgspec.measures.config_schema; do not edit by hand."
        ),
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "allOf": rules,
    }


def config_schema_text() -> str:
    """`config_schema` as the exact text of the committed ``config.schema.json``."""
    return json.dumps(config_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(config_schema_text(), end="")
