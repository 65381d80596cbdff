"""A golden case and a case file as records (``spec/schema/case.schema.json``): what the
generators of ``ndcgspec cases generate`` build, turned into JSON, in the format's key order,
only where the case files are written."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ndcgspec.reference import Config
from ndcgspec.reference.inputs import Qrels, Run
from ndcgspec.suite.expected_values import ExpectedValues
from ndcgspec.suite.folders import data_root
from ndcgspec.suite.load import PublishedFiles, file_inputs, inline_inputs

Row = list[str]
SourceEntry = Mapping[str, str | int | list[str] | None]
"""An entry of a hand source file as YAML reads it (``cases/sources/*.yaml``)."""


def _optional_text(entry: SourceEntry, key: str) -> str | None:
    value = entry.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key}: text wanted, not {value!r}")
    return value


def _text(entry: SourceEntry, key: str) -> str:
    value = _optional_text(entry, key)
    if value is None:
        raise ValueError(f"{key}: text wanted, not null")
    return value


@cache
def _config_of(config_json: str) -> Config:
    # The suite's cases share a few hundred configurations among thousands of cases.
    return Config.from_mapping(json.loads(config_json))


@dataclass(frozen=True)
class Citation:
    """A spec reference (``spec`` of a case): an anchor and the exact words of its entry."""

    anchor: str
    quote: str

    def to_json(self) -> dict[str, str]:
        return {"anchor": self.anchor, "quote": self.quote}


@dataclass(frozen=True)
class Source:
    """Where a case comes from (``sources`` of a case): its kind, the reference, where in it
    (`locator`) and a note."""

    kind: str
    ref: str
    note: str | None = None
    locator: str | None = None

    @classmethod
    def from_json(cls, entry: Mapping[str, str]) -> Source:
        """A source as a hand source file (``cases/sources/*.yaml``) gives it."""
        return cls(entry["kind"], entry["ref"], entry.get("note"), entry.get("locator"))

    def to_json(self) -> dict[str, str]:
        found = {"kind": self.kind, "ref": self.ref, "locator": self.locator, "note": self.note}
        return {key: value for key, value in found.items() if value is not None}


@dataclass(frozen=True)
class Printed:
    """A number a document or a hand derivation prints (``printed`` of a case): which value of
    which query (None: the aggregate), at its printed precision, and the slip it makes."""

    what: str
    qid: str | None
    value: str
    decimal_places: int
    erratum: str | None = None

    @classmethod
    def from_json(cls, entry: SourceEntry) -> Printed:
        """A printed number as a hand source file gives it."""
        places = entry["decimal_places"]
        if not isinstance(places, int):
            raise ValueError(f"decimal_places: a whole number wanted, not {places!r}")
        return cls(
            _text(entry, "what"),
            _optional_text(entry, "qid"),
            _text(entry, "value"),
            places,
            _optional_text(entry, "erratum"),
        )

    def to_json(self) -> dict[str, str | int | None]:
        found: dict[str, str | int | None] = {"what": self.what, "qid": self.qid}
        found |= {"value": self.value, "decimal_places": self.decimal_places}
        return found | ({"erratum": self.erratum} if self.erratum else {})


@dataclass(frozen=True)
class OpenAxis:
    """An axis a case leaves open (``open``, ``ndcg.precision``): every listed choice is right,
    for the reason given."""

    axis: str
    reason: str
    choices: tuple[str, ...]

    @classmethod
    def from_json(cls, entry: SourceEntry) -> OpenAxis:
        choices = entry["choices"]
        if not isinstance(choices, list):
            raise ValueError(f"choices: a list wanted, not {choices!r}")
        return cls(_text(entry, "axis"), _text(entry, "reason"), tuple(choices))

    def to_json(self) -> dict[str, str | list[str]]:
        return {"axis": self.axis, "reason": self.reason, "choices": list(self.choices)}


@dataclass(frozen=True)
class InlineInput:
    """A case's input written in the case: ``[qid, docid, label]`` qrels rows and
    ``[qid, docid, score]`` run rows, the run in run order."""

    qrels: list[Row]
    run: list[Row]

    def to_json(self) -> dict[str, list[Row]]:
        return {"qrels": self.qrels, "run": self.run}


@dataclass(frozen=True)
class Discrepancy:
    """A published value the reference does not reproduce (a case's ``discrepancy``): why, and
    the value the reference gives."""

    reason: str
    reference_value: str

    def to_json(self) -> dict[str, str]:
        return {"reason": self.reason, "reference_value": self.reference_value}


@dataclass(frozen=True)
class Case:
    """One golden case: its id, description and configuration, the spec entries and sources it
    cites, its origin, its input (inline, or the data files of a published case), and its
    expected values, or (`open`) the distinct values every allowed choice gives
    (`expected_any`); the numbers a document prints (`printed`), the case whose input a preset
    file's case takes (`input_of`), the decimal places a published value is printed to."""

    id: str
    description: str
    config: Config
    spec: tuple[Citation, ...]
    sources: tuple[Source, ...]
    origin: str
    input: InlineInput | None = None
    input_files: PublishedFiles | None = None
    expected: ExpectedValues | None = None
    open: OpenAxis | None = None
    expected_any: tuple[ExpectedValues, ...] = ()
    printed: tuple[Printed, ...] = ()
    input_of: str | None = None
    decimal_places: int | None = None
    discrepancy: Discrepancy | None = None

    @classmethod
    def from_json(cls, case: Mapping[str, Any]) -> Case:
        """A case object of a case file that passes its schema (``suite/lint.py``)."""
        rows, files, open_axis = case.get("input"), case.get("input_files"), case.get("open")
        discrepancy = case.get("discrepancy")
        return cls(
            id=case["id"],
            description=case["description"],
            config=_config_of(json.dumps(case["config"], sort_keys=True)),
            spec=tuple(Citation(s["anchor"], s["quote"]) for s in case["spec"]),
            sources=tuple(Source.from_json(s) for s in case["sources"]),
            origin=case["origin"],
            input=None if rows is None else InlineInput(rows["qrels"], rows["run"]),
            input_files=None if files is None else PublishedFiles.from_json(files),
            expected=None if "expected" not in case else ExpectedValues.from_json(case["expected"]),
            open=None if open_axis is None else OpenAxis.from_json(open_axis),
            expected_any=tuple(ExpectedValues.from_json(e) for e in case.get("expected_any", [])),
            printed=tuple(Printed.from_json(p) for p in case.get("printed", [])),
            input_of=case.get("input_of"),
            decimal_places=case.get("precision", {}).get("decimal_places"),
            discrepancy=None
            if discrepancy is None
            else Discrepancy(discrepancy["reason"], discrepancy["reference_value"]),
        )

    def inputs(self, data: Path | None) -> tuple[Qrels, Run]:
        """The qrels and run of the case: inline, or read from its files below the data root
        `data` (the shared folder's when None)."""
        if self.input_files is not None:
            return file_inputs(self.input_files, data or data_root())
        if self.input is None:
            raise ValueError(f"case {self.id} has no input")
        return inline_inputs(self.input.qrels, self.input.run)

    def to_json(self) -> dict[str, Any]:
        """The case object in the format's key order."""
        found: dict[str, Any] = {
            "id": self.id,
            "description": self.description,
            "measure": self.config.canonical(),
            "config": self.config.to_mapping(),
            "spec": [citation.to_json() for citation in self.spec],
            "sources": [source.to_json() for source in self.sources],
            "origin": self.origin,
        }
        if self.input is not None:
            found["input"] = self.input.to_json()
        if self.input_files is not None:
            found["input_files"] = self.input_files.to_json()
        if self.open is not None:
            found["open"] = self.open.to_json()
            found["expected_any"] = [values.to_json() for values in self.expected_any]
        if self.expected is not None:
            found["expected"] = self.expected.to_json()
        if self.printed:
            found["printed"] = [number.to_json() for number in self.printed]
        if self.input_of is not None:
            found["input_of"] = self.input_of
        if self.decimal_places is not None:
            found["precision"] = {"decimal_places": self.decimal_places}
        if self.discrepancy is not None:
            found["discrepancy"] = self.discrepancy.to_json()
        return found


@dataclass(frozen=True)
class Enumeration:
    """What a document claims of every ordering of a file's cases (a file's ``enumeration``):
    how many orderings and pairs of them, how many pairs `measures` rank oppositely."""

    orderings: int
    pairs: int
    opposite_pairs: int
    opposite_percent: str
    measures: tuple[str, ...]

    def to_json(self) -> dict[str, int | str | list[str]]:
        return {
            "orderings": self.orderings,
            "pairs": self.pairs,
            "opposite_pairs": self.opposite_pairs,
            "opposite_percent": self.opposite_percent,
            "measures": list(self.measures),
        }


@dataclass(frozen=True)
class Generator:
    """How a case file was made (its ``generator``): the command, the module or source file that
    built it, the seed of a random one and the reference's working precision."""

    name: str
    source: str
    seed: int | None
    reference_dps: int

    @classmethod
    def from_json(cls, entry: Mapping[str, str | int | None]) -> Generator:
        seed, dps = entry.get("seed"), entry["reference_dps"]
        if not (seed is None or isinstance(seed, int)) or not isinstance(dps, int):
            raise ValueError(f"generator: seed and reference_dps are whole numbers, not {entry!r}")
        return cls(_text(entry, "name"), _text(entry, "source"), seed, dps)

    def to_json(self) -> dict[str, str | int | None]:
        return {
            "name": self.name,
            "source": self.source,
            "seed": self.seed,
            "reference_dps": self.reference_dps,
        }


@dataclass(frozen=True)
class CaseFile:
    """One case file: the suite and spec versions it was made under, its group (its path below
    ``cases/`` without ``.json``), description, origin and generator, its cases, and the claim
    its cases enumerate (`enumeration`)."""

    suite_version: str
    spec_version: str
    group: str
    description: str
    origin: str
    generator: Generator | None
    cases: tuple[Case, ...]
    enumeration: Enumeration | None = None

    @classmethod
    def from_json(cls, content: Mapping[str, Any]) -> CaseFile:
        """A case file that passes its schema (``suite/lint.py``)."""
        generator, claim = content.get("generator"), content.get("enumeration")
        return cls(
            suite_version=content["suite_version"],
            spec_version=content["spec_version"],
            group=content["group"],
            description=content["description"],
            origin=content["origin"],
            generator=None if generator is None else Generator.from_json(generator),
            cases=tuple(Case.from_json(case) for case in content["cases"]),
            enumeration=None
            if claim is None
            else Enumeration(
                claim["orderings"],
                claim["pairs"],
                claim["opposite_pairs"],
                claim["opposite_percent"],
                tuple(claim["measures"]),
            ),
        )

    def to_json(self) -> dict[str, Any]:
        """The case file object in the format's key order."""
        found: dict[str, Any] = {
            "suite_version": self.suite_version,
            "spec_version": self.spec_version,
            "group": self.group,
            "description": self.description,
            "origin": self.origin,
        }
        if self.generator is not None:
            found["generator"] = self.generator.to_json()
        if self.enumeration is not None:
            found["enumeration"] = self.enumeration.to_json()
        return found | {"cases": [case.to_json() for case in self.cases]}
