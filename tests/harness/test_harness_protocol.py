"""The JSON-lines protocol: schemas, the Python host, the Node.js example adapter, and the
checks the harness makes on what an adapter sends."""

from __future__ import annotations

import io
import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

import pytest
from conftest import TESTS_DIR
from jsonschema import Draft202012Validator

from ndcgspec.harness.adapters.base import AdapterError, CaseInput, PerQuery
from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.adapters.reference import ReferenceAdapter
from ndcgspec.harness.execution import Execution, execute
from ndcgspec.harness.host import answer, serve
from ndcgspec.harness.pool import PoolOptions
from ndcgspec.harness.protocol import (
    MESSAGES,
    ProtocolCase,
    decode,
    encode,
    message_validator,
    protocol_version,
    run_line,
    schema_violation,
    start_line,
    stop_line,
)
from ndcgspec.harness.runner import HarnessError, fixed_cases, load_cases
from ndcgspec.harness.worker import adapter_command, example_program
from ndcgspec.reference import Config

FIXTURES = TESTS_DIR / "fixtures"
SUITE = FIXTURES / "harness_cases"
DATA = FIXTURES / "harness_data"
CASE = ProtocolCase("c1", "nDCG", {"gain": "linear"}, [["q1", "d1", "1"]], [["q1", "d1", "0.5"]])


@pytest.mark.parametrize("kind", MESSAGES)
def test_every_schema_is_a_valid_schema(kind: str) -> None:
    Draft202012Validator.check_schema(message_validator(kind).schema)


def test_protocol_version_is_one_constant_in_every_schema() -> None:
    assert protocol_version() == 1
    assert message_validator("start-reply").schema["properties"]["protocol"]["const"] == 1


def test_harness_messages_meet_their_schemas() -> None:
    assert schema_violation("start", decode(start_line("0.1.0"))) is None
    assert schema_violation("run", decode(run_line(1, [CASE]))) is None
    assert schema_violation("stop", decode(stop_line())) is None


def test_host_replies_meet_their_schemas() -> None:
    adapter = ReferenceAdapter()
    assert schema_violation("start-reply", decode(answer(adapter, start_line("x")))) is None
    reply = decode(answer(adapter, run_line(7, [CASE])))
    assert schema_violation("run-reply", reply) is None
    assert reply == {
        "seq": 7,
        "results": [{"id": "c1", "per_query": {"q1": 1.0}, "aggregate": 1.0}],
    }


class Unbounded(ReferenceAdapter):
    """A library whose nDCG overflows: +inf for the first query, -inf for the second."""

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> PerQuery:
        return {"q1": math.inf, "q2": -math.inf, 'q"Infinity"': 0.5}


def test_an_infinite_value_reaches_the_harness_as_infinity_not_a_dead_host() -> None:
    # The encoder had refused it, so the host exited and every later case was lost.
    tricky = ProtocolCase("Infinity NaN", "nDCG", {}, [["q1", "d1", "1"]], [["q1", "d1", "1"]])
    line = answer(Unbounded(), run_line(3, [tricky, CASE]))
    assert b"1e999" in line and b"-1e999" in line
    reply = json.loads(line)
    assert schema_violation("run-reply", reply) is None
    assert [result["id"] for result in reply["results"]] == ["Infinity NaN", "c1"]
    for result in reply["results"]:
        assert result["per_query"] == {"q1": math.inf, "q2": -math.inf, 'q"Infinity"': 0.5}


def test_the_protocol_has_no_number_for_nan() -> None:
    with pytest.raises(ValueError, match="NaN is not JSON"):
        encode({"seq": 1, "results": [{"id": "NaN", "per_query": {"q1": math.nan}}]})


def test_host_serves_until_stop() -> None:
    lines = [start_line("x"), run_line(1, [CASE]), stop_line(), run_line(2, [CASE])]
    source = io.BytesIO(b"".join(lines))
    sink = io.BytesIO()
    serve(ReferenceAdapter(), source, sink)
    replies = [json.loads(line) for line in sink.getvalue().splitlines()]
    assert [sorted(r) for r in replies] == [["adapter", "protocol"], ["results", "seq"]]


