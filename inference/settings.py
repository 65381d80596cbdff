"""How the paired tests are run and judged: the settings that the statistics flags of
``score``, ``compare`` and ``diff`` fill (``commands.statistics_flags``), and the names of the
tests and of the families a correction runs over (``inference.family``)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ndcgspec.inference.bootstrap import RESAMPLES
from ndcgspec.inference.family import MAX_DRAWS
from ndcgspec.inference.paired_tests import PAIRED_TESTS
from ndcgspec.inference.randomization import DRAWS

TESTS = tuple(PAIRED_TESTS)
FAMILIES = ("convention", "all")


@dataclass(frozen=True)
class Options:
    """The test whose verdicts are reported (both are run), its alternative, the correction
    and the family it runs over, α, the seed and draws of the sign-flip test, and the level,
    method and resamples of bootstrap intervals (None: no interval)."""

    alternative: str = "two-sided"
    correction: str = "holm"
    alpha: Fraction = Fraction(1, 20)
    seed: int = 0
    draws: int = DRAWS
    test: str = "randomization"
    ci: Fraction | None = None
    ci_method: str = "percentile"
    resamples: int = RESAMPLES
    family: str = "convention"
    max_draws: int = MAX_DRAWS
