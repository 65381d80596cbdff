"""The paired tests of every two runs under every convention of ``compare``
(``ndcgspec.inference``), each family corrected together and drawn on until decided.

For each pair (a, b) of runs, a before b in the order given, and each convention, the
differences a_q − b_q are taken over the queries entering both runs' means, of the per-query
nDCG decimals (`ndcgspec.inference.paired`); every test of the registry
(`ndcgspec.inference.paired_tests`) is run on them, and each test's p-values are corrected
within a family (`ndcgspec.inference.family`): by default the pairs of one convention
(``--family convention``: each convention is its own question, as a paper reports one
measure's table and corrects over the comparisons it makes with it: Sakai 2014, "Statistical
reform in information retrieval?", SIGIR Forum 48(1); Fuhr 2017, "Some common mistakes in IR
evaluation, and how they can be avoided", SIGIR Forum 51(3)), or every pair under every
convention (``--family all``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from itertools import combinations

from ndcgspec.inference.family import Adjusted, decided_family
from ndcgspec.inference.monte_carlo import Estimate, draws_for_family
from ndcgspec.inference.paired import Paired
from ndcgspec.inference.paired_tests import PAIRED_TESTS, Outcome
from ndcgspec.inference.randomization import DrawnSigns
from ndcgspec.inference.settings import TESTS, Options
from ndcgspec.reference.evaluate import Evaluation
from ndcgspec.reference.precision import decimal_string


def query_values(evaluation: Evaluation) -> dict[str, Decimal]:
    """The per-query nDCG decimals of the queries entering the mean, in qrels order."""
    return {
        q: Decimal(text)
        for q, r in evaluation.per_query.items()
        if r.in_mean and (text := decimal_string(r.ndcg)) is not None
    }


@dataclass(frozen=True)
class PairTest:
    """One test of one pair of runs under one convention, within its family: the p-value's
    estimate, the adjusted p-value, and the outcome of the test itself."""

    a: str
    b: str
    measure: str
    test: str
    family: str
    family_size: int
    paired: Paired
    estimate: Estimate
    adjusted: Adjusted
    outcome: Outcome = field(repr=False)

    def verdict(self, alpha: Fraction) -> str:
        """ "a" or "b" (the run with the higher mean) when significant, "none" when not,
        "undecided" when α lies inside the adjusted p-value's Monte-Carlo interval."""
        if not self.adjusted.decided:
            return "undecided"
        mean = self.paired.mean_difference()
        if self.adjusted.p > alpha or mean == 0:
            return "none"
        return "a" if mean > 0 else "b"


@dataclass(frozen=True)
class _Member:
    """A pair of runs under a convention, before its test."""

    a: str
    b: str
    measure: str
    paired: Paired


def _family_of(member: _Member, options: Options) -> str:
    return member.measure if options.family == "convention" else "all"


def _tested_family(
    test: str, name: str, members: Sequence[_Member], options: Options, signs: DrawnSigns
) -> list[PairTest]:
    """The family's tests under `test`, corrected together, drawn on until decided."""
    paired_test = PAIRED_TESTS[test]
    first = draws_for_family(
        len(members), options.alpha, options.correction != "none", options.draws
    )

    def run(i: int, draws: int) -> Outcome:
        return paired_test.run(members[i].paired.differences, options.alternative, draws, signs)

    outcomes = [run(i, first) for i in range(len(members))]

    def redraw(i: int, draws: int) -> Estimate:
        outcomes[i] = run(i, draws)
        return outcomes[i].estimate()

    estimates, judged = decided_family(
        [o.estimate() for o in outcomes],
        options.correction,
        options.alpha,
        redraw,
        options.max_draws,
    )
    return [
        PairTest(m.a, m.b, m.measure, test, name, len(members), m.paired, e, j, o)
        for m, e, j, o in zip(members, estimates, judged, outcomes, strict=True)
    ]


def pair_test(a: str, b: str, measure: str, paired: Paired, options: Options) -> PairTest:
    """The test `options.test` of one pair, a family of its own (nothing to correct), drawn on
    until its verdict at α is decided or the draws reach their most (``diff``'s gate)."""
    member = _Member(a, b, measure, paired)
    [row] = _tested_family(options.test, measure, [member], options, DrawnSigns(options.seed))
    return row


@dataclass(frozen=True)
class Untested:
    """A pair of runs under a convention that no test can take: fewer than two shared
    queries with a value."""

    a: str
    b: str
    measure: str
    shared: int


def _pairs(
    runs: list[str], results: dict[str, dict[str, Evaluation]]
) -> list[tuple[str, str, str, Paired]]:
    """Every pair of runs, a before b in the order given, under every convention, with their
    paired values."""
    out = []
    for measure, by_run in results.items():
        values = {run: query_values(by_run[run]) for run in runs}
        out += [(a, b, measure, Paired.of(values[a], values[b])) for a, b in combinations(runs, 2)]
    return out


def untested_pairs(runs: list[str], results: dict[str, dict[str, Evaluation]]) -> list[Untested]:
    """The pairs under each convention that `pair_tests` leaves out, with their shared
    queries."""
    return [
        Untested(a, b, measure, len(paired.differences))
        for a, b, measure, paired in _pairs(runs, results)
        if len(paired.differences) < 2
    ]


def pair_tests(
    runs: list[str], results: dict[str, dict[str, Evaluation]], options: Options
) -> list[PairTest]:
    """Both tests of every pair of runs with two or more shared queries under every
    convention of `results` (name → run → evaluation), in the order: convention, pair, test."""
    members = [
        _Member(a, b, measure, paired)
        for a, b, measure, paired in _pairs(runs, results)
        if len(paired.differences) >= 2
    ]
    signs = DrawnSigns(options.seed)
    families: dict[str, list[_Member]] = {}
    for member in members:
        families.setdefault(_family_of(member, options), []).append(member)
    tested: dict[tuple[str, str, str, str], PairTest] = {}
    for test in TESTS:
        for name, family in families.items():
            for row in _tested_family(test, name, family, options, signs):
                tested[row.a, row.b, row.measure, test] = row
    return [tested[m.a, m.b, m.measure, test] for m in members for test in TESTS]
