"""Probe cases derived from the golden cases, and how an adapter's answers to them compare.

A probe takes a golden case's input (and its cutoff and parameters) and a configuration the
adapter is asked to compute; the reference then says what every candidate configuration
returns on that input. Which candidates the adapter's answer meets, under the comparison rule
of ``ndcg.comparison``, is the evidence ``identify`` and the preset verification rest on.
The harness asks them (`ask_adapter`) of adapters running in child processes, so a crash
answers as an error, and what an adapter declares about itself is read from its start reply
(`declared_adapter`).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import signal
import sys
import threading
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache, lru_cache, partial
from types import MappingProxyType
from typing import Any, TypeVar

from tqdm import tqdm

from ndcgspec.engine.sweep import Sweep
from ndcgspec.harness.adapters.base import AdapterError, ApiView
from ndcgspec.harness.answer import CaseAnswer
from ndcgspec.harness.outcome import Expectation, judge, summed_terms
from ndcgspec.harness.pool import PoolOptions
from ndcgspec.harness.protocol import ProtocolCase
from ndcgspec.harness.runner import Question, ask_adapter
from ndcgspec.reference import Config, NdcgSpecError
from ndcgspec.reference.config import choice_ids, parameters, spec_choice
from ndcgspec.reference.cutoff import cuts_nothing
from ndcgspec.reference.decimals import canonical_decimal
from ndcgspec.reference.ties import docid_key
from ndcgspec.spec import kept
from ndcgspec.suite.expect import swept_outcome
from ndcgspec.suite.expected_cache import ExpectedCache
from ndcgspec.suite.expected_values import Digits, ExpectedValues, QueryValues
from ndcgspec.suite.folders import cache_root
from ndcgspec.suite.load import case_files, cases_root, inline_inputs
from ndcgspec.suite.loaded import cases_in_order
from ndcgspec.suite.tolerance import Tolerance, compare_value, exact, is_undefined
from ndcgspec.survey.adapter_answer import Answer
from ndcgspec.survey.halves import in_halves
from ndcgspec.survey.kept_answers import (
    KeptAnswers,
    KeptQuestion,
    builtin_name,
    declaration,
    kept_answers,
)

Rows = tuple[tuple[str, str, str], ...]

# The first cases of each file: hand files are shorter than this; the long generated and
# enumerated files repeat the same kinds of input, and the reference's time grows with them.
PROBES_PER_FILE = 8
_PROCESSES: ContextVar[int] = ContextVar("adapter_processes", default=2)

T = TypeVar("T")
R = TypeVar("R")


def analysis_pool() -> PoolOptions:
    """How the analysis tools run an adapter's processes: the start reply (`declared_adapter`)
    and every question share them; two at a time unless `adapter_processes` says otherwise,
    each case given the seconds of `time_limits` (CASE_TIMEOUT outside it); within it, once
    the adapter has timed out it is taken as hung and the cases not yet sent are skipped
    (`PoolOptions.stop_after_timeout`)."""
    limited = _CASE_TIMEOUT.get()
    timeout = CASE_TIMEOUT if limited is None else limited
    return PoolOptions(
        jobs=_PROCESSES.get(),
        timeout=timeout,
        start_timeout=max(timeout, 60.0),
        stop_after_timeout=limited is not None,
    )


CASE_TIMEOUT = 120.0
# Half an hour: a survey of a well-behaved library takes minutes.
COMMAND_BUDGET = 1800.0
_CASE_TIMEOUT: ContextVar[float | None] = ContextVar("case_timeout", default=None)


class OverBudget(NdcgSpecError):
    """A command of the survey ran past its whole-command budget (``--budget``)."""


class _BudgetSpent(BaseException):
    """The budget's alarm, raised wherever the command is. A BaseException, as
    KeyboardInterrupt is: an OverBudget (a ValueError, as every NdcgSpecError is) raised
    inside an interval comparison was taken by its ``except ValueError`` for mpmath's answer
    to an overlap, and reported as an internal error. `time_limits` turns it into OverBudget
    once it has left the work it stopped."""


@contextmanager
def time_limits(timeout: float, budget: float) -> Iterator[None]:
    """Within it, every case an adapter is asked has `timeout` seconds and the whole block
    `budget`, after which it stops with OverBudget, the adapter processes killed as on Ctrl-C
    (a SIGALRM in the main thread). Both positive and finite, checked before anything starts.
    Once the adapter has timed out, no further case is sent to it (`analysis_pool`): a hung
    adapter costs the start and about one timeout, well within the default budget."""
    if not all(0 < limit < math.inf for limit in (timeout, budget)):
        raise NdcgSpecError("--timeout and --budget must be positive and finite")

    def over(signum: int, frame: object) -> None:
        raise _BudgetSpent

    token = _CASE_TIMEOUT.set(timeout)
    previous = signal.signal(signal.SIGALRM, over)
    signal.setitimer(signal.ITIMER_REAL, budget)
    try:
        yield
    except _BudgetSpent:
        raise OverBudget(f"stopped after the --budget of {budget:g} seconds") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        _CASE_TIMEOUT.reset(token)


@contextmanager
def adapter_processes(count: int) -> Iterator[None]:
    """Within it, the analysis runs `count` processes of each adapter (``ndcgspec matrix``,
    which examines several adapters at once, runs one each: the cores are already busy, and
    one process imports the library, or starts the JVM, once and keeps every answer)."""
    token = _PROCESSES.set(max(1, count))
    try:
        yield
    finally:
        _PROCESSES.reset(token)


# Relative gap of the score-resolution probes: distinct in float64, equal in float32.
RESOLUTION_GAP = Decimal("1e-9")
ULP = "one float64 ulp"
"""The finest gap between two scores: adjacent doubles, written as their shortest decimals
(0.223 and 0.22300000000000003), which only a correctly rounding number reader tells apart."""
Gap = Decimal | str
RESOLUTION_GAPS: tuple[Gap, ...] = (RESOLUTION_GAP, Decimal("1e-12"), ULP)
"""The gaps of the score-resolution probes, coarsest first: relative gaps of 1e-9 (equal in
float32), 1e-12 (distinct in float64), and `ULP`."""


@dataclass(frozen=True)
class ProbeInput:
    """A golden case's input and configuration, the material probes are made of."""

    case_id: str
    qrels: Rows
    run: Rows
    config: Config
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Every cache of the reference's answers is keyed by the probe: hashing its rows
        # anew on each lookup cost the survey more than some evaluations did.
        object.__setattr__(self, "_hash", hash((self.case_id, self.qrels, self.run, self.config)))

    def __hash__(self) -> int:
        return self._hash


