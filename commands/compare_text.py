"""The text ``compare`` prints: by default a summary whose lines fit `text_table.WIDTH` (the means
of the runs under each convention, each convention against the first, the pairs of runs whose
order flips and those whose verdict changes); with ``--full`` every table of the report: the
queries behind each flip and where the conventions disagree most, Kendall's τ-b between every
two conventions, and every pair's paired tests."""

from __future__ import annotations

import mpmath

from ndcgspec.analysis.comparison import (
    Comparison,
    flips,
    kendall_tau,
    query_disagreement,
    ranks,
    reversed_pairs,
    spread,
)
from ndcgspec.commands.compare_report import CompareReport
from ndcgspec.commands.significance import significance_text
from ndcgspec.commands.text_table import SHOWN_MOST, paged, wrapped

SHOWN_DECIMALS = 4
TAU_TABLE_MAX = 8
"""The most conventions whose Kendall's tau table ``--full`` prints unasked; beyond, the pairs
of conventions that agree least."""


def _short(value: mpmath.mpf) -> str:
    return f"{float(value):.{SHOWN_DECIMALS}f}"


def _heading(comparison: Comparison, defaulted: bool) -> list[str]:
    """What was compared: how many runs under which conventions, and those left out."""
    count = len(comparison.conventions)
    conventions = (
        f"the {count} default conventions (-m names others, --presets adds every preset)"
        if defaulted
        else f"{count} conventions"
    )
    lines = [f"{len(comparison.runs)} runs under {conventions}"]
    for name, reason in comparison.excluded.items():
        lines += wrapped(f"left out: {name} ({reason})")
    return lines


def _score_lines(comparison: Comparison) -> list[str]:
    """The runs' means, a row per run and a column per convention as in a paper's table, each
    with the run's rank under the convention, and the run's spread over the conventions."""
    names = [c.name for c in comparison.conventions]
    rank_of = {n: ranks(comparison, n) for n in names}
    rows = [
        [
            run,
            *(f"{_short(comparison.score(run, n))} ({rank_of[n][run]:g})" for n in names),
            _short(spread(comparison, run)[0]),
        ]
        for run in comparison.runs
    ]
    return [
        "",
        "Mean nDCG of each run (its rank under the convention) and its spread over them",
        *paged(["run", *names, "spread"], rows),
    ]


def _agreement_lines(report: CompareReport) -> list[str]:
    """Each convention against the first: how far it reorders the runs and changes which
    differences are significant (`CompareReport.agreement`)."""
    options = report.significance.options
    first = report.names()[0]
    rows = [
        [
            a.convention,
            "n/a" if a.tau is None else f"{a.tau:.2f}",
            f"{a.reversed} of {a.pairs}",
            f"{a.significant} of {a.tested}",
            str(a.changed),
        ]
        for a in report.agreement()
    ]
    title = (
        f"Each convention against {first}: Kendall's tau-b of the orders of the runs, pairs of "
        f"runs reversed, pairs significantly different ({options.test} test) and verdicts changed"
    )
    return [
        "",
        *wrapped(title),
        *paged(["convention", "tau-b", "reversed", "significant", "changed"], rows),
    ]


def _spread_lines(comparison: Comparison) -> list[str]:
    """Per run, its spread over the conventions and where it is lowest and highest."""
    lines = ["", "Spread of each run over the conventions"]
    for run in comparison.runs:
        width, low, high = spread(comparison, run)
        lines += wrapped(f"{run}: {_short(width)} (lowest under {low}, highest under {high})", "  ")
    return lines


def _tau_lines(comparison: Comparison, whole: bool) -> list[str]:
    """Kendall's tau-b between conventions: the table when it is small or asked for
    (`whole`), else the pairs of conventions that agree least."""
    names = [c.name for c in comparison.conventions]
    lines = ["", "Kendall's tau-b between conventions (reversed pairs of runs)"]
    if whole or len(names) <= TAU_TABLE_MAX:
        tau_rows = []
        for a in names:
            cells = []
            for b in names:
                tau = kendall_tau(comparison, a, b)
                cells.append(
                    ("n/a" if tau is None else f"{tau:.2f}")
                    + f" ({reversed_pairs(comparison, a, b)})"
                )
            tau_rows.append([a, *cells])
        return lines + paged(["", *names], tau_rows)
    pairs = [
        (tau, a, b)
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        if (tau := kendall_tau(comparison, a, b)) is not None
    ]
    below = sorted(p for p in pairs if p[0] < 1)
    lines += wrapped(
        f"{len(below)} of {len(pairs)} pairs of the {len(names)} conventions below 1; "
        f"the lowest {min(len(below), TAU_TABLE_MAX)} (--tau-table prints the whole table):",
        "  ",
    )
    for tau, a, b in below[:TAU_TABLE_MAX]:
        lines += wrapped(f"{tau:.2f} ({reversed_pairs(comparison, a, b)})  {a} vs {b}", "  ")
    return lines


def _flip_lines(comparison: Comparison, full: bool) -> list[str]:
    """The pairs of runs whose order flips, each with the conventions that order it each way;
    with `full` every one, and the queries that move its difference most."""
    found = flips(comparison)
    shown = found if full else found[:SHOWN_MOST]
    lines = ["", f"Pairs of runs whose order flips: {len(found)}"]
    for flip in shown:
        lines += wrapped(
            f"{flip.a} above {flip.b} under {flip.ahead}, below it under {flip.behind}", "  "
        )
        if full:
            moved = ", ".join(f"{q} {float(v):+.4f}" for q, v in flip.contributions)
            # One line, however long: wrapped, a query would part from its value.
            lines.append(f"    queries moving mean({flip.a}) - mean({flip.b}) most: {moved}")
    if len(shown) < len(found):
        lines.append(f"  and {len(found) - len(shown)} more (--full lists every one)")
    return lines


def _query_lines(comparison: Comparison, top: int) -> list[str]:
    """The `top` queries, of a run, over which the conventions disagree most."""
    lines = ["", f"Queries where the conventions disagree most (top {top})"]
    for row in query_disagreement(comparison)[:top]:
        lines += wrapped(
            f"query {row.query}, run {row.run}: {_short(row.low[0])} under "
            f"{row.low[1]} to {_short(row.high[0])} under {row.high[1]}",
            "  ",
        )
    return lines


FULL_HINT = (
    "--full adds the queries behind each flip and where the conventions disagree most, "
    "Kendall's tau-b between every two conventions and every pair's p-values (--format json "
    "holds them all)"
)


def report_text(
    report: CompareReport, defaulted: bool = False, full: bool = False, tau_table: bool = False
) -> list[str]:
    """The lines ``compare`` prints: the summary, or with `full` every table; `defaulted` when
    the conventions are the default ones; `tau_table` adds the whole table of Kendall's tau
    however many conventions there are."""
    comparison = report.comparison
    lines = _heading(comparison, defaulted)
    lines += _score_lines(comparison)
    lines += _agreement_lines(report)
    if full:
        lines += _spread_lines(comparison)
    if full or tau_table:
        lines += _tau_lines(comparison, tau_table)
    lines += _flip_lines(comparison, full)
    if full:
        lines += _query_lines(comparison, report.top)
    lines += significance_text(report.significance, full)
    for run, values in (report.judged or {}).items():
        shares = ", ".join(f"{k} {float(v):.4f}" for k, v in values.items() if v)
        lines += wrapped(f"judged: {run}: {shares}")
    if not full:
        lines += ["", *wrapped(FULL_HINT)]
    return lines
