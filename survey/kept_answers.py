"""A built-in adapter's answers to probes, kept between runs: identify, the preset checks and
predict ask a library thousands of questions whose answers depend on the library's code and
the adapter's alone (issue 41: identify "caches a library's answers by version").

A built-in adapter's code ships with ndcgspec, so its answers are keyed by what decides them:
the adapter's declaration (name, library version, number format, capabilities), the harness's
own code (every module of ``ndcgspec.harness``, the adapters among them), every distribution
installed beside it with its version (a library's providers and numerical dependencies), and
the interpreter. A change to any of them reads none of the old answers. A user's adapter may
change without a new version, so its answers are always asked. An exception the library
raises is its answer to the input, kept as a value is, and so is a crash its own code causes
on an input sent alone (a segfault: `Answer.crashed_by_its_code`); a process that hung, was
killed from outside or was not sent the question depends on the machine's load as much as on
the code, and is never kept.

The declaration itself is decided by the same code and versions, and is kept under them
(`declaration`): an adapter whose every answer is kept is then never started, which for a
library that takes seconds to import is most of a warm identify.
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
import threading
from collections.abc import Sequence
from functools import cache
from importlib import metadata
from pathlib import Path

from ndcgspec.harness.adapters.declaration import Declaration
from ndcgspec.harness.pool import PoolOptions, declared_adapter
from ndcgspec.harness.registry import BUILTIN_ADAPTERS
from ndcgspec.harness.worker import python_host_command
from ndcgspec.spec import cache_root, kept
from ndcgspec.suite.json_lines import append_line, digest_packages, json_lines
from ndcgspec.survey.adapter_answer import Answer

KeptQuestion = tuple[str, str, str]
"""What an answer is kept under: the case id, the digest of the qrels and run rows (the one the
expected values are kept under) and the full configuration string asked."""


def builtin_name(command: Sequence[str] | str) -> str | None:
    """The built-in Python adapter that `command` serves, if it serves one."""
    if isinstance(command, str):
        return None
    return next(
        (name for name in BUILTIN_ADAPTERS if list(command) == python_host_command(name)), None
    )


@cache
def _harness_digest() -> str:
    """A digest of every module of the harness: the adapters, the host and how an answer is
    read."""
    digest = hashlib.sha256()
    digest_packages(digest, ["ndcgspec.harness"], [".py"])
    return digest.hexdigest()


@cache
def _installed() -> str:
    """Every installed distribution with its version, and the interpreter."""
    found = sorted(
        f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata
    )
    return json.dumps([sys.version, platform.machine(), *found])


def _environment_key(name: str) -> str:
    """A digest of what decides a built-in adapter's declaration: its name, the harness's code
    and the installed distributions."""
    digest = hashlib.sha256("\0".join([name, _harness_digest(), _installed()]).encode("utf-8"))
    return digest.hexdigest()[:24]


def declaration(command: Sequence[str] | str, options: PoolOptions) -> Declaration:
    """The adapter's declaration (`declared_adapter`): a built-in adapter's as it declared
    itself before under the same code and versions, or, the first time and for any other
    adapter, from its start reply. An AdapterError when it does not start; a start that fails
    is never kept."""
    name = builtin_name(command)
    if name is None:
        return declared_adapter(command, options)
    key = _environment_key(name)
    return Declaration.from_json(
        kept("declarations", key, lambda: declared_adapter(command, options).to_json())
    )


def adapter_key(name: str, declaration: Declaration) -> str:
    """What a built-in adapter's answers are kept under: its name and declaration, the
    harness's code and the installed distributions."""
    sent = json.dumps(declaration.to_json(), sort_keys=True)
    return hashlib.sha256(f"{_environment_key(name)}\0{sent}".encode()).hexdigest()[:24]


def _question_key(question: KeptQuestion) -> str:
    return hashlib.sha256(json.dumps(question).encode("utf-8")).hexdigest()


class KeptAnswers:
    """The kept answers of one built-in adapter, in one JSON-lines file below the cache folder
    (none when caching is off): read once, then appended to, a line at a time, so that
    processes sharing the folder never interleave a line. Safe to share between threads."""

    def __init__(self, key: str, root: Path | None) -> None:
        self._path = None if root is None else root / "answers" / f"{key}.jsonl"
        self._known: dict[str, Answer] | None = None
        self._lock = threading.Lock()

    def answer(self, question: KeptQuestion) -> Answer | None:
        """The kept answer to `question`, if any."""
        with self._lock:
            return self._read().get(_question_key(question))

    def keep(self, question: KeptQuestion, answer: Answer) -> None:
        """Keep an answer whose process did not fail, or that its own code crashed (see the
        module's docstring)."""
        if answer.process_failed and not answer.crashed_by_its_code:
            return
        key = _question_key(question)
        with self._lock:
            self._read()[key] = answer
            append_line(self._path, {"question": key, "result": dict(answer.result)})

    def _read(self) -> dict[str, Answer]:
        if self._known is None:
            self._known = {}
            for entry in json_lines(self._path):
                try:
                    self._known[entry["question"]] = Answer(dict(entry["result"]))
                except (KeyError, TypeError):
                    continue
        return self._known


_KEPT: dict[str, KeptAnswers] = {}
_KEPT_LOCK = threading.Lock()


def kept_answers(name: str, declaration: Declaration) -> KeptAnswers:
    """The kept answers of the built-in adapter `name` as it declares itself now, one store
    per process and cache folder."""
    root, key = cache_root(), adapter_key(name, declaration)
    with _KEPT_LOCK:
        found = _KEPT.get(f"{key}@{root}")
        if found is None:
            found = _KEPT[f"{key}@{root}"] = KeptAnswers(key, root)
    return found