@cache
def probe_inputs(per_file: int = PROBES_PER_FILE) -> tuple[ProbeInput, ...]:
    """The inline golden inputs: the first `per_file` cases of every case file, in suite
    order. A case that judges another case's input (``input_of``, the preset files) brings no
    input of its own. Read once per process, since every examination of the matrix asks them,
    and kept between processes by the size and time of every case file (`spec.kept`): they
    are a few hundred small inputs taken from 46 MB of JSON."""
    root = cases_root()
    # What the kept rows depend on beside the files: their folder, the count taken per file
    # and the shape `_probe_rows` gives them.
    stamps = [str(root), str(per_file), PROBE_ROWS]
    for path in case_files(root):
        stat = path.stat()
        stamps.append(f"{path.relative_to(root)} {stat.st_size} {stat.st_mtime_ns}")
    key = hashlib.sha256("\n".join(stamps).encode("utf-8")).hexdigest()
    found = kept("probe-inputs", key, lambda: _probe_rows(per_file))
    return tuple(
        ProbeInput(case_id, qrels, run, Config.from_mapping(config))
        for case_id, qrels, run, config in found
    )


PROBE_ROWS = "id, qrels rows, run rows, config mapping"


def _probe_rows(per_file: int) -> list[tuple[str, Rows, Rows, dict[str, Any]]]:
    """`probe_inputs` as plain data: each case's id, qrels and run rows, and configuration."""
    found = []
    for path in case_files(cases_root()):
        taken = 0
        for case in cases_in_order(path):
            given = case.input
            if given is None or case.input_of is not None:
                continue
            qrels = tuple((qid, docid, label) for qid, docid, label in given.qrels)
            run = tuple((qid, docid, score) for qid, docid, score in given.run)
            found.append((case.id, qrels, run, case.config.to_mapping()))
            taken += 1
            if taken >= per_file:
                break
    return found


