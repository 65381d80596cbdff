"""How to cite ndcgspec: the software's authors, version and url from the installed package's
metadata, its release year from CITATION.cff (shipped in the package)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.metadata import PackageNotFoundError, metadata
from typing import Any

import yaml

URL_LABELS = ("homepage", "repository", "source")


@dataclass(frozen=True)
class Citation:
    """What a reference to the software needs; `year` and `url` may be unknown."""

    title: str
    authors: tuple[str, ...]
    version: str
    year: str | None
    url: str | None


def _cff() -> dict[str, Any]:
    try:
        text = resources.files("ndcgspec.commands").joinpath("CITATION.cff").read_text("utf-8")
    except FileNotFoundError:
        return {}
    return yaml.safe_load(text) or {}


def citation() -> Citation:
    """The citation of the installed ndcgspec; CITATION.cff fills what the metadata lacks."""
    cff = _cff()
    try:
        meta = metadata("ndcgspec")
    except PackageNotFoundError:
        meta = None
    authors = tuple(meta.get_all("Author") or ()) if meta else ()
    if not authors:
        authors = tuple(a.get("name") or a.get("family-names", "") for a in cff.get("authors", []))
    urls = {}
    for entry in (meta.get_all("Project-URL") or []) if meta else []:
        label, _, url = entry.partition(",")
        urls[label.strip().lower()] = url.strip()
    url = next((urls[k] for k in URL_LABELS if k in urls), None) or cff.get("repository-code")
    released = cff.get("date-released")
    return Citation(
        title=str(cff.get("title", "ndcgspec")),
        authors=authors or ("ndcgspec maintainers",),
        version=meta["Version"] if meta else str(cff.get("version", "unknown")),
        year=str(released)[:4] if released else None,
        url=url,
    )
