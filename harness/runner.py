"""Running an adapter against golden cases: select, plan, dispatch, judge; and asking it any
other cases (`ask_adapter`, the survey's probes).

Every adapter runs in child processes (``harness/pool.py``). The harness decides
`unsupported` from the adapter's declared capabilities and `skip` from the availability of a
published case's data; it sends every other case, stripped of its expected values, and judges
the answer. Expected values are computed on the pool's threads, as each batch is built: the
reference and the engine keep nothing mutable between threads (``reference/contexts.py``,
``engine/discounts.py``, ``engine/label_gains.py``), and `ExpectedCache` is read and written
under its lock.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from weakref import WeakKeyDictionary

from ndcgspec.harness.adapters.base import AdapterError
from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.answer import CaseAnswer
from ndcgspec.harness.diagnosis import Answered
from ndcgspec.harness.outcome import (
    Expectation,
    Verdict,
    judge,
    partial_comparison,
    summed_terms,
)
from ndcgspec.harness.plan import fill_expected
from ndcgspec.harness.pool import Job, PoolOptions, WorkerPool, pooled
from ndcgspec.harness.protocol import ProtocolCase
from ndcgspec.harness.worker import WorkerFailure
from ndcgspec.reference import Config, ConfigError, NdcgSpecError
from ndcgspec.suite.collector import collector_paused
from ndcgspec.suite.expected_cache import ExpectedCache
from ndcgspec.suite.folders import cache_root, data_root
from ndcgspec.suite.json_lines import write_pending
from ndcgspec.suite.lint import parse_file, schema_problems
from ndcgspec.suite.load import PublishedFiles, case_files, file_inputs
from ndcgspec.suite.loaded import LoadedCase, iter_cases
from ndcgspec.suite.result import CaseResult

MAX_BATCH = 16
OnResult = Callable[[CaseResult, LoadedCase], CaseResult]
"""Takes each result, with the case it judges, and gives the result to keep: the same, or
marked as a departure a preset declares."""
OnAnswered = Callable[[Answered], None]
Plan = Callable[[Declaration], Sequence[LoadedCase]]
"""The cases to run, made from the adapter's declaration in its start reply."""


def fixed_cases(cases: Sequence[LoadedCase]) -> Plan:
    """The plan that runs exactly `cases`, whatever the adapter declares."""
    return lambda adapter: cases


class HarnessError(NdcgSpecError):
    """The run cannot go on: the adapter does not start, or declares what the spec lacks."""


def load_cases(
    glob: str | None = None, root: Path | None = None, data: Path | None = None
) -> list[LoadedCase]:
    """Every case of the suite (or of the case files below `root`) matching `glob`, published
    inputs looked up under the data root `data`. A folder of the user's own (`root`) is
    checked against the case schema first: a case the spec cannot compute is an error of
    the suite, never an `unsupported` of the adapter."""
    if root is not None:
        _check_suite(root, glob)
    try:
        return list(iter_cases(glob, root, data))
    except (ValueError, OSError) as error:
        raise HarnessError(f"cannot read the cases: {str(error).splitlines()[0]}") from None


def _check_suite(root: Path, glob: str | None) -> None:
    if not root.is_dir():
        raise HarnessError(f"{root}: not a folder of case files")
    for path in case_files(root, glob):
        content, found = parse_file(path)
        found = found or schema_problems(path, content)
        # No content without a problem: unreadable JSON is one, and so is a null document.
        if found or content is None:
            raise HarnessError(str(found[0]))
        for index, case in enumerate(content["cases"]):
            try:
                Config.from_mapping(case["config"])
            except NdcgSpecError as error:
                raise HarnessError(f"{path}: /cases/{index}/config: {error}") from None


def case_rows(loaded: LoadedCase, data: Path | None) -> dict[str, list[list[str]]]:
    """The input of a case as protocol rows: inline, or read from its published files."""
    given, files = loaded.case.input, loaded.case.input_files
    if given is not None:
        return given.to_json()
    if files is None:
        raise ValueError(f"case {loaded.case.id} has no input")
    return _file_rows(files, data)


