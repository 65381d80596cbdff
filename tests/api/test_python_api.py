"""``ndcgspec.score``: the example of ``docs/usage.md`` runs, the three input shapes give the
same exact values, and errors carry file, line and anchor."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import tomllib
from decimal import Decimal

import pytest
from conftest import REPO_ROOT

import ndcgspec
from ndcgspec.commands.cli import main

# Hand arithmetic: ranking d2 (0), d3 (1), d1 (2) against ideal 2, 1.
#   DCG = 1/log2(3) + 2/log2(4) = 1.630929753571457..., IDCG = 2 + 1/log2(3) = 2.630929753571457...
#   nDCG = DCG / IDCG = 1 − 1/IDCG = 1 − 0.380093766715934... = 0.619906233284066...
NDCG_Q1 = Decimal("0.619906233284066")
QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}}
RUN = {"q1": {"d1": 0.2, "d2": 0.9, "d3": 0.5}}
WITHOUT_PANDAS = "pandas is not installed: no DataFrame to score (the documented example makes one)"


def test_the_version_is_pyprojects_and_the_one_version_prints(capsys) -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert ndcgspec.__version__ == project["project"]["version"]
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.startswith(f"ndcgspec {ndcgspec.__version__} (spec ")


def _documented_examples() -> list[str]:
    usage = (REPO_ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    section = usage.split("## Python API", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.DOTALL)


def _printed(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_documented_core_example_runs_without_pandas() -> None:
    # Blocks pandas, as a core install lacks it: the first example must not need it.
    code = "import sys\nsys.modules['pandas'] = None\n" + _documented_examples()[0]
    printed = _printed(code)
    # q1 ranks d2 (0), d3 (1), d1 (2): DCG = 1/log2(3) + 2/log2(4), IDCG = 2 + 1/log2(3).
    log3 = math.log2(3)
    assert float(printed[1]) == pytest.approx((1 / log3 + 1) / (2 + 1 / log3), rel=1e-15)
    # The second run ranks d1, d3, d2: the ideal order, 1 under both measures.
    assert printed[3].split() == ["1.000000000000000000000000000000000000000"] * 2
    assert printed[4] == "README.md 1 None"


def test_the_documented_dataframe_example_runs() -> None:
    pytest.importorskip("pandas", reason=WITHOUT_PANDAS)
    (printed,) = _printed(_documented_examples()[1])
    log3 = math.log2(3)
    assert printed.startswith("{'q1': ") and float(printed[7:-1]) == pytest.approx(
        (1 / log3 + 1) / (2 + 1 / log3), rel=1e-15
    )


def test_dicts_dataframes_and_files_give_the_same_exact_value(tmp_path) -> None:
    pandas = pytest.importorskip("pandas", reason=WITHOUT_PANDAS)
    qrels_file, run_file = tmp_path / "qrels", tmp_path / "run"
    qrels_file.write_text("q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\n")
    run_file.write_text("q1 Q0 d1 1 0.2 t\nq1 Q0 d2 2 0.9 t\nq1 Q0 d3 3 0.5 t\n")
    frame_qrels = pandas.DataFrame(
        {"query_id": ["q1"] * 3, "doc_id": ["d1", "d2", "d3"], "relevance": [2, 0, 1]}
    )
    frame_run = pandas.DataFrame(
        {"query_id": ["q1"] * 3, "doc_id": ["d1", "d2", "d3"], "score": [0.2, 0.9, 0.5]}
    )
    values = [
        ndcgspec.score(q, r, "nDCG")["nDCG"]
        for q, r in [(QRELS, RUN), (frame_qrels, frame_run), (str(qrels_file), run_file)]
    ]
    for result in values:
        assert abs(result.aggregate - NDCG_Q1) < Decimal("1e-15")
        assert result.per_query["q1"] == values[0].per_query["q1"]
        assert isinstance(result.aggregate, Decimal)
        assert float(result) == pytest.approx(float(NDCG_Q1), rel=0, abs=1e-15)


def test_results_name_the_measure_as_written_and_its_canonical_form() -> None:
    result = ndcgspec.score(QRELS, RUN, ["ndcg_cut.10"])["ndcg_cut.10"]
    assert result.measure == "ndcg_cut.10"
    assert result.canonical == "nDCG(negative=unjudged,fractional=truncate,aggregate=run)@10"
    assert re.fullmatch(r"[0-9a-f]{16}", result.fingerprint)


def test_errors_carry_file_and_line(tmp_path) -> None:
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 0.2 t\nq1 Q0 d2 2 high t\n")
    with pytest.raises(ndcgspec.ScoreError) as caught:
        ndcgspec.score(QRELS, str(run), "nDCG")
    assert caught.value.file == str(run)
    assert caught.value.line == 2


def test_a_dataframe_without_the_columns_is_an_error() -> None:
    pandas = pytest.importorskip("pandas", reason=WITHOUT_PANDAS)
    with pytest.raises(ndcgspec.ScoreError, match="query_id"):
        ndcgspec.score(QRELS, pandas.DataFrame({"qid": ["q1"]}), "nDCG")


def test_errors_carry_file_and_line_of_a_path_holding_colons(tmp_path) -> None:
    # A file named like "file:line" itself: the location is the error's fields, never the
    # message taken apart.
    run = tmp_path / "a:b:3.txt"
    run.write_text("q1 Q0 d1 1 0.2 t\nq1 Q0 d2 2 high t\n")
    with pytest.raises(ndcgspec.ScoreError) as caught:
        ndcgspec.score(QRELS, str(run), "nDCG")
    assert (caught.value.file, caught.value.line) == (str(run), 2)
    assert str(caught.value) == f"{run}:2: score 'high' is not a finite decimal number"


def test_a_whole_file_error_has_a_file_and_no_line(tmp_path) -> None:
    # A name ending in ":4" reads like "file:line" from the message; the fields say otherwise.
    run = tmp_path / "a:b:4"
    run.write_text("\n")
    with pytest.raises(ndcgspec.ScoreError) as caught:
        ndcgspec.score(QRELS, str(run), "nDCG")
    assert (caught.value.file, caught.value.line) == (str(run), None)


def test_errors_carry_the_row_of_a_table(tmp_path) -> None:
    # Rows are counted from the first after the header: the empty doc_id is on row 2.
    pytest.importorskip("pyarrow", reason="pyarrow (the 'tables' extra) is not installed")
    qrels, run = tmp_path / "q:1.csv", tmp_path / "r:1.csv"
    qrels.write_text("query_id,doc_id,relevance\nq1,d1,2\n")
    run.write_text("query_id,doc_id,score\nq1,d1,0.5\nq1,,0.2\n")
    with pytest.raises(ndcgspec.ScoreError) as caught:
        ndcgspec.score(str(qrels), str(run), "nDCG")
    assert (caught.value.file, caught.value.line) == (str(run), 2)
    assert str(caught.value).startswith(f"{run}:2: column 'doc_id': id ''")


def test_a_rejection_carries_its_anchor_file_and_line(tmp_path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run:2"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")
    with pytest.raises(ndcgspec.ScoreError) as caught:
        ndcgspec.score(str(qrels), str(run), "nDCG(unjudged=error)")
    error = caught.value
    assert (error.file, error.line, error.anchor) == (str(run), 2, "ndcg.unjudged.error")


def test_an_in_memory_error_has_no_location() -> None:
    with pytest.raises(ndcgspec.ScoreError) as caught:
        ndcgspec.score(QRELS, {"q1": {"d1": 1, "d9": 2}}, "nDCG(unjudged=error)")
    assert (caught.value.file, caught.value.line) == (None, None)
    assert caught.value.anchor == "ndcg.unjudged.error"


def test_a_result_holds_dcg_and_idcg_read_only() -> None:
    result = ndcgspec.score(QRELS, RUN, "nDCG")["nDCG"]
    # Hand arithmetic above: DCG = 1/log2(3) + 1, IDCG = 2 + 1/log2(3).
    assert abs(result.dcg["q1"] - Decimal("1.630929753571457")) < Decimal("1e-15")
    assert abs(result.idcg["q1"] - Decimal("2.630929753571457")) < Decimal("1e-15")
    assert result.per_query == {"q1": result.aggregate}
    with pytest.raises(TypeError):
        result.per_query["q1"] = Decimal(0)  # type: ignore[index]


def test_a_result_writes_back_the_object_it_was_read_from_digit_for_digit() -> None:
    # Digits a Decimal would print with an exponent (1.000E-8, 0E-9) are written as read.
    written = {
        "measure": "nDCG(empty=nan)@3",
        "fingerprint": "0123456789abcdef",
        "spec_version": "9.9.9",
        "aggregate": "0.00000001000",
        "per_query": {
            "b": {"ndcg": None, "dcg": "0", "idcg": "0.000000000"},
            "a": {"ndcg": "0.5000", "dcg": "12.50", "idcg": "25.000000000000000000000000000000000"},
        },
    }
    result = ndcgspec.Result.from_json(written, "m")
    assert result.to_json() == {**written, "written": "m"}
    assert list(result.to_json()["per_query"]) == ["b", "a"]
    assert (result.measure, result.canonical, result.aggregate) == (
        "m",
        "nDCG(empty=nan)@3",
        Decimal("1E-8"),
    )
    assert ndcgspec.Result.from_json(written).measure == "nDCG(empty=nan)@3"


def test_in_memory_input_is_scored_by_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dict and a DataFrame go through the router to the engine's in-memory path
    (`engine.memory`) for a configuration it declares: the reference out of reach, the value
    is still the hand value above."""
    from ndcgspec.engine import memory

    def unreachable(*args: object) -> None:
        raise AssertionError("the reference was asked")

    monkeypatch.setattr(memory, "evaluate", unreachable)
    engine_calls = []
    evaluate_prepared = memory.evaluate_prepared

    def counted(*args: object) -> object:
        engine_calls.append(args)
        return evaluate_prepared(*args)

    monkeypatch.setattr(memory, "evaluate_prepared", counted)
    inputs = [(QRELS, RUN)]
    try:
        import pandas as pd
    except ImportError:
        pass
    else:
        inputs.append(
            (
                pd.DataFrame(
                    [(q, d, v) for q, docs in QRELS.items() for d, v in docs.items()],
                    columns=["query_id", "doc_id", "relevance"],
                ),
                pd.DataFrame(
                    [(q, d, v) for q, docs in RUN.items() for d, v in docs.items()],
                    columns=["query_id", "doc_id", "score"],
                ),
            )
        )
    for qrels, run in inputs:
        result = ndcgspec.score(qrels, run, "nDCG")["nDCG"]
        assert result.aggregate is not None
        assert abs(result.aggregate - NDCG_Q1) < Decimal("1e-15")
    assert len(engine_calls) == len(inputs)
