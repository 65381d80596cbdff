"""Cases whose document ids look like numbers: ``0010``, ``010`` beside ``10``, ``1e5``,
``1.0``, ``-0``, ``007``. An id is text compared byte for byte (``ndcg.input``), so ``010`` and
``10`` are two documents; a reader that parses the id column as numbers (pandas' default
parser, say) turns ``0010`` into 10 and ``1e5`` into 100000.0, and its qrels and run then
disagree about which document is which, or merge two documents into one.

Each case ranks a relevant document with such an id second, below an irrelevant one: its
value is 1/log2(3) when the ids are read as text."""

from __future__ import annotations

from ndcgspec.reference import Config
from ndcgspec.suite.case import case_file, cite, computed_case
from ndcgspec.suite.case_record import Case, CaseFile, Source

ORIGIN = "hand"
SOURCE = "ndcgspec.suite.ids"
GROUP = "ids/numeric"
TEXT_IDS = cite("ndcg.input", "document ids are compared byte for byte")

ALONE = (("leading-zeros", "0010", "d1"),)
"""(name, the relevant document's id, the irrelevant one's): an id that looks like a number
beside an id that does not."""
TWINS = (
    ("zero-padded-twin", "010", "10"),
    ("leading-zeros-twin", "007", "7"),
    ("exponent-twin", "1e5", "100000"),
    ("decimal-point-twin", "1.0", "1"),
    ("negative-zero-twin", "-0", "0"),
)
"""Ids that are one number but two documents: the relevant one and its numeric twin."""


def _case(name: str, relevant: str, other: str, twins: bool) -> Case:
    shape = "its numeric twin" if twins else "the irrelevant"
    return computed_case(
        case_id=f"ids.numeric/{name}",
        description=f"relevant {relevant} ranked below {shape} {other}",
        config=Config.default(),
        spec=[TEXT_IDS, cite("ndcg.definition.dcg")],
        sources=[Source("spec", "ndcg.input", "ids are text, not numbers")],
        origin=ORIGIN,
        qrels=[["q1", relevant, "1"], ["q1", other, "0"]],
        run=[["q1", other, "2"], ["q1", relevant, "1"]],
    )


def numeric_ids() -> CaseFile:
    """The case file ``ids/numeric``."""
    cases = [_case(name, relevant, other, False) for name, relevant, other in ALONE]
    cases += [_case(name, relevant, other, True) for name, relevant, other in TWINS]
    return case_file(
        GROUP,
        "Document ids that look like numbers (0010, 010 and 10, 1e5, 1.0, -0, 007) are text.",
        ORIGIN,
        SOURCE,
        cases,
    )
