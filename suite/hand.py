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

from pathlib import Path
from typing import Any

import yaml

from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference import Config
from ndcgspec.reference.config import axis, choice_ids
from ndcgspec.reference.rejection import choice_anchor
from ndcgspec.suite.case import Row, case_file, cite, computed_case, decimal_text

ORIGIN = "hand"


def expand_input(source: dict[str, Any]) -> tuple[list[Row], list[Row]]:
    """Qrels and run rows of a source input, queries in order of appearance."""
    qrels: list[Row] = []
    run: list[Row] = []
    for qid, labels in (source.get("ranked") or {}).items():
        for rank, label in enumerate(labels, start=1):
            docid = f"d{rank}"
            run.append([str(qid), docid, str(len(labels) - rank + 1)])
            if label is not None:
                qrels.append([str(qid), docid, decimal_text(label)])
    for qid, labels in (source.get("unretrieved") or {}).items():
        for number, label in enumerate(labels, start=1):
            qrels.append([str(qid), f"u{number}", decimal_text(label)])
    for qid, judged in (source.get("qrels") or {}).items():
        for docid, label in judged.items():
            qrels.append([str(qid), str(docid), decimal_text(label)])
    for qid, postings in (source.get("run") or {}).items():
        for docid, score in postings:
            run.append([str(qid), str(docid), decimal_text(score)])
    return qrels, run


def _choice_sources(axis_id: str, choice_id: str) -> list[dict[str, str]]:
    entry = next(c for c in axis(axis_id)["choices"] if c["id"] == choice_id)
    return [
        {"kind": c["kind"], "ref": c["ref"], "note": c["note"]} for c in entry.get("citations", [])
    ]


def choice_cases(source: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Every input of the source scored under every choice of its axis, by group."""
    axis_id = source["axis"]
    params = source.get("choice_params") or {}
    groups: dict[str, list[dict[str, Any]]] = {}
    for choice in choice_ids(axis_id):
        for item in source.get("inputs") or []:
            values = {**(item.get("config") or {}), axis_id: choice, **params.get(choice, {})}
            config = Config.from_mapping(values)
            qrels, run = expand_input(item)
            anchor = choice_anchor(axis_id, choice)
            groups.setdefault(f"{axis_id}/{choice}", []).append(
                computed_case(
                    case_id=f"{axis_id}.{choice}/{item['name']}",
                    description=f"{item['description']} ({axis_id}={choice})",
                    config=config,
                    spec=[cite(anchor), *[cite(a) for a in item.get("anchors", [])]],
                    sources=_choice_sources(axis_id, choice),
                    origin=ORIGIN,
                    qrels=qrels,
                    run=run,
                )
            )
    return groups


def single_case(item: dict[str, Any]) -> dict[str, Any]:
    """One hand case of a source's `cases` list."""
    qrels, run = expand_input(item)
    return computed_case(
        case_id=item["id"],
        description=item["description"],
        config=parse_measure(item["measure"]),
        spec=[cite(s["anchor"], s.get("quote")) for s in item["spec"]],
        sources=item.get("sources") or [],
        origin=ORIGIN,
        qrels=qrels,
        run=run,
        open_axis=item.get("open"),
        extra={"printed": item["printed"]} if "printed" in item else None,
    )


def hand_files(source_path: Path) -> list[dict[str, Any]]:
    """The case files one source file produces, in group order."""
    source = yaml.safe_load(source_path.read_text(encoding="utf-8"))
    groups = choice_cases(source) if "inputs" in source else {}
    for item in source.get("cases") or []:
        groups.setdefault(item["group"], []).append(single_case(item))
    descriptions = source.get("descriptions") or {}
    where = f"cases/sources/{source_path.name}"
    return [
        case_file(group, descriptions.get(group, _default_description(group)), ORIGIN, where, cases)
        for group, cases in sorted(groups.items())
    ]


def _default_description(group: str) -> str:
    axis_id, _, choice = group.partition("/")
    return (
        f"Hand-authored inputs scored under {axis_id}={choice}; "
        f"each is chosen so that the {axis_id} choice changes the value."
    )
