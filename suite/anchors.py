"""The anchors of ``spec/ndcg.yaml`` and the text each one names, for citing the spec in cases."""

from __future__ import annotations

from functools import cache
from typing import Any

from ndcgspec.spec import load_spec

TEXT_KEYS = ("title", "description", "definition")


def _walk(node: Any, found: dict[str, str]) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("anchor"), str):
            found[node["anchor"]] = " ".join(str(node[k]) for k in TEXT_KEYS if k in node)
        for value in node.values():
            _walk(value, found)
    elif isinstance(node, list):
        for value in node:
            _walk(value, found)


@cache
def anchor_texts() -> dict[str, str]:
    """Every anchor of the spec mapped to its entry's text (title, description, definition)."""
    found: dict[str, str] = {}
    _walk(load_spec(), found)
    return found


def first_sentence(anchor: str) -> str:
    """The first sentence of an anchor's text: the quote a case cites by default."""
    text = anchor_texts()[anchor]
    head, separator, _ = text.partition(". ")
    return head + "." if separator else text
