"""``compare`` and ``score --ci`` of runs drawn at random, held to a computation made here in
exact fractions: each query judges one document, which a run ranks at 1, 2 or 3 or not at all,
so that under the geometric discount (``ndcg.discount.geometric``) its nDCG is p^(rank − 1)
or 0, a decimal that ends. The two-sided sign-flip p-value is found by enumerating every sign
vector (n ≤ 6, so compare enumerates too), Holm's correction over the pairs of each
convention by its definition, and each bootstrap percentile interval from an explicit
resampling of the same seeded draw (``Generator.integers(0, n, (resamples, n))``, the draw
the help names) with its quantiles interpolated as Hyndman and Fan's definition 7. One query
gives no test and no interval, said as such."""

from __future__ import annotations

import itertools
import json
import math
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ndcgspec.commands.cli import main

PERSISTENCES = ("0.5", "0.2")
MEASURES = [f"nDCG(discount=geometric,persistence={p})" for p in PERSISTENCES]
LEVEL = Fraction(9, 10)
RESAMPLES = 25
INTERVAL_FLAGS = ["--ci", "0.9", "--bootstrap", str(RESAMPLES)]
ALPHA = Fraction(1, 20)

# Per query, the rank of its one relevant document in each run (None: not retrieved).
RANKS = st.one_of(st.none(), st.integers(min_value=1, max_value=3))


def query_ranks(runs: int) -> st.SearchStrategy[list[tuple[int | None, ...]]]:
    return st.lists(st.tuples(*[RANKS] * runs), min_size=1, max_size=6)


def write_inputs(tmp_path: Path, ranks: list[tuple[int | None, ...]]) -> tuple[str, list[str]]:
    """The qrels (query qi judges document ``rel`` 1) and one run file per column of `ranks`,
    each query ranking three documents."""
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{i} 0 rel 1\n" for i in range(len(ranks))), encoding="utf-8")
    runs = []
    for column in range(len(ranks[0])):
        lines = []
        for i, row in enumerate(ranks):
            documents = ["n1", "n2", "n3"]
            if row[column] is not None:
                documents[row[column] - 1] = "rel"
            lines += [f"q{i} Q0 {d} {r} {4 - r} run{column}\n" for r, d in enumerate(documents, 1)]
        path = tmp_path / f"run{column}"
        path.write_text("".join(lines), encoding="utf-8")
        runs.append(str(path))
    return str(qrels), runs


def ndcg(rank: int | None, persistence: str) -> Fraction:
    """One relevant document of gain 1: DCG p^(rank − 1), ideal DCG p^0 = 1."""
    return Fraction(0) if rank is None else Fraction(persistence) ** (rank - 1)


def decimal_40(value: Fraction) -> Decimal:
    """`value` correctly rounded to the 40 significant digits the outputs carry."""
    with localcontext(prec=40):
        return Decimal(value.numerator) / value.denominator


def two_sided_p(differences: list[Fraction]) -> Fraction:
    """P(|T| ≥ |t|) over the 2^n sign vectors, T the sum of signed differences."""
    observed = abs(sum(differences, Fraction(0)))
    vectors = list(itertools.product((1, -1), repeat=len(differences)))
    extreme = sum(
        abs(sum((s * d for s, d in zip(signs, differences, strict=True)), Fraction(0))) >= observed
        for signs in vectors
    )
    return Fraction(extreme, len(vectors))


