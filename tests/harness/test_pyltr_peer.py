"""The built-in adapter of pyltr's NDCG computes what its source says (pyltr/metrics/dcg.py,
pyltr/util/sort.py), on inputs small enough to derive by hand. Every expected value is hand
arithmetic on the library's formula, never the library's output; each is a handful of float64
operations, so the library's value lies within a relative 1e-12 of it."""

from __future__ import annotations

import math
from typing import Any

import pytest
from install_hints import needing

from ndcgspec.harness.adapters.base import CaseInput
from ndcgspec.reference import Config

L2 = math.log2(3)
"""The discount of rank 2 is 1 / log2(3)."""
CLOSE = 1e-12
EPSILON = 2.0**-52
"""float64's machine epsilon, pyltr's floor of the ideal DCG."""


def _answer(qrels: str, run: str, **config: Any) -> Any:
    from ndcgspec.harness.adapters.peers.pyltr import adapter

    rows = [tuple(r.split()) for r in qrels.split(";")], [tuple(r.split()) for r in run.split(";")]
    return adapter().compute(CaseInput(*rows), Config.from_mapping(config).to_mapping())


@needing("pyltr", "pyltr")
def test_exponential_gain_and_the_ideal_of_the_retrieved_labels() -> None:
    # Ranking a (1), b (2); the unretrieved c (3) never reaches pyltr. DCG 1 + 3 / log2(3),
    # ideal (b, a): 3 + 1 / log2(3).
    answer = _answer("q1 a 1; q1 b 2; q1 c 3", "q1 a 2; q1 b 1", gain="exponential", cutoff=5)
    assert answer.per_query == {"q1": pytest.approx((1 + 3 / L2) / (3 + 1 / L2), rel=CLOSE)}
    linear = _answer("q1 a 1; q1 b 2; q1 c 3", "q1 a 2; q1 b 1", gain="linear", cutoff=5)
    assert linear.per_query == {"q1": pytest.approx((1 + 2 / L2) / (2 + 1 / L2), rel=CLOSE)}


@needing("pyltr", "pyltr")
def test_tied_scores_put_the_lower_label_first() -> None:
    # a (2) and b (0) tie: lexsort by label ascending ranks b first, DCG 3 / log2(3), ideal 3.
    answer = _answer("q1 a 2; q1 b 0", "q1 a 1; q1 b 1", gain="exponential", cutoff=5)
    assert answer.per_query == {"q1": pytest.approx(1 / L2, rel=CLOSE)}


@needing("pyltr", "pyltr")
def test_no_cutoff_asks_for_the_default_of_ten() -> None:
    # Eleven documents, the only relevant one last: beyond k = 10 it gains nothing.
    qrels = "; ".join(f"q1 d{i} {1 if i == 10 else 0}" for i in range(11))
    run = "; ".join(f"q1 d{i} {20 - i}" for i in range(11))
    assert _answer(qrels, run, gain="exponential").per_query == {"q1": 0.0}


@needing("pyltr", "pyltr")
def test_an_ideal_dcg_of_zero_or_below_is_floored_at_epsilon() -> None:
    # One document labelled -1: DCG = ideal = 2^-1 - 1 = -1/2, divided by 2^-52.
    answer = _answer("q1 a -1", "q1 a 1", gain="exponential", cutoff=5)
    assert answer.per_query == {"q1": -0.5 / EPSILON}
    # Labels 0 only: DCG 0 over epsilon is 0.
    assert _answer("q1 a 0", "q1 a 1", gain="exponential").per_query == {"q1": 0.0}


@needing("pyltr", "pyltr")
def test_the_mean_is_over_the_retrieved_queries() -> None:
    # q1 is ideal (1); q2 retrieves its relevant document second of two: 1 / log2(3); q3 is
    # judged and not retrieved, so it is no group of the arrays.
    qrels = "q1 a 1; q2 x 0; q2 y 1; q3 z 1"
    answer = _answer(qrels, "q1 a 1; q2 x 2; q2 y 1", gain="linear", cutoff=5)
    assert answer.per_query == {"q1": 1.0, "q2": pytest.approx(1 / L2, rel=CLOSE)}
    assert answer.aggregate == pytest.approx((1 + 1 / L2) / 2, rel=CLOSE)