def replaced(config: Config, **changes: Any) -> Config:
    """`config.replace(**changes)`, each copy built once: identify asks for the same few
    changes of the same configurations tens of thousands of times, and a Config never changes.
    The key holds each value's type, so that a value equal to a valid one (10.0 for 10) is
    still checked; an unhashable value (a gain map as a dict) is checked every time."""
    key = tuple(sorted((name, type(value), value) for name, value in changes.items()))
    try:
        return _replaced(config, key)
    except TypeError:
        return config.replace(**changes)


# lru_cache serialises its own bookkeeping, and what it stores is an immutable Config.
@lru_cache(maxsize=1 << 16)
def _replaced(config: Config, changes: tuple[tuple[str, type, Any], ...]) -> Config:
    return config.replace(**{name: value for name, _, value in changes})


def questions(asked: Config, probes: Sequence[ProbeInput]) -> list[tuple[ProbeInput, Config]]:
    """Each probe asked under `asked` at the probe's own cutoff."""
    return [(p, replaced(asked, cutoff=p.config.cutoff)) for p in probes]


def with_choice(asked: Config, axis_id: str, choice: str, source: Config) -> Config | None:
    """`asked` with `axis_id` set to `choice`. A parameter the spec requires (a gain map) is
    taken from the golden case's `source` configuration, the others keep their defaults so
    that every candidate differs from `asked` on the axis alone; None when the source does
    not give a required parameter."""
    return _with_choice(asked, axis_id, choice, _required_params(source, axis_id, choice))


@cache
def _required_params(source: Config, axis_id: str, choice: str) -> tuple[tuple[str, Any], ...]:
    """The parameters the spec requires of `choice` that `source` gives."""
    if source.choice(axis_id) != choice:
        return ()
    params = parameters()
    return tuple(
        (name, source.param(name))
        for name in sorted(spec_choice(axis_id, choice).params)
        if params[name].required
    )


# Keyed by the parameters taken from the source, not the source: the search asks it of every
# probe, and nearly all of them give none.
@cache
def _with_choice(
    asked: Config, axis_id: str, choice: str, required: tuple[tuple[str, Any], ...]
) -> Config | None:
    try:
        return replaced(asked, **{axis_id: choice, **dict(required)})
    except NdcgSpecError:
        return None


@cache
def _sweep(probe: ProbeInput) -> tuple[Sweep, threading.Lock]:
    """The probe's input, prepared once for every configuration asked of it at any cutoff
    (the search for a cutoff the implementation chooses asks up to 200), and the lock under
    which one thread at a time extends what the sweep keeps."""
    qrels, run = inline_inputs(probe.qrels, probe.run)
    return Sweep(qrels, run), threading.Lock()


@cache
def _expected_values() -> ExpectedCache:
    """The expected values of probes, shared by every identify, predict and matrix on the
    machine (``NDCGSPEC_CACHE_DIR``): they depend on the input and configuration alone."""
    return ExpectedCache(cache_root())


def computed_in_halves(work: Callable[[Sequence[T]], list[R]], items: Sequence[T]) -> list[R]:
    """`halves.in_halves` of `work`, the expected values the copy computed kept here too (and
    written to the cache): the search reads most of them again."""
    values = _expected_values()
    mark = values.mark()
    return in_halves(work, items, partial(values.kept_since, mark), values.adopt)


