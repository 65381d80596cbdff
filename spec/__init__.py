"""The nDCG specification as data: `ndcg.yaml`, `presets.yaml`, `grammar.yaml`,
`comparison.yaml` and the JSON Schemas.

This package holds no logic beyond locating and parsing those files; everything else in
ndcgspec reads the specification through `load_spec` (anchor ``ndcg``), `load_presets`,
`load_grammar` (``ndcg.grammar``) and `load_comparison` (``ndcg.comparison``).
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

import yaml


def spec_file(name: str) -> Traversable:
    """The packaged file `name` of the specification, such as ``"schema/case.schema.json"``."""
    return files(__name__).joinpath(name)


# libyaml's safe loader when PyYAML was built with it: the same data, parsed in C.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load_yaml(name: str) -> dict[str, Any]:
    return yaml.load(spec_file(name).read_text(encoding="utf-8"), Loader=_SAFE_LOADER)


@cache
def load_spec() -> dict[str, Any]:
    """The parsed ``ndcg.yaml``: axes, choices, parameters, defaults and anchors."""
    return _load_yaml("ndcg.yaml")


@cache
def load_presets() -> dict[str, Any]:
    """The parsed ``presets.yaml``: named configurations with their evidence."""
    return _load_yaml("presets.yaml")


@cache
def load_grammar() -> dict[str, Any]:
    """The parsed ``grammar.yaml``: the measure language, its tokens and the other tools'
    dialects (``ndcg.grammar``)."""
    return _load_yaml("grammar.yaml")


@cache
def load_comparison() -> dict[str, Any]:
    """The parsed ``comparison.yaml``: how an adapter's number is compared with a golden
    value (``ndcg.comparison``)."""
    return _load_yaml("comparison.yaml")


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The JSON Schema ``schema/<name>.schema.json``."""
    return json.loads(spec_file(f"schema/{name}.schema.json").read_text(encoding="utf-8"))
