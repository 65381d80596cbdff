"""The renderings of a JSONL report: text, markdown, HTML, JUnit XML or a badge (the ``report``
command is ``commands/report.py``).

Every format shows the raw counts of the five outcomes and the conformance percentage, which is
taken over the cases the adapter supports and that ran (pass, fail and error); ``badge`` is the
JSON a shields.io endpoint badge reads. A partial report (a killed run) renders with a warning.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from typing import Any
from xml.etree import ElementTree

from ndcgspec.harness.diagnosis import (
    Diagnosed,
    diagnosis_headline,
    diagnosis_lines,
    diagnosis_rows,
)
from ndcgspec.harness.outcome import OUTCOMES
from ndcgspec.harness.report import DEPARTED, RAN, Report, Tally, tally
from ndcgspec.reference.config import choice_axes, choice_ids
from ndcgspec.suite.result import CaseResult, DeclaredDeparture

MAX_LISTED = 50


# Characters that XML 1.0 forbids, a terminal acts on, or UTF-8 cannot encode (lone
# surrogates, which JSON can escape): shown as escapes, never written raw.
_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _escaped(char: re.Match[str]) -> str:
    code = ord(char.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _visible(value: Any) -> Any:
    if isinstance(value, str):
        return _INVISIBLE.sub(_escaped, value)
    if isinstance(value, Mapping):
        return {_visible(k): _visible(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_visible(v) for v in value)
    if isinstance(value, (CaseResult, DeclaredDeparture)):
        return replace(value, **{f.name: _visible(getattr(value, f.name)) for f in fields(value)})
    return value


def visible(report: Report) -> Report:
    """`report` with every control character, noncharacter and lone surrogate of its text
    written as an escape: adapters' messages are untrusted, and every format must stay
    valid (JUnit XML) and inert (HTML, a terminal)."""
    return replace(
        report,
        header=_visible(report.header),
        results=_visible(report.results),
        footer=_visible(report.footer),
    )


def _places(places: int | None) -> str:
    return "" if places is None else f", {places} decimal places"


def _title(report: Report) -> str:
    adapter = report.header.get("adapter") or {}
    width = adapter.get("float_width", "?")
    name = f"{adapter.get('name', '?')} {adapter.get('version', '?')}"
    return f"{name} (float{width}{_places(adapter.get('decimal_places'))})"


def _headline(tallied: Tally) -> str:
    """The counts of each outcome, the declared departures apart from the fails and errors
    (as the conformance page gives them: "370 of 394 (+24 declared departures)"), and the
    share of the other supported cases that pass."""
    counts = ", ".join(f"{tallied.undeclared(o)} {o}" for o in OUTCOMES)
    if tallied.departed:
        counts += f", {tallied.departed} declared departures"
    if tallied.percent is None:
        ran = "every case that ran is a declared departure" if tallied.departed else None
        return f"{counts}; {ran or 'no supported case ran'}"
    sources = ", ".join(f"{n} {source}" for source, n in sorted(tallied.sources.items()))
    apart = " (declared departures apart)" if tallied.departed else ""
    return (
        f"{counts}; {tallied.percent:.2f}% of {tallied.judged} supported cases pass{apart}"
        f" (expected values: {sources})"
    )


def axis_columns(tallied: Tally) -> list[str]:
    """The by-axis table's header: a column per outcome, then the declared departures when any
    case departed as its preset declares (counted there, not among the fails and errors)."""
    return ["axis choice", *OUTCOMES, *([DEPARTED] if tallied.departed else [])]


def axis_rows(tallied: Tally) -> list[list[str]]:
    """The by-axis table: a row per axis choice on which some case ran (pass, fail or error,
    or a declared departure), a column per `axis_columns`; axes and choices in the spec's
    order, cutoffs by value, none first."""
    order = {a.id: (i, choice_ids(a.id)) for i, a in enumerate(choice_axes())}
    cutoff_place = len(order)

    def place(key: tuple[str, str]) -> tuple[int, int, int]:
        axis_id, choice = key
        if axis_id not in order:
            return (cutoff_place, 0, -1) if choice == "none" else (cutoff_place, 0, int(choice))
        index, choices = order[axis_id]
        return (index, choices.index(choice) if choice in choices else len(choices), 0)

    columns = axis_columns(tallied)[1:]
    rows = []
    for key in sorted(tallied.by_choice, key=place):
        counts = tallied.by_choice[key]
        if any(counts[o] for o in (*RAN, DEPARTED)):
            rows.append([f"{key[0]}={key[1]}", *(str(counts[o]) for o in columns)])
    return rows


def reason_lines(tallied: Tally, limit: int = 3) -> list[str]:
    """The commonest reasons of the unsupported, skipped and erring cases, with their counts
    (the fails' causes are the diagnosis): what the counts of the headline come from."""
    lines = []
    for outcome in ("unsupported", "skip", "error"):
        top = tallied.top_reasons(outcome, limit)
        if not top:
            continue
        width = max(len(str(n)) for _, n in top)
        lines.append(f"{outcome}, commonest reasons:")
        lines += [f"  {str(n).rjust(width)}  {why}" for why, n in top]
        rest = tallied.counts[outcome] - sum(n for _, n in top)
        if rest:
            others = len(tallied.reasons[outcome]) - len(top)
            lines.append(f"  and {rest} more, for {others} other reasons")
    return lines


def _problems(report: Report) -> list[CaseResult]:
    return [r for r in report.results if r.outcome in ("fail", "error")]


def _problem_text(result: CaseResult) -> str:
    declared = result.declared_departure
    said = f" [declared departure of {declared.preset}]" if declared else ""
    return f"{result.outcome:5} {result.id}: {result.message or ''}{said}"


def _warning(report: Report) -> list[str]:
    if report.complete:
        return []
    return [f"partial report: the run did not finish ({len(report.results)} results recorded)"]


def _aligned(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in [header, *rows]
    ]


def render_text(report: Report) -> str:
    """A terminal summary: headline, the by-axis table, then the failing cases."""
    report = visible(report)
    tallied = tally(report.results)
    lines = [*_warning(report), _title(report), _headline(tallied), ""]
    reasons = reason_lines(tallied)
    lines += [*reasons, ""] if reasons else []
    diagnosis = diagnosis_lines(Diagnosed.from_footer(report.footer))
    lines += [*diagnosis, ""] if diagnosis else []
    lines += _aligned(axis_columns(tallied), axis_rows(tallied))
    problems = _problems(report)
    failing = [r for r in problems if not r.declared_departure]
    declared = [r for r in problems if r.declared_departure]
    for title, listed in [
        ("failing cases (ndcgspec cases show ID prints one):", failing),
        ("declared departures, which fail the run only under --strict:", declared),
    ]:
        if listed:
            lines += ["", title]
            lines += ["  " + _problem_text(r) for r in listed[:MAX_LISTED]]
            if len(listed) > MAX_LISTED:
                lines.append(f"  ... and {len(listed) - MAX_LISTED} more")
    return "\n".join(lines) + "\n"


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(["---"] * len(header)) + "|",
    ]
    return out + ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]


