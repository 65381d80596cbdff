"""The pytest plugin: every golden case the adapter supports becomes a test item.

    pytest --ndcgspec-adapter=mypkg.ndcg_adapter:adapter --ndcgspec-preset trec_eval

Items are named by case id: every case the adapter is judged on (``harness/plan.py``:
the bundled inputs under its native configuration, or under ``--ndcgspec-preset`` and
``--ndcgspec-measure``, and the stored cases it declares it supports). The adapter runs in
child processes as with ``ndcgspec run``; the cases are all sent on the first item and each
item then reports its own outcome. A failure
shows the configuration, the input in brief, expected against actual values, and the
reference's per-rank trace of each query that misses.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _pytest._code.code import TerminalRepr

from ndcgspec.harness.departures import declared_departures
from ndcgspec.harness.diagnosis import Diagnose, Diagnosed, diagnosis_lines
from ndcgspec.harness.execution import Execution, checked_pool_options, execute
from ndcgspec.harness.plan import Selection
from ndcgspec.harness.pool import PoolOptions, declared_adapter
from ndcgspec.harness.report import nothing_ran, tally
from ndcgspec.harness.runner import fixed_cases, load_cases
from ndcgspec.harness.trace import reference_trace
from ndcgspec.harness.worker import adapter_command
from ndcgspec.reference import NdcgSpecError
from ndcgspec.suite.expected_values import ExpectedValues
from ndcgspec.suite.loaded import LoadedCase
from ndcgspec.suite.result import CaseResult

BRIEF_ROWS = 6
_ANSWERS = pytest.StashKey[dict[str, CaseResult]]()
_DIAGNOSED = pytest.StashKey[Diagnosed | None]()


class DiagnosisHook:
    """The hook by which another plugin hands the harness a diagnosis of the failures: the
    harness may not import the survey, whose diagnosis ``commands/pytest_diagnosis.py`` gives."""

    @pytest.hookspec(firstresult=True)
    def pytest_ndcgspec_diagnose(self) -> Diagnose | None:
        """The function that diagnoses the failing cases (``harness/diagnosis.py``)."""


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Declare `DiagnosisHook`."""
    pluginmanager.add_hookspecs(DiagnosisHook)


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--ndcgspec-*`` options."""
    group = parser.getgroup("ndcgspec", "nDCG conformance cases")
    group.addoption("--ndcgspec-adapter", metavar="ADAPTER", help="built-in name or module:object")
    group.addoption("--ndcgspec-exec", metavar="COMMAND", help="a protocol adapter's command line")
    group.addoption(
        "--ndcgspec-preset", action="append", default=[], help="only this preset's cases"
    )
    group.addoption(
        "--ndcgspec-measure", action="append", default=[], help="only this measure's cases"
    )
    group.addoption("--ndcgspec-cases", metavar="GLOB", help="case files matching GLOB")
    group.addoption(
        "--ndcgspec-suite", type=Path, help="a folder of case files instead of the suite"
    )
    group.addoption("--ndcgspec-data", type=Path, help="the data root of published cases")
    group.addoption("--ndcgspec-timeout", type=float, default=60.0, help="seconds per case")
    group.addoption("--ndcgspec-jobs", type=int, default=1, help="adapter processes in parallel")


def _enabled(config: pytest.Config) -> bool:
    return bool(config.getoption("ndcgspec_adapter") or config.getoption("ndcgspec_exec"))


class CaseMismatch(Exception):
    """A case that failed or errored; carries its result."""

    def __init__(self, record: CaseResult) -> None:
        super().__init__(record.message or record.outcome)
        self.record = record


class ConformanceSuite(pytest.Collector):
    """The collector that owns the case items."""

    def collect(self) -> list[pytest.Item]:
        return []


class CaseItem(pytest.Item):
    """One golden case, run against the adapter."""

    def __init__(self, *, loaded: LoadedCase, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.loaded = loaded

    def runtest(self) -> None:
        record = _answers(self.session)[self.loaded.case.id]
        if record.outcome == "skip":
            pytest.skip(record.reason or "skipped")
        declared = record.declared_departure
        if declared:
            pytest.xfail(f"declared departure of preset {declared.preset}: {declared.behaviour}")
        if record.outcome != "pass":
            raise CaseMismatch(record)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, CaseMismatch):
            data = self.config.getoption("ndcgspec_data")
            return explain_failure(self.loaded, excinfo.value.record, data)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.loaded.path, None, f"ndcgspec case {self.loaded.case.id}"


def _command(config: pytest.Config) -> list[str] | str:
    return adapter_command(config.getoption("ndcgspec_adapter"), config.getoption("ndcgspec_exec"))


def _options(config: pytest.Config) -> PoolOptions:
    return checked_pool_options(
        config.getoption("ndcgspec_jobs"),
        config.getoption("ndcgspec_timeout"),
        PoolOptions.max_output_bytes / 2**20,
        False,
        ("--ndcgspec-jobs", "--ndcgspec-timeout", "the output cap"),
    )


def _answers(session: pytest.Session) -> dict[str, CaseResult]:
    config = session.config
    if _ANSWERS not in config.stash:
        cases = [item.loaded for item in session.items if isinstance(item, CaseItem)]
        report = execute(
            Execution(
                fixed_cases(cases),
                _command(config),
                _options(config),
                data=config.getoption("ndcgspec_data"),
                diagnose=config.hook.pytest_ndcgspec_diagnose(),
                departures=declared_departures(config.getoption("ndcgspec_adapter")),
            )
        )
        config.stash[_ANSWERS] = {r.id: r for r in report.results}
        config.stash[_DIAGNOSED] = Diagnosed.from_footer(report.footer)
    return config.stash[_ANSWERS]


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Append an item for every case the adapter is judged on (``harness/plan.py``)
    that it declares it supports; a usage error when there is none."""
    if not _enabled(config):
        return
    try:
        selection = Selection(
            load_cases(
                config.getoption("ndcgspec_cases"),
                config.getoption("ndcgspec_suite"),
                config.getoption("ndcgspec_data"),
            ),
            config.getoption("ndcgspec_preset"),
            config.getoption("ndcgspec_measure"),
        )
        adapter = declared_adapter(_command(config), _options(config))
        cases = selection.cases_for(adapter)
    except NdcgSpecError as error:
        raise pytest.UsageError(f"ndcgspec: {error}") from None
    supported = [
        c
        for c in cases
        if adapter.unsupported_reason(c.case.config) is None
        and adapter.unseen_reason(c.case) is None
    ]
    if not supported:
        raise pytest.UsageError(
            f"ndcgspec: no case ran: the adapter supports none of the {len(cases)} selected"
        )
    suite = ConformanceSuite.from_parent(session, name="ndcgspec", nodeid="ndcgspec")
    items += [CaseItem.from_parent(suite, name=c.case.id, loaded=c) for c in supported]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail a session whose conformance cases all skipped: a check that checked nothing has
    failed."""
    answers = session.config.stash.get(_ANSWERS, None)
    why = None if answers is None else nothing_ran(tally(answers.values()))
    if why and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"ndcgspec: {why}", red=True)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> Iterator[None]:
    """The diagnosis of the failures, before pytest lists them."""
    lines = diagnosis_lines(terminalreporter.config.stash.get(_DIAGNOSED, None))
    if lines:
        terminalreporter.write_sep("=", "ndcgspec diagnosis")
        for line in lines:
            terminalreporter.write_line(line)
    return (yield)


def _brief(rows: list[list[str]]) -> str:
    shown = ["  " + " ".join(r) for r in rows[:BRIEF_ROWS]]
    if len(rows) > BRIEF_ROWS:
        shown.append(f"  ... {len(rows) - BRIEF_ROWS} more rows")
    return "\n".join(shown) or "  (none)"


def _plain(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def explain_failure(loaded: LoadedCase, record: CaseResult, data: Path | None) -> str:
    """The readable account of a failed or errored case, published files read below `data`."""
    case = loaded.case
    lines = [
        f"case {case.id} ({loaded.path.name}): {case.description}",
        f"outcome: {record.outcome}: {record.message or ''}",
        f"measure: {case.config.canonical()}",
        "config: " + ", ".join(f"{k}={_plain(v)}" for k, v in case.config.to_mapping().items()),
    ]
    if case.input is not None:
        lines += ["qrels:", _brief(case.input.qrels), "run:", _brief(case.input.run)]
    elif case.input_files is not None:
        files = (case.input_files.qrels, case.input_files.run)
        lines.append("input files: " + ", ".join(f.path for f in files))
    mismatches = record.mismatches
    if mismatches:
        lines.append("expected vs actual:")
        for m in mismatches:
            extra = "".join(
                f"  {name}={m[name]}"
                for name in ("abs_error", "rel_error", "ulps", "tolerance")
                if name in m
            )
            if m["expected"] is None and m["actual"] is None:
                lines.append(f"  {m['what']}: {m.get('note', '')}")
                continue
            note = f"  ({m['note']})" if "note" in m else ""
            lines.append(
                f"  {m['what']}: expected {_plain(m['expected'])}  actual {_plain(m['actual'])}"
                f"{extra}{note}"
            )
    if record.detail:
        lines += ["adapter said:", record.detail]
    queries = [m["what"] for m in mismatches if m["what"] not in ("aggregate", "result")]
    if queries or record.outcome == "error":
        lines.append("reference trace:")
        expected = case.expected or ExpectedValues()
        lines += reference_trace(loaded, queries or list(expected.per_query or {}), data)
    return "\n".join(lines)
