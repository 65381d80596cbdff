"""The ``explain`` command: what a measure computes, how to cite it, and one query's trace.

For a measure it prints the canonical and full forms and the fingerprint, then for every axis
the chosen convention's definition from ``spec/ndcg.yaml`` (with the actual parameter values)
and its citations, a sentence to paste into a paper and a BibTeX entry. With ``--query``,
``--qrels`` and ``--run`` it adds the rank-by-rank trace of that query
(``ndcg.definition.dcg``, ``ndcg.definition.idcg``) and its exact nDCG, DCG and IDCG.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence
from functools import cache

from ndcgspec.commands.citation import citation
from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference.config import Config, axes, choice_axes
from ndcgspec.reference.errors import NdcgSpecError
from ndcgspec.spec import load_spec
from ndcgspec.spec.axes import Choice, Citation, ValueAxis

WIDTH = 96


def _param_text(value: str | dict[str, str]) -> str:
    """A parameter as `Config.to_mapping` gives it, written as in a measure string."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{v}" for k, v in value.items()) + "}"
    return str(value)


# The record below is a plain class: a dataclass imports inspect and compiles its methods,
# milliseconds of every explanation (issue 41).


class AxisSetting:
    """What a configuration sets on one axis: the choice's name (for the cutoff, its value or
    "null"), its anchor, its definition with the parameters' values in place (for the cutoff,
    the axis's description), its parameters as written and its citations."""

    __slots__ = ("anchor", "axis", "citations", "definition", "is_choice", "name", "params")

    def __init__(
        self,
        axis: str,
        name: str,
        anchor: str,
        definition: str,
        params: dict[str, str],
        citations: tuple[Citation, ...],
        is_choice: bool,
    ) -> None:
        self.axis = axis
        self.name = name
        self.anchor = anchor
        self.definition = definition
        self.params = params
        self.citations = citations
        self.is_choice = is_choice


@cache
def axis_settings(config: Config) -> tuple[AxisSetting, ...]:
    """The configuration's setting on every axis, in spec order; made once for the lines, the
    sentence and the paragraphs that each list them."""
    values = config.to_mapping()
    settings = []
    for axis in axes():
        entry: Choice | ValueAxis
        if isinstance(axis, ValueAxis):
            cutoff = values[axis.id]
            entry, name, params = axis, ("null" if cutoff is None else str(cutoff)), {}
            text = axis.description
        else:
            entry = axis.by_id[values[axis.id]]
            name, text = entry.id, entry.definition
            params = {p: _param_text(values[p]) for p in entry.params}
        text = " ".join(text.split())
        for param, value in params.items():
            text = text.replace(f"`{param}`", f"{value} ({param})")
        settings.append(
            AxisSetting(
                axis.id, name, entry.anchor, text, params, entry.citations, entry is not axis
            )
        )
    return tuple(settings)


def _wrapped(text: str, indent: str) -> list[str]:
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def axis_lines(config: Config) -> list[str]:
    """Per axis: ``axis = choice (anchor)``, the definition, then one line per citation."""
    lines = []
    for setting in axis_settings(config):
        lines.append(f"{setting.axis} = {setting.name}  ({setting.anchor})")
        lines += _wrapped(setting.definition, "    ")
        for cite in setting.citations:
            lines += _wrapped(f"cites [{cite.kind}] {cite.ref}: {cite.note}", "    ")
    return lines


def _settings(config: Config) -> str:
    """Every axis as ``axis = choice``, parameters in parentheses, for the paper sentence."""
    parts = []
    for setting in axis_settings(config):
        params = setting.params
        extra = f" ({', '.join(f'{p} = {v}' for p, v in params.items())})" if params else ""
        parts.append(f"{setting.axis} = {setting.name}{extra}")
    return ", ".join(parts)


def _display_name(config: Config) -> str:
    return "nDCG" + ("" if config.cutoff is None else f"@{config.cutoff}")


def paper_sentence(config: Config) -> str:
    """A sentence to paste into a paper: the measure, the spec version, the full form, the
    fingerprint and every axis's setting."""
    return (
        f"We report {_display_name(config)} as defined by nDCG specification "
        f"{load_spec()['spec_version']} (ndcgspec {citation().version}), "
        f"configuration `{config.full()}` (fingerprint {config.fingerprint()}): "
        f"{_settings(config)}."
    )


def _latex_text(text: str) -> str:
    """`text` safe inside a BibTeX field: the measure grammar's "_", "{" and "}" escaped."""
    return text.replace("_", r"\_").replace("{", r"\{").replace("}", r"\}")


