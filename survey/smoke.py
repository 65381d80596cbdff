"""The smoke test (``ndcgspec smoke``): a handful of trivial cases, to tell a broken adapter
from a non-conforming library.

Every case uses the adapter's native configuration, the choice it declares first on each axis
(``harness/plan.py``). A perfect ranking scores 1 and an empty run 0
(or what the declared ``empty`` and ``aggregate`` choices make of it), whatever the conventions;
an adapter that misses these is wired wrongly, not merely unconventional.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ndcgspec.harness.adapters.declaration import Declaration, DeclarationError
from ndcgspec.harness.execution import Execution, Progress, execute
from ndcgspec.harness.pool import PoolOptions, declared_adapter
from ndcgspec.harness.report import Report
from ndcgspec.harness.runner import HarnessError, fixed_cases
from ndcgspec.reference import Config, ConfigError
from ndcgspec.suite.case import cite, computed_case
from ndcgspec.suite.loaded import LoadedCase
from ndcgspec.suite.result import CaseResult

Rows = list[list[str]]

TRIVIAL_INPUTS: list[tuple[str, str, Rows, Rows]] = [
    (
        "smoke/perfect-ranking",
        "graded documents in ideal order score 1",
        [["q1", "d1", "2"], ["q1", "d2", "1"], ["q1", "d3", "0"]],
        [["q1", "d1", "0.9"], ["q1", "d2", "0.8"], ["q1", "d3", "0.7"]],
    ),
    (
        "smoke/empty-run",
        "a judged query with no retrieved document",
        [["q1", "d1", "1"]],
        [],
    ),
    (
        "smoke/relevant-first",
        "the one relevant document at rank 1 scores 1",
        [["q1", "d1", "1"], ["q1", "d2", "0"]],
        [["q1", "d1", "2"], ["q1", "d2", "1"]],
    ),
    (
        "smoke/nothing-relevant-retrieved",
        "only a non-relevant document is retrieved",
        [["q1", "d1", "1"], ["q1", "d2", "0"]],
        [["q1", "d2", "1"]],
    ),
    (
        "smoke/two-queries",
        "one perfect query and one reversed",
        [["q1", "d1", "1"], ["q2", "d1", "0"], ["q2", "d2", "1"]],
        [["q1", "d1", "1"], ["q2", "d1", "2"], ["q2", "d2", "1"]],
    ),
]


def smoke_cases(config: Config) -> list[LoadedCase]:
    """The trivial cases under `config`, expected values from the reference."""
    cases = []
    for index, (case_id, description, qrels, run) in enumerate(TRIVIAL_INPUTS):
        case = computed_case(
            case_id=case_id,
            description=description,
            config=config,
            spec=[cite("ndcg.definition.ndcg")],
            sources=[],
            origin="hand",
            qrels=qrels,
            run=run,
        )
        cases.append(LoadedCase(Path("<smoke>"), "smoke", None, case, index, None))
    return cases


@dataclass(frozen=True)
class SmokeTest:
    """The trivial cases run on one adapter: its declaration, the native configuration they
    ran under, and the report."""

    adapter: Declaration
    config: Config
    report: Report

    @property
    def broken(self) -> list[CaseResult]:
        """The results that do not pass: any one means the adapter is wired wrongly."""
        return [r for r in self.report.results if r.outcome != "pass"]


def smoke_test(command: list[str] | str, options: PoolOptions, progress: bool = False) -> SmokeTest:
    """Run the trivial cases on the adapter of `command` under its native configuration; a
    HarnessError when it declares no configuration of the spec."""
    try:
        adapter = declared_adapter(command, options)
        config = adapter.native_config()
    except (DeclarationError, ConfigError) as error:
        raise HarnessError(f"broken adapter: {error}") from None
    report = execute(
        Execution(
            fixed_cases(smoke_cases(config)),
            command,
            options,
            selection={"smoke": config.canonical()},
            progress=Progress(progress),
        )
    )
    return SmokeTest(adapter, config, report)