@cache
def _input_key(probe: ProbeInput) -> str:
    rows = {"qrels": probe.qrels, "run": probe.run}
    return hashlib.sha256(json.dumps(rows).encode("utf-8")).hexdigest()


@cache
def _fingerprint(config: Config) -> str:
    return config.fingerprint()


QueryKey = tuple[Digits, Digits, Digits, tuple[str, ...]]
"""One query's values as a plain tuple: the searches hash and compare outcome keys hundreds of
thousands of times, and a tuple of strings does both without a call into Python."""

OutcomeKey = tuple[str | None, str | None, bool, tuple[tuple[str, QueryKey], ...] | None]
"""An outcome's values in a canonical order: equal exactly when the outcomes are."""


@cache
def _outcome(probe: ProbeInput, config: Config) -> tuple[OutcomeKey, ExpectedValues]:
    if config.cutoff is not None and cuts_nothing(config, longest_query(probe)):
        # One outcome for both: the chosen cutoff's search asks k = 1 to 200 of inputs of a
        # few rows, and a cutoff of 10 on a 5-document probe is the whole ranking.
        return _outcome(probe, replaced(config, cutoff=None))

    def compute() -> ExpectedValues:
        sweep, lock = _sweep(probe)
        with lock:
            sweep.declare([config.cutoff])
            return swept_outcome(sweep, config)

    values = _expected_values().value(_fingerprint(config), _input_key(probe), compute)
    # The per-query mapping in query order makes outcomes comparable and hashable.
    per_query = (
        None
        if values.per_query is None
        else tuple(sorted((q, v.as_tuple()) for q, v in values.per_query.items()))
    )
    return (values.error, values.aggregate, values.states_aggregate, per_query), values


@cache
def longest_query(probe: ProbeInput) -> int:
    """The most rows any query of the probe has, in the run or in the qrels."""
    judged = Counter(qid for qid, _, _ in probe.qrels)
    ranked = Counter(qid for qid, _, _ in probe.run)
    return max([*judged.values(), *ranked.values()], default=0)


def expected_of(probe: ProbeInput, config: Config) -> ExpectedValues:
    """What the reference answers for the probe's input under `config`."""
    return _outcome(probe, config)[1]


def outcome_key(probe: ProbeInput, config: Config) -> OutcomeKey:
    """A key equal for two configurations exactly when they answer the same on the input."""
    return _outcome(probe, config)[0]


@cache
def _terms(probe: ProbeInput, asked: Config) -> Mapping[str, int]:
    """The n of each query's comparison (``ndcg.comparison.float``) under the asked
    configuration: judged against several candidates, a read-only view."""
    return MappingProxyType(summed_terms(probe.qrels, probe.run, asked))


def meets(
    probe: ProbeInput,
    config: Config,
    answer: Answer,
    asked: Config,
    width: int,
    places: int | None = None,
) -> bool | None:
    """Whether the answer meets the reference's answer under `config`, for an adapter of float
    width `width` that rounds to `places` decimals if it says so; None when the adapter
    failed (error or crash), which is evidence of nothing but the failure."""
    if answer.failed:
        return None
    expectation = Expectation((expected_of(probe, config),), asked)
    verdict = judge(
        expectation, CaseAnswer.from_json(answer.result), _terms(probe, asked), width, places
    )
    return verdict.outcome == "pass"


def meets_aggregate(
    probe: ProbeInput,
    config: Config,
    answer: Answer,
    asked: Config,
    width: int,
    places: int | None = None,
) -> bool:
    """Whether the answer's mean (given, or implied by its per-query values) meets the
    reference's mean under `config`, whatever its per-query values are."""
    expected = expected_of(probe, config)
    if answer.failed or expected.error is not None or not expected.states_aggregate:
        return False
    # Only the values listed are compared: here, the mean alone.
    expectation = Expectation((ExpectedValues(aggregate=expected.aggregate),), asked)
    terms = _terms(probe, asked)
    verdict = judge(
        expectation, CaseAnswer.from_json(answer.result), terms, width, places, partial=True
    )
    return verdict.outcome == "pass"


