"""The evidence files beside the conformance page (``survey/evidence_files.py``): the
committed ``docs/presets.json`` and ``docs/predictions.json`` meet their schemas, a corrupted
copy is refused in one line naming the file and the place, and ``ndcgspec matrix`` refuses to
write records that do not meet them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT

from ndcgspec.commands import matrix as matrix_command
from ndcgspec.reference import NdcgSpecError
from ndcgspec.spec import load_schema
from ndcgspec.survey import matrix
from ndcgspec.survey.evidence_files import (
    PREDICTIONS_SCHEMA,
    PRESETS_EVIDENCE_SCHEMA,
    checked_document,
)
from ndcgspec.survey.prediction import MODELS, PREDICTIONS_FILE
from ndcgspec.survey.preset_check import CRASHES, DIFFERS, REFUSES
from ndcgspec.survey.preset_evidence import EVIDENCE_FILE, read_evidence

DOCS = REPO_ROOT / "docs"
COMMITTED = [(EVIDENCE_FILE, PRESETS_EVIDENCE_SCHEMA), (PREDICTIONS_FILE, PREDICTIONS_SCHEMA)]


@pytest.mark.parametrize(("name", "schema"), COMMITTED)
def test_the_committed_evidence_meets_its_schema(name: str, schema: str) -> None:
    path = DOCS / name
    assert checked_document(path.read_text(encoding="utf-8"), schema, path)


def _refusal(text: str, schema: str, where: Path) -> str:
    with pytest.raises(NdcgSpecError) as raised:
        checked_document(text, schema, where)
    message = str(raised.value)
    assert "\n" not in message and message.startswith(f"{where}: ")
    return message


def test_a_corrupted_presets_record_is_refused_naming_the_place(tmp_path: Path) -> None:
    records = json.loads((DOCS / EVIDENCE_FILE).read_text(encoding="utf-8"))
    records[2]["passed"] = "every case"
    path = tmp_path / EVIDENCE_FILE
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    with pytest.raises(NdcgSpecError) as raised:
        read_evidence(path)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: /2/passed: 'every case' is not of type 'array'")


def test_a_prediction_record_without_its_count_is_refused(tmp_path: Path) -> None:
    document = json.loads((DOCS / PREDICTIONS_FILE).read_text(encoding="utf-8"))
    name = sorted(document["libraries"])[0]
    del document["libraries"][name]["explained"]
    message = _refusal(json.dumps(document), PREDICTIONS_SCHEMA, tmp_path / PREDICTIONS_FILE)
    assert f": /libraries/{name}: 'explained' is a required property" in message


def test_an_undeclared_departure_id_is_refused(tmp_path: Path) -> None:
    document = json.loads((DOCS / PREDICTIONS_FILE).read_text(encoding="utf-8"))
    name = sorted(document["libraries"])[0]
    document["libraries"][name]["departures"] = {"rounds-up": 3}
    message = _refusal(json.dumps(document), PREDICTIONS_SCHEMA, tmp_path / PREDICTIONS_FILE)
    assert f"/libraries/{name}/departures" in message and "'rounds-up'" in message


def test_a_truncated_file_is_refused_with_its_line(tmp_path: Path) -> None:
    text = (DOCS / EVIDENCE_FILE).read_text(encoding="utf-8")
    cut = "\n".join(text.splitlines()[:5])
    # Five lines of an indented array of records: the record of line 2 never closes.
    message = _refusal(cut, PRESETS_EVIDENCE_SCHEMA, tmp_path / EVIDENCE_FILE)
    assert ": line 5: not JSON: " in message


def test_a_long_problem_is_cut_to_one_short_line(tmp_path: Path) -> None:
    records = json.loads((DOCS / EVIDENCE_FILE).read_text(encoding="utf-8"))
    records[0]["passed"] = {f"case-{i}": "x" * 40 for i in range(50)}
    message = _refusal(json.dumps(records), PRESETS_EVIDENCE_SCHEMA, tmp_path / EVIDENCE_FILE)
    assert len(message) < len(str(tmp_path)) + 250 and "..." in message


def test_the_schemas_name_the_departures_the_code_knows() -> None:
    predictions = load_schema(PREDICTIONS_SCHEMA)["$defs"]["departure_id"]["enum"]
    assert sorted(predictions) == sorted(MODELS)
    evidence = load_schema(PRESETS_EVIDENCE_SCHEMA)["$defs"]["departure"]["properties"]
    stated = load_schema("presets")["$defs"]["departure"]["properties"]["outcome"]["enum"]
    assert (
        sorted(evidence["outcome"]["enum"]) == sorted(stated) == sorted([CRASHES, DIFFERS, REFUSES])
    )


def test_the_matrix_writes_nothing_when_a_record_misses_its_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_adapters(*args: Any) -> tuple[list[Any], dict[str, str]]:
        return [], {}

    broken = json.dumps([{"preset": "trec_eval", "adapter": "trec_eval"}])
    monkeypatch.setattr(matrix, "require_page_libraries", lambda: None)
    monkeypatch.setattr(matrix, "probe_inputs", lambda: ())
    monkeypatch.setattr(matrix, "build", no_adapters)
    monkeypatch.setattr(matrix, "evidence_text", lambda records: broken)
    out = tmp_path / "docs"
    with pytest.raises(NdcgSpecError) as raised:
        matrix_command.handle(argparse.Namespace(out=out, adapters=[], jobs=1))
    assert str(raised.value).startswith(f"{out / EVIDENCE_FILE}: /0: 'library_version' is a")
    assert not out.exists()
