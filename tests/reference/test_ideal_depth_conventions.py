"""The ideal and empty choices of spec 2.2.0 (``ndcg.ideal.uncut``,
``ndcg.ideal.cut-at-n``, ``ndcg.ideal.assumed-k``,
``ndcg.ideal.top-k``, ``ndcg.empty.agree``) against hand arithmetic.

Each expected value is written from the definition in the comment beside it, with the log
discount 1/log2(rank + 1) evaluated by an mpmath context of 60 digits, independently of the
reference's code; the reference's 40 correctly rounded digits must agree to 1e-39.
"""

from __future__ import annotations

import hashlib
from typing import Any

import mpmath
import pytest

from ndcgspec.reference import Config, qrels_from_labels, run_from_scores
from ndcgspec.reference.evaluate import evaluate

# A context of its own: mpmath's global precision is shared (every value below is MP's).
MP = mpmath.MPContext()
MP.dps = 60
ONE, ZERO = MP.mpf(1), MP.mpf(0)


def w(rank: int) -> Any:
    """The log discount at `rank`, 1/log2(rank + 1)."""
    return 1 / MP.log(rank + 1, 2)


def ndcg_of(
    config: dict[str, Any], qrels: dict[str, dict[str, str]], run: dict[str, dict[str, str]]
) -> dict[str, str | None]:
    """Each query's nDCG digits, and the aggregate under "*"."""
    result = evaluate(
        Config.from_mapping(config), qrels_from_labels(qrels), run_from_scores(run)
    ).to_json()
    per_query = {q: entry["ndcg"] for q, entry in result["per_query"].items()}
    return {**per_query, "*": result["aggregate"]}


def agrees(digits: str | None, expected: Any) -> bool:
    return digits is not None and abs(MP.mpf(digits) - expected) < MP.mpf("1e-39")


# qrels a = 1, b = 1; run a, b; k = 1. DCG@1 = 1.
TWO_RELEVANT = ({"q": {"a": "1", "b": "1"}}, {"q": {"a": "2", "b": "1"}})
# qrels a, b, c all 1; run a, x (x unjudged); k = 5. DCG = 1 (a at rank 1).
THREE_RELEVANT_TWO_RETRIEVED = (
    {"q": {"a": "1", "b": "1", "c": "1"}},
    {"q": {"a": "2", "x": "1"}},
)


