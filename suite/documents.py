"""Worked examples published in documents, one case each, citing the table they come from.

Expected values are the reference's; the numbers the documents print are kept beside them
(`printed`) so that `ndcgspec cases check` compares the two at the printed precision and the
reference never grades itself alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import permutations

from ndcgspec.reference import Config
from ndcgspec.suite.case import case_file, cite, computed_case
from ndcgspec.suite.case_record import CaseFile, Enumeration, Printed, Row, Source

ORIGIN = "hand"
SOURCE = "ndcgspec.suite.documents"

WIKIPEDIA = Source(
    kind="document",
    ref="Wikipedia, Discounted cumulative gain",
    locator="section Example: table of rel_i, log2(i + 1) and rel_i / log2(i + 1), i = 1..6",
    note="documents D1..D6 judged 3, 2, 3, 0, 1, 2; DCG6, IDCG6, nDCG6 printed to 3 places",
)
WORST_ORDERING = Source(
    kind="document",
    ref="nDCG tutorial worked example cited in the suite's issue 3",
    locator="worked example: labels 2, 3, 1, 0, 2 and their worst ordering 0, 1, 2, 2, 3",
    note="exponential gain; the tutorial prints 0.567, a rounding slip for 0.566448",
)
REVERSALS = Source(
    kind="document",
    ref="suite issue 3, reversal count",
    locator="the six documents 3, 3, 2, 2, 1, 0",
    note="180 orderings, 16,110 pairs, 1,002 pairs (6.2%) ordered oppositely by the two gains",
)

LOG_BASES = ("2", "e", "10", "1.5")
JARVELIN_BASES = ("2", "10")
GAINS = ("linear", "exponential")

Example = tuple[str, str, list[Row], list[Row], Mapping[str, str | int], str]
"""A worked example: its name, description, qrels, run, configuration and printed nDCG."""


def ranked_rows(labels: list[int], qid: str = "q1") -> tuple[list[Row], list[Row]]:
    """Documents d1..dn in run order with descending scores, each judged with its label."""
    qrels = [[qid, f"d{i}", str(label)] for i, label in enumerate(labels, start=1)]
    run = [[qid, f"d{i}", str(len(labels) - i + 1)] for i in range(1, len(labels) + 1)]
    return qrels, run


def printed(what: str, value: str, places: int, erratum: str | None = None) -> Printed:
    """A number a document prints for query q1 (or the aggregate), at its printed precision."""
    return Printed(what, None if what == "aggregate" else "q1", value, places, erratum)


def _discounts() -> list[tuple[str, dict[str, str]]]:
    return [(f"log{b}", {"discount": "log", "log_base": b}) for b in LOG_BASES] + [
        (f"jarvelin{b}", {"discount": "jarvelin2002", "log_base": b}) for b in JARVELIN_BASES
    ]


def wikipedia_example() -> CaseFile:
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
                        printed=_wikipedia_printed() if table else (),
                    )
                )
    cg_config = Config.from_mapping({"discount": "none", "cutoff": 6})
    cases.append(
        computed_case(
            case_id="documents.wikipedia/cumulative-gain-k6",
            description="3,2,3,0,1,2 without discount: CG6 = 11",
            config=cg_config,
            spec=[cite("ndcg.discount.none")],
            sources=[replace(WIKIPEDIA, locator="section Example: CG6 = 3 + 2 + 3 + 0 + 1 + 2")],
            origin=ORIGIN,
            qrels=qrels,
            run=run,
            printed=[printed("dcg", "11", 0)],
        )
    )
    return case_file(
        "documents/wikipedia",
        "The worked example of the Wikipedia article on DCG: relevance 3,2,3,0,1,2.",
        ORIGIN,
        SOURCE,
        cases,
    )


def _wikipedia_printed() -> list[Printed]:
    return [printed("dcg", "6.861", 3), printed("idcg", "7.141", 3), printed("ndcg", "0.961", 3)]


def worst_ordering() -> CaseFile:
    """2,3,1,0,2 and its worst ordering 0,1,2,2,3 under both gains."""
    cases = []
    for name, labels in (("given", [2, 3, 1, 0, 2]), ("worst", [0, 1, 2, 2, 3])):
        for gain in GAINS:
            qrels, run = ranked_rows(labels)
            numbers: list[Printed] = []
            if name == "worst" and gain == "exponential":
                slip = "the tutorial prints 0.567; the exact value 0.566447… rounds to 0.566"
                numbers = [
                    printed("ndcg", "0.566448", 6),
                    printed("ndcg", "0.567", 3, erratum=slip),
                ]
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
                    printed=numbers,
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
REVERSAL_CLAIM = Enumeration(
    orderings=180,
    pairs=16110,
    opposite_pairs=1002,
    opposite_percent="6.2",
    measures=("nDCG@6", "nDCG(gain=exponential)@6"),
)


def reversal_count() -> CaseFile:
    """Every distinguishable ordering of 3,3,2,2,1,0 under both gains at k = 6, with the
    published pair counts in the file's `enumeration` object."""
    cases = []
    for ordering in sorted(set(permutations(REVERSAL_LABELS)), reverse=True):
        qrels, run = ranked_rows(list(ordering))
        code = "".join(map(str, ordering))
        for measure in REVERSAL_CLAIM.measures:
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
        enumeration=REVERSAL_CLAIM,
    )


ISSUE_EXAMPLES = Source(
    kind="document",
    ref="suite issue 2, worked examples",
    locator="section Tests: the numbers printed to 3 places",
    note="hand arithmetic printed to 3 decimal places",
)


