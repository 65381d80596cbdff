"""The trec_eval program (10.0, built from the shared source by
``harness/adapters/peers/trec_eval_build.py``) as a built-in adapter (``ndcgspec run
trec_eval``).

The adapter writes the case's qrels and run as TREC files and runs the program on them, as its
users do: ``-q -m ndcg`` (whole ranking) or ``-q -m ndcg_cut.k``, ``-J`` for unjudged
documents condensed out and ``-c`` for the mean over every qrels query. trec_eval prints each
value with four decimals (``%6.4f``, meas_print_single.c), which the adapter declares. It reads
scores with atof into a C double (trec_format.h ``double sim``) and labels with atol. A
non-zero exit with a message is the program refusing the input; death by a signal is a crash.
"""

from __future__ import annotations

import signal
import subprocess
import tempfile
from pathlib import Path

from ndcgspec.harness.adapters.base import AdapterError, CaseInput, Rejected, Values
from ndcgspec.harness.adapters.peers.common import PeerAdapter, write_trec_files
from ndcgspec.harness.adapters.peers.trec_eval_build import trec_eval_program
from ndcgspec.reference import Config

ADAPTERS = {"trec_eval": "adapter"}
RUN_SECONDS = 300
PRINTED_DECIMALS = 4
SUMMARY = "all"


class TrecEvalCrash(Exception):
    """The trec_eval program died by a signal or did not finish in time."""


def program_version(program: Path) -> str:
    """What ``trec_eval -v`` says its version is (it prints ``trec_eval version X``)."""
    said = subprocess.run(
        [str(program), "-v"], capture_output=True, text=True, check=False, timeout=60
    )
    words = (said.stdout + said.stderr).split()
    if len(words) < 3 or words[:2] != ["trec_eval", "version"]:
        raise AdapterError(f"{program} -v does not say 'trec_eval version ...': {words[:6]}")
    return words[2]


def command_line(cutoff: int | None, unjudged: str, aggregate: str) -> tuple[list[str], str]:
    """trec_eval's arguments for a configuration's cutoff and its `unjudged` and `aggregate`
    choices, and the measure name its output carries."""
    measure = "ndcg" if cutoff is None else f"ndcg_cut.{cutoff}"
    flags = ["-q", "-m", measure]
    if unjudged == "condense":
        flags.append("-J")
    if aggregate == "qrels":
        flags.append("-c")
    return flags, measure.replace(".", "_")


def parse_output(text: str, measure: str) -> Values:
    """Per-query values and the summary of ``trec_eval -q`` output for one measure. The summary
    is the last line, whose query field is "all"; a query may itself be named "all", so the
    lines before it are all per-query. ``nan`` and ``-nan`` are undefined."""
    rows = [line.split("\t") for line in text.splitlines() if line.strip()]
    if not rows or any(len(r) != 3 or r[0].strip() != measure for r in rows):
        raise TrecEvalCrash(f"trec_eval printed no {measure} table: {text[:200]!r}")
    if rows[-1][1] != SUMMARY:
        raise TrecEvalCrash(f"trec_eval printed no summary line for {measure}")

    def number(field: str) -> float | None:
        value = float(field)
        return None if value != value else value

    per_query = {qid: number(value) for _, qid, value in rows[:-1]}
    return Values.with_aggregate(per_query, number(rows[-1][2]))


class TrecEvalAdapter(PeerAdapter):
    """``trec_eval -q -m ndcg[_cut.k] [-J] [-c] qrels run``."""

    def __init__(self) -> None:
        self.program = trec_eval_program()
        super().__init__(
            name="trec_eval",
            version=program_version(self.program),
            capabilities={
                "unjudged": ["zero", "condense"],
                "negative": ["unjudged"],
                "fractional": ["truncate"],
                "aggregate": ["run", "qrels"],
            },
            decimal_places=PRINTED_DECIMALS,
            language="c",
            library="trec_eval",
        )

    def ndcg(self, case_input: CaseInput, config: Config) -> Values:
        """The program's per-query values and its summary line."""
        flags, measure = command_line(
            config.cutoff, config.choice("unjudged"), config.choice("aggregate")
        )
        with tempfile.TemporaryDirectory(prefix="ndcgspec-trec_eval-") as folder:
            qrels, run = write_trec_files(case_input, Path(folder))
            try:
                done = subprocess.run(
                    [str(self.program), *flags, str(qrels), str(run)],
                    capture_output=True,
                    text=True,
                    check=False,
                    timeout=RUN_SECONDS,
                )
            except subprocess.TimeoutExpired:
                raise TrecEvalCrash(f"trec_eval did not finish in {RUN_SECONDS} s") from None
        if done.returncode < 0:
            raise TrecEvalCrash(f"trec_eval killed by {signal.Signals(-done.returncode).name}")
        if done.returncode != 0:
            said = done.stderr.replace(folder, "<folder>").strip().splitlines()
            raise Rejected(f"exit {done.returncode}: {' / '.join(said) or 'no message'}")
        return parse_output(done.stdout, measure)


adapter = TrecEvalAdapter
