"""Provenance bound to a number: what every JSON result of ``score``, ``compare`` and ``diff``
records of its inputs and its software, so that a cited value is tied to its data.

Each input is described by its SHA-256 and its count of lines, both of the bytes read after
decompression (a gzip file's text, not its compressed bytes: the same data gives the same
digest however it is stored), beside the configuration's canonical string and fingerprint
(``ndcg.definition.versions``) and the versions of ndcgspec and of the spec."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ndcgspec
from ndcgspec.reference.config import Config
from ndcgspec.reference.errors import NdcgSpecError
from ndcgspec.reference.trec_io import Source, opened
from ndcgspec.spec import load_spec

CHUNK = 1 << 20


@dataclass(frozen=True)
class InputDigest:
    """One input as provenance records it: its path, and the SHA-256 and line count of its
    decompressed bytes."""

    path: str
    sha256: str
    lines: int

    def to_json(self) -> dict[str, str | int]:
        """The digest as a provenance object gives it."""
        return {"path": self.path, "sha256": self.sha256, "lines": self.lines}


@dataclass(frozen=True)
class Cited:
    """A configuration as provenance cites it (``ndcg.definition.versions``)."""

    canonical: str
    fingerprint: str


@dataclass(frozen=True)
class Provenance:
    """What a JSON result records of its inputs (role → digest, or a list of them), its
    configurations and the versions it was computed under."""

    inputs: Mapping[str, InputDigest | Sequence[InputDigest]]
    configurations: tuple[Cited, ...]
    versions: Mapping[str, str]

    def to_json(self) -> dict[str, Any]:
        """The ``provenance`` object of a JSON result."""
        return {
            "inputs": {
                role: [i.to_json() for i in given]
                if isinstance(given, Sequence)
                else given.to_json()
                for role, given in self.inputs.items()
            },
            "configurations": [
                {"canonical": c.canonical, "fingerprint": c.fingerprint}
                for c in self.configurations
            ],
            "versions": dict(self.versions),
        }


def input_digest(path: str | Path | Source) -> InputDigest:
    """The path, SHA-256 and line count of one input's decompressed bytes."""
    with opened(path) as source:
        source.file.seek(0)
        stream = gzip.GzipFile(fileobj=source.file, mode="rb") if source.compressed else source.file
        digest, lines, last = hashlib.sha256(), 0, b"\n"
        while chunk := stream.read(CHUNK):
            digest.update(chunk)
            lines += chunk.count(b"\n")
            last = chunk[-1:]
        source.file.seek(0)
        # A last line without its newline is a line too.
        return InputDigest(source.name, digest.hexdigest(), lines + (last != b"\n"))


def software() -> dict[str, str]:
    """The versions of ndcgspec and of the spec the values were computed under."""
    return {"ndcgspec": ndcgspec.__version__, "spec": str(load_spec()["spec_version"])}


def provenance(
    inputs: Mapping[str, InputDigest | Sequence[InputDigest]], configs: Iterable[Config]
) -> Provenance:
    """The provenance of a result: `inputs` (role → `input_digest`, or a list of them), each
    configuration's canonical string and fingerprint, and the versions."""
    cited = tuple(Cited(c.canonical(), c.fingerprint()) for c in configs)
    return Provenance(dict(inputs), cited, software())


def _described(role: str, found: Any) -> list[str]:
    inputs = found if isinstance(found, list) else [found]
    return [f"{role} {i['path']} (SHA-256 {i['sha256']}, {i['lines']} lines)" for i in inputs]


def provenance_sentence(path: str, fingerprint: str) -> str:
    """The sentence ``explain --cite --result FILE`` adds: the inputs and versions of the
    JSON result in `path` (``score``'s JSON Lines, or the object of ``compare`` or ``diff``)
    computed under the configuration of `fingerprint`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise NdcgSpecError(f"{path}: cannot read: {error}") from None
    try:
        objects = [json.loads(text)]
    except ValueError:
        objects = []
        for number, line in enumerate(text.splitlines(), 1):
            try:
                objects += [json.loads(line)] if line.strip() else []
            except ValueError:
                raise NdcgSpecError(f"{path}:{number}: not a JSON result") from None
    for found in objects:
        record = found.get("provenance") if isinstance(found, dict) else None
        if not isinstance(record, dict):
            continue
        if fingerprint not in {c.get("fingerprint") for c in record.get("configurations", [])}:
            continue
        inputs = "; ".join(
            part for role, given in record["inputs"].items() for part in _described(role, given)
        )
        value = found.get("aggregate")
        versions = record["versions"]
        mean = f"The mean, {value}, was" if isinstance(value, str) else "It was"
        return (
            f"{mean} computed by ndcgspec {versions['ndcgspec']} (spec {versions['spec']}) "
            f"from {inputs}."
        )
    raise NdcgSpecError(f"{path}: holds no result with provenance of fingerprint {fingerprint}")
