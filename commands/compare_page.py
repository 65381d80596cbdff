"""The figures and page of ``ndcgspec compare --out DIR``: a bump chart of each run's rank
across conventions, a heat map of Kendall's τ between conventions (PNG, with matplotlib), and
a self-contained HTML page that embeds both with the tables of the report."""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

import mpmath

from ndcgspec.analysis.comparison import (
    Comparison,
    flips,
    kendall_tau,
    query_disagreement,
    ranks,
    spread,
)
from ndcgspec.commands.compare_report import CompareReport, output_decimal
from ndcgspec.reference.errors import NdcgSpecError, install_hint
from ndcgspec.survey.figures import OKABE_ITO

BUMP_PNG = "compare-ranks.png"
TAU_PNG = "compare-tau.png"
VERDICT_PNG = "compare-verdicts.png"
PAGE = "compare.html"
DATA = "compare.json"


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend, or the one-line error naming the extra: asked
    before the comparison is computed, so that a missing library is said at once."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise NdcgSpecError(f"--out needs matplotlib: {install_hint('figures')}") from None
    return plt


def bump_chart(comparison: Comparison, path: Path) -> None:
    """Each run's rank (1 at the top) under each convention, one line per run."""
    plt = pyplot()
    names = [c.name for c in comparison.conventions]
    rank_of = {n: ranks(comparison, n) for n in names}
    figure, axes = plt.subplots(
        figsize=(max(8, 0.55 * len(names) + 3), 0.5 * len(comparison.runs) + 2.5)
    )
    last = len(names) - 1
    for index, run in enumerate(comparison.runs):
        ys = [rank_of[n][run] for n in names]
        colour = OKABE_ITO[index % len(OKABE_ITO)]
        axes.plot(range(len(names)), ys, marker="o", linewidth=2, color=colour)
        # Names at both ends, inside the widened x range, so no tick label hides them; as
        # written, never read as mathtext (a name holding "$x^$" would not draw).
        axes.text(-0.3, ys[0], run, ha="right", va="center", color=colour, parse_math=False)
        axes.text(last + 0.3, ys[-1], run, ha="left", va="center", color=colour, parse_math=False)
    axes.set_xlim(-0.3 - 0.12 * max(len(r) for r in comparison.runs) - 1, last + 3)
    axes.set_xticks(range(len(names)), names, rotation=45, ha="right")
    axes.set_yticks(range(1, len(comparison.runs) + 1))
    axes.invert_yaxis()
    axes.set_ylabel("rank of the run (1 = best)")
    axes.set_title("System ranks under each nDCG convention")
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def tau_heat_map(comparison: Comparison, path: Path) -> None:
    """Kendall's τ-b between every two conventions, with the count of reversed pairs."""
    plt = pyplot()
    names = [c.name for c in comparison.conventions]
    grid = [[kendall_tau(comparison, a, b) for b in names] for a in names]
    values = [[float("nan") if v is None else v for v in row] for row in grid]
    size = 0.5 * len(names) + 3
    figure, axes = plt.subplots(figsize=(size + 1.5, size))
    # Purple to orange, not red to green: a diverging map told apart in every colour vision.
    image = axes.imshow(values, cmap="PuOr", vmin=-1, vmax=1)
    for i in range(len(names)):
        for j in range(len(names)):
            if i != j:
                value = grid[i][j]
                text = "n/a" if value is None else f"{value:.2f}"
                # White on the dark ends of the map, where black text cannot be read.
                dark = value is not None and abs(value) >= 0.6
                colour = "white" if dark else "black"
                axes.text(j, i, text, ha="center", va="center", fontsize=7, color=colour)
    axes.set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=8)
    axes.set_yticks(range(len(names)), names, fontsize=8)
    # Two lines: on the figure of four conventions, one line runs past both edges.
    axes.set_title("Kendall's tau-b between the run orders\nof two conventions", fontsize=10)
    figure.colorbar(image, ax=axes, shrink=0.8, label="tau-b")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def verdict_matrix(report: CompareReport, path: Path) -> None:
    """Every pair of runs (rows) under every convention (columns), coloured by the verdict of
    the chosen test at α, each cell with its adjusted p-value."""
    plt = pyplot()
    from matplotlib.colors import ListedColormap

    names = report.names()
    options = report.significance.options
    test = options.test
    cells = {(r.a, r.b, r.measure): r for r in report.significance.tests if r.test == test}
    pairs = list(dict.fromkeys((a, b) for a, b, _ in cells))
    code = {"b": 0, "none": 1, "undecided": 2, "a": 3}
    grid = [[code[cells[a, b, n].verdict(options.alpha)] for n in names] for a, b in pairs]
    figure, axes = plt.subplots(
        figsize=(0.9 * len(names) + 6, 0.3 * len(pairs) + 2.5), squeeze=True
    )
    colours = ListedColormap([OKABE_ITO[0], "#f0f0f0", "#a0a0a0", OKABE_ITO[1]])
    axes.imshow(grid or [[1]], cmap=colours, vmin=0, vmax=3, aspect="auto")
    for i, (a, b) in enumerate(pairs):
        for j, n in enumerate(names):
            axes.text(
                j,
                i,
                f"{float(cells[a, b, n].adjusted.p):.2g}",
                ha="center",
                va="center",
                fontsize=7,
            )
    axes.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
    labels = [f"{a} vs {b}" for a, b in pairs]
    axes.set_yticks(range(len(pairs)), labels, fontsize=7, parse_math=False)
    axes.set_title(
        f"Verdicts of the {test} test (adjusted p in each cell)\nblue: the first run "
        "better; orange: the second; light grey: not significant; dark grey: undecided",
        fontsize=9,
    )
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def verdict_section(report: CompareReport, verdicts: Path) -> str:
    """The page's section on significance: the figure and the pairs whose verdict changes."""
    names = report.names()
    options = report.significance.options
    words = {
        "a": "{a} better",
        "b": "{b} better",
        "none": "not significant",
        "undecided": "undecided",
    }
    rows = [
        [
            f"{c.a} vs {c.b}",
            *(
                words[c.rows[n].verdict(options.alpha)].format(a=c.a, b=c.b)
                + f" (p {float(c.rows[n].adjusted.p):.3g})"
                for n in names
            ),
        ]
        for c in report.significance.changes
    ]
    return (
        f"<h2>Does significance survive the convention?</h2>"
        f"<p>Every pair of runs under every convention, by the "
        f"{html.escape(options.test)} test at alpha {float(options.alpha):g} "
        f"({html.escape(options.correction)}-corrected p-values)."
        f"</p>{_image(verdicts, 'matrix of the verdicts of every pair under every convention')}"
        f"<h3>Pairs whose verdict changes with the convention: {len(rows)}</h3>"
        f"{_table(['pair', *names], rows)}"
    )


