"""Deliberately wrong adapters, to show that the harness reports each fault as it should.

In-process fakes are ``fakes:<name>`` (the tests folder is on PYTHONPATH). Most are the
reference with one convention swapped for a common mistake; the faulty ones behave like the
reference except on a case whose run is empty, where they crash, hang or raise. Protocol
fakes, which break the protocol itself on such a case, run as ``python -m fakes <name>``.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

import numpy as np

from ndcgspec import trec_adapter
from ndcgspec.harness.adapters.base import CaseInput, PerQuery, Rejected, Values, scored_queries
from ndcgspec.harness.adapters.reference import ReferenceAdapter
from ndcgspec.harness.host import answer, protocol_streams
from ndcgspec.harness.protocol import decode, encode

Config = dict[str, Any]


class _Mutated(ReferenceAdapter):
    """The reference, computing a changed configuration."""

    def __init__(self, name: str, change: Callable[[Config], Config]) -> None:
        super().__init__()
        self.name = name
        self._change = change

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> Values:
        return super().compute(case_input, self._change(dict(config)))


def _linear_for_exponential(config: Config) -> Config:
    if config["gain"] == "exponential":
        config["gain"] = "linear"
    return config


def _discount_one_rank_late(config: Config) -> Config:
    if config["discount"] == "log":
        config["log_offset"] = str(Decimal(config["log_offset"]) + 1)
    return config


def _ties_reversed(config: Config) -> Config:
    config["ties"] = {"docid-desc": "docid-asc", "docid-asc": "docid-desc"}.get(
        config["ties"], config["ties"]
    )
    return config


def _ideal_from_retrieved(config: Config) -> Config:
    config["ideal"] = "retrieved"
    return config


def _depth_1000(config: Config) -> Config:
    # trectools' get_ndcg(depth=1000): a cutoff of its own when none is asked.
    if config["cutoff"] is None:
        config["cutoff"] = 1000
    return config


def _depth_10(config: Config) -> Config:
    # pyltr's NDCG(k=10): a cutoff of its own when none is asked.
    if config["cutoff"] is None:
        config["cutoff"] = 10
    return config


linear_gain = _Mutated("fake-linear-gain", _linear_for_exponential)
depth_1000 = _Mutated("fake-depth-1000", _depth_1000)
depth_10 = _Mutated("fake-depth-10", _depth_10)
discount_off_by_one = _Mutated("fake-discount-off-by-one", _discount_one_rank_late)
ties_reversed = _Mutated("fake-ties-reversed", _ties_reversed)
ideal_retrieved = _Mutated("fake-ideal-retrieved", _ideal_from_retrieved)


def _numpy_user_ndcg(
    qrels: dict[str, dict[str, float]],
    run: dict[str, dict[str, float]],
    k: int | None,
    ideal_from_retrieved: bool,
) -> dict[str, float]:
    """nDCG as a user writes it with numpy, from the README alone: linear gain, 1/log2(i + 1),
    documents ranked by ``np.argsort(-scores)`` (its tie order is numpy's, not a rule of the
    spec), every label kept as it is in the DCG and in the ideal (negative ones too, which is
    ``negative=keep-in-ideal``), the ideal from every judged label of the query or, with
    `ideal_from_retrieved`, from the labels of the retrieved documents only; 0 when the ideal
    DCG is not positive."""
    found = {}
    for qid, judged in qrels.items():
        ranking = run.get(qid, {})
        labels = np.array([judged.get(d, 0) for d in ranking], dtype=np.float64)
        scores = np.array(list(ranking.values()), dtype=np.float64)
        ranked = labels[np.argsort(-scores)][: len(labels) if k is None else k]
        pool = labels if ideal_from_retrieved else np.array(list(judged.values()), dtype=float)
        ideal = np.sort(pool)[::-1][: len(pool) if k is None else k]
        dcg = float(np.sum(ranked / np.log2(np.arange(2, len(ranked) + 2))))
        idcg = float(np.sum(ideal / np.log2(np.arange(2, len(ideal) + 2))))
        found[qid] = dcg / idcg if idcg > 0 else 0.0
    return found


# The two adapters of the issue "Validation that explains itself", written with the public
# SDK: each declares the spec's defaults, which it does not compute.
numpy_user = trec_adapter(
    lambda qrels, run, k: _numpy_user_ndcg(qrels, run, k, ideal_from_retrieved=False),
    name="fake-numpy-user",
    version="1",
)
numpy_user_retrieved_ideal = trec_adapter(
    lambda qrels, run, k: _numpy_user_ndcg(qrels, run, k, ideal_from_retrieved=True),
    name="fake-numpy-user-retrieved-ideal",
    version="1",
)


class _ScoresRead(ReferenceAdapter):
    """The reference, on scores read through a lossy number reader."""

    def __init__(self, name: str, read: Callable[[str], float]) -> None:
        super().__init__()
        self.name = name
        self._read = read

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> Values:
        run = [(q, d, repr(self._read(s))) for q, d, s in case_input.run]
        return super().compute(CaseInput(case_input.qrels, run), config)


# Scores stored as float32, as torchmetrics and trec_eval's `float sim` do.
scores_in_float32 = _ScoresRead("fake-scores-in-float32", lambda s: float(np.float32(s)))
# Scores read to 15 significant digits: adjacent doubles become one score, coarser gaps do not.
scores_to_15_digits = _ScoresRead("fake-scores-to-15-digits", lambda s: float(f"{float(s):.15g}"))


class _AlwaysZero(ReferenceAdapter):
    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> PerQuery:
        return dict.fromkeys(scored_queries(case_input, config["aggregate"]), 0.0)


always_zero = _AlwaysZero()
always_zero.name = "fake-always-zero"

# A correct implementation of one convention only: exponential gain, every other axis default.
exponential_only = ReferenceAdapter()
exponential_only.name = "fake-exponential-only"
exponential_only.capabilities = {"gain": ["exponential"]}


class _Float32(ReferenceAdapter):
    """Standard nDCG (the spec's defaults, linear or exponential gain) in float32."""

    def __init__(self, declared_width: int) -> None:
        super().__init__()
        self.name = "fake-float32"
        self.float_width = declared_width
        self.capabilities = {"gain": ["linear", "exponential"]}
        self.params = {"log_base": ["2"], "log_offset": ["1"]}

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> PerQuery:
        labels, rankings = case_input.labels(), case_input.rankings()
        out = {}
        for qid in scored_queries(case_input, config["aggregate"]):
            ranking = rankings.get(qid, [])
            if len({d for d, _ in ranking}) < len(ranking):
                raise Rejected(f"duplicate document in the run of {qid}")
            by_id = sorted(ranking, key=lambda p: p[0].encode(), reverse=True)
            ordered = sorted(by_id, key=lambda p: p[1], reverse=True)
            judged = labels.get(qid, {})
            dcg = self._dcg([self._gain(judged.get(d, Decimal(0)), config) for d, _ in ordered])
            ideal = sorted((self._gain(v, config) for v in judged.values()), reverse=True)
            idcg = self._dcg([g for g in ideal if g > 0])
            out[qid] = float(dcg / idcg) if idcg > 0 else 0.0
        return out

    @staticmethod
    def _gain(label: Decimal, config: Mapping[str, Any]) -> np.float32:
        value = np.float32(float(max(label, Decimal(0))))
        return np.float32(2) ** value - np.float32(1) if config["gain"] == "exponential" else value

    @staticmethod
    def _dcg(gains: list[np.float32]) -> np.float32:
        total = np.float32(0)
        for index, gain in enumerate(gains):
            total = np.float32(total + gain / np.log2(np.float32(index + 2)))
        return total


float32_as32 = _Float32(32)
float32_as64 = _Float32(64)


def _empty_run(case_input: CaseInput) -> bool:
    return not case_input.run


class _Faulty(ReferenceAdapter):
    """The reference, except that `fault` happens on a case whose run is empty."""

    def __init__(self, name: str, fault: Callable[[], None]) -> None:
        super().__init__()
        self.name = name
        self._fault = fault

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> Values:
        if _empty_run(case_input):
            self._fault()
        return super().compute(case_input, config)


def _loop_forever() -> None:
    while True:
        pass


def _raise() -> None:
    raise RuntimeError("fake failure on an empty run")


segfault = _Faulty("fake-segfault", lambda: os.kill(os.getpid(), signal.SIGSEGV))
abort = _Faulty("fake-abort", os.abort)
infinite_loop = _Faulty("fake-infinite-loop", _loop_forever)
raises = _Faulty("fake-raises", _raise)

HUGE_BYTES = 100 * 2**20


def _malformed(reply: dict[str, Any]) -> bytes:
    return b'{"seq": ' + str(reply["seq"]).encode() + b', "results": [\n'


def _wrong_seq(reply: dict[str, Any]) -> bytes:
    return encode({**reply, "seq": reply["seq"] + 1})


def _huge(reply: dict[str, Any]) -> bytes:
    return b'{"padding": "' + b"x" * HUGE_BYTES + b'"}\n'


PROTOCOL_FAKES: dict[str, Callable[[dict[str, Any]], bytes]] = {
    "malformed_json": _malformed,
    "wrong_seq": _wrong_seq,
    "huge_output": _huge,
}


def serve_broken(name: str) -> int:
    """Serve the reference, breaking the protocol as `name` says on a batch holding a case
    whose run is empty."""
    source, sink = protocol_streams()
    adapter = ReferenceAdapter()
    adapter.name = f"fake-{name}"
    for line in source:
        message = decode(line)
        reply = answer(adapter, line)
        if reply is None:
            return 0
        broken = message.get("cmd") == "run" and any(
            not c["input"]["run"] for c in message["cases"]
        )
        sink.write(PROTOCOL_FAKES[name](decode(reply)) if broken else reply)
        sink.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve_broken(sys.argv[1]))


