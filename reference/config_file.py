"""Configuration files: one configuration object in YAML or JSON (``ndcg``).

The keys are the axis and parameter ids of ``spec/ndcg.yaml``, as `Config.from_mapping` takes
them. Numbers stay exact decimals (``ndcg.precision``): the text "0.8" is read as 8/10, never as
the nearest binary float. A file ending in ``.json`` is read as JSON, any other as YAML.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from ndcgspec.reference.config import Config
from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.errors import ConfigError, NdcgSpecError


class _Problem(ConfigError):
    """A problem of the file's text, at `line` when the parser knows it."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class _ExactLoader(yaml.SafeLoader):
    """A safe YAML loader whose floats are the exact decimals written, and which rejects a
    key given twice (plain YAML keeps the last one silently)."""

    def construct_exact_float(self, node: yaml.ScalarNode) -> Decimal:
        # YAML allows "_" as a digit separator in numbers; ndcg.input.number does not.
        text = str(self.construct_scalar(node))
        try:
            return parse_decimal(text)
        except NdcgSpecError:
            raise _Problem(f"{text!r} is not a finite decimal", node.start_mark.line + 1) from None

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise _Problem(f"key {key!r} is given twice", key_node.start_mark.line + 1)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_ExactLoader.add_constructor("tag:yaml.org,2002:float", _ExactLoader.construct_exact_float)


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    repeated = [key for key in keys if keys.count(key) > 1]
    if repeated:
        raise _Problem(f"key {repeated[0]!r} is given twice")
    return dict(pairs)


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text, parse_float=Decimal, object_pairs_hook=_no_repeated_keys)
    except json.JSONDecodeError as error:
        raise _Problem(f"invalid JSON: {error.msg}", error.lineno) from None


def _parse_yaml(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_ExactLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        reason = error.problem or error.context
        raise _Problem(f"invalid YAML: {reason}", mark.line + 1 if mark else None) from None
    except yaml.YAMLError as error:
        raise _Problem(f"invalid YAML: {error}") from None


def load_config_file(path: str | Path) -> Config:
    """The configuration held by a YAML or JSON file; every problem is one ConfigError line
    that starts with the file name, and ``:line`` where the parser knows it."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid UTF-8") from None
    try:
        values = _parse_json(text) if path.suffix.lower() == ".json" else _parse_yaml(text)
    except _Problem as problem:
        where = f"{path}:{problem.line}" if problem.line else str(path)
        raise ConfigError(f"{where}: {problem}") from None
    if not isinstance(values, dict):
        found = "nothing" if values is None else f"a {type(values).__name__}"
        raise ConfigError(
            f"{path}: must hold one configuration object (axis and parameter ids as keys), "
            f"found {found}"
        )
    try:
        return Config.from_mapping(values)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
