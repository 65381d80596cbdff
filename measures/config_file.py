"""Configuration files: one configuration object in YAML or JSON (``ndcg``).

The keys are the axis and parameter ids of ``spec/ndcg.yaml``, as `Config.from_mapping` takes
them. Numbers stay exact decimals (``ndcg.precision``): the text "0.8" is read as 8/10, never as
the nearest binary float. A file ending in ``.json`` is read as JSON, any other as YAML.
"""

from __future__ import annotations

import contextlib
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from ndcgspec.reference.config import LIMITS, Config, error_key, shown
from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.errors import ConfigError, NdcgSpecError
from ndcgspec.reference.location import Location


class _Problem(ConfigError):
    """A problem of the file's text, at `line` when the parser knows it; in the value of the
    configuration key `key` when known, or, for YAML, at the character `index` of the text,
    whose key `_parse_yaml` finds."""

    def __init__(
        self,
        message: str,
        line: int | None = None,
        key: str | None = None,
        index: int | None = None,
    ) -> None:
        super().__init__(message)
        self.line, self.key, self.index = line, key, index


def _number_text(
    text: str, line: int | None, key: str | None = None, index: int | None = None
) -> str:
    """`text` when it is short enough to become a number (``ndcg.limits`` number_text)."""
    if len(text) > LIMITS["number_text"]:
        raise _Problem(
            f"a number written in {len(text)} characters; at most {LIMITS['number_text']} "
            "are allowed (ndcg.limits)",
            line,
            key,
            index,
        )
    return text


def _too_deep(line: int | None, key: str | None) -> _Problem:
    return _Problem(
        f"nested more than {LIMITS['config_nesting']} levels deep (ndcg.limits)", line, key
    )


class _ExactLoader(yaml.SafeLoader):
    """A safe YAML loader whose floats are the exact decimals written, whose integers are
    decimal digits only, and which rejects a key given twice (plain YAML keeps the last one
    silently) or a key that is not a scalar."""

    def construct_exact_float(self, node: yaml.ScalarNode) -> Decimal:
        line, index = node.start_mark.line + 1, node.start_mark.index
        # YAML allows "_" as a digit separator in numbers; ndcg.input.number does not.
        text = _number_text(str(self.construct_scalar(node)), line, index=index)
        try:
            return parse_decimal(text)
        except NdcgSpecError:
            raise _Problem(f"{text!r} is not a finite decimal", line, index=index) from None

    def construct_decimal_integer(self, node: yaml.ScalarNode) -> int:
        # YAML 1.1 reads 010 as 8, 0x10 as 16 and 1:30 as 90; a configuration means decimal.
        line, index = node.start_mark.line + 1, node.start_mark.index
        text = _number_text(str(self.construct_scalar(node)), line, index=index)
        if not re.fullmatch(r"[-+]?(0|[1-9][0-9]*)", text):
            raise _Problem(
                f"{text!r} is not a decimal integer (YAML would read it as octal, hexadecimal, "
                "binary or base 60); write decimal digits without a leading zero",
                line,
                index=index,
            )
        return int(text)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            line = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode):
                raise _Problem("a key must be a name, not a list or mapping", line)
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise _Problem(f"key {shown(key)} is given twice", line)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_ExactLoader.add_constructor("tag:yaml.org,2002:float", _ExactLoader.construct_exact_float)
_ExactLoader.add_constructor("tag:yaml.org,2002:int", _ExactLoader.construct_decimal_integer)


_NODE_EVENTS = (yaml.ScalarEvent, yaml.AliasEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)


def _check_yaml_shape(text: str) -> None:
    """Nesting and aliases checked on the event stream, before anything is built: building
    recurses once per level, and an alias can multiply a small file into a huge value. A
    problem names the key of the outer mapping it lies under: the nodes directly in that
    mapping are its keys and values in turn."""
    depth, outer_mapping, nodes, key = 0, False, 0, None
    for event in yaml.parse(text, Loader=_ExactLoader):
        assert event.start_mark is not None, "the parser marks every event"
        line = event.start_mark.line + 1
        if depth == 0 and isinstance(event, yaml.MappingStartEvent):
            outer_mapping = True
        elif depth == 1 and outer_mapping and isinstance(event, _NODE_EVENTS):
            if nodes % 2 == 0:
                key = event.value if isinstance(event, yaml.ScalarEvent) else None
            nodes += 1
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise _Problem("YAML anchors and aliases are not allowed (ndcg.limits)", line, key)
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > LIMITS["config_nesting"]:
                raise _too_deep(line, key)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