def render_markdown(report: Report) -> str:
    """A markdown summary with the by-axis table and the failing cases."""
    report = visible(report)
    tallied = tally(report.results)
    lines = [f"> {w}" for w in _warning(report)]
    lines += [f"## nDCG conformance: {_title(report)}", "", _headline(tallied), ""]
    diagnosed = Diagnosed.from_footer(report.footer)
    headline = diagnosis_headline(diagnosed)
    if headline:
        lines += [f"**{headline}**", ""]
        lines += _markdown_table(["failing cases", "cause", "example"], diagnosis_rows(diagnosed))
        lines.append("")
    lines += _markdown_table(axis_columns(tallied), axis_rows(tallied))
    problems = _problems(report)
    if problems:
        lines += ["", "### Failing cases", ""]
        lines += _markdown_table(
            ["outcome", "case", "message"],
            [[r.outcome, f"`{r.id}`", r.message or ""] for r in problems[:MAX_LISTED]],
        )
    return "\n".join(lines) + "\n"


def render_html(report: Report) -> str:
    """A standalone HTML page with the same content as the markdown summary."""
    report = visible(report)
    tallied = tally(report.results)
    esc = html.escape

    def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
        head = "".join(f"<th>{esc(h)}</th>" for h in header)
        body = "".join(
            "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    parts = [f"<p><strong>{esc(w)}</strong></p>" for w in _warning(report)]
    parts += [
        f"<h1>nDCG conformance: {esc(_title(report))}</h1>",
        f"<p>{esc(_headline(tallied))}</p>",
    ]
    diagnosed = Diagnosed.from_footer(report.footer)
    headline = diagnosis_headline(diagnosed)
    if headline:
        parts.append(f"<h2>{esc(headline)}</h2>")
        parts.append(table(["failing cases", "cause", "example"], diagnosis_rows(diagnosed)))
    parts.append(table(axis_columns(tallied), axis_rows(tallied)))
    problems = _problems(report)
    if problems:
        rows = [[r.outcome, r.id, r.message or ""] for r in problems]
        parts += ["<h2>Failing cases</h2>", table(["outcome", "case", "message"], rows)]
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>nDCG conformance</title>'
        "</head><body>\n" + "\n".join(parts) + "\n</body></html>\n"
    )


