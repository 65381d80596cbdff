"""Tables for papers: ``compare --format latex`` (booktabs) and ``--format markdown``.

One row per run, one column per convention, each cell the run's mean; the best of each column
is in bold, and a mark says whether the run differs significantly from the baseline (the first
run) under that convention: † better, ‡ worse, at the adjusted p-value of the chosen test. The
caption names the test, the alternative, the correction and α, and gives each convention's
canonical string and fingerprint, so the table carries the definition of every number in it."""

from __future__ import annotations

import re
from collections.abc import Callable

from ndcgspec.commands.compare_report import CompareReport
from ndcgspec.inference.paired_tests import PAIRED_TESTS

DECIMALS = 4
# Line ends, other control characters and Unicode's line and paragraph separators: in a table
# row each would end the row (Markdown) or, as a blank line, the paragraph (LaTeX); a name
# holding them is written with a space for each run of them, as HTML shows it.
LINE_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "_": r"\_",
    "^": r"\^{}",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "$": r"\$",
    "~": r"\~{}",
    # Under LaTeX's default font encoding (OT1) these print as other glyphs.
    "|": r"\textbar{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "none": "no"}
FAMILY_WORDS = {
    "convention": "over the pairs of runs under each convention",
    "all": "over every pair and convention",
}


def one_line(text: str) -> str:
    """`text` on one line: each run of `LINE_BREAKING` characters a space."""
    return LINE_BREAKING.sub(" ", text)


def latex_escaped(text: str) -> str:
    """`text` on one line with LaTeX's special characters written literally."""
    return "".join(LATEX_SPECIAL.get(c, c) for c in one_line(text))


def markdown_cell(text: str) -> str:
    """`text` as the content of a cell of a GitHub-flavoured Markdown table: on one line, a
    backslash and a pipe escaped (the pipe would end the cell, and an unescaped backslash
    before an escaped pipe would unescape it)."""
    return one_line(text).replace("\\", "\\\\").replace("|", "\\|")


def markdown_code(text: str) -> str:
    """`text` as a Markdown code span: on one line (a blank line would end the paragraph),
    fenced by one backtick more than the longest run of them inside. In the table it spans a
    convention's name, a measure string, which holds no pipe."""
    text = one_line(text)
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return fence + padded + fence


def _marks(report: CompareReport) -> dict[tuple[str, str], str]:
    """(run, convention) → "better" or "worse" than the baseline, where significant."""
    options = report.significance.options
    baseline = report.comparison.runs[0]
    marks = {}
    for row in report.significance.tests:
        if row.test != options.test or baseline not in (row.a, row.b):
            continue
        other = row.b if row.a == baseline else row.a
        winner = {"a": row.a, "b": row.b}.get(row.verdict(options.alpha))
        if winner is not None:
            marks[other, row.measure] = "better" if winner == other else "worse"
    return marks


def _cells(report: CompareReport) -> tuple[list[str], dict[str, set[str]]]:
    """The conventions and, per convention, the runs with its best mean."""
    names = report.names()
    runs = report.comparison.runs
    best = {}
    for name in names:
        top = max(float(report.mean(r, name)) for r in runs)
        best[name] = {r for r in runs if float(report.mean(r, name)) == top}
    return names, best


def _caption(report: CompareReport, code: Callable[[str], str], mark: tuple[str, str]) -> str:
    options = report.significance.options
    baseline = report.comparison.runs[0]
    conventions = "; ".join(
        f"{code(c.name)}: {code(c.config.canonical())} (fingerprint {code(c.config.fingerprint())})"
        for c in report.comparison.conventions
    )
    return (
        f"Mean nDCG of each run. Bold: the best run under the convention. "
        f"{mark[0]} ({mark[1]}): significantly better (worse) than {code(baseline)}, "
        f"{PAIRED_TESTS[options.test].title}, {options.alternative}, "
        f"{CORRECTION_NAMES[options.correction]} correction "
        f"{FAMILY_WORDS[options.family]}, alpha = {float(options.alpha):g}. "
        f"Conventions: {conventions}."
    )


def latex_table(report: CompareReport) -> str:
    """The booktabs table (a ``table`` float; needs ``\\usepackage{booktabs}``)."""
    names, best = _cells(report)
    marks = _marks(report)
    symbol = {"better": r"$^{\dagger}$", "worse": r"$^{\ddagger}$"}

    def code(text: str) -> str:
        return r"\texttt{" + latex_escaped(text) + "}"

    lines = [
        r"\begin{table}",
        r"\centering",
        r"\caption{" + _caption(report, code, (r"$\dagger$", r"$\ddagger$")) + "}",
        r"\begin{tabular}{l" + "r" * len(names) + "}",
        r"\toprule",
        "Run & " + " & ".join(code(n) for n in names) + r" \\",
        r"\midrule",
    ]
    for run in report.comparison.runs:
        cells = []
        for name in names:
            value = f"{float(report.mean(run, name)):.{DECIMALS}f}"
            if run in best[name]:
                value = r"\textbf{" + value + "}"
            cells.append(value + symbol.get(marks.get((run, name), ""), ""))
        lines.append(latex_escaped(run) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


def markdown_table(report: CompareReport) -> str:
    """The same table in GitHub-flavoured Markdown, the caption below it."""
    names, best = _cells(report)
    marks = _marks(report)
    symbol = {"better": "†", "worse": "‡"}

    lines = [
        "| run | " + " | ".join(markdown_code(n) for n in names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for run in report.comparison.runs:
        cells = []
        for name in names:
            value = f"{float(report.mean(run, name)):.{DECIMALS}f}"
            if run in best[name]:
                value = f"**{value}**"
            cells.append(value + symbol.get(marks.get((run, name), ""), ""))
        lines.append(f"| {markdown_cell(run)} | " + " | ".join(cells) + " |")
    lines += ["", _caption(report, markdown_code, ("†", "‡"))]
    return "\n".join(lines)
