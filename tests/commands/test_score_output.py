"""Output people read and paste: measures as written, ``--digits``, the note on queries missing
from the run, ``--version`` and the measure as written in ``explain``."""

from __future__ import annotations

import json
from decimal import Decimal
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from conftest import REPO_ROOT

import ndcgspec
from ndcgspec.commands.cli import main

# q1's relevant document at rank 2 of 2: nDCG = 1/log2(3) = 0.63092975357145743710...
QRELS = "q1 0 a 1\nq1 0 b 0\n"
RUN = "q1 Q0 b 1 0.9 t\nq1 Q0 a 2 0.7 t\n"


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return [str(tmp_path / "qrels"), str(tmp_path / "run")]


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(("digits", "shown"), [("4", "0.6309"), ("2", "0.63"), ("0", "1")])
def test_digits_rounds_the_text_output(capsys, files, digits: str, shown: str) -> None:
    status, out, err = run_cli(capsys, "score", *files, "-m", "nDCG", "--digits", digits)
    assert (status, out, err) == (0, f"nDCG\tall\t{shown}\n", "")


def test_every_digits_the_help_offers_rounds(capsys, tmp_path) -> None:
    # q1's relevant document at rank 7 below six unjudged ones: nDCG = 1/log2(8) = 1/3; q2's
    # at rank 1: 1; their mean 2/3. Each rounds to N places by hand: 0.33...3, 1.00...0 and
    # 0.66...67 (0, 1 and 1 at N = 0).
    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 b 1\n")
    unjudged = "".join(f"q1 Q0 u{rank} {rank} {10 - rank} t\n" for rank in range(1, 7))
    (tmp_path / "run").write_text(unjudged + "q1 Q0 a 7 1 t\nq2 Q0 b 1 1 t\n")
    for digits in range(41):
        places = "." * (digits > 0)
        expected = [
            f"nDCG\tq1\t0{places}{'3' * digits}",
            f"nDCG\tq2\t1{places}{'0' * digits}",
            "nDCG\tall\t1" if digits == 0 else f"nDCG\tall\t0.{'6' * (digits - 1)}7",
        ]
        files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
        status, out, err = run_cli(capsys, "score", "-q", *files, "--digits", str(digits))
        assert (status, out.splitlines(), err) == (0, expected, ""), digits


def test_text_names_each_measure_as_written(capsys, files) -> None:
    measures = ["ndcg_cut.10", "nDCG(judged_only=True)@5", "trec_eval@10"]
    args = [part for m in measures for part in ("-m", m)]
    status, out, _ = run_cli(capsys, "score", *files, *args, "--digits", "4")
    assert status == 0
    assert [line.split("\t")[0] for line in out.splitlines()] == measures


def test_json_has_the_written_and_the_canonical_form(capsys, files) -> None:
    status, out, _ = run_cli(capsys, "score", *files, "-m", "ndcg_cut.10", "--format", "json")
    result = json.loads(out)
    assert status == 0
    assert result["written"] == "ndcg_cut.10"
    assert result["measure"] == "nDCG(negative=unjudged,fractional=truncate,aggregate=run)@10"


def test_json_and_the_python_api_print_one_record(capsys, files) -> None:
    # The measures as written, in order; nDCG with q1's relevant document at rank 2 of 2 is
    # 1/log2(3) = 0.63092975357145743709952711434276085429958564..., to 40 digits ...2996;
    # DCG the same and IDCG 1 (see QRELS above).
    measures = ["nDCG", "ndcg_cut.10"]
    args = [part for m in measures for part in ("-m", m)]
    status, out, _ = run_cli(capsys, "score", *files, *args, "--format", "json")
    results = ndcgspec.score(*files, measures)
    assert status == 0
    printed = [json.loads(line) for line in out.splitlines()]
    # Each line is the API's record and the provenance of the command's inputs.
    assert [{k: v for k, v in p.items() if k != "provenance"} for p in printed] == [
        results[m].to_json() for m in measures
    ]
    assert all(p["provenance"]["inputs"].keys() == {"qrels", "run"} for p in printed)
    record = results["nDCG"]
    assert str(record.aggregate) == "0.6309297535714574370995271143427608542996"
    assert (record.dcg["q1"], record.idcg["q1"]) == (record.aggregate, Decimal(1))


def test_a_query_missing_from_the_run_is_noted_on_one_stderr_line(capsys, tmp_path) -> None:
    (tmp_path / "qrels").write_text(QRELS + "q2 0 c 1\nq9 0 d 1\n")
    (tmp_path / "run").write_text(RUN)
    status, out, err = run_cli(capsys, "score", str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert status == 0
    assert out.startswith("nDCG\tall\t")
    assert err.count("\n") == 1
    assert err.startswith("ndcgspec: note: 2 of 3 qrels queries are not in the run ('q2', 'q9')")
    assert "aggregate=qrels" in err and "aggregate=run" in err


def test_the_note_does_not_refuse_duplicates_a_measure_accepts(capsys, tmp_path) -> None:
    (tmp_path / "qrels").write_text(QRELS + "q2 0 c 1\n")
    (tmp_path / "run").write_text(RUN + "q1 Q0 a 3 0.1 t\n")
    qrels, run = str(tmp_path / "qrels"), str(tmp_path / "run")
    status, _, err = run_cli(capsys, "score", qrels, run, "-m", "nDCG(duplicates=first)")
    assert status == 0
    assert "('q2')" in err


def test_version_prints_the_package_and_the_spec_version(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    out, _ = capsys.readouterr()
    spec = yaml.safe_load((REPO_ROOT / "spec" / "ndcg.yaml").read_text(encoding="utf-8"))
    assert done.value.code == 0
    assert out == f"ndcgspec {version('ndcgspec')} (spec {spec['spec_version']})\n"


def test_explain_heads_with_the_measure_as_written(capsys) -> None:
    status, out, _ = run_cli(capsys, "explain", "nDCG(judged_only=True)@5")
    lines = out.splitlines()
    assert status == 0
    assert lines[0] == "written      nDCG(judged_only=True)@5"
    assert lines[1] == "measure      nDCG(unjudged=condense,negative=unjudged,fractional=error)@5"