def _as_number(docid: str) -> str:
    """A document id as a reader that parses the column as numbers writes it back."""
    for parse in (int, float):
        try:
            return str(parse(docid))
        except ValueError:
            continue
    return docid


class _RunIdsAsNumbers(ReferenceAdapter):
    """The reference, on a run whose document ids were parsed as numbers (0010 becomes 10,
    1e5 100000.0), the qrels' kept as text."""

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> Values:
        run = [(q, _as_number(d), s) for q, d, s in case_input.run]
        return super().compute(CaseInput(case_input.qrels, run), config)


run_ids_as_numbers = _RunIdsAsNumbers()


class _DepthOfRows(ReferenceAdapter):
    """The reference, cutting the whole ranking at the input's number of rows: a cutoff that
    changes with the input, which no single value explains. With `ideal`, computing that
    ideal whatever it is asked, and declaring none of the spec's other choices: a library
    whose ideal assumes k relevant documents and which requires k."""

    def __init__(self, ideal: str | None = None) -> None:
        super().__init__()
        self._ideal = {} if ideal is None else {"ideal": ideal}
        if ideal is not None:
            self.name = f"fake-{ideal}-of-rows"
            self.capabilities = {}

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> Values:
        rows = len(case_input.qrels) + len(case_input.run)
        cutoff = config["cutoff"] or rows
        return super().compute(case_input, {**config, "cutoff": cutoff, **self._ideal})


