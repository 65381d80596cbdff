"""What the built-in adapters of other nDCG implementations (``harness/peer_*.py``) share.

Each peer imports its library only when the adapter is built, so ndcgspec installs without
any of them; a missing library is one line naming the extra that installs it. A peer passes
the case's input to the library's public API the way a user of that library would, and says
which axes its API cannot express (`not_observable`): an API without document ids cannot be
asked about duplicates or unjudged documents, however the rows are prepared. An API of
per-query arrays is also never given the label of a judged document the run does not retrieve
(`ArraysPeerAdapter`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from types import ModuleType
from typing import Any

import numpy as np

from ndcgspec.harness.adapters.base import (
    Adapter,
    AdapterError,
    CaseInput,
    scored_queries,
)

PEERS_EXTRA = "peers"

NO_DOCUMENT_IDS = "the API takes label and score arrays, without document ids"
CALLER_PICKS_QUERIES = (
    "the API scores the groups of rows it is given; which queries they are is the caller's choice"
)
DICT_INPUT = "the API takes a {docid: score} mapping, so a repeated document keeps its last score"
ARRAYS_NOT_OBSERVABLE = {
    "duplicates": NO_DOCUMENT_IDS,
    "unjudged": NO_DOCUMENT_IDS,
    "aggregate": CALLER_PICKS_QUERIES,
}
"""What an API taking per-query label and score arrays cannot show."""


def require(module: str, distribution: str) -> ModuleType:
    """Import `module` of the pip `distribution`, or an AdapterError naming the extra.

    The library runs on one OpenMP thread unless the user says otherwise: a case is a few
    hundred rows and the harness runs adapter processes side by side, so threads spinning on
    each other would cost more than the metric (XGBoost and LightGBM were 7 and 4 times slower).
    The setting is read when the OpenMP runtime loads, with the library."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        return import_module(module)
    except ImportError as error:
        raise AdapterError(
            f"{distribution} is not installed ({error}); install it with "
            f"pip install 'ndcgspec[{PEERS_EXTRA}]'"
        ) from None


def distribution_version(distribution: str) -> str:
    """The installed version of a pip distribution, or "unknown"."""
    try:
        return package_version(distribution)
    except PackageNotFoundError:
        return "unknown"


@dataclass
class PeerAdapter(Adapter):
    """A built-in adapter of another implementation. `not_observable` maps an axis id to the
    reason the implementation's API cannot be asked about that axis; `sees_unretrieved_labels`
    says whether the API is given the labels of judged documents a query's run does not
    retrieve; `library` names the pip distribution whose version `version` is."""

    library: str = ""
    not_observable: Mapping[str, str] = field(default_factory=dict)
    sees_unretrieved_labels: bool = True


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
    case_input: CaseInput, config: Mapping[str, Any], retrieved_only: bool
) -> Iterator[QueryArrays]:
    """The arrays of each query the ``aggregate`` axis scores, in qrels order; with
    `retrieved_only`, queries without a retrieved row are left out, since an API that takes
    groups of rows cannot be given an empty group."""
    labels, rankings = case_input.labels(), case_input.rankings()
    for qid in scored_queries(case_input, config):
        ranking = rankings.get(qid, [])
        if retrieved_only and not ranking:
            continue
        judged = labels.get(qid, {})
        yield QueryArrays(
            qid,
            np.array([float(judged.get(d, 0)) for d, _ in ranking], dtype=np.float64),
            np.array([float(s) for _, s in ranking], dtype=np.float64),
        )


def undefined_as_none(value: float) -> float | None:
    """A library's NaN (undefined) as None, the protocol's undefined value."""
    number = float(value)
    return None if number != number else number
