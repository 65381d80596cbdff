"""The adapter protocol: JSON Lines over the adapter's stdin and stdout.

One JSON object per line, UTF-8. The harness sends ``start``, then ``run`` batches carrying a
sequence number, then ``stop``; the adapter answers ``start`` with its metadata and each ``run``
with the results of that batch under the same sequence number. The JSON Schemas in
``spec/schema/protocol/`` define every message and hold the protocol version.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from ndcgspec.spec import spec_file

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

MESSAGES = ("start", "start-reply", "run", "run-reply", "stop")


class ProtocolError(Exception):
    """A message that breaks the protocol; its text is one line naming what is wrong."""


def _schema_text(kind: str) -> str:
    return spec_file(f"schema/protocol/{kind}.json").read_text(encoding="utf-8")


@cache
def message_validator(kind: str) -> Draft202012Validator:
    """The validator of one message kind, of its JSON Schema
    ``spec/schema/protocol/<kind>.json``."""
    # Imported here: jsonschema costs each adapter process 70 ms, and a host validates nothing.
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(_schema_text(kind)))


@cache
def result_validator() -> Draft202012Validator:
    """The validator of one result object of a ``run-reply``."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(
        json.loads(_schema_text("run-reply"))["properties"]["results"]["items"]
    )


@cache
def protocol_version() -> int:
    """The protocol version, the constant of the ``start`` schema."""
    return int(json.loads(_schema_text("start"))["properties"]["protocol"]["const"])


def schema_violation(kind: str, message: Any) -> str | None:
    """None when `message` is a valid `kind` message, else the first violation in one line."""
    errors = sorted(
        message_validator(kind).iter_errors(message), key=lambda e: list(e.absolute_path)
    )
    if not errors:
        return None
    error = errors[0]
    where = "/".join(str(p) for p in error.absolute_path) or "(message)"
    text = error.message if len(error.message) <= 160 else error.message[:157] + "..."
    return f"{kind} message violates its schema at {where}: {text}"


@dataclass(frozen=True)
class ProtocolCase:
    """A case as the adapter receives it in a ``run`` message: its id, measure, configuration
    object and input rows; no expected values, no provenance."""

    id: str
    measure: str
    config: Mapping[str, Any]
    qrels: Sequence[Sequence[str]]
    run: Sequence[Sequence[str]]

    @classmethod
    def from_json(cls, case: Mapping[str, Any]) -> ProtocolCase:
        """The case of a ``run`` message's case object."""
        rows = case["input"]
        return cls(case["id"], case["measure"], case["config"], rows["qrels"], rows["run"])

    def to_json(self) -> dict[str, Any]:
        """The case object of a ``run`` message (``spec/schema/protocol/run.json``)."""
        rows = {"qrels": [list(r) for r in self.qrels], "run": [list(r) for r in self.run]}
        return {"id": self.id, "measure": self.measure, "config": self.config, "input": rows}


@dataclass(frozen=True)
class StartReply:
    """The adapter's reply to ``start`` (``spec/schema/protocol/start-reply.json``), its
    protocol version checked: the ``adapter`` object, which ``adapters/declaration.py``
    reads."""

    adapter: Mapping[str, Any]


def start_line(harness_version: str) -> bytes:
    """The ``start`` message, as its protocol line."""
    return encode({"cmd": "start", "protocol": protocol_version(), "harness": harness_version})


def run_line(seq: int, cases: Sequence[ProtocolCase]) -> bytes:
    """A ``run`` message, as its protocol line: one batch of cases under sequence number
    `seq`."""
    return encode({"cmd": "run", "seq": seq, "cases": [case.to_json() for case in cases]})


def stop_line() -> bytes:
    """The ``stop`` message, as its protocol line."""
    return encode({"cmd": "stop"})


def encode(message: Mapping[str, Any]) -> bytes:
    """One protocol line. An infinity (an adapter's value) is written as the number ``1e999``
    (``-1e999``), which every JSON reader takes as infinity, where the token ``Infinity`` is
    not JSON; NaN is refused."""
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        text = _NON_JSON_NUMBER.sub(_json_number, text)
    return text.encode("utf-8") + b"\n"


# A string is matched whole first, so that a token inside one is left as it is.
_NON_JSON_NUMBER = re.compile(r'"(?:[^"\\]|\\.)*"|-?Infinity|NaN')


def _json_number(match: re.Match[str]) -> str:
    token = match.group()
    if token == "NaN":
        raise ValueError("NaN is not JSON and has no number that stands for it")
    return token if token.startswith('"') else token.replace("Infinity", "1e999")


def decode(line: bytes) -> dict[str, Any]:
    """The JSON object of one protocol line; anything else is a ProtocolError."""
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        shown = line[:60].decode("utf-8", "replace").rstrip()
        raise ProtocolError(f"adapter sent a line that is not JSON ({error}): {shown!r}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"adapter sent JSON that is not an object: {type(message).__name__}")
    return message