def bibtex_entry(config: Config) -> str:
    """A BibTeX ``@software`` entry for ndcgspec: author, year, version and url from the
    package metadata and CITATION.cff (`ndcgspec.commands.citation`), the spec version and the
    configuration with its fingerprint in a note. The software version and the spec version
    are distinct: the first names the program, the second the definitions it computes."""
    software = citation()
    fields = [
        ("author", "{" + " and ".join(f"{{{a}}}" for a in software.authors) + "}"),
        ("title", f"{{{{ndcgspec}}: {_latex_text(software.title.removeprefix('ndcgspec: '))}}}"),
        ("year", f"{{{software.year}}}" if software.year else None),
        ("version", f"{{{software.version}}}"),
        ("url", f"{{{software.url}}}" if software.url else None),
        (
            "note",
            f"{{nDCG specification version {load_spec()['spec_version']}; configuration "
            f"\\texttt{{{_latex_text(config.full())}}}, fingerprint "
            f"\\texttt{{{config.fingerprint()}}}}}",
        ),
    ]
    body = [f"  {name} = {value}," for name, value in fields if value is not None]
    return "\n".join([f"@software{{ndcgspec:{config.fingerprint()},", *body, "}"])


def citing_paragraph(config: Config) -> str:
    """The paragraph to paste into a paper, at most six lines: the versions, the canonical
    string, the fingerprint, and where the definitions are (`citing_details` says each)."""
    software = citation()
    return (
        f"We report {_display_name(config)} as computed by ndcgspec {software.version} under "
        f"nDCG specification {load_spec()['spec_version']}: measure `{config.canonical()}` "
        f"(fingerprint {config.fingerprint()}), each axis at the spec's default unless the "
        "measure names it; the specification defines every choice, with its citation, under "
        "its anchor (ndcg.<axis>.<choice>)."
    )


def citing_details(config: Config) -> str:
    """The long paragraph (``--cite --long``): the short one's first sentence, then every
    axis in the spec's words with its anchor."""
    software = citation()
    parts = [
        f"We report {_display_name(config)} as computed by ndcgspec {software.version} under "
        f"nDCG specification {load_spec()['spec_version']}: measure `{config.canonical()}` "
        f"(fingerprint {config.fingerprint()}).",
    ]
    for setting in axis_settings(config):
        if setting.is_choice:
            words = setting.definition
        else:
            words = "none, the whole ranking" if setting.name == "null" else f"k = {setting.name}"
        parts.append(f"{setting.axis.capitalize()}: {words.rstrip('.')}. [{setting.anchor}]")
    return " ".join(parts)


def explanation(config: Config, written: str | None = None) -> list[str]:
    """Every line `explain` prints of a measure (a trace follows them); `written`, the measure
    as given, heads them when it is not the canonical form."""
    lines = [
        *([f"written      {written}"] if written and written != config.canonical() else []),
        f"measure      {config.canonical()}",
        f"full form    {config.full()}",
        f"fingerprint  {config.fingerprint()}",
        f"spec         nDCG specification {load_spec()['spec_version']}",
        f"software     ndcgspec {citation().version}",
        "",
        "Axes",
        *axis_lines(config),
        "",
        "For a paper",
        paper_sentence(config),
        "",
        "BibTeX",
        bibtex_entry(config),
    ]
    return lines


def choice_lines() -> list[str]:
    """Every axis of the spec with its choice ids, the default first-marked, each with the
    first sentence of its definition: what an adapter's ``capabilities`` name."""
    lines = []
    for axis in choice_axes():
        lines.append(f"{axis.id} (default {axis.default}, {axis.anchor})")
        for choice in axis.choices:
            first = " ".join(choice.definition.split()).split(". ")[0].rstrip(".")
            lines.append(f"  {choice.id:<14} {first}.")
        params = [p.id for p in axis.params]
        if params:
            lines.append(f"  parameters: {', '.join(params)}")
    return lines


def run_explain(args: argparse.Namespace) -> int:
    """Explain the measure, and trace one query when files are given; exit status 0."""
    if args.choices:
        print("\n".join(choice_lines()))
        return 0
    if not args.measure:
        raise NdcgSpecError("name a MEASURE, or ask for --choices")
    config = parse_measure(args.measure)
    given: Sequence[str | None] = (args.query, args.qrels, args.run)
    if any(given) and not all(given):
        raise NdcgSpecError("a trace needs all of --query, --qrels and --run")
    if args.result and not args.cite:
        raise NdcgSpecError("--result goes with --cite")
    if args.long and not args.cite:
        raise NdcgSpecError("--long goes with --cite")
    if args.cite:
        paragraph = (citing_details if args.long else citing_paragraph)(config)
        if args.result:
            from ndcgspec.analysis.provenance import provenance_sentence

            paragraph += " " + provenance_sentence(args.result, config.fingerprint())
        print(textwrap.fill(paragraph, WIDTH, break_on_hyphens=False))
        print()
        print(bibtex_entry(config))
        return 0
    lines = explanation(config, args.measure)
    if all(given):
        # Imported for a trace only: it evaluates the query, with the reference's readers and
        # mpmath, which explaining a measure needs none of.
        from ndcgspec.commands.explain_trace import trace_lines, traced_query

        trace = traced_query(config, args.query, args.qrels, args.run)
        lines += ["", f"Trace of query {trace.qid}", *trace_lines(trace)]
    print("\n".join(lines))
    return 0
