"""The in-process adapter interface: how a Python nDCG implementation meets the harness.

An adapter says who it is (name, version), which configurations it computes (a list of choice
ids per axis of ``spec/ndcg.yaml``, and optionally the parameter values it accepts) and the
width of its floats (64 or 32). For each case it receives the input and the full configuration,
never the expected values, and returns the nDCG of each query it scores (and optionally the
aggregate). It raises `Rejected` to refuse an input, as a conforming implementation must when
the configuration makes the input an error (for instance ``ndcg.duplicates.error``).

Two helpers turn a plain function into an adapter in a few lines:

    from ndcgspec import arrays_adapter
    from sklearn.metrics import ndcg_score

    adapter = arrays_adapter(
        lambda y_true, y_score, k: ndcg_score([y_true], [y_score], k=k),
        name="sklearn", version="1.5",
        capabilities={"ideal": ["retrieved"], "ties": ["average"], "aggregate": ["run"]},
    )

`trec_adapter` does the same for functions of TREC-style dicts. Every adapter runs in a child
process of the harness (``harness/host.py``); `load_adapter` finds it from
``module:object``.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from importlib import import_module
from typing import TYPE_CHECKING, Any

from ndcgspec.reference import InputError, NdcgSpecError, Posting
from ndcgspec.reference.aggregate import CHOICES as AGGREGATE_CHOICES
from ndcgspec.reference.duplicates import CHOICES as DUPLICATES

if TYPE_CHECKING:
    import numpy as np

Row = tuple[str, str, str]
PerQuery = Mapping[str, float | None]
NumberFormat = tuple[int, int | None]
"""The float width of an adapter's values and the decimals it rounds them to, if it does
(``ndcg.comparison``)."""
ANY_VALUE = "any"
"""Declared for a parameter instead of a list of values: the adapter computes every value."""

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
"""What an API taking per-query label and score arrays cannot show; such an API is never
given the label of a judged document the run does not retrieve either."""
DICT_NOT_OBSERVABLE = {"duplicates": DICT_INPUT}
"""What an API taking ``{qid: {docid: score}}`` mappings cannot show."""
TREC_ADAPTER_NOT_OBSERVABLE = {
    "duplicates": "the trec_adapter helper applies the configuration's duplicates choice to the "
    "run rows before it builds the {docid: score} mapping the function takes"
}
"""What a function wrapped by `trec_adapter` cannot show."""


class Rejected(Exception):
    """Raised by an adapter that refuses the input, with the reason as its message."""


class AdapterError(NdcgSpecError):
    """An adapter that cannot be loaded or that declares what the spec does not know."""


@dataclass(frozen=True)
class Values:
    """An adapter's answer for one case: nDCG per scored query, and the aggregate if it
    computes one (left out, the harness takes the mean the ``empty`` axis prescribes)."""

    per_query: PerQuery
    aggregate: float | None = None
    has_aggregate: bool = False

    @classmethod
    def with_aggregate(cls, per_query: PerQuery, aggregate: float | None) -> Values:
        """Per-query values and the adapter's own aggregate."""
        return cls(per_query, aggregate, True)


@dataclass(frozen=True)
class CaseInput:
    """A case's input as the protocol carries it: rows of exact decimal strings, run order kept."""

    qrels: Sequence[Row]
    run: Sequence[Row]

    def labels(self) -> dict[str, dict[str, Decimal]]:
        """``{qid: {docid: label}}`` in qrels order."""
        out: dict[str, dict[str, Decimal]] = {}
        for qid, docid, label in self.qrels:
            out.setdefault(qid, {})[docid] = Decimal(label)
        return out

    def rankings(self) -> dict[str, list[tuple[str, Decimal]]]:
        """``{qid: [(docid, score), ...]}`` in run order, duplicates kept."""
        out: dict[str, list[tuple[str, Decimal]]] = {}
        for qid, docid, score in self.run:
            out.setdefault(qid, []).append((docid, Decimal(score)))
        return out