def quotient_values(probe: ProbeInput, config: Config) -> dict[str, str | None] | None:
    """The reference's per-query values under `config` with every query whose ideal DCG is
    negative (negative labels in the ideal, ``ndcg.negative``) scored DCG / IDCG instead of as
    empty (``ndcg.empty``); None when no query has a negative ideal DCG."""
    per_query = expected_of(probe, config).per_query or {}
    # A query has a DCG wherever it has an ideal DCG: the DCG is bounded by it.
    negative = {
        q: Decimal(v.dcg) / Decimal(v.idcg)
        for q, v in per_query.items()
        if v.idcg is not None and v.dcg is not None and Decimal(v.idcg) < 0
    }
    if not negative:
        return None
    return {
        q: canonical_decimal(negative[q]) if q in negative else v.ndcg for q, v in per_query.items()
    }


def meets_values(
    probe: ProbeInput,
    per_query: Mapping[str, str | None],
    answer: Answer,
    asked: Config,
    width: int,
    places: int | None = None,
) -> bool:
    """Whether the answer's per-query values meet `per_query` (its mean aside)."""
    if answer.failed:
        return False
    values = {qid: QueryValues(ndcg, stated=("ndcg",)) for qid, ndcg in per_query.items()}
    expectation = Expectation((ExpectedValues(values, states_aggregate=False),), asked)
    terms = _terms(probe, asked)
    verdict = judge(
        expectation, CaseAnswer.from_json(answer.result), terms, width, places, partial=True
    )
    return verdict.outcome == "pass"


def within_tie_bounds(
    probe: ProbeInput,
    config: Config,
    answer: Answer,
    asked: Config,
    width: int,
    places: int | None = None,
) -> bool:
    """Whether every per-query value of the answer lies between the reference's values under
    the pessimistic and the optimistic tie rule (``ndcg.ties``), bounds included under the
    comparison rule: some order of the tied documents may explain it."""
    low = expected_of(probe, replaced(config, ties="pessimistic")).per_query
    high = expected_of(probe, replaced(config, ties="optimistic")).per_query or {}
    given = answer.result.get("per_query")
    if answer.failed or not given or low is None:
        return False
    terms = _terms(probe, asked)
    for qid, entry in low.items():
        value = given.get(qid)
        low_value, high_value = entry.ndcg, high[qid].ndcg
        if is_undefined(value) or low_value is None or high_value is None:
            if not is_undefined(value) or (low_value, high_value) != (None, None):
                return False
            continue
        bounds = (low_value, high_value)
        rule = Tolerance(width, terms.get(qid, 1), places)
        if any(compare_value(qid, bound, value, rule) is None for bound in bounds):
            continue
        if not isinstance(value, (int, float)) or not (
            exact(bounds[0]) <= exact(value) <= exact(bounds[1])
        ):
            return False
    return True


def distinguishing(probe: ProbeInput, asked: Config, axis_id: str) -> dict[str, Config] | None:
    """The candidate configurations of an axis on one probe, or None when the reference
    answers the same for every candidate (the input tells nothing about the axis)."""
    candidates = {}
    for choice in choice_ids(axis_id):
        config = with_choice(asked, axis_id, choice, probe.config)
        if config is not None:
            candidates[choice] = config
    keys = {outcome_key(probe, c) for c in candidates.values()}
    return candidates if len(keys) > 1 else None


