"""The golden cases as packaged data: plain JSON files grouped by axis (see ``README.md`` here)."""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable


def cases_root() -> Traversable:
    """The folder that holds the case files, inside the installed package or the checkout."""
    return files(__name__)
