"""What an install hint must say, read from pyproject.toml itself: each extra's requirements
as written there, and whether a message names an extra and all of them."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence

from conftest import REPO_ROOT

PROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]


def names_extras(said: str, extras: Sequence[str]) -> bool:
    """Whether a message names `extras` and every requirement pyproject gives them."""
    wanted = [r for e in extras for r in EXTRAS[e]]
    named = re.search(r"ndcgspec's extras? " + re.escape(", ".join(extras)) + r"\b", said)
    return named is not None and all(w in said for w in wanted)