def depends_on(
    probe: ProbeInput, asked: Config, axis_id: str, choices: Sequence[str] | None = None
) -> bool:
    """Whether the reference answers the probe differently under some two of the axis's
    candidates (`distinguishing` is not None), or of its `choices` when given, evaluating them
    only until two differ: the diagnosis asks it of thousands of failing cases, nearly all of
    which depend on the axis asked."""
    seen = None
    for choice in choice_ids(axis_id) if choices is None else choices:
        config = with_choice(asked, axis_id, choice, probe.config)
        if config is None:
            continue
        key = outcome_key(probe, config)
        if seen is not None and key != seen:
            return True
        seen = key
    return False


def without_unretrieved_labels(probe: ProbeInput) -> ProbeInput:
    """The probe without the qrels rows of documents its queries' runs do not retrieve: the
    input as an API that is given only the retrieved rows sees it."""
    retrieved = {(qid, docid) for qid, docid, _ in probe.run}
    kept = tuple(row for row in probe.qrels if (row[0], row[1]) in retrieved)
    return ProbeInput(f"{probe.case_id}~retrieved", kept, probe.run, probe.config)


def compared_answer(probe: ProbeInput, config: Config) -> Any:
    """What an adapter's answer is compared with: the rejection, or each query's nDCG and
    the mean (not the DCG and IDCG the reference also gives)."""
    found = expected_of(probe, config)
    if found.error is not None:
        return {"anchor": found.error}
    return {q: v.ndcg for q, v in (found.per_query or {}).items()}, found.aggregate


def _per_query_values(probe: ProbeInput, config: Config) -> dict[str, Digits] | None:
    """Each query's nDCG, the mean aside; None for a rejection."""
    found = expected_of(probe, config)
    if found.error is not None:
        return None
    return {q: v.ndcg for q, v in (found.per_query or {}).items()}


def _confounded_by(probe: ProbeInput, config: Config, axis_id: str) -> bool:
    """Whether the reference's answer to the probe under `config` depends on the axis
    `axis_id`, which the API cannot be asked about. The aggregate axis (``ndcg.aggregate``)
    only picks the queries that are scored and averaged: an adapter that cannot be asked
    about it is given the queries `config` scores (``arrays_adapter``, docs/adapters.md), so
    its per-query values show the other axes as well as ever, and only a query of `config`
    valued otherwise, or a rejection (which names no query), under another choice confounds
    them."""
    candidates = distinguishing(probe, config, axis_id)
    if candidates is None:
        return False
    if axis_id != "aggregate":
        return True
    mine = _per_query_values(probe, config)
    for other in candidates.values():
        theirs = _per_query_values(probe, other)
        if mine is None or theirs is None:
            if mine != theirs:
                return True
        elif any(q in theirs and theirs[q] != value for q, value in mine.items()):
            return True
    return False


def beyond_view(probe: ProbeInput, config: Config, view: ApiView) -> bool:
    """Whether the reference's answer to the probe under `config` depends on what the API
    cannot be shown: an axis it cannot be asked about (which would confound what the probe
    shows about the others), or labels of unretrieved documents it is never given. A per-
    query answer needs no aggregate: the aggregate axis confounds only what it changes of
    the queries `config` scores (`_confounded_by`)."""
    if any(_confounded_by(probe, config, a) for a in view.hidden):
        return True
    return not view.unretrieved_labels and compared_answer(probe, config) != compared_answer(
        without_unretrieved_labels(probe), config
    )