@cache
def _file_rows(files: PublishedFiles, data: Path | None) -> dict[str, list[list[str]]]:
    """The rows of a pair of published files, made once per process: every measure and
    cutoff of a published run is a case of its own, with the same tens of thousands of rows."""
    qrels, run = file_inputs(files, data or data_root())
    return {
        "qrels": [[q, d, str(j.label)] for q, docs in qrels.items() for d, j in docs.items()],
        "run": [[q, p.docid, str(p.score)] for q, postings in run.items() for p in postings],
    }


def stripped_case(loaded: LoadedCase, rows: Mapping[str, list[list[str]]]) -> ProtocolCase:
    """The case the adapter receives: no expected values, no provenance."""
    case = loaded.case
    return ProtocolCase(
        case.id, case.config.canonical(), case.config.to_mapping(), rows["qrels"], rows["run"]
    )


def case_result(loaded: LoadedCase, verdict: Verdict, reason: str | None = None) -> CaseResult:
    """The result of one case."""
    case = loaded.case
    failed = verdict.outcome in ("fail", "error")
    return CaseResult(
        id=case.id,
        outcome=verdict.outcome,
        group=loaded.group,
        measure=case.config.canonical(),
        config=case.config.to_mapping(),
        expected_source=loaded.expected_source,
        message=verdict.message,
        reason=reason,
        mismatches=tuple(m.to_json() for m in verdict.mismatches),
        detail=verdict.detail,
        # The input a failure was judged on, which `ndcgspec cases show` prints.
        input_of=case.input_of if failed else None,
    )


@dataclass
class _Pending:
    loaded: LoadedCase
    terms: dict[str, int]


def _batches(jobs: list[tuple[LoadedCase, Job]], workers: int) -> list[list[Job]]:
    """Inline cases in batches of up to MAX_BATCH, sized so every worker gets several;
    published cases (whole data files) alone."""
    inline = [job for loaded, job in jobs if loaded.case.input is not None]
    size = max(1, min(MAX_BATCH, math.ceil(len(inline) / (4 * workers)) if inline else 1))
    batches = [inline[i : i + size] for i in range(0, len(inline), size)]
    return batches + [[job] for loaded, job in jobs if loaded.case.input is None]


@dataclass(frozen=True)
class Question:
    """A case asked of an adapter outside a plan of golden cases: `key` tells it apart from
    every other question the same processes answer, and `build(case_id)` makes its protocol
    case (on the pool's threads, as its batch is sent)."""

    key: Hashable
    build: Callable[[str], ProtocolCase]


OnAnswer = Callable[[Question, CaseAnswer], None]


def ask_adapter(
    command: Sequence[str] | str,
    questions: Sequence[Question],
    options: PoolOptions,
    on_answer: OnAnswer,
    behind: bool = False,
) -> None:
    """Send each question to the adapter `command` and give its answer (values, a rejection,
    or an error) to `on_answer`, serially, as it arrives. Inside
    `shared_pools` the processes stay open for the next call, and a question whose key they
    answered before is answered from that answer without being sent again: one answer is one
    observation (a failure too: the pool has already sent a failed case again on its own).
    With `behind`, the questions are sent one at a time, only while no other call is asking
    (`WorkerPool.run_behind`), and only their answers that are not errors are given and
    remembered. WorkerFailure if the adapter does not start."""
    with pooled(command, options) as pool:
        known = _ANSWERED.setdefault(pool, {})
        unanswered = []
        for question in questions:
            if question.key in known:
                on_answer(question, known[question.key])
            else:
                unanswered.append(question)

        def keep(job_id: str, answer: CaseAnswer) -> None:
            if behind and answer.error is not None:
                # Asked again by the caller that needs it, in a batch that sends a failed
                # case again alone: a failure behind (a library's first call on a loaded
                # machine, say) is no answer.
                return
            question = unanswered[int(job_id)]
            known[question.key] = answer
            on_answer(question, answer)

        jobs = [
            Job(f"{i}", partial(question.build, f"{i}")) for i, question in enumerate(unanswered)
        ]
        if behind:
            # One question a batch: what the caller asks meanwhile waits for one answer at most.
            pool.run_behind([[job] for job in jobs], keep)
            return
        if jobs:
            # The expected values computed so far are written while the adapter answers.
            write_pending()
        pool.run([jobs[i : i + MAX_BATCH] for i in range(0, len(jobs), MAX_BATCH)], keep)


