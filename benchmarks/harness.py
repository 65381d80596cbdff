"""The harness's cost: the full suite against the reference adapter, called in-process and
through the JSON-lines protocol, with the protocol's overhead ratio.

    python benchmarks/harness.py [-j N]

In-process means the benchmark calls the adapter's `compute` and judges each answer itself,
in N processes with no protocol; through the protocol means `ndcgspec run reference -j N`.
Targets on the 2-core machine: the full suite in-process in at most 30 s, overhead at most 1.2x.
Wall time depends on what else the machine runs, so CPU seconds (this process and its children)
are printed too; their ratio is the overhead that does not depend on the load.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from ndcgspec.harness.adapters.base import CaseInput, Values
from ndcgspec.harness.adapters.reference import ReferenceAdapter
from ndcgspec.harness.answer import CaseAnswer
from ndcgspec.harness.execution import Execution, execute
from ndcgspec.harness.host import values_answer
from ndcgspec.harness.outcome import Expectation, judge, partial_comparison, summed_terms
from ndcgspec.harness.pool import PoolOptions
from ndcgspec.harness.runner import case_rows, fixed_cases, load_cases
from ndcgspec.harness.worker import adapter_command
from ndcgspec.suite.folders import data_root
from ndcgspec.suite.loaded import LoadedCase

# Filled in the parent before the worker processes fork, which inherit them ready-made, as the
# protocol's workers start with the cases already parsed by the harness.
_SUITE: list[LoadedCase] = []
_ADAPTER: list[ReferenceAdapter] = [ReferenceAdapter()]


def judged_in_process(index: int) -> str:
    """The outcome of the suite's case `index`, the reference adapter called directly."""
    loaded, adapter = _SUITE[index], _ADAPTER[0]
    rows = case_rows(loaded, data_root())
    case_input = CaseInput([tuple(r) for r in rows["qrels"]], [tuple(r) for r in rows["run"]])
    try:
        values: Values = adapter.compute(case_input, loaded.case.config.to_mapping())
        answer = values_answer(values)
    except Exception as error:
        answer = CaseAnswer(rejected=str(error))
    terms = summed_terms(rows["qrels"], rows["run"], loaded.case.config)
    return judge(
        Expectation.of_case(loaded.case),
        answer,
        terms,
        64,
        partial=partial_comparison(loaded.case),
    ).outcome


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def in_process(cases: list[LoadedCase], jobs: int) -> tuple[float, float, Counter[str]]:
    """Wall and CPU seconds and outcomes, adapter called directly in `jobs` processes."""
    _SUITE[:] = cases
    start, cpu = time.perf_counter(), cpu_seconds()
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as workers:
        outcomes = Counter(workers.map(judged_in_process, range(len(cases)), chunksize=8))
    return time.perf_counter() - start, cpu_seconds() - cpu, outcomes


def through_protocol(cases: list[LoadedCase], jobs: int) -> tuple[float, float, Counter[str]]:
    """Wall and CPU seconds and outcomes of ``ndcgspec run reference -j jobs``."""
    start, cpu = time.perf_counter(), cpu_seconds()
    report = execute(
        Execution(
            fixed_cases(cases),
            adapter_command("reference", None),
            PoolOptions(jobs=jobs),
        )
    )
    outcomes = Counter(r["outcome"] for r in report.results)
    return time.perf_counter() - start, cpu_seconds() - cpu, outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", "--jobs", type=int, default=2)
    jobs = parser.parse_args().jobs
    cases = [c for c in load_cases() if not c.unavailable]
    print(f"{len(cases)} cases, {jobs} processes")
    wall, cpu, outcomes = in_process(cases, jobs)
    print(f"in-process:           {wall:7.2f} s wall {cpu:7.2f} s CPU  {dict(outcomes)}")
    wall_p, cpu_p, outcomes_p = through_protocol(cases, jobs)
    print(f"through the protocol: {wall_p:7.2f} s wall {cpu_p:7.2f} s CPU  {dict(outcomes_p)}")
    print(f"protocol overhead:    {wall_p / wall:7.2f}x wall {cpu_p / cpu:7.2f}x CPU")


if __name__ == "__main__":
    main()