def ask(
    command: Sequence[str] | str,
    questions: Iterable[tuple[ProbeInput, Config]],
    options: PoolOptions | None = None,
    progress: bool = False,
    behind: bool = False,
) -> dict[tuple[str, str], Answer]:
    """The adapter's answer to each (input, asked configuration), keyed by (case id, full
    configuration string); each distinct question is sent once, by the harness's
    `ask_adapter`, so that inside `shared_pools` a question the same processes answered
    before is not sent again: identify, the preset checks and the page ask many of the same.
    A question is its input's rows and the configuration, which is all the adapter is sent
    (the pool numbers the cases itself): the golden cases of several configurations share
    one input, and a third of identify's probes are the same question as another. With
    `progress`, a bar on stderr counts the answers; with `behind`, the questions are sent
    one at a time, only while no other call is asking (``survey/asked_ahead.py``)."""
    options = options or analysis_pool()
    distinct: dict[tuple[str, str], tuple[ProbeInput, Config]] = {}
    for probe, asked in questions:
        distinct.setdefault((probe.case_id, asked.full()), (probe, asked))
    kept = _kept_answers(command, options)
    answers: dict[tuple[str, str], Answer] = {}
    for name, (probe, asked) in distinct.items():
        known = None if kept is None else kept.answer(_kept_question(probe, asked))
        if known is not None:
            answers[name] = known
    unknown = {name: question for name, question in distinct.items() if name not in answers}
    if not unknown:
        # Every answer kept: the adapter's processes are not started for nothing.
        return answers
    bar = tqdm(total=len(unknown), unit="probe", file=sys.stderr, leave=False, disable=not progress)

    names: dict[Hashable, list[tuple[str, str]]] = {}
    for name, (probe, _) in unknown.items():
        names.setdefault((_input_key(probe), name[1]), []).append(name)

    def keep(question: Question, answer: CaseAnswer) -> None:
        for name in names[question.key]:
            answers[name] = Answer(answer.result)
            if kept is not None:
                kept.keep(_kept_question(*unknown[name]), answers[name])
            bar.update(1)

    sent = []
    for key, group in names.items():
        probe, asked = unknown[group[0]]
        sent.append(Question(key, partial(_payload, probe=probe, asked=asked)))
    try:
        ask_adapter(command, sent, options, keep, behind)
    finally:
        bar.close()
    return answers


def _kept_answers(command: Sequence[str] | str, options: PoolOptions) -> KeptAnswers | None:
    """The answers kept of a built-in adapter (``survey/kept_answers.py``), as it declares
    itself in the processes that answer; None for any other adapter, and for one that does
    not start or declares what the spec does not know, whose questions are then answered by
    that failure as before."""
    name = builtin_name(command)
    if name is None:
        return None
    try:
        return kept_answers(name, declaration(command, options))
    except AdapterError:
        return None


def _kept_question(probe: ProbeInput, asked: Config) -> KeptQuestion:
    return (probe.case_id, _input_key(probe), asked.full())


def _payload(case_id: str, probe: ProbeInput, asked: Config) -> ProtocolCase:
    """The protocol case of one question."""
    return ProtocolCase(case_id, asked.canonical(), asked.to_mapping(), probe.qrels, probe.run)


def nudged(score: Decimal, steps: int, gap: Gap) -> str:
    """`score` raised by `steps` times `gap`: a relative gap, or `ULP` (the double nearest to
    the score, moved up `steps` doubles and written as its shortest decimal)."""
    if gap == ULP:
        value = float(score)
        for _ in range(steps):
            value = math.nextafter(value, math.inf)
        return repr(value) if steps else canonical_decimal(score)
    assert isinstance(gap, Decimal)
    return canonical_decimal(score + score.copy_abs() * gap * steps)


def spread_ties(probe: ProbeInput, order: str, gap: Gap = RESOLUTION_GAP) -> ProbeInput | None:
    """The probe with every tie group's scores made distinct by `gap`, so that exact ranking
    puts the group in the reverse of the tie `order` ("input", "docid-desc" or "docid-asc";
    the rules that do not order a group, such as ``average``, get the reverse of input order);
    None when the input has no tie group of non-zero scores.

    A float64 implementation ranks the new input exactly; one that stores scores in float32,
    or reads decimals without correct rounding, sees the old ties again and applies its tie
    rule to them, which the reference tells apart from the exact ranking."""
    groups: dict[tuple[str, Decimal], list[int]] = {}
    for index, (qid, _, written) in enumerate(probe.run):
        if Decimal(written) != 0:
            groups.setdefault((qid, Decimal(written)), []).append(index)
    tied = {key: rows for key, rows in groups.items() if len(rows) > 1}
    if not tied:
        return None
    run = list(probe.run)
    for (_, score), rows in tied.items():
        if order in ("docid-desc", "docid-asc"):
            rows = sorted(
                rows, key=lambda i: docid_key(probe.run[i][1]), reverse=order == "docid-desc"
            )
        # The document the tie rule ranks first gets the lowest score, and so on up.
        for step, index in enumerate(rows):
            qid, docid, _ = run[index]
            run[index] = (qid, docid, nudged(score, step, gap))
    suffix = "~spread" if gap == RESOLUTION_GAP else f"~spread-{str(gap).replace(' ', '-')}"
    return ProbeInput(f"{probe.case_id}{suffix}", probe.qrels, tuple(run), probe.config)


