"""What the built-in adapters of other nDCG implementations (``harness/adapters/peers/``)
share.

Each peer imports its library only when the adapter is built, in the worker process that
serves it, so ndcgspec installs without any of them; a missing library is one line naming the
smallest install that supplies it, the peer's own extra (``ndcgspec.reference.errors``). A
peer passes the case's input to the library's public API the way a user of that library would,
and declares in its start reply which axes that API cannot express (`Adapter.not_observable`):
an API without document ids cannot be asked about duplicates or unjudged documents, however
the rows are prepared. An API of per-query arrays is also never given the label of a judged
document the run does not retrieve (`ArraysPeerAdapter`).

Each peer module names its adapters in a module constant ``ADAPTERS``, a literal dict of the
built-in name (``ndcgspec run NAME``) → the module's object that makes the adapter: the
registry (``harness/registry.py``) reads it from the source, without importing the module.
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from ndcgspec.harness.adapters.base import (
    ARRAYS_NOT_OBSERVABLE,
    Adapter,
    AdapterError,
    CaseInput,
    PerQuery,
    Rejected,
    Values,
    scored_queries,
)
from ndcgspec.reference import Config
from ndcgspec.reference.errors import install_hint


def require(module: str, extra: str) -> ModuleType:
    """Import `module`, or an AdapterError naming what ndcgspec's `extra` installs.

    The library runs on one OpenMP thread unless the user says otherwise: a case is a few
    hundred rows and the harness runs adapter processes side by side, so threads spinning on
    each other would cost more than the metric (XGBoost and LightGBM were 7 and 4 times slower).
    The setting is read when the OpenMP runtime loads, with the library."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        return import_module(module)
    except ImportError as error:
        raise AdapterError(f"cannot import {module} ({error}): {install_hint(extra)}") from None


@dataclass
class PeerAdapter(Adapter):
    """A built-in adapter of another implementation; `library` names the pip distribution
    whose version `version` is. What its API cannot be shown it declares as every adapter does
    (`Adapter.not_observable`, `Adapter.sees_unretrieved_labels`), in its start reply."""

    library: str = ""

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> Values | PerQuery:
        """The SDK's call, its configuration object read into the reference's record, from
        which each peer computes (`ndcg`): between ndcgspec's own modules a configuration is a
        record, and the object is JSON only where users' adapters take it."""
        return self.ndcg(case_input, Config.from_mapping(config))

    @abstractmethod
    def ndcg(self, case_input: CaseInput, config: Config) -> Values | PerQuery:
        """nDCG of each scored query of `case_input` under `config` (``Adapter.compute``)."""


@dataclass
class ArraysPeerAdapter(PeerAdapter):
    """A peer whose API takes each query's retrieved rows as label and score arrays
    (`query_arrays`): it cannot be asked about the axes of `ARRAYS_NOT_OBSERVABLE`, and a label
    of a judged document the run does not retrieve never reaches it, so it cannot refuse a
    fractional or negative one."""

    not_observable: Mapping[str, str] = field(default_factory=lambda: dict(ARRAYS_NOT_OBSERVABLE))
    sees_unretrieved_labels: bool = False


@dataclass(frozen=True)
class QueryArrays:
    """One query's retrieved rows in run order: labels (0 for an unjudged document) and
    scores, as float64 arrays, the input shape of learning-to-rank and array APIs."""

    qid: str
    labels: np.ndarray
    scores: np.ndarray


def query_arrays(
    case_input: CaseInput, aggregate: str, retrieved_only: bool
) -> Iterator[QueryArrays]:
    """The arrays of each query the choice `aggregate` scores, in qrels order; with
    `retrieved_only`, queries without a retrieved row are left out, since an API that takes
    groups of rows cannot be given an empty group."""
    labels, rankings = case_input.labels(), case_input.rankings()
    for qid in scored_queries(case_input, aggregate):
        ranking = rankings.get(qid, [])
        if retrieved_only and not ranking:
            continue
        judged = labels.get(qid, {})
        yield QueryArrays(
            qid,
            np.array([float(judged.get(d, 0)) for d, _ in ranking], dtype=np.float64),
            np.array([float(s) for _, s in ranking], dtype=np.float64),
        )


def ranked_documents(ranking: Sequence[tuple[str, Decimal]]) -> list[str]:
    """A query's run documents by score descending, ties in run order (a stable sort): the
    ranked list a user hands to an API that takes document ids in rank order."""
    return [docid for docid, _ in sorted(ranking, key=lambda row: -row[1])]


def ranked_lists(case_input: CaseInput) -> dict[str, list[str]]:
    """`ranked_documents` of every run query."""
    return {q: ranked_documents(r) for q, r in case_input.rankings().items()}


def relevant_documents(judged: Mapping[str, Decimal]) -> set[str]:
    """A query's relevant documents, those judged above 0: the set an API of binary relevance
    takes (``ndcg.gain.binary``)."""
    return {docid for docid, label in judged.items() if label > 0}


def whole_depth(case_input: CaseInput) -> int:
    """A cutoff k that no list of the case reaches, for an API whose k is required: asked for
    the whole ranking, the adapter passes it, and every ranking and ideal list is kept whole."""
    return max(1, len(case_input.qrels) + len(case_input.run))


def undefined_as_none(value: float) -> float | None:
    """A library's NaN (undefined) as None, the protocol's undefined value."""
    number = float(value)
    return None if number != number else number


def write_trec_files(case_input: CaseInput, folder: Path) -> tuple[Path, Path]:
    """The qrels (``qid 0 docid label``) and run (``qid Q0 docid rank score tag``) files. A
    query or document id that is empty or holds white space cannot be written as a field of
    these files: the input is refused."""
    for qid, docid, _ in (*case_input.qrels, *case_input.run):
        if not qid or not docid or any(c.isspace() for c in qid + docid):
            raise Rejected(f"a TREC file cannot hold the id {qid!r} / {docid!r} as one field")
    qrels = folder / "qrels.txt"
    run = folder / "run.txt"
    qrels.write_text("".join(f"{q} 0 {d} {v}\n" for q, d, v in case_input.qrels), "utf-8")
    ranks: dict[str, int] = {}
    lines = []
    for q, d, s in case_input.run:
        ranks[q] = ranks.get(q, 0) + 1
        lines.append(f"{q} Q0 {d} {ranks[q]} {s} ndcgspec\n")
    run.write_text("".join(lines), "utf-8")
    return qrels, run
