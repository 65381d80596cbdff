"""One router (`ndcgspec.engine.route`) for every path: a configuration the engine does not
declare (`support.not_computed`) is scored by the plain reference, with the reason logged at
INFO, whether the inputs are TREC files, a table, in-memory objects (`memory`, the Python
API), a sweep or a Spark partition; and the engine is not asked.

The configuration uses a ties choice added to the spec (and to the reference) for the test,
not to the engine: the tie group r (label 1), s (label 0) in reversed run order ranks s
first, so nDCG = DCG = 1/log2(3) by hand; every declared ties choice would give 1 or, under
``average``, (1 + 1/log2(3))/2.
"""

from __future__ import annotations

import copy
import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ndcgspec
from ndcgspec.engine import memory, scoring, support
from ndcgspec.engine.memory import Inputs, evaluate_inputs
from ndcgspec.engine.route import LOG
from ndcgspec.engine.sweep import Sweep
from ndcgspec.reference import Config, qrels_from_labels, run_from_scores, ties
from ndcgspec.reference import config as config_module
from ndcgspec.spark import partition
from ndcgspec.spec import load_spec

QRELS, RUN = "q 0 r 1\nq 0 s 0\n", "q Q0 r 1 1 t\nq Q0 s 2 1 t\n"
LABELS, SCORES = {"q": {"r": 1, "s": 0}}, {"q": {"r": 1, "s": 1}}


@pytest.fixture
def reversed_ties(monkeypatch: pytest.MonkeyPatch) -> Config:
    """A configuration choosing ties=reversed, a choice the spec and the reference know for
    this test; the engine's readers and arithmetic out of reach."""
    spec = copy.deepcopy(load_spec())
    ties_axis = next(a for a in spec["axes"] if a["id"] == "ties")
    ties_axis["choices"].append(
        {"id": "reversed", "anchor": "ndcg.ties.reversed", "definition": "run order reversed"}
    )
    monkeypatch.setattr(config_module, "load_spec", lambda: spec)
    monkeypatch.setitem(ties.CHOICES, "reversed", lambda group: ties.input_order(group[::-1]))

    def unreachable(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the engine was asked")

    for module, name in [
        (scoring, "score_trec_run"),
        (scoring, "score_columns"),
        (memory, "evaluate_prepared"),
        (Sweep, "_swept"),
        (partition, "prepare"),
    ]:
        monkeypatch.setattr(module, name, unreachable)
    config = Config.from_mapping({"ties": "reversed"})
    assert support.not_computed(config) == ["ndcg.ties.reversed"]
    return config


def _files(folder: Path) -> tuple[Path, Path]:
    (folder / "qrels").write_text(QRELS, encoding="utf-8")
    (folder / "run").write_text(RUN, encoding="utf-8")
    return folder / "qrels", folder / "run"


def _trec(config: Config, folder: Path) -> str | None:
    return scoring.score_files([config], *_files(folder))[0]["aggregate"]


def _table(config: Config, folder: Path) -> str | None:
    pytest.importorskip("pyarrow", reason="pyarrow (the 'tables' extra) is not installed")
    qrels = _files(folder)[0]
    (folder / "run.csv").write_text("query_id,doc_id,score\nq,r,1\nq,s,1\n", encoding="utf-8")
    return scoring.score_files([config], qrels, folder / "run.csv")[0]["aggregate"]


def _memory(config: Config, folder: Path) -> str | None:
    qrels, run = qrels_from_labels(LABELS), run_from_scores(SCORES)
    assert evaluate_inputs(config, qrels, run) == Inputs(qrels, run).result(config)
    return Inputs(qrels, run).result(config).aggregate


def _api(config: Config, folder: Path) -> str | None:
    result = ndcgspec.score(LABELS, SCORES, "nDCG(ties=reversed)")["nDCG(ties=reversed)"]
    return str(result.aggregate)


def _sweep(config: Config, folder: Path) -> str | None:
    scores = Sweep(qrels_from_labels(LABELS), run_from_scores(SCORES)).scores(config, None)
    return scores.mean  # type: ignore[union-attr]


def _partition(config: Config, folder: Path) -> str | None:
    qrels = partition.in_memory("qrels", QRELS.splitlines())
    run = partition.in_memory("run", RUN.splitlines())
    [(entries, _)] = partition.evaluations([config], qrels, run)
    return entries["q"]["ndcg"]


PATHS: dict[str, Callable[[Config, Path], str | None]] = {
    "trec": _trec,
    "table": _table,
    "memory": _memory,
    "api": _api,
    "sweep": _sweep,
    "spark partition": _partition,
}


@pytest.mark.parametrize("path", PATHS.values(), ids=PATHS.keys())
def test_a_configuration_the_engine_does_not_declare_goes_to_the_reference_on_every_path(
    path: Callable[[Config, Path], str | None],
    reversed_ties: Config,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger=LOG.name):
        value = path(reversed_ties, tmp_path)
    assert value is not None
    # One log2 and one division in binary floating point: within 2 ulp.
    assert math.isclose(float(value), 1 / math.log2(3), rel_tol=4 * 2.0**-52)
    assert "plain reference used: nDCG(ties=reversed) uses ndcg.ties.reversed" in caplog.text
    assert {r.levelno for r in caplog.records} == {logging.INFO}
