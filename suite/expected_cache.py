"""Expected values computed by the exact reference, kept between runs: by input and
configuration fingerprint, under a digest of the definition, so that a changed spec, reference
or engine never reads an old value. The runner fills computed cases from it; identify, predict
and matrix take their probes' expected values from it."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import islice
from pathlib import Path

from ndcgspec.suite.expected_values import ExpectedValues, ValuesKey
from ndcgspec.suite.json_lines import digest_packages, settle, text_lines, write_behind


@cache
def definition_digest() -> str:
    """A digest of every file that decides an expected value: the spec, the reference, the
    engine and the expected-value rules of the suite. A cached value is keyed by it."""
    digest = hashlib.sha256()
    packages = ("ndcgspec.spec", "ndcgspec.reference", "ndcgspec.engine")
    digest_packages(digest, packages, (".py", ".yaml", ".json"))
    digest.update(Path(__file__).with_name("expect.py").read_bytes())
    return digest.hexdigest()[:16]


Entry = tuple[str, str, ExpectedValues]
"""A configuration's fingerprint, an input's key and its expected values."""

KEPT_TEXTS = 1 << 16
"""How many values' JSON texts an `ExpectedCache` keeps to write again."""


class ExpectedCache:
    """Expected objects by (fingerprint, input key): in memory for the process, and in one
    JSON-lines file per fingerprint below `root` (none when `root` is None) for later
    processes. Safe to share between threads: lookups and stores hold its lock, and a
    computation runs outside it."""

    def __init__(self, root: Path | None = None) -> None:
        self._folder = None if root is None else root / "expected" / definition_digest()
        self._values: dict[str, dict[str, ExpectedValues | _Unread]] = {}
        self._lock = threading.Lock()
        # Thousands of configurations give an input the same values: each is written as
        # JSON once.
        self._texts: dict[ValuesKey, str] = {}

    def value(
        self, fingerprint: str, key: str, compute: Callable[[], ExpectedValues]
    ) -> ExpectedValues:
        """The expected values of input `key` under the configuration `fingerprint`, kept or
        computed by `compute` (and then kept)."""
        with self._lock:
            kept = self._known(fingerprint).get(key)
            known = kept if not isinstance(kept, _Unread) else self._parsed(fingerprint, key, kept)
        if known is not None:
            return known
        computed = compute()
        with self._lock:
            self._keep(fingerprint, key, computed)
        return computed

    def mark(self) -> dict[str, int]:
        """How many entries each configuration holds now, for `kept_since`."""
        with self._lock:
            return {fingerprint: len(kept) for fingerprint, kept in self._values.items()}

    def kept_since(self, mark: Mapping[str, int]) -> list[Entry]:
        """The values kept (computed, or read and parsed) after `mark`: a configuration's
        entries are kept in order."""
        with self._lock:
            return [
                (fingerprint, key, values)
                for fingerprint, kept in self._values.items()
                for key, values in islice(kept.items(), mark.get(fingerprint, 0), None)
                if isinstance(values, ExpectedValues)
            ]

    def adopt(self, entries: Iterable[Entry]) -> None:
        """Keep the values another process computed (a forked copy, `survey/halves.py`), and
        write those not known here yet."""
        with self._lock:
            for fingerprint, key, values in entries:
                if key not in self._known(fingerprint):
                    self._keep(fingerprint, key, values)

    def _file(self, fingerprint: str) -> Path | None:
        return None if self._folder is None else self._folder / f"{fingerprint}.jsonl"

    def _known(self, fingerprint: str) -> dict[str, ExpectedValues | _Unread]:
        if fingerprint not in self._values:
            path = self._file(fingerprint)
            # Lines this process gave the writer behind are read with the others.
            settle(path)
            self._values[fingerprint] = _read_cache(path)
        return self._values[fingerprint]

    def _parsed(self, fingerprint: str, key: str, kept: _Unread) -> ExpectedValues | None:
        """The kept entry of input `key` read as values, once: a file holds every input's
        values under one configuration, and a search looks up few of them. None, and
        forgotten, when it cannot be read."""
        try:
            parsed = _values_of(kept.text)
        except (ValueError, KeyError, TypeError, AttributeError):
            del self._values[fingerprint][key]
            return None
        self._values[fingerprint][key] = parsed
        return parsed

    def _keep(self, fingerprint: str, key: str, expected: ExpectedValues) -> None:
        self._values[fingerprint][key] = expected
        same = expected.as_key()
        text = self._texts.get(same)
        if text is None:
            if len(self._texts) >= KEPT_TEXTS:
                self._texts.clear()
            text = self._texts[same] = json.dumps(expected.to_json())
        # The line `json.dumps({"input": key, "expected": ...})` would write.
        write_behind(self._file(fingerprint), f'{{"input": {json.dumps(key)}, "expected": {text}}}')


# Thousands of configurations give an input the same values (trectools' identify reads 94,803
# kept entries of 6,173 texts): each text is parsed once. lru_cache serialises its own
# bookkeeping, and no reader changes the values it is given.
@lru_cache(maxsize=1 << 15)
def _values_of(text: str) -> ExpectedValues:
    return ExpectedValues.from_json(json.loads(text))


@dataclass(frozen=True)
class _Unread:
    """A kept entry not yet read as values: the JSON text of its expected values."""

    text: str


_INPUT = '{"input": "'
_EXPECTED = '", "expected": '


def _read_cache(path: Path | None) -> dict[str, ExpectedValues | _Unread]:
    """The cached entries of one fingerprint, by input key, each read as values only when it
    is looked up (`ExpectedCache._parsed`). A line as `write_behind` writes it gives its key
    without being parsed: a search reads thousands of these files for a few of their entries."""
    found: dict[str, ExpectedValues | _Unread] = {}
    for line in text_lines(path):
        end = line.find(_EXPECTED, len(_INPUT))
        key = line[len(_INPUT) : end]
        if line.startswith(_INPUT) and end > 0 and '"' not in key and "\\" not in key:
            found[key] = _Unread(line[end + len(_EXPECTED) : -1])
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("input"), str):
            expected = entry.get("expected")
            if isinstance(expected, dict):
                found[entry["input"]] = _Unread(json.dumps(expected))
    return found