def _image(path: Path, alt: str) -> str:
    encoded = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img src="data:image/png;base64,{encoded}" alt="{html.escape(alt)}">'


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _short(value: mpmath.mpf) -> str:
    return f"{float(output_decimal(value)):.4f}"


def page(report: CompareReport, title: str, bump: Path, tau: Path, verdicts: Path) -> str:
    """The self-contained HTML page: figures embedded, tables from the report."""
    comparison = report.comparison
    names = report.names()
    runs = comparison.runs
    rank_of = {n: ranks(comparison, n) for n in names}
    scores = _table(
        ["convention", "measure", *runs],
        [
            [
                c.name,
                c.config.canonical(),
                *(f"{_short(comparison.score(r, c.name))} ({rank_of[c.name][r]:g})" for r in runs),
            ]
            for c in comparison.conventions
        ],
    )
    spread_table = _table(
        ["run", "spread over conventions"], [[r, _short(spread(comparison, r)[0])] for r in runs]
    )
    flips_table = _table(
        ["a", "b", "a above b under", "a below b under", "queries that move it most"],
        [
            [
                f.a,
                f.b,
                f.ahead,
                f.behind,
                ", ".join(f"{q} {float(output_decimal(v)):+.4f}" for q, v in f.contributions),
            ]
            for f in flips(comparison)
        ],
    )
    queries = _table(
        ["query", "run", "spread", "lowest", "highest"],
        [
            [
                q.query,
                q.run,
                _short(q.spread),
                f"{_short(q.low[0])} ({q.low[1]})",
                f"{_short(q.high[0])} ({q.high[1]})",
            ]
            for q in query_disagreement(comparison)[: report.top]
        ],
    )
    excluded = "".join(
        f"<li>{html.escape(n)}: {html.escape(r)}</li>" for n, r in comparison.excluded.items()
    )
    left_out = (
        f"<p>Left out (they reject the input or leave a mean undefined):</p><ul>{excluded}</ul>"
        if excluded
        else ""
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 0.85em; }}
td, th {{ border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right;
  white-space: nowrap; }}
td:first-child, th:first-child {{ text-align: left; }}
img {{ max-width: 100%; }}
.scores td:nth-child(2) {{ text-align: left; font-family: monospace; word-break: break-all;
  white-space: normal; max-width: 24em; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{len(runs)} runs scored under {len(names)} nDCG conventions with ndcgspec's exact reference.
Each cell gives the mean nDCG and, in parentheses, the run's rank under that convention.</p>
{left_out}
<h2>Ranks across conventions</h2>
{_image(bump, "bump chart of the runs' ranks under each convention")}
<h2>Kendall's tau between conventions</h2>
{_image(tau, "heat map of Kendall's tau-b between conventions")}
{verdict_section(report, verdicts)}
<h2>Scores</h2>
<div class="scores">{scores}</div>
<h2>Spread of each run</h2>
{spread_table}
<h2>Pairs of runs whose order flips</h2>
<p>Each pair once: under the first convention that puts a above b against the first that puts
it below; the queries listed move mean(a) &minus; mean(b) most between the two.</p>
{flips_table}
<h2>Queries where the conventions disagree most</h2>
{queries}
</body></html>
"""


def write_page(
    report: CompareReport, out: Path, title: str = "nDCG conventions compared"
) -> list[Path]:
    """Write the JSON report, the figures and the HTML page into `out`; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    bump, tau, verdicts = out / BUMP_PNG, out / TAU_PNG, out / VERDICT_PNG
    bump_chart(report.comparison, bump)
    tau_heat_map(report.comparison, tau)
    verdict_matrix(report, verdicts)
    (out / DATA).write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
    (out / PAGE).write_text(page(report, title, bump, tau, verdicts), encoding="utf-8")
    return [out / DATA, bump, tau, verdicts, out / PAGE]