_ANSWERED: WeakKeyDictionary[WorkerPool, dict[Hashable, CaseAnswer]] = WeakKeyDictionary()
"""Per open pool, the answers its processes gave to questions (`ask_adapter`), by key: a pool
kept by `shared_pools` keeps them until it closes."""


def run_cases(
    plan: Plan,
    command: Sequence[str] | str,
    options: PoolOptions,
    on_result: OnResult,
    on_start: Callable[[Declaration, Sequence[LoadedCase]], None] | None = None,
    data: Path | None = None,
    on_answered: OnAnswered | None = None,
) -> list[CaseResult]:
    """Run the cases `plan` makes of the adapter's start reply against the adapter `command`;
    every result goes to `on_result` as it completes, and the results it keeps are returned in
    case order. A case that passes or fails also goes to `on_answered`, with the adapter's
    answer."""
    data = data or data_root()
    pool = WorkerPool(command, options)
    try:
        try:
            reply = pool.open()
        except WorkerFailure as failure:
            raise HarnessError(f"the adapter did not start: {failure.summary()}") from None
        try:
            adapter = Declaration.from_json(reply.adapter)
            cases = plan(adapter)
        except (AdapterError, ConfigError) as error:
            raise HarnessError(str(error)) from None
        if on_start:
            on_start(adapter, cases)
        return _dispatch(cases, pool, adapter, options, on_result, data, on_answered)
    finally:
        pool.close()


def _dispatch(
    cases: Sequence[LoadedCase],
    pool: WorkerPool,
    adapter: Declaration,
    options: PoolOptions,
    on_result: OnResult,
    data: Path | None,
    on_answered: OnAnswered | None = None,
) -> list[CaseResult]:
    records: dict[str, CaseResult] = {}
    lock = threading.Lock()

    def emit(
        loaded: LoadedCase,
        verdict: Verdict,
        reason: str | None = None,
        answer: CaseAnswer | None = None,
    ) -> None:
        with lock:
            record = on_result(case_result(loaded, verdict, reason), loaded)
            records[record.id] = record
            if on_answered and answer is not None and verdict.outcome in ("pass", "fail"):
                on_answered(Answered(record, loaded.case, answer))

    pending: dict[str, _Pending] = {}
    expected = ExpectedCache(cache_root())
    jobs: list[tuple[LoadedCase, Job]] = []
    for loaded in cases:
        why = adapter.unsupported_reason(loaded.case.config) or adapter.unseen_reason(loaded.case)
        if why:
            emit(loaded, Verdict("unsupported"), why)
        elif loaded.unavailable:
            emit(loaded, Verdict("skip"), loaded.unavailable)
        else:
            builder = _builder(loaded, data, pending, emit, expected)
            jobs.append((loaded, Job(loaded.case.id, builder)))

    numbers = adapter.number_format

    def deliver(case_id: str, answer: CaseAnswer) -> None:
        item = pending.pop(case_id)
        case = item.loaded.case
        verdict = judge(
            Expectation.of_case(case),
            answer,
            item.terms,
            *numbers,
            partial=partial_comparison(case),
        )
        emit(item.loaded, verdict, answer=answer)

    # The expected values are computed as the batches are built, and kept.
    with collector_paused():
        pool.run(_batches(jobs, options.jobs), deliver)
    return [records[c.case.id] for c in cases if c.case.id in records]


def _builder(
    loaded: LoadedCase,
    data: Path | None,
    pending: dict[str, _Pending],
    emit: Callable[..., None],
    expected: ExpectedCache,
) -> Callable[[], ProtocolCase | None]:
    def build() -> ProtocolCase | None:
        try:
            filled = fill_expected(expected, loaded, data)
            rows = case_rows(filled, data)
        except NdcgSpecError as error:
            emit(loaded, Verdict("skip"), f"input unreadable: {error}")
            return None
        pending[filled.case.id] = _Pending(
            filled, summed_terms(rows["qrels"], rows["run"], filled.case.config)
        )
        return stripped_case(filled, rows)

    return build