_JSON_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[{]|[\]}]|[-+0-9.eE]+|\n')


def _check_json_shape(text: str) -> dict[str, int]:
    """Nesting, number lengths and repeated keys checked on the tokens, before the JSON
    parser recurses or turns a long digit string into a number; the line of each key of the
    outer object. A problem names the key of the outer object it lies under."""
    line = 1
    # One entry per open bracket: the keys seen so far in an object, None in a list.
    open_keys: list[set[str] | None] = []
    lines: dict[str, int] = {}
    key: str | None = None
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
        elif token in "[{":
            open_keys.append(set() if token == "{" else None)
            if len(open_keys) > LIMITS["config_nesting"]:
                raise _too_deep(line, key)
        elif token in "]}":
            if open_keys:
                open_keys.pop()
        elif token.startswith('"'):
            keys = open_keys[-1] if open_keys else None
            if keys is None or not text[match.end() :].lstrip(" \t\r\n").startswith(":"):
                continue
            with contextlib.suppress(json.JSONDecodeError):
                name = json.loads(token)
                if name in keys:
                    raise _Problem(f"key {shown(name)} is given twice", line)
                keys.add(name)
                if len(open_keys) == 1:
                    lines[name], key = line, name
        else:
            _number_text(token, line, key=key)
    return lines


def _parse_json(text: str) -> tuple[Any, dict[str, int]]:
    try:
        lines = _check_json_shape(text)
        return json.loads(text, parse_float=Decimal), lines
    except json.JSONDecodeError as error:
        raise _Problem(f"invalid JSON: {error.msg}", error.lineno) from None


def _parse_yaml(text: str) -> tuple[Any, dict[str, int]]:
    try:
        _check_yaml_shape(text)
        loader = _ExactLoader(text)
        try:
            node = loader.get_single_node()
            value: Any = loader.construct_document(node) if node is not None else None
        except _Problem as problem:
            if problem.index is not None:
                problem.key = _key_at(node, problem.index)
            raise
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        reason = error.problem or error.context
        raise _Problem(f"invalid YAML: {reason}", mark.line + 1 if mark else None) from None
    except yaml.reader.ReaderError as error:
        # Raised before any mark exists: the line is counted from the position.
        code = error.character if isinstance(error.character, int) else ord(error.character)
        line = text.count("\n", 0, error.position) + 1
        raise _Problem(f"invalid YAML: character #x{code:04x} is not allowed", line) from None
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        # The object's keys come in the order of the key nodes (a repeated key is refused).
        for (key_node, _), key in zip(node.value, value, strict=True):
            line = key_node.start_mark.line + 1
            if not isinstance(key, str):
                raise _Problem(f"a key must be a name, not {shown(key)}", line)
            lines[key] = line
    return value, lines


def _key_at(node: yaml.Node | None, index: int) -> str | None:
    """The key of the outer mapping `node` whose entry spans the character `index`."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            inside = key_node.start_mark.index <= index < value_node.end_mark.index
            if inside and isinstance(key_node, yaml.ScalarNode):
                return str(key_node.value)
    return None


def load_config_file(path: str | Path) -> Config:
    """The configuration held by a YAML or JSON file; every problem is one ConfigError line
    that starts with the file name, and ``:line`` where the parser knows it."""
    path = Path(path)
    most = LIMITS["config_bytes"]
    try:
        # Read once, at most one byte past the limit: a pipe works, a huge file costs nothing.
        with path.open("rb") as handle:
            data = handle.read(most + 1)
    except OSError as error:
        raise ConfigError(f"cannot read: {error.strerror or error}", Location(str(path))) from None
    if len(data) > most:
        raise ConfigError(f"larger than {most} bytes (ndcg.limits)", Location(str(path)))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ConfigError("not valid UTF-8", Location(str(path), line)) from None
    try:
        values, lines = _parse_json(text) if path.suffix.lower() == ".json" else _parse_yaml(text)
    except _Problem as problem:
        said = f"key {shown(problem.key)}: {problem}" if problem.key is not None else str(problem)
        raise ConfigError(said, Location(str(path), problem.line or None)) from None
    if not isinstance(values, dict):
        found = "nothing" if values is None else f"a {type(values).__name__}"
        raise ConfigError(
            f"must hold one configuration object (axis and parameter ids as keys), found {found}",
            Location(str(path), 1),
        )
    try:
        return Config.from_mapping(values)
    except ConfigError as error:
        key_line = lines.get(str(error_key(error)))
        raise ConfigError(str(error), Location(str(path), key_line or None)) from None
