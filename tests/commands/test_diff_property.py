"""``diff`` of two score files of random per-query values, held to an exact computation made
here: the mean difference in fractions and the one-sided sign-flip p-value by enumerating
every sign vector (n ≤ 10, so diff enumerates too), or, for a file hypothesis breaks, one
line and status 2."""

from __future__ import annotations

import itertools
import json
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ndcgspec.commands.cli import main

VALUES = st.decimals(min_value=0, max_value=1, places=4, allow_nan=False, allow_infinity=False)


def score_json(values: list[Decimal]) -> str:
    """A result object as ``score --format json`` writes it, of the per-query `values`."""
    per_query = {
        f"q{i}": {"ndcg": format(v, "f"), "dcg": format(v, "f"), "idcg": "1"}
        for i, v in enumerate(values)
    }
    mean = sum(map(Fraction, values), Fraction(0)) / len(values)
    return json.dumps(
        {
            "measure": "nDCG@10",
            "fingerprint": "375e753f9ce52a59",
            "spec_version": "2.1.0",
            "aggregate": str(Decimal(mean.numerator) / mean.denominator),
            "per_query": per_query,
        }
    )


def enumerated_p(differences: list[Fraction]) -> Fraction:
    """P(T ≤ t) over the 2^n sign vectors, T the sum of signed differences (alternative
    "less": the candidate worse)."""
    observed = sum(differences, Fraction(0))
    vectors = list(itertools.product((1, -1), repeat=len(differences)))
    extreme = sum(
        sum((s * d for s, d in zip(signs, differences, strict=True)), Fraction(0)) <= observed
        for signs in vectors
    )
    return Fraction(extreme, len(vectors))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pairs=st.lists(st.tuples(VALUES, VALUES), min_size=2, max_size=10))
def test_diff_of_random_values_is_the_exact_computation(
    pairs: list[tuple[Decimal, Decimal]], tmp_path: Path, capsys
) -> None:
    baseline, candidate = tmp_path / "b.json", tmp_path / "c.json"
    baseline.write_text(score_json([b for b, _ in pairs]) + "\n", encoding="utf-8")
    candidate.write_text(score_json([c for _, c in pairs]) + "\n", encoding="utf-8")
    status = main(["diff", str(baseline), str(candidate), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    differences = [Fraction(c) - Fraction(b) for b, c in pairs]
    mean = sum(differences, Fraction(0)) / len(differences)
    p = enumerated_p(differences)
    # The output's digits: the exact mean correctly rounded to 40 significant digits.
    with localcontext(prec=40):
        assert Decimal(report["mean_difference"]) == Decimal(mean.numerator) / mean.denominator
    assert report["test"]["p"] == float(p)
    worse = p <= Fraction(1, 20)
    assert (status, report["verdict"]) == ((1, "fail") if worse else (0, "pass"))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=st.one_of(st.text(max_size=12), st.integers(), st.floats(), st.booleans(), st.none()))
def test_diff_of_a_file_with_any_value_is_a_result_or_one_line(
    value: object, tmp_path: Path, capsys
) -> None:
    good = [Decimal("0.5"), Decimal("0.25"), Decimal("1")]
    baseline, candidate = tmp_path / "b.json", tmp_path / "c.json"
    baseline.write_text(score_json(good) + "\n", encoding="utf-8")
    broken = json.loads(score_json(good))
    broken["per_query"]["q1"]["ndcg"] = value
    candidate.write_text(json.dumps(broken) + "\n", encoding="utf-8")
    status = main(["diff", str(baseline), str(candidate)])
    out, err = capsys.readouterr()
    if status == 2:
        assert out == "" and err.count("\n") == 1
        assert err.startswith(f"ndcgspec: error: {candidate}:1: not a result")
    else:
        # Only null or a decimal string in the number grammar is read as a value.
        assert value is None or isinstance(value, str)
        assert status in (0, 1) and err == ""
