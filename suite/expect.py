"""What the reference answers for a case: its values, the error it raises, or, for a
deliberately open axis, every answer the open choices allow (``ndcg.precision``).

The golden cases are made and checked by the reference itself (`reference_outcome`,
`open_outcomes`); the analysis tools, which need expected values in bulk, take the same
answers from the fast engine (`outcome`: ``engine.memory``; `swept_outcome`:
``engine.sweep``), which gives the reference's digits and errors exactly and hands it
whatever it does not declare."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ndcgspec.engine.discounts import kept_weights
from ndcgspec.engine.memory import evaluate_inputs
from ndcgspec.engine.result_digits import ResultDigits
from ndcgspec.engine.scoring import score_files
from ndcgspec.engine.sweep import Sweep
from ndcgspec.reference import Config, InputError
from ndcgspec.reference.evaluate import evaluate
from ndcgspec.reference.inputs import Qrels, Run
from ndcgspec.suite.expected_values import ExpectedValues
from ndcgspec.suite.folders import data_root
from ndcgspec.suite.load import PublishedFiles, checked_file, file_inputs


def outcome(config: Config, qrels: Qrels, run: Run) -> ExpectedValues:
    """The expected values of a case, or the anchor of the choice that rejects its input,
    computed by the fast engine: `reference_outcome`'s answer."""
    return _expected(lambda: _of_digits(evaluate_inputs(config, qrels, run)))


def swept_outcome(sweep: Sweep, config: Config) -> ExpectedValues:
    """`outcome` of one of many configurations asked of one input, each per-query step shared
    between them (`engine.sweep`); the sweep declares `config`'s cutoff."""

    def values() -> ExpectedValues:
        found = sweep.scores(config, config.cutoff)
        if isinstance(found, InputError):
            raise found
        return ExpectedValues.from_result(found.per_query, found.mean)

    return _expected(values)


def reference_outcome(config: Config, qrels: Qrels, run: Run) -> ExpectedValues:
    """The expected object of a case as the plain reference computes it: what makes and
    checks the golden cases."""
    return _expected(
        lambda: _of_digits(
            ResultDigits.of(evaluate(config, qrels, run, weights=kept_weights(config)))
        )
    )


def published_outcome(config: Config, files: PublishedFiles, data: Path | None) -> ExpectedValues:
    """`outcome` of a published case's files under `config`: scored by the fast engine (the
    reference's digits, and input it declines handed to the reference); a run whose extra
    fields are ignored is read by the plain reference's reader."""
    if files.run.extra_fields_ignored:
        return outcome(config, *file_inputs(files, data or data_root()))
    qrels_path, run_path = checked_file(files.qrels, data), checked_file(files.run, data)

    def values() -> ExpectedValues:
        found = score_files([config], qrels_path, run_path)[0]
        return ExpectedValues.from_result(found["per_query"], found["aggregate"])

    return _expected(values)


def _of_digits(found: ResultDigits) -> ExpectedValues:
    return ExpectedValues.from_result(found.per_query, found.aggregate)


def _expected(values: Callable[[], ExpectedValues]) -> ExpectedValues:
    try:
        return values()
    except InputError as error:
        # Only a choice that rejects the input is an outcome; anything else is a broken case.
        if error.anchor is None:
            raise
        return ExpectedValues.rejected(error.anchor)


def open_outcomes(
    config: Config, axis_id: str, choices: list[str], qrels: Qrels, run: Run
) -> list[ExpectedValues]:
    """The distinct outcomes over the allowed choices of an open axis, in the order given."""
    found: list[ExpectedValues] = []
    for choice in choices:
        result = reference_outcome(config.replace(**{axis_id: choice}), qrels, run)
        if result not in found:
            found.append(result)
    return found
