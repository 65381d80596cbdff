"""What ``score`` adds to its scores when asked: the bootstrap interval of each mean
(``--ci``), judged@k (``-m judged@K``, ``--judged``) and, in JSON, the provenance of every
result (`analysis.provenance`)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ndcgspec.analysis.judged import judged_at, judged_cutoff
from ndcgspec.analysis.provenance import Provenance, input_digest, provenance
from ndcgspec.commands.score_notes import rounded
from ndcgspec.commands.score_output import UNDEFINED, text_lines
from ndcgspec.commands.significance import StatedInterval, bootstrap, exact_string
from ndcgspec.inference.bootstrap import Interval
from ndcgspec.reference.config import Config
from ndcgspec.reference.result import Result
from ndcgspec.reference.trec_io import Source, read_qrels, read_run


def judged_measures(
    asked: Sequence[tuple[str | None, Callable[[], Config]]],
) -> list[tuple[str, int]]:
    """(measure as written, k) of every ``judged@k`` among the ``-m`` measures."""
    return [(w, k) for w, _ in asked if w and (k := judged_cutoff(w))]


def interval_of(result: Result, args: argparse.Namespace) -> Interval | str | None:
    """The bootstrap interval of the result's mean over the queries with a value when
    ``--ci`` asks for one (None when not), or why there is none."""
    if args.ci is None:
        return None
    values = [v for v in result.per_query.values() if v is not None]
    return bootstrap(values, args.ci, args.ci_method, args.bootstrap, args.seed)


def _shown(value: str | None, digits: int | None) -> str:
    return rounded(None if value is None else Decimal(value), digits) or UNDEFINED


def judged_lines(
    shares: dict[str, Fraction], mean: Fraction | None, written: str, args: argparse.Namespace
) -> list[str]:
    """judged@k in the output format: per query and ``all``."""
    as_text = {q: exact_string(v) for q, v in shares.items()}
    total = None if mean is None else exact_string(mean)
    if args.format == "json":
        return [json.dumps({"measure": written, "aggregate": total, "per_query": as_text})]
    rows: list[tuple[str, str | None]] = list(as_text.items()) if args.per_query else []
    rows.append(("all", total))
    return [f"{written}\t{q}\t{_shown(v, args.digits)}" for q, v in rows]


@dataclass(frozen=True)
class ResultStatistics:
    """What one result gains in JSON: its provenance and, when asked, its interval."""

    provenance: Provenance
    interval: StatedInterval | None

    def to_json(self) -> dict[str, Any]:
        """The keys the result's JSON object gains."""
        more = {"provenance": self.provenance.to_json()}
        return more if self.interval is None else more | self.interval.to_json()


@dataclass(frozen=True)
class ScoreStatistics:
    """The intervals of the results, what each gains in JSON, and the judged@k lines printed
    after the results."""

    args: argparse.Namespace
    intervals: list[Interval | str | None]
    json_extra: list[ResultStatistics]
    judged: list[str]
    notes: list[str]

    @classmethod
    def of(
        cls,
        args: argparse.Namespace,
        qrels: str | Source,
        run: str | Source,
        configs: Sequence[Config],
        scores: Sequence[Result],
        judged: Sequence[tuple[str, int]],
    ) -> ScoreStatistics:
        """Computed while `qrels` and `run` are still open."""
        lines = []
        if judged:
            judgments, postings = read_qrels(qrels), read_run(run)
            for written, k in dict.fromkeys(judged):
                shares, mean = judged_at(judgments, postings, k)
                lines += judged_lines(shares, mean, written, args)
        intervals = [interval_of(result, args) for result in scores]
        notes = [
            f"ndcgspec: note: no bootstrap interval of {result.measure}: {interval}"
            for result, interval in zip(scores, intervals, strict=True)
            if isinstance(interval, str)
        ]
        extra = []
        if args.format == "json":
            inputs = {"qrels": input_digest(qrels), "run": input_digest(run)}
            for config, interval in zip(configs, intervals, strict=True):
                stated = None
                if interval is not None:
                    stated = StatedInterval(interval, args.ci, args.ci_method)
                extra.append(ResultStatistics(provenance(inputs, [config]), stated))
        return cls(args, intervals, extra, lines, notes)

    def json_lines(self, scores: Sequence[Result]) -> list[str]:
        """The JSON Lines format: one result object per line, each with what it gains."""
        return [
            json.dumps({**result.to_json(), **more.to_json()})
            for result, more in zip(scores, self.json_extra, strict=True)
        ]

    def text(self, scores: Sequence[Result]) -> list[str]:
        """The text format: each result's lines, then its interval's ``ci_low`` and
        ``ci_high``."""
        lines = []
        for result, interval in zip(scores, self.intervals, strict=True):
            lines += text_lines([result], self.args.per_query, self.args.digits)
            if isinstance(interval, Interval):
                lines += [
                    f"{result.measure}\t{end}\t{_shown(exact_string(value), self.args.digits)}"
                    for end, value in (("ci_low", interval.low), ("ci_high", interval.high))
                ]
            elif interval is not None:
                lines += [f"{result.measure}\t{end}\t{UNDEFINED}" for end in ("ci_low", "ci_high")]
        return lines
