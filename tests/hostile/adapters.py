"""Protocol adapters that misbehave in ways a harness must survive, run as
``python -m hostile.adapters <behaviour>``. Each answers ``start`` as the reference does."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

from ndcgspec.harness.adapters.reference import ReferenceAdapter
from ndcgspec.harness.host import answer, protocol_streams
from ndcgspec.harness.protocol import decode, encode

STDERR_FLOOD_BYTES = 10 * 2**20
LAST_WORDS = "the last line this adapter wrote"


def _strings(reply: dict[str, Any]) -> dict[str, Any]:
    for result in reply["results"]:
        result["per_query"] = {q: str(v) for q, v in result["per_query"].items()}
    return reply


def _missing(reply: dict[str, Any]) -> dict[str, Any]:
    for result in reply["results"]:
        del result["per_query"]
    return reply


RESULT_CHANGES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "values_as_strings": _strings,
    "values_missing": _missing,
}


def serve(behaviour: str) -> int:
    source, sink = protocol_streams()
    adapter = ReferenceAdapter()
    for line in source:
        reply = answer(adapter, decode(line))
        if reply is None:
            return 0
        if behaviour == "closes_input":
            os.close(0)
            sink.write(encode(reply))
            sink.flush()
            time.sleep(300)
        if behaviour == "floods_stderr":
            chunk = b"x" * 65536 + b"\n"
            for _ in range(STDERR_FLOOD_BYTES // len(chunk)):
                os.write(2, chunk)
            os.write(2, LAST_WORDS.encode() + b"\n")
            return 1
        if "results" in reply and behaviour in RESULT_CHANGES:
            reply = RESULT_CHANGES[behaviour](reply)
        sink.write(encode(reply))
        sink.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1]))