def judged_ranking(
    ranked: Sequence[int | None], judged: list[int], qid: str = "q1"
) -> tuple[list[Row], list[Row]]:
    """Qrels judging documents j1..jn with `judged`, and a run whose rank i holds a judged
    document of label ranked[i] (each used once) or, for None, an unjudged document."""
    qrels = [[qid, f"j{i}", str(label)] for i, label in enumerate(judged, start=1)]
    unused = [(f"j{i}", label) for i, label in enumerate(judged, start=1)]
    run = []
    for rank, label in enumerate(ranked, start=1):
        if label is None:
            docid = f"u{rank}"
        else:
            docid = next(d for d, held in unused if held == label)
            unused.remove((docid, label))
        run.append([qid, docid, str(len(ranked) - rank + 1)])
    return qrels, run


def _printed_examples(
    group: str,
    description: str,
    examples: list[Example],
) -> CaseFile:
    """One case per (name, case description, qrels, run, configuration, printed nDCG)."""
    cases = [
        computed_case(
            case_id=f"{group.replace('/', '.')}/{name}",
            description=text,
            config=Config.from_mapping(values),
            spec=[cite("ndcg.definition.ndcg")]
            + [cite(f"ndcg.{axis}.{values[axis]}") for axis in ("gain", "ideal") if axis in values],
            sources=[ISSUE_EXAMPLES],
            origin=ORIGIN,
            qrels=qrels,
            run=run,
            printed=[printed("ndcg", value, 3)],
        )
        for name, text, qrels, run, values, value in examples
    ]
    return case_file(group, description, ORIGIN, SOURCE, cases)


def x_and_y() -> CaseFile:
    """Rankings X = 3,0,0,2,2,1 and Y = 2,2,1,3,0,0 against the judged grades 3,3,2,2,1,0,
    their 0s unjudged, at k = 3 and 6 under both gains."""
    judged = [3, 3, 2, 2, 1, 0]
    rankings = {"x": [3, None, None, 2, 2, 1], "y": [2, 2, 1, 3, None, None]}
    printed_ndcg = {
        ("x", "linear", 3): "0.509", ("y", "linear", 3): "0.638",
        ("x", "exponential", 3): "0.542", ("y", "exponential", 3): "0.418",
        ("x", "linear", 6): "0.699", ("y", "linear", 6): "0.708",
        ("x", "exponential", 6): "0.672", ("y", "exponential", 6): "0.576",
    }  # fmt: skip
    examples: list[Example] = [
        (
            f"{name}-{gain}-k{k}",
            f"ranking {name.upper()} with {gain} gain at k = {k}",
            *judged_ranking(rankings[name], judged),
            {"gain": gain, "cutoff": k},
            value,
        )
        for (name, gain, k), value in printed_ndcg.items()
    ]
    return _printed_examples(
        "documents/x-and-y", "Two rankings X and Y that the two gains order oppositely.", examples
    )


def u_and_v() -> CaseFile:
    """Rankings U = 1,1,1,3,0,0 and V = 3,0,1,1,1,0 of the grades 3,1,1,1,0,0 at k = 6."""
    judged = [3, 1, 1, 1, 0, 0]
    rankings = {"u": [1, 1, 1, 3, 0, 0], "v": [3, 0, 1, 1, 1, 0]}
    printed_ndcg = {
        ("u", "linear"): "0.750", ("v", "linear"): "0.946",
        ("u", "exponential"): "0.601", ("v", "exponential"): "0.971",
    }  # fmt: skip
    examples: list[Example] = [
        (
            f"{name}-{gain}-k6",
            f"ranking {name.upper()} of 3,1,1,1,0,0 with {gain} gain at k = 6",
            *judged_ranking(rankings[name], judged),
            {"gain": gain, "cutoff": 6},
            value,
        )
        for (name, gain), value in printed_ndcg.items()
    ]
    return _printed_examples(
        "documents/u-and-v", "Two rankings U and V of the grades 3,1,1,1,0,0 at k = 6.", examples
    )


def single_relevant() -> CaseFile:
    """One relevant document among eleven judged ones, at ranks 1, 2, 3, 10 and 11: nDCG@10
    is 1/log2(1 + rank) inside the cutoff and 0 below it."""
    printed_ndcg = {1: "1.000", 2: "0.631", 3: "0.500", 10: "0.289", 11: "0.000"}
    examples: list[Example] = [
        (
            f"rank-{rank}",
            f"the only relevant document at rank {rank}, k = 10",
            *judged_ranking([1 if r == rank else 0 for r in range(1, 12)], [1] + [0] * 10),
            {"cutoff": 10},
            value,
        )
        for rank, value in printed_ndcg.items()
    ]
    return _printed_examples(
        "documents/single-relevant",
        "A single relevant document: nDCG@10 = 1/log2(1 + rank) down to rank 10, then 0.",
        examples,
    )


def retrieved_ideal_pitfall() -> CaseFile:
    """Judged grades 3,3,2,1,0,0; the run retrieves only the documents graded 1 and 0."""
    qrels, run = judged_ranking([1, 0], [3, 3, 2, 1, 0, 0])
    examples: list[Example] = [
        (
            f"ideal-{ideal}",
            f"the run finds only grades 1 and 0; ideal = {ideal}, k = 2",
            qrels,
            run,
            {"ideal": ideal, "cutoff": 2},
            value,
        )
        for ideal, value in (("judged", "0.204"), ("retrieved", "1.000"))
    ]
    return _printed_examples(
        "documents/retrieved-ideal",
        "An ideal list from the retrieved documents alone hides what the run missed.",
        examples,
    )


BUILDERS = {
    "documents/wikipedia": wikipedia_example,
    "documents/worst-ordering": worst_ordering,
    "documents/reversals": reversal_count,
    "documents/x-and-y": x_and_y,
    "documents/u-and-v": u_and_v,
    "documents/single-relevant": single_relevant,
    "documents/retrieved-ideal": retrieved_ideal_pitfall,
}
