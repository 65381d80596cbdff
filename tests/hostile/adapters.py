"""Protocol adapters that misbehave in ways a harness must survive, run as
``python -m hostile.adapters <behaviour>``. Each answers ``start`` as the reference does.
`hangs`, an adapter object (``hostile.adapters:hangs``), never answers a case."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from ndcgspec.harness.adapters.base import CaseInput, Values
from ndcgspec.harness.adapters.reference import ReferenceAdapter
from ndcgspec.harness.host import answer, protocol_streams
from ndcgspec.harness.protocol import decode, encode

STDERR_FLOOD_BYTES = 10 * 2**20
LAST_WORDS = "the last line this adapter wrote"
SENT_LOG = "HOSTILE_SENT_LOG"


class Hangs(ReferenceAdapter):
    """Starts as the reference does, then hangs on the first case of each batch it is sent,
    writing a line to the file the environment's `SENT_LOG` names, when it names one."""

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> Values:
        if log := os.environ.get(SENT_LOG):
            with open(log, "a", encoding="utf-8") as sent:
                sent.write(f"{os.getpid()}\n")
        time.sleep(3600)
        raise AssertionError("a hung adapter does not answer")


hangs = Hangs()


def _strings(reply: dict[str, Any]) -> dict[str, Any]:
    for result in reply["results"]:
        result["per_query"] = {q: str(v) for q, v in result["per_query"].items()}
    return reply


def _missing(reply: dict[str, Any]) -> dict[str, Any]:
    for result in reply["results"]:
        del result["per_query"]
    return reply


INFINITE = "a value written 1e999"


def _infinite(reply: dict[str, Any]) -> dict[str, Any]:
    for result in reply["results"]:
        # No mean given: the harness implies it from the values, as for an adapter that
        # gives none.
        result["per_query"] = dict.fromkeys(result["per_query"], INFINITE)
        result.pop("aggregate", None)
    return reply


RESULT_CHANGES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "values_as_strings": _strings,
    "values_missing": _missing,
    "values_infinite": _infinite,
}


def serve(behaviour: str) -> int:
    source, sink = protocol_streams()
    adapter = ReferenceAdapter()
    for line in source:
        reply_line = answer(adapter, line)
        if reply_line is None:
            return 0
        if behaviour == "closes_input":
            os.close(0)
            sink.write(reply_line)
            sink.flush()
            time.sleep(300)
        if behaviour == "floods_stderr":
            chunk = b"x" * 65536 + b"\n"
            for _ in range(STDERR_FLOOD_BYTES // len(chunk)):
                os.write(2, chunk)
            os.write(2, LAST_WORDS.encode() + b"\n")
            return 1
        reply = decode(reply_line)
        if "results" in reply and behaviour in RESULT_CHANGES:
            reply = RESULT_CHANGES[behaviour](reply)
        line = encode(reply)
        if behaviour == "values_infinite":
            # 1e999 is valid JSON that every reader takes as infinity: no encoder writes it.
            line = line.replace(f'"{INFINITE}"'.encode(), b"1e999")
        sink.write(line)
        sink.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1]))
