"""Hand-authored cases, read from ``cases/sources/<axis>.yaml`` (not shipped as cases).

A source file holds `inputs`, each scored under every choice of its axis (one case per choice
and input, written to ``<axis>/<choice>.json``), and `cases`, single cases written to the group
they name. An input is given as `ranked` labels (documents d1, d2, ... in run order with
descending scores; null is a retrieved document without a judgment) plus `unretrieved` labels
(judged documents u1, u2, ... not retrieved), and/or as explicit `qrels` and `run`. A single
case may list the numbers a hand derivation gives (`printed`, with the arithmetic in a source's
note); `ndcgspec cases check` compares them with the expected values at their precision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import Config
from ndcgspec.reference.config import choice_ids, spec_choice
from ndcgspec.reference.rejection import choice_anchor
from ndcgspec.suite.case import case_file, cite, computed_case, decimal_text
from ndcgspec.suite.case_record import Case, CaseFile, Citation, OpenAxis, Printed, Row, Source

ORIGIN = "hand"
ROW_KEYS = ("ranked", "unretrieved", "qrels", "run")
"""The keys of a source input that `expand_input` reads, in its order."""

Scalar = str | int | float | None
"""A label, score or configuration value as YAML reads it."""


def expand_input(
    ranked: Mapping[str, Sequence[Scalar]],
    unretrieved: Mapping[str, Sequence[Scalar]],
    judged: Mapping[str, Mapping[str, Scalar]],
    postings: Mapping[str, Sequence[tuple[str, Scalar]]],
) -> tuple[list[Row], list[Row]]:
    """Qrels and run rows of a source input (its `ranked`, `unretrieved`, `qrels` and `run`),
    queries in order of appearance."""
    qrels: list[Row] = []
    run: list[Row] = []
    for qid, labels in ranked.items():
        for rank, label in enumerate(labels, start=1):
            docid = f"d{rank}"
            run.append([str(qid), docid, str(len(labels) - rank + 1)])
            if label is not None:
                qrels.append([str(qid), docid, decimal_text(label)])
    for qid, labels in unretrieved.items():
        for number, label in enumerate(labels, start=1):
            qrels.append([str(qid), f"u{number}", decimal_text(label)])
    for qid, by_document in judged.items():
        for docid, label in by_document.items():
            qrels.append([str(qid), str(docid), decimal_text(label)])
    for qid, ranking in postings.items():
        for docid, score in ranking:
            run.append([str(qid), str(docid), decimal_text(score)])
    return qrels, run


@dataclass(frozen=True)
class ChoiceInput:
    """An input of a source's `inputs`, scored under every choice of its axis: its name and
    description, the configuration it keeps, the anchors it cites besides the choice's, its
    rows."""

    name: str
    description: str
    config: Mapping[str, Scalar]
    anchors: tuple[str, ...]
    qrels: list[Row]
    run: list[Row]


@dataclass(frozen=True)
class SingleCase:
    """A case of a source's `cases` list, written to the group it names."""

    group: str
    case_id: str
    description: str
    measure: str
    spec: tuple[Citation, ...]
    sources: tuple[Source, ...]
    open_axis: OpenAxis | None
    printed: tuple[Printed, ...]
    qrels: list[Row]
    run: list[Row]


@dataclass(frozen=True)
class HandSource:
    """A source file: the axis its `inputs` are scored on, each choice's parameters, its inputs
    and single cases, and the descriptions of its groups."""

    axis: str | None
    choice_params: Mapping[str, Mapping[str, Scalar]]
    inputs: tuple[ChoiceInput, ...]
    cases: tuple[SingleCase, ...]
    descriptions: Mapping[str, str]


def read_source(source_path: Path) -> HandSource:
    """A source file as YAML reads it, each input expanded into rows."""
    source = yaml.safe_load(source_path.read_text(encoding="utf-8"))
    inputs = [
        ChoiceInput(
            item["name"],
            item["description"],
            item.get("config") or {},
            tuple(item.get("anchors", [])),
            *expand_input(*(item.get(key) or {} for key in ROW_KEYS)),
        )
        for item in source.get("inputs") or []
    ]
    cases = [
        SingleCase(
            item["group"],
            item["id"],
            item["description"],
            item["measure"],
            tuple(cite(s["anchor"], s.get("quote")) for s in item["spec"]),
            tuple(Source.from_json(entry) for entry in item.get("sources") or []),
            None if item.get("open") is None else OpenAxis.from_json(item["open"]),
            tuple(Printed.from_json(entry) for entry in item.get("printed") or []),
            *expand_input(*(item.get(key) or {} for key in ROW_KEYS)),
        )
        for item in source.get("cases") or []
    ]
    return HandSource(
        source.get("axis"),
        source.get("choice_params") or {},
        tuple(inputs),
        tuple(cases),
        source.get("descriptions") or {},
    )


def _choice_sources(axis_id: str, choice_id: str) -> list[Source]:
    cited = spec_choice(axis_id, choice_id).citations
    return [Source(c.kind, c.ref, c.note) for c in cited]


def choice_cases(axis_id: str, source: HandSource) -> dict[str, list[Case]]:
    """Every input of the source scored under every choice of its axis `axis_id`, by group."""
    groups: dict[str, list[Case]] = {}
    for choice in choice_ids(axis_id):
        for item in source.inputs:
            values = {**item.config, axis_id: choice, **source.choice_params.get(choice, {})}
            anchor = choice_anchor(axis_id, choice)
            groups.setdefault(f"{axis_id}/{choice}", []).append(
                computed_case(
                    case_id=f"{axis_id}.{choice}/{item.name}",
                    description=f"{item.description} ({axis_id}={choice})",
                    config=Config.from_mapping(values),
                    spec=[cite(anchor), *[cite(a) for a in item.anchors]],
                    sources=_choice_sources(axis_id, choice),
                    origin=ORIGIN,
                    qrels=item.qrels,
                    run=item.run,
                )
            )
    return groups


def single_case(item: SingleCase) -> Case:
    """One hand case of a source's `cases` list."""
    return computed_case(
        case_id=item.case_id,
        description=item.description,
        config=parse_measure(item.measure),
        spec=item.spec,
        sources=item.sources,
        origin=ORIGIN,
        qrels=item.qrels,
        run=item.run,
        open_axis=item.open_axis,
        printed=item.printed,
    )


def hand_files(source_path: Path) -> list[CaseFile]:
    """The case files one source file produces, in group order."""
    source = read_source(source_path)
    groups = {} if source.axis is None or not source.inputs else choice_cases(source.axis, source)
    for item in source.cases:
        groups.setdefault(item.group, []).append(single_case(item))
    where = f"cases/sources/{source_path.name}"
    return [
        case_file(
            group, source.descriptions.get(group, _default_description(group)), ORIGIN, where, cases
        )
        for group, cases in sorted(groups.items())
    ]


def _default_description(group: str) -> str:
    axis_id, _, choice = group.partition("/")
    return (
        f"Hand-authored inputs scored under {axis_id}={choice}; "
        f"each is chosen so that the {axis_id} choice changes the value."
    )
