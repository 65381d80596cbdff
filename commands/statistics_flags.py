"""The flags of the statistics, shared by ``score``, ``compare`` and ``diff``, and the
settings they give (``inference.settings.Options``)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from fractions import Fraction

from ndcgspec.inference.bootstrap import INTERVALS, RESAMPLES
from ndcgspec.inference.correction import CORRECTIONS
from ndcgspec.inference.family import MAX_DRAWS
from ndcgspec.inference.monte_carlo import MONTE_CARLO_LEVEL
from ndcgspec.inference.randomization import ALTERNATIVES, DRAWS, EXACT_LIMIT
from ndcgspec.inference.settings import FAMILIES, TESTS, Options
from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.errors import NdcgSpecError


def probability(text: str) -> Fraction:
    """A decimal strictly between 0 and 1, exactly (an α, a confidence level)."""
    try:
        value = Fraction(parse_decimal(text))
    except NdcgSpecError:
        value = None
    if value is None or not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a decimal between 0 and 1, exclusive")
    return value


MOST = 100_000_000
"""The most draws or resamples a flag asks for: past it, memory, not the flag, says no."""


def count(text: str) -> int:
    """A positive whole number, at most `MOST`."""
    if not text.isdigit() or not 1 <= int(text) <= MOST:
        raise argparse.ArgumentTypeError(f"{text!r}: a whole number from 1 to {MOST}")
    return int(text)


def seed(text: str) -> int:
    """A seed of numpy's generator: a whole number, 0 or more."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: a seed is a whole number, 0 or more")
    return int(text)


def add_seed_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        type=seed,
        default=0,
        help="seed of the sign-flip draws and bootstrap resamples (numpy PCG64: the same "
        "numbers on every machine); default 0",
    )


def add_interval_flags(parser: argparse.ArgumentParser, what: str) -> None:
    """``--ci LEVEL``, ``--ci-method`` and ``--bootstrap N``: bootstrap intervals over
    queries."""
    parser.add_argument(
        "--ci",
        type=probability,
        metavar="LEVEL",
        help=f"add the bootstrap interval at LEVEL (e.g. 0.95) of {what}",
    )
    parser.add_argument(
        "--ci-method",
        choices=tuple(INTERVALS),
        default="percentile",
        help="percentile: the quantiles of the resampled means; bca: bias-corrected and "
        "accelerated (Efron and Tibshirani 1993, 14.3), as scipy.stats.bootstrap's BCa "
        "(default percentile)",
    )
    parser.add_argument(
        "--bootstrap",
        type=count,
        default=RESAMPLES,
        metavar="N",
        help=f"bootstrap resamples of the queries (default {RESAMPLES})",
    )


@dataclass(frozen=True)
class TestTerms:
    """What the test flags' help says in a command's own terms: which run each side of the
    alternative favours, what is held to alpha, and which tests are run."""

    greater: str
    less: str
    held: str
    tests: str


PAIR_TERMS = TestTerms(
    greater="the first run of a pair better than the second",
    less="worse",
    held="the adjusted p-value (--correction, within --family)",
    tests="the test whose verdicts are reported; both are run",
)
GATE_TERMS = TestTerms(
    greater="the candidate better than the baseline",
    less="the candidate worse than the baseline, the gate's question",
    held="the p-value (one test: nothing to adjust)",
    tests="the test run on the per-query differences candidate - baseline: randomization, "
    "the paired sign-flip test, or t, the paired t-test",
)


def add_test_flags(
    parser: argparse.ArgumentParser,
    alternative: str = "two-sided",
    terms: TestTerms = PAIR_TERMS,
) -> None:
    """The flags of the paired tests, their help in the command's `terms`."""
    parser.add_argument(
        "--alternative",
        choices=ALTERNATIVES,
        default=alternative,
        help=f"greater: {terms.greater}; less: {terms.less}; two-sided: either "
        f"(default {alternative})",
    )
    parser.add_argument(
        "--alpha",
        type=probability,
        default=Fraction(1, 20),
        help=f"significance level: significant when {terms.held} is at most alpha (default 0.05)",
    )
    parser.add_argument(
        "--test",
        choices=TESTS,
        default="randomization",
        help=f"{terms.tests} (default randomization)",
    )
    parser.add_argument(
        "--draws",
        type=count,
        default=DRAWS,
        metavar="N",
        help=f"sign-flip draws above {EXACT_LIMIT} queries, at least: more when the family "
        f"needs them to reach alpha (default {DRAWS}; up to {EXACT_LIMIT} queries, every "
        "sign vector)",
    )
    parser.add_argument(
        "--max-draws",
        type=count,
        default=MAX_DRAWS,
        metavar="N",
        help="draw on, doubling, up to N sign-flip draws while alpha lies inside the "
        f"{float(MONTE_CARLO_LEVEL):g} Monte-Carlo interval of a p-value; a verdict still "
        f"undecided then is reported so (default {MAX_DRAWS})",
    )
    add_seed_flag(parser)


def add_correction_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="correction for multiple comparisons, per test (default holm)",
    )
    parser.add_argument(
        "--family",
        choices=FAMILIES,
        default="convention",
        help="the tests a correction runs over: convention, the pairs of runs under each "
        "convention, each its own question (the default); all, every pair under every "
        "convention at once",
    )


def options_of(args: argparse.Namespace) -> Options:
    """The statistics options of parsed arguments."""
    if args.draws < 10_000:
        raise NdcgSpecError(f"--draws {args.draws}: at least 10000 sign-flip draws")
    if args.max_draws < args.draws:
        raise NdcgSpecError(f"--max-draws {args.max_draws}: at least --draws ({args.draws})")
    return Options(
        alternative=args.alternative,
        correction=getattr(args, "correction", "none"),
        alpha=args.alpha,
        seed=args.seed,
        draws=args.draws,
        test=args.test,
        ci=getattr(args, "ci", None),
        ci_method=getattr(args, "ci_method", "percentile"),
        resamples=getattr(args, "bootstrap", RESAMPLES),
        family=getattr(args, "family", "convention"),
        max_draws=args.max_draws,
    )