@dataclass
class Adapter(ABC):
    """An nDCG implementation as the harness sees it.

    `capabilities` maps an axis id to the choice ids the adapter computes, its native choice
    first; an axis left out supports only its spec default. `params` maps a parameter id to the
    values (exact decimal strings, or "e" for the log base) it accepts, or to `ANY_VALUE`; a
    parameter left out supports only its spec default.

    What the implementation's API cannot be shown, the start reply's ``observability``:
    `not_observable` maps an axis id to the reason the API cannot be asked about that axis (an
    API without document ids cannot be asked about duplicates, however the rows are prepared);
    `sees_unretrieved_labels` says whether the API is given the labels of judged documents a
    query's run does not retrieve.

    `processes`, when set, is the most processes of the adapter the harness runs at once,
    whatever its ``-j``: 1 for a library each of whose processes starts a JVM or compiles its
    kernels on first use, which a second process would do again.
    """

    name: str
    version: str
    capabilities: Mapping[str, Sequence[str]] = field(default_factory=dict)
    params: Mapping[str, Sequence[str] | str] = field(default_factory=dict)
    float_width: int = 64
    language: str = "python"
    decimal_places: int | None = None
    not_observable: Mapping[str, str] = field(default_factory=dict)
    sees_unretrieved_labels: bool = True
    processes: int | None = None

    @abstractmethod
    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> Values | PerQuery:
        """nDCG of each scored query of `case_input` under the full configuration `config`."""

    def describe(self) -> dict[str, Any]:
        """The ``adapter`` object of the protocol's start reply."""
        return {
            "name": self.name,
            "version": self.version,
            "language": self.language,
            "float_width": self.float_width,
            **({} if self.decimal_places is None else {"decimal_places": self.decimal_places}),
            **({} if self.processes is None else {"processes": self.processes}),
            "capabilities": {k: list(v) for k, v in self.capabilities.items()},
            "params": {k: v if v == ANY_VALUE else list(v) for k, v in self.params.items()},
            **self._observability(),
        }

    def _observability(self) -> dict[str, Any]:
        """The start reply's ``observability``, left out when the API shows everything."""
        if not self.not_observable and self.sees_unretrieved_labels:
            return {}
        return {
            "observability": {
                "not_observable": dict(self.not_observable),
                "sees_unretrieved_labels": self.sees_unretrieved_labels,
            }
        }


def distribution_version(distribution: str) -> str:
    """The installed version of a pip distribution, or "unknown"."""
    # Imported here: importlib.metadata costs each adapter process 40 ms, and only a peer's
    # declaration asks for a version.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class ApiView:
    """What an implementation's API lets a caller show it, as its adapter declares in the start
    reply's ``observability``: the axes it cannot be asked about (`hidden`: axis id → reason)
    and whether it is given the labels of judged documents a query's run does not retrieve
    (`unretrieved_labels`)."""

    hidden: Mapping[str, str] = field(default_factory=dict)
    unretrieved_labels: bool = True


def label_number(label: Decimal) -> int | float:
    """A label as a user passes it: an int when it is integral, a float otherwise."""
    return int(label) if label == label.to_integral_value() else float(label)


def trec_dicts(
    case_input: CaseInput,
) -> tuple[dict[str, dict[str, int | float]], dict[str, dict[str, float]]]:
    """``{qid: {docid: label}}`` and ``{qid: {docid: score}}``, the dict shape of TREC tools;
    a repeated document of the run keeps its last score, as a dict assignment does."""
    qrels = {
        q: {d: label_number(v) for d, v in docs.items()} for q, docs in case_input.labels().items()
    }
    run = {q: {d: float(s) for d, s in docs} for q, docs in case_input.rankings().items()}
    return qrels, run


def scored_queries(case_input: CaseInput, aggregate: str) -> list[str]:
    """The queries the choice `aggregate` of the ``aggregate`` axis scores, in qrels order
    (``ndcg.aggregate``)."""
    qrels_queries = dict.fromkeys(q for q, _, _ in case_input.qrels)
    run_queries = dict.fromkeys(q for q, _, _ in case_input.run)
    return AGGREGATE_CHOICES[aggregate](qrels_queries, run_queries)


def _run_dict(
    case_input: CaseInput, aggregate: str, duplicates: str
) -> dict[str, dict[str, float]]:
    """``{qid: {docid: score}}`` of the run rows after the configuration's duplicates choice
    (``ndcg.duplicates``): a dict cannot hold a repeated document, so the rows of every query
    the `aggregate` choice scores pass through the `duplicates` choice here, and one it rejects
    is a rejected input. A query that is not scored keeps the first row of each document."""
    scored = set(scored_queries(case_input, aggregate))
    run: dict[str, dict[str, float]] = {}
    for qid, ranking in case_input.rankings().items():
        postings = [Posting(docid, score) for docid, score in ranking]
        try:
            kept = DUPLICATES[duplicates](postings, qid) if qid in scored else postings
        except InputError as error:
            raise Rejected(str(error)) from None
        run[qid] = {}
        for posting in kept:
            run[qid].setdefault(posting.docid, float(posting.score))
    return run


@dataclass
class _FunctionAdapter(Adapter):
    function: Callable[..., Any] = field(kw_only=True)
    shape: str = "trec"
    rejects: tuple[type[BaseException], ...] = ()

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> Values | PerQuery:
        try:
            if self.shape == "trec":
                return self._trec(
                    case_input, config["aggregate"], config["duplicates"], config["cutoff"]
                )
            return self._arrays(case_input, config["aggregate"], config["cutoff"])
        except self.rejects as error:
            raise Rejected(f"{type(error).__name__}: {error}") from None

    def _trec(
        self, case_input: CaseInput, aggregate: str, duplicates: str, cutoff: int | None
    ) -> PerQuery:
        qrels, _ = trec_dicts(case_input)
        run = _run_dict(case_input, aggregate, duplicates)
        per_query: PerQuery = self.function(qrels, run, cutoff)
        return per_query

    def _arrays(self, case_input: CaseInput, aggregate: str, cutoff: int | None) -> PerQuery:
        import numpy as np  # the arrays' adapters alone need it (70 ms of each process)

        labels, rankings = case_input.labels(), case_input.rankings()
        out: dict[str, float | None] = {}
        for qid in scored_queries(case_input, aggregate):
            ranking = rankings.get(qid, [])
            judged = labels.get(qid, {})
            y_true = np.array([float(judged.get(d, 0)) for d, _ in ranking], dtype=np.float64)
            y_score = np.array([float(s) for _, s in ranking], dtype=np.float64)
            out[qid] = self.function(y_true, y_score, cutoff)
        return out


