"""Worked examples published in documents, one case each, citing the table they come from.

Expected values are the reference's; the numbers the documents print are kept beside them
(`printed`) so that `ndcgspec cases check` compares the two at the printed precision and the
reference never grades itself alone.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from ndcgspec.reference import Config

from .suite_case import Row, case_file, cite, computed_case

ORIGIN = "hand"
SOURCE = "ndcgspec.harness.suite_documents"

WIKIPEDIA = {
    "kind": "document",
    "ref": "Wikipedia, Discounted cumulative gain",
    "locator": "section Example: table of rel_i, log2(i + 1) and rel_i / log2(i + 1), i = 1..6",
    "note": "documents D1..D6 judged 3, 2, 3, 0, 1, 2; DCG6, IDCG6, nDCG6 printed to 3 places",
}
WORST_ORDERING = {
    "kind": "document",
    "ref": "nDCG tutorial worked example cited in the suite's issue 3",
    "locator": "worked example: labels 2, 3, 1, 0, 2 and their worst ordering 0, 1, 2, 2, 3",
    "note": "exponential gain; the tutorial prints 0.567, a rounding slip for 0.566448",
}
REVERSALS = {
    "kind": "document",
    "ref": "suite issue 3, reversal count",
    "locator": "the six documents 3, 3, 2, 2, 1, 0",
    "note": "180 orderings, 16,110 pairs, 1,002 pairs (6.2%) ordered oppositely by the two gains",
}

LOG_BASES = ("2", "e", "10", "1.5")
JARVELIN_BASES = ("2", "10")
GAINS = ("linear", "exponential")


def ranked_rows(labels: list[int], qid: str = "q1") -> tuple[list[Row], list[Row]]:
    """Documents d1..dn in run order with descending scores, each judged with its label."""
    qrels = [[qid, f"d{i}", str(label)] for i, label in enumerate(labels, start=1)]
    run = [[qid, f"d{i}", str(len(labels) - i + 1)] for i in range(1, len(labels) + 1)]
    return qrels, run


def printed(what: str, value: str, places: int, erratum: str | None = None) -> dict[str, Any]:
    """A number a document prints for query q1 (or the aggregate), at its printed precision."""
    entry: dict[str, Any] = {"what": what, "qid": None if what == "aggregate" else "q1"}
    entry.update({"value": value, "decimal_places": places})
    if erratum:
        entry["erratum"] = erratum
    return entry


def _discounts() -> list[tuple[str, dict[str, str]]]:
    return [(f"log{b}", {"discount": "log", "log_base": b}) for b in LOG_BASES] + [
        (f"jarvelin{b}", {"discount": "jarvelin2002", "log_base": b}) for b in JARVELIN_BASES
    ]


def wikipedia_example() -> dict[str, Any]:
    """3,2,3,0,1,2 under both gains, k = 1..6, four log bases and Järvelin–Kekäläinen b = 2, 10."""
    qrels, run = ranked_rows([3, 2, 3, 0, 1, 2])
    cases = []
    for gain in GAINS:
        for name, discount in _discounts():
            for k in range(1, 7):
                config = Config.from_mapping({"gain": gain, **discount, "cutoff": k})
                table = gain == "linear" and name == "log2" and k == 6
                cases.append(
                    computed_case(
                        case_id=f"documents.wikipedia/{gain}-{name}-k{k}",
                        description=f"3,2,3,0,1,2 with {gain} gain, {name} discount, k = {k}",
                        config=config,
                        spec=[cite("ndcg.definition.dcg"), cite(f"ndcg.gain.{gain}")],
                        sources=[WIKIPEDIA],
                        origin=ORIGIN,
                        qrels=qrels,
                        run=run,
                        extra={"printed": _wikipedia_printed()} if table else None,
                    )
                )
    cg_config = Config.from_mapping({"discount": "none", "cutoff": 6})
    cases.append(
        computed_case(
            case_id="documents.wikipedia/cumulative-gain-k6",
            description="3,2,3,0,1,2 without discount: CG6 = 11",
            config=cg_config,
            spec=[cite("ndcg.discount.none")],
            sources=[WIKIPEDIA | {"locator": "section Example: CG6 = 3 + 2 + 3 + 0 + 1 + 2"}],
            origin=ORIGIN,
            qrels=qrels,
            run=run,
            extra={"printed": [printed("dcg", "11", 0)]},
        )
    )
    return case_file(
        "documents/wikipedia",
        "The worked example of the Wikipedia article on DCG: relevance 3,2,3,0,1,2.",
        ORIGIN,
        SOURCE,
        cases,
    )


def _wikipedia_printed() -> list[dict[str, Any]]:
    return [printed("dcg", "6.861", 3), printed("idcg", "7.141", 3), printed("ndcg", "0.961", 3)]


def worst_ordering() -> dict[str, Any]:
    """2,3,1,0,2 and its worst ordering 0,1,2,2,3 under both gains."""
    cases = []
    for name, labels in (("given", [2, 3, 1, 0, 2]), ("worst", [0, 1, 2, 2, 3])):
        for gain in GAINS:
            qrels, run = ranked_rows(labels)
            extra = None
            if name == "worst" and gain == "exponential":
                slip = "the tutorial prints 0.567; the exact value 0.566447… rounds to 0.566"
                extra = {
                    "printed": [
                        printed("ndcg", "0.566448", 6),
                        printed("ndcg", "0.567", 3, erratum=slip),
                    ]
                }
            cases.append(
                computed_case(
                    case_id=f"documents.worst-ordering/{name}-{gain}",
                    description=f"{','.join(map(str, labels))} with {gain} gain",
                    config=Config.from_mapping({"gain": gain}),
                    spec=[cite(f"ndcg.gain.{gain}"), cite("ndcg.definition.idcg")],
                    sources=[WORST_ORDERING],
                    origin=ORIGIN,
                    qrels=qrels,
                    run=run,
                    extra=extra,
                )
            )
    return case_file(
        "documents/worst-ordering",
        "The tutorial example 2,3,1,0,2 and its worst ordering, under both gains.",
        ORIGIN,
        SOURCE,
        cases,
    )


REVERSAL_LABELS = (3, 3, 2, 2, 1, 0)
REVERSAL_CLAIM = {
    "orderings": 180,
    "pairs": 16110,
    "opposite_pairs": 1002,
    "opposite_percent": "6.2",
    "measures": ["nDCG@6", "nDCG(gain=exponential)@6"],
}


def reversal_count() -> dict[str, Any]:
    """Every distinguishable ordering of 3,3,2,2,1,0 under both gains at k = 6, with the
    published pair counts in the file's `enumeration` object."""
    cases = []
    for ordering in sorted(set(permutations(REVERSAL_LABELS)), reverse=True):
        qrels, run = ranked_rows(list(ordering))
        code = "".join(map(str, ordering))
        for measure in REVERSAL_CLAIM["measures"]:
            config = Config.from_mapping(
                {"cutoff": 6, **({"gain": "exponential"} if "exponential" in measure else {})}
            )
            gain = config.choice("gain")
            cases.append(
                computed_case(
                    case_id=f"documents.reversals/{code}-{gain}",
                    description=f"ordering {code} of 3,3,2,2,1,0 with {gain} gain at k = 6",
                    config=config,
                    spec=[cite(f"ndcg.gain.{gain}")],
                    sources=[REVERSALS],
                    origin=ORIGIN,
                    qrels=qrels,
                    run=run,
                )
            )
    return case_file(
        "documents/reversals",
        "All 180 orderings of 3,3,2,2,1,0 under linear and exponential gain at k = 6; the file's "
        "enumeration object states how many pairs of orderings the two gains rank oppositely.",
        ORIGIN,
        SOURCE,
        cases,
        extra={"enumeration": REVERSAL_CLAIM},
    )


BUILDERS = {
    "documents/wikipedia": wikipedia_example,
    "documents/worst-ordering": worst_ordering,
    "documents/reversals": reversal_count,
}
