"""Optional libraries in the tests: what an install hint must say, read from pyproject.toml
itself (each extra's requirements as written there), and the skips of tests that need a
library of an extra, which name it, so that the README's test command passes with the `test`
extra alone."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from importlib.util import find_spec

import pytest
from conftest import REPO_ROOT

PROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]


def names_extras(said: str, extras: Sequence[str]) -> bool:
    """Whether a message names `extras` and every requirement pyproject gives them."""
    wanted = [r for e in extras for r in EXTRAS[e]]
    named = re.search(r"ndcgspec's extras? " + re.escape(", ".join(extras)) + r"\b", said)
    return named is not None and all(w in said for w in wanted)


def needing(module: str, extra: str) -> pytest.MarkDecorator:
    """The mark of a test that skips without `module`, naming the `extra` that installs it."""
    return pytest.mark.skipif(
        find_spec(module) is None, reason=f"{module} is not installed (ndcgspec's extra {extra})"
    )
