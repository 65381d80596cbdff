"""An axis's ``error`` choice rejecting an input: the InputError that says which axis, with
the choice's anchor as the spec names it."""

from __future__ import annotations

from ndcgspec.reference.config import ChoiceAxis, axis
from ndcgspec.reference.errors import InputError
from ndcgspec.reference.location import Location

REJECTING_CHOICE = "error"


def choice_anchor(axis_id: str, choice_id: str) -> str:
    """The anchor of one choice of one axis, as ``spec/ndcg.yaml`` names it; the axis's own
    anchor when it has no such choice (the cutoff has none)."""
    entry = axis(axis_id)
    found = entry.by_id.get(choice_id) if isinstance(entry, ChoiceAxis) else None
    return entry.anchor if found is None else found.anchor


def rejection(axis_id: str, problem: str, where: Location | None = None) -> InputError:
    """The error of `axis_id`'s ``error`` choice refusing an input for `problem`; its one
    line ends with the configuration that refused it, as ``(duplicates=error)``."""
    return InputError(
        f"{problem} ({axis_id}={REJECTING_CHOICE})",
        where,
        anchor=choice_anchor(axis_id, REJECTING_CHOICE),
        axis=axis_id,
    )
