"""A family corrected over intervals, and drawing on until every verdict is decided."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from ndcgspec.inference.correction import CORRECTIONS, adjusted
from ndcgspec.inference.family import adjusted_family, decided_family
from ndcgspec.inference.monte_carlo import Estimate

ALPHA = Fraction(1, 20)


def test_holm_over_intervals_by_hand() -> None:
    # p = (1/100, 1/30), the second in [1/50, 1/20]. Holm: the smallest times 2, then the
    # running maximum with the next times 1: (1/50, 1/30); its ends: lows (1/100, 1/50) give
    # (1/50, 1/50), highs (1/100, 1/20) give (1/50, 1/20).
    first = Estimate.exact(Fraction(1, 100))
    second = Estimate(Fraction(1, 30), Fraction(1, 50), Fraction(1, 20), 1000)
    one, two = adjusted_family([first, second], "holm", ALPHA)
    assert (one.p, one.low, one.high, one.decided) == (Fraction(1, 50),) * 3 + (True,)
    assert (two.p, two.low, two.high) == (Fraction(1, 30), Fraction(1, 50), Fraction(1, 20))
    # α = 1/20 is the high end: "at most α" decides it.
    assert two.decided
    assert not adjusted_family([first, second], "holm", Fraction(1, 25))[1].decided


@given(
    st.lists(
        st.tuples(st.fractions(0, 1), st.fractions(0, 1), st.fractions(0, 1)),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from(CORRECTIONS),
)
def test_the_adjusted_p_of_any_values_inside_lies_inside(
    triples: list[tuple[Fraction, Fraction, Fraction]], correction: str
) -> None:
    # Holm and Bonferroni are monotone: values anywhere inside the intervals adjust to
    # values inside the adjusted ends.
    ordered = [tuple(sorted(t)) for t in triples]
    estimates = [Estimate(p, low, high, 1) for low, p, high in ordered]
    for inside, verdict in zip(
        adjusted([p for _, p, _ in ordered], correction),
        adjusted_family(estimates, correction, ALPHA),
        strict=True,
    ):
        assert verdict.low <= inside <= verdict.high


def test_draws_on_until_decided() -> None:
    # A test whose exact p-value is 1/25 (adjusted by Holm at its rank: the other's 1/1000
    # times 2, then 1/25 times 1): α = 1/20 is close, so the drawn estimate with 200 draws
    # cannot decide; the fake redraw gives the estimate of the true p at each draw count.
    asked: list[int] = []

    def redraw(i: int, draws: int) -> Estimate:
        asked.append(draws)
        return Estimate.drawn(draws // 25, draws)

    start = [Estimate.exact(Fraction(1, 1000)), Estimate.drawn(8, 200)]
    final, judged = decided_family(start, "holm", ALPHA, redraw, max_draws=10**6)
    assert asked == [400, 800, 1600, 3200]
    assert final[1].draws == 3200 and all(j.decided for j in judged)
    # With a cap, drawing stops there and the verdict stays undecided.
    asked.clear()
    final, judged = decided_family(start, "holm", ALPHA, redraw, max_draws=1000)
    assert asked == [400, 800, 1000]
    assert final[1].draws == 1000 and not judged[1].decided