def test_schema_violation_names_the_place() -> None:
    bad = {"seq": 1, "results": [{"id": "c1", "per_query": {"q1": "0.5"}}]}
    assert "results/0" in schema_violation("run-reply", bad)


def test_capabilities_are_checked_against_the_spec() -> None:
    adapter = {"float_width": 64, "capabilities": {"gain": ["linear", "cubic"]}}
    with pytest.raises(AdapterError, match="cubic"):
        Declaration.from_json(adapter)
    with pytest.raises(AdapterError, match="colour"):
        Declaration.from_json({"float_width": 64, "capabilities": {"colour": ["red"]}})
    with pytest.raises(AdapterError, match="float_width"):
        Declaration.from_json({"float_width": 16, "capabilities": {}})


def test_undeclared_axes_support_only_the_default() -> None:
    adapter = {"float_width": 64, "capabilities": {}, "params": {"log_offset": ["1"]}}
    full = {
        "gain": "linear",
        "discount": "log",
        "log_base": "2",
        "log_offset": "1",
        "ideal": "judged",
        "unjudged": "zero",
        "negative": "zero",
        "fractional": "keep",
        "ties": "docid-desc",
        "duplicates": "error",
        "empty": "zero",
        "aggregate": "qrels",
        "cutoff": None,
    }
    assert Declaration.from_json(adapter).unsupported_reason(Config.from_mapping(full)) is None
    assert "gain=exponential" in Declaration.from_json(adapter).unsupported_reason(
        Config.from_mapping({**full, "gain": "exponential"})
    )
    assert "log_offset=2" in Declaration.from_json(adapter).unsupported_reason(
        Config.from_mapping({**full, "log_offset": "2"})
    )


BAD_START = (
    "import sys, json; sys.stdin.readline(); "
    "print(json.dumps({'protocol': 1, 'adapter': {'name': 'x', 'version': '1', "
    "'float_width': 64, 'capabilities': {}, 'extra': 1}}), flush=True); sys.stdin.read()"
)


def _run(command: list[str] | str, validate: bool = False) -> dict:
    report = execute(
        Execution(
            fixed_cases(load_cases(root=SUITE, data=DATA)),
            command,
            PoolOptions(validate=validate, jobs=2),
            data=DATA,
        )
    )
    return {r.id: r.outcome for r in report.results}


def test_validation_mode_rejects_a_start_reply_off_schema() -> None:
    command = f'{sys.executable} -c "{BAD_START}"'
    with pytest.raises(HarnessError, match="violates its schema at adapter"):
        _run(command, validate=True)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_example_adapter_passes_every_case_it_declares() -> None:
    # It declares the log discount only, and every other choice the fixtures use:
    # fx/geometric is the one fixture outside its declaration.
    found = _run(adapter_command("node-example", None), validate=True)
    assert found.pop("fx/geometric") == "unsupported"
    assert found.pop("pub/absent") == "skip"
    assert set(found.values()) == {"pass"}
    assert example_program("ndcg_adapter.mjs").is_file()


def test_another_protocol_version_does_not_start() -> None:
    script = BAD_START.replace("'protocol': 1", "'protocol': 2").replace(", 'extra': 1", "")
    with pytest.raises(HarnessError, match="speaks protocol 2, not 1"):
        _run(f'{sys.executable} -c "{script}"')


def test_the_host_ends_at_stop_after_its_exit_handlers(tmp_path) -> None:
    """After ``stop`` the host process ends with status 0 once the adapter's exit handlers
    ran: an adapter that cleans up at exit still does, however the process ends."""
    marker = tmp_path / "cleaned-up"
    (tmp_path / "exiting_adapter.py").write_text(
        "import atexit, pathlib\n"
        "from ndcgspec.harness.adapters.reference import ReferenceAdapter\n"
        f"atexit.register(pathlib.Path({str(marker)!r}).write_text, 'done')\n"
        "adapter = ReferenceAdapter()\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "ndcgspec.harness.host", "exiting_adapter:adapter"],
        input=b'{"cmd": "start"}\n{"cmd": "stop"}\n',
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["protocol"] == protocol_version()
    assert marker.read_text(encoding="utf-8") == "done"