def _function_adapter(
    function: Callable[..., Any],
    shape: str,
    *,
    name: str,
    version: str,
    capabilities: Mapping[str, Sequence[str]] | None = None,
    params: Mapping[str, Sequence[str]] | None = None,
    float_width: int = 64,
    rejects: Iterable[type[BaseException]] = (),
    not_observable: Mapping[str, str] | None = None,
    sees_unretrieved_labels: bool | None = None,
    processes: int | None = None,
) -> Adapter:
    arrays = shape == "arrays"
    hidden = dict(ARRAYS_NOT_OBSERVABLE if arrays else TREC_ADAPTER_NOT_OBSERVABLE)
    return _FunctionAdapter(
        name,
        version,
        dict(capabilities or {}),
        dict(params or {}),
        float_width,
        not_observable={**hidden, **(not_observable or {})},
        sees_unretrieved_labels=(
            not arrays if sees_unretrieved_labels is None else sees_unretrieved_labels
        ),
        processes=processes,
        function=function,
        shape=shape,
        rejects=tuple(rejects),
    )


def trec_adapter(
    function: Callable[
        [dict[str, dict[str, int | float]], dict[str, dict[str, float]], int | None], PerQuery
    ],
    **declared: Any,
) -> Adapter:
    """An adapter of ``function(qrels, run, k) -> {qid: ndcg}``, with TREC-style dicts
    ``qrels = {qid: {docid: label}}`` (int labels when integral) and
    ``run = {qid: {docid: score}}``; k is None for the whole ranking. The function decides
    which queries it scores. A dict holds each document once, so the helper applies the
    configuration's duplicates choice to the run rows first (``ndcg.duplicates``: under the
    default ``error`` it rejects a repeated document on the function's behalf); what the
    function itself would make of a repeated document cannot be shown, so the adapter declares
    the duplicates axis not observable (`TREC_ADAPTER_NOT_OBSERVABLE`).

    `declared` gives ``name`` and ``version``, and optionally ``capabilities``, ``params``,
    ``float_width`` (64), ``rejects``: the exception types by which the function refuses an
    input deliberately (none: any exception is an error, so that a crash never reads as a
    refusal), and what the API cannot be shown beyond what the input shape hides:
    ``not_observable`` (axis id → reason, added to `TREC_ADAPTER_NOT_OBSERVABLE`) and
    ``sees_unretrieved_labels`` (True); ``processes``, the most processes worth running at
    once (`Adapter.processes`)."""
    return _function_adapter(function, "trec", **declared)


def arrays_adapter(
    function: Callable[[np.ndarray, np.ndarray, int | None], float | None], **declared: Any
) -> Adapter:
    """An adapter of ``function(y_true, y_score, k) -> ndcg`` called once per query with the
    labels (0 for unjudged) and scores of the query's run rows in run order, as float64
    arrays. A per-query function has no notion of which queries to score, so the adapter
    calls it for the queries the ``aggregate`` axis scores; a query missing from the run
    gets empty arrays. The adapter declares what such arrays cannot show
    (`ARRAYS_NOT_OBSERVABLE`, and no unretrieved labels). `declared` is as for
    `trec_adapter` (``sees_unretrieved_labels`` False)."""
    return _function_adapter(function, "arrays", **declared)


def load_adapter(target: str) -> Adapter:
    """The adapter named by ``module:object``, where the object is an Adapter, an Adapter
    subclass, or a function taking no argument that returns one (``harness.registry``
    gives the target of a built-in name)."""
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise AdapterError(f"adapter {target!r}: expected module:object")
    try:
        obj = getattr(import_module(module_name), attribute)
    except ImportError as error:
        raise AdapterError(f"adapter {target!r}: cannot import {module_name!r}: {error}") from None
    except AttributeError:
        raise AdapterError(
            f"adapter {target!r}: module {module_name!r} has no {attribute!r}"
        ) from None
    if (inspect.isclass(obj) and issubclass(obj, Adapter)) or _is_factory(obj):
        obj = obj()
    if not isinstance(obj, Adapter):
        raise AdapterError(
            f"adapter {target!r} is a {type(obj).__name__}, not an Adapter; wrap a plain function "
            "with ndcgspec.harness.adapters.base.trec_adapter or arrays_adapter"
        )
    return obj


def _is_factory(obj: Any) -> bool:
    if not inspect.isfunction(obj):
        return False
    parameters = inspect.signature(obj).parameters.values()
    return all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters
    )