TIE_LENGTHS = (*range(2, 41), 48, 64, 96, 128, 192, 256, 320)
"""The ranking lengths of the tie-order probes: every length up to 40 (where a sort switches
from insertion sort to something else), then a few up to a few hundred."""
TIE_QUERIES = 12


def tie_order_inputs(lengths: Sequence[int] = TIE_LENGTHS, seed: int = 0) -> list[ProbeInput]:
    """One input per ranking length: `TIE_QUERIES` queries of that many documents, every one
    judged and retrieved, with graded labels 0-3 and scores drawn from three values, so that
    most documents share their score with others and the order of each tie group decides the
    value (``ndcg.ties``). Seeded: the same inputs on every run."""
    rng = random.Random(seed)
    found = []
    for length in lengths:
        qrels, run = [], []
        for q in range(TIE_QUERIES):
            qid = f"q{q:02d}"
            for d in range(length):
                docid = f"d{d:03d}"
                qrels.append((qid, docid, str(rng.randint(0, 3))))
                run.append((qid, docid, str(rng.randint(1, 3))))
            if all(label == "0" for _, _, label in qrels[-length:]):
                # A relevant document in every query: an empty query would test ``ndcg.empty``.
                qrels[rng.randrange(len(qrels) - length, len(qrels))] = (qid, docid, "1")
        found.append(
            ProbeInput(f"ties.length-{length}", tuple(qrels), tuple(run), Config.default())
        )
    return found


NUMBER_READING_INPUTS = 24


def number_reading_inputs(count: int = NUMBER_READING_INPUTS, seed: int = 0) -> list[ProbeInput]:
    """Inputs whose two queries each rank two documents with adjacent doubles as scores, the
    relevant one higher, written as their shortest decimals (x and the double just above it,
    x of every magnitude and up to 17 significant digits): a number reader that rounds
    correctly ranks the relevant document first in both, one that reads them as equal (or
    swaps them) cannot, in both, whatever its tie rule."""
    rng = random.Random(seed)
    found = []
    for index in range(count):
        low = rng.random() * 10.0 ** rng.randint(-3, 4)
        high = repr(math.nextafter(low, math.inf))
        run = (("q1", "a", repr(low)), ("q1", "b", high), ("q2", "a", high), ("q2", "b", repr(low)))
        qrels = (("q1", "a", "0"), ("q1", "b", "1"), ("q2", "a", "1"), ("q2", "b", "0"))
        found.append(ProbeInput(f"numbers.adjacent-{index:02d}", qrels, run, Config.default()))
    return found


def scores_merged(probe: ProbeInput) -> ProbeInput:
    """The probe with every score that is one double above another score of the run read as
    that lower score (runs of adjacent doubles become the lowest of the run): the input as a
    number reader that cannot tell adjacent doubles apart may see it."""
    doubles = sorted({float(s) for _, _, s in probe.run})
    lowest: dict[float, float] = {}
    for value in doubles:
        lowest[value] = lowest.get(math.nextafter(value, -math.inf), value)
    run = tuple((q, d, repr(lowest[float(s)])) for q, d, s in probe.run)
    return ProbeInput(f"{probe.case_id}~merged", probe.qrels, run, probe.config)
