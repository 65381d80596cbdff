"""``docs/conformance.html``: the conformance page to read at a glance, self-contained (inline
CSS, figures as base64 PNG, no font, script or address outside the file).

At the top, a grid of implementations × axes, one colour per choice of each column (the same
in every row), the spec's default marked and departures flagged; then bars of the rates each
implementation reaches; the rows on which two implementations of the same code differ; each
implementation's sharp edges with a one-line reproduction; and the whole markdown page, folded,
with the figures. The document is well-formed XML as well as HTML, so any parser reads it.

The markdown is rendered with markdown-it-py (the ``page`` extra), imported only when a page is
written, so that the command line starts without it.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence

from ndcgspec.survey.grid import (
    Cell,
    Rate,
    closest_preset_text,
    column_choices,
    contrasts,
    grid_row,
    rates,
    reproduction,
    sharp_edges,
    spec_defaults,
)
from ndcgspec.survey.identification import NOT_OBSERVABLE
from ndcgspec.survey.implementation import Implementation
from ndcgspec.survey.probes import ProbeInput

PALETTE = ("#a8cdf0", "#f6c98f", "#aedcb9", "#f0b0c0", "#cdb8ec", "#efe08a")
"""The colour of a column's first, second, ... choice; the longest axis has six choices."""
DEFAULT_MARK = "◆"
NO_DIFFERENCE = '<tr><td colspan="4">no difference</td></tr>'
DEPARTURE_MARK = "⚠"
# The bars' green and orange are Okabe and Ito's, told apart by readers of every colour vision.
STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1500px;
padding:1.2em 1.5em;color:#1f2328;line-height:1.4}
h1{font-size:1.7em;margin:.2em 0}h2{font-size:1.3em;margin:1.6em 0 .5em;
border-bottom:1px solid #d0d7de;padding-bottom:.2em}h3{font-size:1.05em;margin:1em 0 .3em}
p.lead{color:#57606a;margin:.2em 0 1em;max-width:70em}
table{border-collapse:collapse;font-size:12px}
td,th{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa}code{font-size:11.5px;background:#f3f4f6;padding:0 2px;
border-radius:3px;word-break:break-all}
.scroll{overflow-x:auto}
table.grid td.cell{min-width:4.5em;max-width:11em;font-size:11.5px;overflow-wrap:anywhere}
table.grid th.name{white-space:nowrap}
table.grid th.name small{display:block;font-weight:normal;color:#57606a}
table.grid th.name small.preset{white-space:normal;max-width:16em}
td.cell.departs{box-shadow:inset 0 0 0 2px #cf222e}
td.cell.none{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#ffd7d5 4px,#ffd7d5 8px)}
td.cell.unseen{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#eaeef2 4px,#eaeef2 8px);
color:#6e7781}
td.cell.blank{color:#8c959f}
.mark{font-weight:bold;margin-right:2px}.flag{color:#cf222e;margin-right:2px}
.legend{display:flex;flex-wrap:wrap;gap:.3em 1.4em;font-size:12px;margin:.6em 0}
.legend span.sw{display:inline-block;padding:0 5px;border-radius:3px;margin:0 2px}
.bar{position:relative;width:260px;height:14px;background:#eaeef2;border-radius:3px;
overflow:hidden;display:inline-block;vertical-align:middle}
.bar span{position:absolute;top:0;bottom:0}
.bar .good{background:#009e73}.bar .declared{background:#e69f00}
table.rates td{vertical-align:middle}
.ratetext{font-size:11.5px;margin-left:6px;white-space:nowrap}
ul.edges{margin:.2em 0 .8em;padding-left:1.3em}ul.edges li{font-size:13px;margin:.35em 0}
.repro{display:block;font-size:12px;color:#57606a;margin-top:1px}
details{margin:.4em 0}summary{cursor:pointer;font-weight:600}
.figures{display:flex;flex-wrap:wrap;gap:0 1.5em;align-items:flex-start}
figure{margin:1em 0;flex:1 1 560px;max-width:780px}img{max-width:100%;border:1px solid #d0d7de}
"""


def _inline(markdown_text: str) -> str:
    """One line of the page's markdown (code spans) as HTML, raw HTML escaped."""
    from markdown_it import MarkdownIt

    # markdown-it-py declares its renderers' results Any.
    html: str = MarkdownIt("commonmark", {"html": False, "xhtmlOut": True}).renderInline(
        markdown_text
    )
    return html


def markdown_html(text: str) -> str:
    """The HTML of the page's markdown: CommonMark with tables, raw HTML off, since the page
    quotes error messages, which may hold "<" and "&"."""
    from markdown_it import MarkdownIt

    html: str = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    return html


def _colour(column: str, choice: str) -> str:
    return PALETTE[column_choices()[column].index(choice) % len(PALETTE)]


def cell_html(column: str, cell: Cell) -> str:
    """One cell of the grid: coloured by its choice, the default marked, a departure flagged,
    a finding outside the spec hatched red and one that cannot be observed hatched grey."""
    classes = ["cell"]
    style = ""
    if cell.choice is not None:
        style = f' style="background:{_colour(column, cell.choice)}"'
    elif cell.status == NOT_OBSERVABLE:
        classes.append("unseen")
    elif cell.departs:
        classes.append("none")
    else:
        classes.append("blank")
    if cell.departs:
        classes.append("departs")
    marks = ""
    if cell.default:
        marks += f'<span class="mark" title="the spec default">{DEFAULT_MARK}</span>'
    if cell.departs:
        marks += f'<span class="flag" title="departs">{DEPARTURE_MARK}</span>'
    title = html.escape(f"{column}: {cell.text}", quote=True)
    # A narrow column breaks "exponential→exponential" after its arrow, not inside a word.
    text = html.escape(cell.text).replace("→", "→<wbr/>")
    return f'<td class="{" ".join(classes)}"{style} title="{title}">{marks}{text}</td>'


def grid_html(items: Sequence[Implementation]) -> str:
    """The grid of implementations × columns, with its legend."""
    columns = list(column_choices())
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    rows = []
    for item in items:
        version = html.escape(item.identification.adapter.version)
        cells = "".join(cell_html(c, cell) for c, cell in grid_row(item).items())
        preset = html.escape(closest_preset_text(item))
        rows.append(
            f'<tr><th class="name">{html.escape(item.name)}<small>{version}</small>'
            f'<small class="preset">preset: {preset}</small></th>{cells}</tr>'
        )
    legend = []
    defaults = spec_defaults()
    for column, choices in column_choices().items():
        swatches = "".join(
            f'<span class="sw" style="background:{_colour(column, c)}">'
            f"{DEFAULT_MARK if c == defaults[column] else ''}{html.escape(c)}</span>"
            for c in choices
        )
        legend.append(f"<div><b>{html.escape(column)}</b> {swatches}</div>")
    key = (
        f'<p class="lead">{DEFAULT_MARK} the spec\'s default choice; {DEPARTURE_MARK} with a red '
        "frame: the implementation departs there (meets no choice of the spec, computes another "
        "choice than the one asked for, or some probes disagree); red hatching: none of the "
        "spec's choices; grey hatching: not observable through the API (n/o); – no probe "
        "answered. a→b: asked for a, computes b.</p>"
    )
    # The key and the legend come first: under a table of thirty rows, no reader finds them.
    return (
        f'{key}<div class="legend">{"".join(legend)}</div>'
        '<div class="scroll"><table class="grid"><thead><tr><th>implementation</th>'
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def bar_html(rate: Rate) -> str:
    """A rate as a bar: the good part green, the part departing as declared amber."""
    total = max(rate.total, 1)
    good = 100 * rate.good / total
    declared = 100 * rate.declared / total
    return (
        f'<span class="bar" title="{html.escape(rate.label)}">'
        f'<span class="good" style="left:0;width:{good:.2f}%"></span>'
        f'<span class="declared" style="left:{good:.2f}%;width:{declared:.2f}%"></span></span>'
        f'<span class="ratetext">{html.escape(rate.text())}</span>'
    )


def rates_html(items: Sequence[Implementation]) -> str:
    """A row of bars per implementation, a column per kind of rate measured."""
    measured = {item.name: {r.label: r for r in rates(item)} for item in items}
    labels = list(dict.fromkeys(label for found in measured.values() for label in found))
    head = "".join(f"<th>{html.escape(label)}</th>" for label in labels)
    rows = []
    for item in items:
        cells = "".join(
            f"<td>{bar_html(measured[item.name][label])}</td>"
            if label in measured[item.name]
            else "<td>–</td>"
            for label in labels
        )
        rows.append(f"<tr><th>{html.escape(item.name)}</th>{cells}</tr>")
    return (
        '<p class="lead">Green: cases that meet the configuration; amber: cases on which the '
        "library departs exactly as its preset declares; grey: the rest (undeclared failures "
        "and errors).</p>"
        f'<div class="scroll"><table class="rates"><thead><tr><th>implementation</th>{head}'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def contrasts_html(items: Sequence[Implementation], probes: Mapping[str, ProbeInput]) -> str:
    """The rows on which two implementations of the same code differ, with reproductions."""
    parts = []
    for pair in contrasts(items, probes):
        rows = "".join(
            f"<tr><th>{html.escape(what)}</th><td>{_inline(one)}</td>"
            f"<td>{_inline(other)}</td><td>{_inline(shown)}</td></tr>"
            for what, one, other, shown in pair.rows
        )
        first, second = (html.escape(name) for name in pair.names)
        parts.append(
            f"<h2>{first} against {second}</h2>"
            '<div class="scroll"><table><thead><tr><th>differs on</th>'
            f"<th>{first}</th><th>{second}</th><th>reproduce</th></tr></thead>"
            f"<tbody>{rows or NO_DIFFERENCE}</tbody>"
            "</table></div>"
        )
    return "".join(parts)


def edges_html(items: Sequence[Implementation], probes: Mapping[str, ProbeInput]) -> str:
    """Each implementation's sharp edges, each with its one-line reproduction."""
    parts = []
    for item in items:
        entries = []
        for edge in sharp_edges(item):
            shown = reproduction(edge.cases, probes)
            repro = f'<span class="repro">reproduce: {_inline(shown)}</span>' if shown else ""
            head, colon, rest = edge.text.partition(": ")
            # The topic before the first colon, unless the colon falls inside parentheses.
            topic = colon and head.count("(") == head.count(")")
            said = f"<b>{html.escape(head)}</b>: {_inline(rest)}" if topic else _inline(edge.text)
            entries.append(f"<li>{said}{repro}</li>")
        listed = "".join(entries) or "<li>none found</li>"
        parts.append(
            f'<details open="open"><summary>{html.escape(item.name)} '
            f'({len(entries)})</summary><ul class="edges">{listed}</ul></details>'
        )
    return "".join(parts)


def page(
    markdown_text: str,
    items: Sequence[Implementation],
    probes: Sequence[ProbeInput],
    charts: Sequence[tuple[str, bytes]],
) -> str:
    """The whole page."""
    known = {p.case_id: p for p in probes}
    figures = "".join(
        f'<figure><img alt="{html.escape(title)}" '
        f'src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}"/>'
        f"<figcaption>{html.escape(title)}</figcaption></figure>"
        for title, png in charts
    )
    body = [
        "<h1>Conformance of nDCG implementations</h1>",
        '<p class="lead">Generated by <code>ndcgspec matrix</code>: every implementation run '
        "through its built-in adapter, its choices identified by <code>ndcgspec identify</code> "
        "from probes derived from the golden cases, its presets checked by running it.</p>",
        "<h2>Choices at a glance</h2>",
        grid_html(items),
        "<h2>Rates</h2>",
        rates_html(items),
        contrasts_html(items, known),
        "<h2>Sharp edges</h2>",
        edges_html(items, known),
        "<h2>Every table as text</h2>",
        f"<details><summary>the markdown page</summary>{markdown_html(markdown_text)}</details>",
        "<h2>Figures</h2>",
        f'<div class="figures">{figures}</div>',
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"/>'
        f"<title>nDCG conformance matrix</title><style>{STYLE}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
