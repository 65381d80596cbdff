"""How many rankings a prepared input keeps (``engine/prepared.py`` `Prepared.ranking`): a few
rows in many ways, many rows in few."""

from __future__ import annotations

from decimal import Decimal

from ndcgspec.engine.memory import Inputs
from ndcgspec.engine.prepared import Prepared
from ndcgspec.reference import Config
from ndcgspec.reference.inputs import Judgment, Posting

# Every (unjudged, ties) pair the engine ranks with: 12 distinct rankings of one input, more
# than the 8 a large input keeps.
RANKING_CHOICES = [
    {"duplicates": "keep", "unjudged": unjudged, "ties": ties, "empty": "zero"}
    for unjudged in ("zero", "condense", "error")
    for ties in ("input", "pessimistic", "optimistic", "average")
]


def _prepared(queries: int, documents: int) -> Prepared:
    qrels = {
        f"q{q}": {f"d{d}": Judgment(Decimal(d % 3)) for d in range(0, documents, 2)}
        for q in range(queries)
    }
    run = {
        f"q{q}": [Posting(f"d{d}", Decimal(documents - d // 2)) for d in range(documents)]
        for q in range(queries)
    }
    prepared = Inputs(qrels, run).prepared
    assert prepared is not None
    return prepared


def _rankings(prepared: Prepared) -> list[object]:
    classes = prepared.gain_classes(Config.default())
    return [prepared.ranking(classes, dict(choices)) for choices in RANKING_CHOICES]


def test_a_small_input_keeps_every_way_it_was_ranked() -> None:
    prepared = _prepared(queries=2, documents=6)
    first, again = _rankings(prepared), _rankings(prepared)
    assert all(a is b for a, b in zip(first, again, strict=True))


def test_a_large_input_keeps_its_last_eight_rankings() -> None:
    # 10,000 rows: a dozen rankings of them would be megabytes more for a sweep to hold.
    prepared = _prepared(queries=20, documents=500)
    first = _rankings(prepared)
    classes = prepared.gain_classes(Config.default())
    last = [prepared.ranking(classes, dict(choices)) for choices in RANKING_CHOICES[-8:]]
    assert all(a is b for a, b in zip(first[-8:], last, strict=True))
    # The first was made twelve rankings ago: made again, equal, not the same object.
    again = prepared.ranking(classes, dict(RANKING_CHOICES[0]))
    assert again is not first[0]
    assert (again.rank == first[0].rank).all()