depth_of_rows = _DepthOfRows()
assumed_k_of_rows = _DepthOfRows("assumed-k")


def _judged_for_binary(config: Config) -> Config:
    # A library whose own name for its gain, "binary", computes the spec's judged gain (every
    # judged document gains 1), and that knows no other name: asked for "judged" it fails.
    if config["gain"] != "binary":
        raise KeyError(config["gain"])
    config["gain"] = "judged"
    return config


judged_named_binary = _Mutated("fake-judged-named-binary", _judged_for_binary)
judged_named_binary.capabilities = {"gain": ["binary"]}


class _Process(ReferenceAdapter):
    """Answers every query with the id of the process that computes it. A process's first
    answer takes half a second, as a library's first call does (a JVM, kernels compiled):
    meanwhile the pool's other job takes a batch of its own, where a fast first answer let
    one job take every batch on a loaded machine (CI once). Every later answer takes `pause`
    seconds."""

    def __init__(self, name: str, processes: int | None, pause: float = 0.0) -> None:
        super().__init__()
        self.name, self.processes, self.pause = name, processes, pause
        self.answered = False

    def compute(self, case_input: CaseInput, config: Mapping[str, Any]) -> PerQuery:
        time.sleep(self.pause if self.answered else 0.5)
        self.answered = True
        return dict.fromkeys(scored_queries(case_input, config["aggregate"]), float(os.getpid()))


# Its process ids: one process however many -j asks for, as a JVM's or a compiling library's.
process_ids_one_process = _Process("fake-process-ids-one-process", 1)
process_ids = _Process("fake-process-ids", None)
process_ids_slow = _Process("fake-process-ids-slow", 1, pause=0.3)
