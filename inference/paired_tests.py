"""The registry of paired tests: each test's name (``--test NAME``), how a report calls it
(its title, and its short name over a column of p-values), and how it is run on the
differences of two runs. Commands and reports run and show a test through this table alone
(CONTRIBUTING.md, "A new statistical test"): a new test is a module of its own, whose outcome
gives its `estimate()` and its `report()` keys, and one entry here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from ndcgspec.inference.randomization import EXACT_LIMIT, DrawnSigns, Randomization, sign_flip
from ndcgspec.inference.ttest import TTest, paired_t

Outcome = Randomization | TTest


@dataclass(frozen=True)
class PairedTest:
    """A paired test of differences a_q − b_q: `run(differences, alternative, draws, signs)`
    gives its outcome, drawing `draws` sign vectors from `signs` where it draws (its
    outcome's estimate then says how many, and `inference.family` may draw on)."""

    name: str
    title: str
    short: str
    run: Callable[[Sequence[Decimal], str, int, DrawnSigns], Outcome]


def _sign_flip(
    differences: Sequence[Decimal], alternative: str, draws: int, signs: DrawnSigns
) -> Randomization:
    n = len(differences)
    drawn = None if n <= EXACT_LIMIT else signs.first(n, draws)
    return sign_flip(differences, alternative, signs.seed, draws, drawn)


def _t(differences: Sequence[Decimal], alternative: str, draws: int, signs: DrawnSigns) -> TTest:
    return paired_t(differences, alternative)


PAIRED_TESTS: dict[str, PairedTest] = {
    test.name: test
    for test in (
        PairedTest("randomization", "paired randomization (sign-flip) test", "rand", _sign_flip),
        PairedTest("t", "paired t-test", "t", _t),
    )
}