def holm(ps: list[Fraction]) -> list[Fraction]:
    """Holm's step-down adjusted p-values, in the order given."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    adjusted = [Fraction(0)] * len(ps)
    running = Fraction(0)
    for step, i in enumerate(order):
        running = max(running, min(Fraction(1), (len(ps) - step) * ps[i]))
        adjusted[i] = running
    return adjusted


def percentile_interval(values: list[Fraction]) -> tuple[Fraction, Fraction]:
    """The resampled means of the seed-0 draw, sorted, at (1 ∓ LEVEL)/2 by definition 7."""
    n = len(values)
    picks = np.random.default_rng(0).integers(0, n, (RESAMPLES, n))
    means = sorted(sum((values[i] for i in row), Fraction(0)) / n for row in picks.tolist())

    def quantile(probability: Fraction) -> Fraction:
        h = (len(means) - 1) * probability
        below = math.floor(h)
        found = means[below]
        if below + 1 < len(means):
            found += (h - below) * (means[below + 1] - found)
        return found

    return quantile((1 - LEVEL) / 2), quantile((1 + LEVEL) / 2)


def ran(capsys, args: list[str]) -> dict:
    status = main(args)
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ranks=st.integers(min_value=2, max_value=3).flatmap(query_ranks))
def test_compare_of_random_runs_is_the_exact_computation(
    ranks: list[tuple[int | None, ...]], tmp_path: Path, capsys
) -> None:
    qrels, runs = write_inputs(tmp_path, ranks)
    measures = [flag for m in MEASURES for flag in ("-m", m)]
    report = ran(
        capsys,
        ["compare", "--qrels", qrels, *runs, *measures, "--format", "json", *INTERVAL_FLAGS],
    )
    names = [Path(r).name for r in runs]
    pairs = list(itertools.combinations(range(len(runs)), 2))
    if len(ranks) == 1:
        # One shared query: no pair can be tested or given an interval, each said so.
        assert report["tests"] == [] and report["intervals"] == []
        assert sorted((u["a"], u["b"], u["measure"], u["shared"]) for u in report["untested"]) == (
            sorted((names[a], names[b], m, 1) for a, b in pairs for m in MEASURES)
        )
        return
    assert report["untested"] == []
    tests = {
        (t["a"], t["b"], t["measure"]): t for t in report["tests"] if t["test"] == "randomization"
    }
    intervals = {(i["a"], i["b"], i["measure"]): i for i in report["intervals"]}
    for measure, persistence in zip(MEASURES, PERSISTENCES, strict=True):
        differences = {
            (a, b): [ndcg(row[a], persistence) - ndcg(row[b], persistence) for row in ranks]
            for a, b in pairs
        }
        ps = [two_sided_p(differences[pair]) for pair in pairs]
        for (a, b), p, adjusted in zip(pairs, ps, holm(ps), strict=True):
            key = (names[a], names[b], measure)
            found, mean = tests[key], sum(differences[a, b], Fraction(0)) / len(ranks)
            assert Decimal(found["mean_difference"]) == decimal_40(mean)
            assert (found["n"], found["exact"], found["total"]) == (
                len(ranks),
                True,
                2 ** len(ranks),
            )
            assert Fraction(found["count"], found["total"]) == p and found["p"] == float(p)
            assert found["p_adjusted"] == float(adjusted)
            assert found["significant"] is (adjusted <= ALPHA)
            low, high = percentile_interval(differences[a, b])
            ci = intervals[key]["ci"]
            assert (Decimal(ci["low"]), Decimal(ci["high"])) == (decimal_40(low), decimal_40(high))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ranks=query_ranks(1), persistence=st.sampled_from(PERSISTENCES))
def test_score_ci_of_a_random_run_is_the_exact_computation(
    ranks: list[tuple[int | None, ...]], persistence: str, tmp_path: Path, capsys
) -> None:
    qrels, [run] = write_inputs(tmp_path, ranks)
    measure = f"nDCG(discount=geometric,persistence={persistence})"
    result = ran(
        capsys,
        ["score", qrels, run, "-m", measure, "--format", "json", *INTERVAL_FLAGS],
    )
    values = [ndcg(rank, persistence) for (rank,) in ranks]
    assert [Decimal(v["ndcg"]) for v in result["per_query"].values()] == values
    assert Decimal(result["aggregate"]) == decimal_40(sum(values, Fraction(0)) / len(values))
    ci = result["ci"]
    if len(values) == 1:
        assert (ci["low"], ci["high"]) == (None, None)
        assert (
            ci["undefined"] == "a bootstrap interval needs two or more queries with a value, not 1"
        )
        return
    low, high = percentile_interval(values)
    assert (Decimal(ci["low"]), Decimal(ci["high"])) == (decimal_40(low), decimal_40(high))
    assert (ci["resamples"], ci["seed"], ci["method"]) == (RESAMPLES, 0, "percentile")
