"""The figures of the conformance page, drawn with matplotlib and returned as PNG bytes.

Every number plotted comes from the exact reference (discount weights, the worked example)
or from the adapters' measured errors; the PNGs carry no timestamp, so the same versions
draw the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

from ndcgspec.reference import Config, qrels_from_labels, run_from_scores
from ndcgspec.reference.config import choice_ids
from ndcgspec.reference.discount import discount
from ndcgspec.reference.evaluate import evaluate

OKABE_ITO = ("#e69f00", "#56b4e9", "#009e73", "#0072b2", "#d55e00", "#cc79a7", "#000000", "#f0e442")
"""Okabe and Ito's colours (2008, "Color Universal Design"), told apart by readers of every
colour vision: the lines of every figure, and the verdicts' orange and sky blue."""
RANKS = range(1, 21)
# The worked example of the documents' cases: labels 3,2,3,0,1,2 in ranked order.
WORKED_LABELS = ("3", "2", "3", "0", "1", "2")


def _figure(width: float = 7.0, height: float = 3.6):  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")
    from cycler import cycler
    from matplotlib import pyplot

    pyplot.rcParams.update(
        {"font.size": 9, "svg.hashsalt": "ndcgspec", "axes.prop_cycle": cycler(color=OKABE_ITO)}
    )
    return pyplot.subplots(figsize=(width, height), dpi=110)


def _png(figure) -> bytes:  # type: ignore[no-untyped-def]
    from matplotlib import pyplot

    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    pyplot.close(figure)
    return buffer.getvalue()


def discount_weights() -> bytes:
    """The weight of ranks 1–20 under every discount of the spec, default parameters
    (``ndcg.discount``)."""
    figure, axes = _figure()
    for choice in choice_ids("discount"):
        config = Config.from_mapping({"discount": choice})
        axes.plot(
            list(RANKS), [float(discount(r, config)) for r in RANKS], marker=".", label=choice
        )
    axes.set_xlabel("rank i")
    axes.set_ylabel("discount weight")
    axes.set_title("Discount weight by rank (default parameters)")
    axes.set_xticks(list(RANKS))
    axes.grid(alpha=0.3)
    axes.legend()
    return _png(figure)


def worked_example_by_cutoff() -> bytes:
    """nDCG@k for k = 1..6 of the ranking 3,2,3,0,1,2 (ideal from the same documents), under
    linear and exponential gain: not monotone in k."""
    labels = {"q": {f"d{i}": label for i, label in enumerate(WORKED_LABELS, start=1)}}
    scores = {"q": {f"d{i}": str(len(WORKED_LABELS) - i) for i in range(1, len(WORKED_LABELS) + 1)}}
    qrels, run = qrels_from_labels(labels), run_from_scores(scores)
    ks = list(range(1, len(WORKED_LABELS) + 1))
    figure, axes = _figure()
    for gain in ("linear", "exponential"):
        values = []
        for k in ks:
            config = Config.from_mapping({"gain": gain, "cutoff": k})
            mean = evaluate(config, qrels, run).aggregate
            # The one query judges relevant documents: its mean is defined.
            assert mean is not None
            values.append(float(mean))
        axes.plot(ks, values, marker="o", label=f"gain={gain}")
    axes.set_xlabel("cutoff k")
    axes.set_ylabel("nDCG@k")
    axes.set_title("nDCG@k of the ranking 3,2,3,0,1,2: not monotone in k")
    axes.set_xticks(ks)
    axes.grid(alpha=0.3)
    axes.legend()
    return _png(figure)


def ulp_errors(errors: Mapping[str, Sequence[float]]) -> bytes:
    """Per implementation, the error of every per-query value in units in the last place of
    its declared width, on the generated probes it meets; zero errors are drawn at 0."""
    names = sorted(errors)
    figure, axes = _figure(7.0, max(2.4, 0.32 * len(names) + 1.0))
    for row, name in enumerate(names):
        values = list(errors[name])
        axes.scatter(values, [row] * len(values), s=10, alpha=0.35)
        if values:
            axes.annotate(
                f"max {max(values):.3g}",
                (max(values), row),
                xytext=(6, -3),
                textcoords="offset points",
                fontsize=7,
            )
    axes.set_xscale("symlog", linthresh=1)
    axes.set_yticks(range(len(names)), names)
    axes.set_xlabel("|actual − exact| in ulps of the declared float width")
    axes.set_title("Error of per-query values on generated probes")
    axes.grid(alpha=0.3, axis="x")
    return _png(figure)