@pytest.mark.parametrize(
    ("config", "inputs", "expected"),
    [
        # uncut: IDCG sums both relevant documents whatever k: 1 + 1/log2 3;
        # nDCG@1 = 1 / (1 + 1/log2 3) = 0.6131...
        ({"ideal": "uncut", "cutoff": 1}, TWO_RELEVANT, 1 / (1 + w(2))),
        # judged (the spec's cut at k): IDCG@1 = 1, nDCG@1 = 1.
        ({"cutoff": 1}, TWO_RELEVANT, ONE),
        # cut-at-n: n = 2 ranked, the ideal 1, 1, 1 cut at min(5, 2) = 2:
        # IDCG = 1 + 1/log2 3, nDCG = 0.6131...
        (
            {"ideal": "cut-at-n", "cutoff": 5},
            THREE_RELEVANT_TWO_RETRIEVED,
            1 / (1 + w(2)),
        ),
        # judged: IDCG@5 = 1 + 1/log2 3 + 1/2, nDCG = 0.4692...
        ({"cutoff": 5}, THREE_RELEVANT_TWO_RETRIEVED, 1 / (1 + w(2) + w(3))),
        # cut-at-n without a cutoff: k is n = 2, the same 0.6131...
        ({"ideal": "cut-at-n"}, THREE_RELEVANT_TWO_RETRIEVED, 1 / (1 + w(2))),
        # assumed-k: one relevant document (a = 1) ranked first of a, x; k = 3. The ideal is three
        # copies of the top gain 1: IDCG = 1 + 1/log2 3 + 1/2, nDCG = 1 / IDCG = 0.4692...
        (
            {"ideal": "assumed-k", "cutoff": 3},
            ({"q": {"a": "1"}}, {"q": {"a": "2", "x": "1"}}),
            1 / (1 + w(2) + w(3)),
        ),
        # assumed-k, graded: labels a = 2, b = 1, run b, a, k = 2. Top gain 2 at both ranks:
        # IDCG = 2 + 2/log2 3; DCG = 1 + 2/log2 3; nDCG = (1 + 2w2) / (2 + 2w2) = 0.6934...
        (
            {"ideal": "assumed-k", "cutoff": 2},
            ({"q": {"a": "2", "b": "1"}}, {"q": {"b": "2", "a": "1"}}),
            (1 + 2 * w(2)) / (2 + 2 * w(2)),
        ),
        # assumed-k, binary gain on the same input: top gain 1, IDCG = 1 + 1/log2 3 = DCG: 1.
        (
            {"ideal": "assumed-k", "gain": "binary", "cutoff": 2},
            ({"q": {"a": "2", "b": "1"}}, {"q": {"b": "2", "a": "1"}}),
            ONE,
        ),
        # top-k: qrels a = 1, b = 2, run a, x, b, k = 2. Top 2 gains 1, 0, already
        # sorted: IDCG = DCG = 1, nDCG = 1 (judged would give 1 / (2 + 1/log2 3) = 0.3801...).
        (
            {"ideal": "top-k", "cutoff": 2},
            ({"q": {"a": "1", "b": "2"}}, {"q": {"a": "3", "x": "2", "b": "1"}}),
            ONE,
        ),
        (
            {"cutoff": 2},
            ({"q": {"a": "1", "b": "2"}}, {"q": {"a": "3", "x": "2", "b": "1"}}),
            1 / (2 + w(2)),
        ),
        # top-k: run x, a (a = 1), k = 2: top gains 0, 1 sorted to 1, 0: IDCG = 1,
        # DCG = 1/log2 3, nDCG = 0.6309...
        (
            {"ideal": "top-k", "cutoff": 2},
            ({"q": {"a": "1", "b": "1"}}, {"q": {"x": "2", "a": "1"}}),
            w(2),
        ),
    ],
)
def test_ideal_choice_by_hand(config: dict[str, Any], inputs: tuple, expected: Any) -> None:
    qrels, run = inputs
    assert agrees(ndcg_of(config, qrels, run)["q"], expected)


def test_empty_agree_by_hand() -> None:
    # q0 and q1 judge nothing relevant; q0 retrieves nothing (absent from the run: 1), q1
    # retrieves z (0); p ranks its relevant document first (1). Mean = (1 + 0 + 1) / 3.
    qrels = {"q0": {"a": "0"}, "q1": {"a": "0"}, "p": {"a": "1"}}
    run = {"q1": {"z": "1"}, "p": {"a": "1"}}
    scores = ndcg_of({"empty": "agree"}, qrels, run)
    assert agrees(scores["q0"], ONE)
    assert agrees(scores["q1"], ZERO)
    assert agrees(scores["*"], MP.mpf(2) / 3)


def test_empty_agree_counts_the_condensed_ranking() -> None:
    # Under unjudged=condense q's only retrieved document z is unjudged and removed: n = 0, so
    # the query scores 1; under unjudged=zero z stays ranked: 0.
    qrels = {"q": {"a": "0"}}
    run = {"q": {"z": "1"}}
    condensed = {"empty": "agree", "unjudged": "condense"}
    assert agrees(ndcg_of(condensed, qrels, run)["q"], ONE)
    assert agrees(ndcg_of({"empty": "agree"}, qrels, run)["q"], ZERO)


def test_the_defaults_keep_their_canonical_strings_and_fingerprints() -> None:
    # A minor version only adds (ndcg.definition.versions): the full form of the defaults lists
    # every axis as before 2.2.0, and its fingerprint is the SHA-256 prefix of that text.
    full = (
        "nDCG(gain=linear,discount=log,log_base=2,log_offset=1,ideal=judged,unjudged=zero,"
        "negative=zero,fractional=keep,ties=docid-desc,duplicates=error,empty=zero,"
        "aggregate=qrels)@10"
    )
    config = Config.from_mapping({"cutoff": 10})
    assert config.full() == full
    digest = hashlib.sha256(f"ndcgspec 2 {full}".encode()).hexdigest()[:16]
    assert config.fingerprint() == digest