def render_junit(report: Report) -> str:
    """JUnit XML: a test case per case, failures and errors with their messages and details;
    unsupported and skipped cases are skipped tests. A partial report says so in the suite's
    name and in a property, `_warning`'s words."""
    report = visible(report)
    tallied = tally(report.results)
    suite = ElementTree.Element(
        "testsuite",
        name=f"ndcgspec {_title(report)}" + ("" if report.complete else " (partial report)"),
        tests=str(len(report.results)),
        failures=str(tallied.counts["fail"]),
        errors=str(tallied.counts["error"]),
        skipped=str(tallied.counts["skip"] + tallied.counts["unsupported"]),
    )
    said = [("partial", warning) for warning in _warning(report)]
    diagnosed = Diagnosed.from_footer(report.footer)
    headline = diagnosis_headline(diagnosed)
    if headline:
        said.append(("diagnosis", headline))
        for count, cause, example in diagnosis_rows(diagnosed):
            said.append(("cause", f"{count} failing cases: {cause} (e.g. {example})"))
    if said:
        # What the suite is first, as its properties, before the test cases.
        properties = ElementTree.SubElement(suite, "properties")
        for name, value in said:
            ElementTree.SubElement(properties, "property", name=name, value=value)
    for result in report.results:
        case = ElementTree.SubElement(suite, "testcase", classname=result.group, name=result.id)
        outcome = result.outcome
        if outcome == "fail":
            node = ElementTree.SubElement(case, "failure", message=result.message or "")
            node.text = json.dumps(list(result.mismatches), indent=1)
        elif outcome == "error":
            node = ElementTree.SubElement(case, "error", message=result.message or "")
            node.text = result.detail or ""
        elif outcome in ("skip", "unsupported"):
            ElementTree.SubElement(case, "skipped", message=f"{outcome}: {result.reason or ''}")
    ElementTree.indent(suite)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        + ElementTree.tostring(suite, encoding="unicode")
        + "\n"
    )


def badge_color(percent: float | None) -> str:
    """brightgreen at 100 %, yellow from 90 %, red below, and red when nothing ran."""
    if percent is None:
        return "red"
    return "brightgreen" if percent == 100 else "yellow" if percent >= 90 else "red"


def render_badge(report: Report) -> str:
    """shields.io endpoint JSON: schemaVersion, label, message, color."""
    report = visible(report)
    tallied = tally(report.results)
    message = (
        "no case ran"
        if tallied.percent is None
        else f"{tallied.percent:.1f}% ({tallied.counts['pass']}/{tallied.judged})"
    )
    if tallied.departed:
        message += f" +{tallied.departed} declared departures"
    message += _places(report.header["adapter"].get("decimal_places"))
    if not report.complete:
        message += " partial"
    badge = {
        "schemaVersion": 1,
        "label": "nDCG conformance",
        "message": message,
        "color": badge_color(tallied.percent),
    }
    return json.dumps(badge) + "\n"


RENDERERS: dict[str, Callable[[Report], str]] = {
    "text": render_text,
    "markdown": render_markdown,
    "html": render_html,
    "junit": render_junit,
    "badge": render_badge,
}
