"""The child side of an in-process adapter: serves a Python adapter over the protocol.

``python -m ndcgspec.harness.host TARGET`` loads the adapter TARGET (a built-in name or
``module:object``) and answers the harness's JSON-lines messages on stdin/stdout until ``stop``
or end of input. Whatever the adapter prints goes to stderr, so it cannot corrupt the protocol.
Then the process ends at once (`exit_now`), after its exit handlers, without tearing down
every module the adapter imported: the harness waits for each process it stops.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import sys
import traceback
from collections.abc import Sequence
from typing import IO, Any, NoReturn, cast

from ndcgspec.harness.adapters.base import (
    Adapter,
    CaseInput,
    PerQuery,
    Rejected,
    Row,
    Values,
    load_adapter,
)
from ndcgspec.harness.answer import CaseAnswer
from ndcgspec.harness.protocol import (
    ProtocolCase,
    ProtocolError,
    decode,
    encode,
    protocol_version,
)
from ndcgspec.harness.registry import adapter_target

LOAD_FAILURE_STATUS = 3


def reply_number(value: Any) -> float | None:
    """An adapter's value as the run reply carries it: a float, or None for undefined (NaN)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError(f"a bool ({value}) is not an nDCG value")
    number = float(value)
    return None if math.isnan(number) else number


def values_answer(values: Values | PerQuery) -> CaseAnswer:
    """The answer of a case the adapter computed; NaN becomes None (undefined)."""
    per_query = values.per_query if isinstance(values, Values) else values
    numbers = {str(q): reply_number(v) for q, v in per_query.items()}
    if isinstance(values, Values) and values.has_aggregate:
        return CaseAnswer(numbers, reply_number(values.aggregate), has_aggregate=True)
    return CaseAnswer(numbers)


def case_result(adapter: Adapter, case: ProtocolCase) -> CaseAnswer:
    """One case computed: its values, the adapter's rejection, or the exception it raised."""
    try:
        # Three strings each, as the run message's schema has them.
        qrels = [cast(Row, tuple(r)) for r in case.qrels]
        case_input = CaseInput(qrels, [cast(Row, tuple(r)) for r in case.run])
        return values_answer(adapter.compute(case_input, case.config))
    except Rejected as rejection:
        return CaseAnswer(rejected=str(rejection) or "rejected")
    except Exception as error:
        return CaseAnswer(
            error=f"{type(error).__name__}: {error}".splitlines()[0][:500],
            detail=traceback.format_exc(limit=-8),
        )


def answer(adapter: Adapter, line: bytes) -> bytes | None:
    """The reply line to one line of the harness; None for ``stop``."""
    message = decode(line)
    command = message.get("cmd")
    if command == "start":
        return encode({"protocol": protocol_version(), "adapter": adapter.describe()})
    if command == "run":
        cases = [ProtocolCase.from_json(c) for c in message["cases"]]
        results = [case_result(adapter, c).to_json(c.id) for c in cases]
        return encode({"seq": message["seq"], "results": results})
    if command == "stop":
        return None
    raise ProtocolError(f"unknown command {command!r}")


def serve(adapter: Adapter, source: IO[bytes], sink: IO[bytes]) -> None:
    """Answer lines from `source` on `sink` until ``stop`` or end of input."""
    for line in source:
        reply = answer(adapter, line)
        if reply is None:
            return
        sink.write(reply)
        sink.flush()


def protocol_streams() -> tuple[IO[bytes], IO[bytes]]:
    """The protocol's stdin and stdout; file descriptor 1 then points at stderr, so prints of
    the adapter (and of any C library it calls) cannot interleave with protocol lines."""
    sink = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return sys.stdin.buffer, sink


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the adapter named by the single argument; a load failure is one line on stderr."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m ndcgspec.harness.host TARGET", file=sys.stderr)
        return 2
    source, sink = protocol_streams()
    try:
        adapter = load_adapter(adapter_target(args[0]))
    except Exception as error:
        print(f"cannot load adapter: {error}".splitlines()[0], file=sys.stderr)
        return LOAD_FAILURE_STATUS
    try:
        serve(adapter, source, sink)
    except (ProtocolError, KeyError, TypeError) as error:
        print(f"protocol error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return 0


def exit_now(status: int) -> NoReturn:
    """End the process with `status`: the exit handlers run (`atexit`, as at a normal exit) and
    the standard streams are flushed, but the interpreter's teardown of the modules is skipped,
    which with scikit-learn loaded takes 0.6 s of each stop."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


if __name__ == "__main__":
    exit_now(main())
