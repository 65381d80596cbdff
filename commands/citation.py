"""How to cite ndcgspec: the software's authors, version and url from the installed package's
metadata, its release year from CITATION.cff (shipped in the package)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.metadata import PackageNotFoundError, metadata

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


@dataclass(frozen=True)
class CffFields:
    """What a citation takes from CITATION.cff, each field's fallback where the file (or the
    field) has none."""

    title: str
    authors: tuple[str, ...]
    version: str
    year: str | None
    repository: str | None


def _cff() -> CffFields:
    try:
        text = resources.files("ndcgspec.commands").joinpath("CITATION.cff").read_text("utf-8")
    except FileNotFoundError:
        text = ""
    found = yaml.safe_load(text) or {}
    released = found.get("date-released")
    return CffFields(
        title=str(found.get("title", "ndcgspec")),
        authors=tuple(a.get("name") or a.get("family-names", "") for a in found.get("authors", [])),
        version=str(found.get("version", "unknown")),
        year=str(released)[:4] if released else None,
        repository=found.get("repository-code"),
    )


def citation() -> Citation:
    """The citation of the installed ndcgspec; CITATION.cff fills what the metadata lacks."""
    cff = _cff()
    try:
        meta = metadata("ndcgspec")
    except PackageNotFoundError:
        meta = None
    authors = tuple(meta.get_all("Author") or ()) if meta else ()
    if not authors:
        authors = cff.authors
    urls = {}
    for entry in (meta.get_all("Project-URL") or []) if meta else []:
        label, _, url = entry.partition(",")
        urls[label.strip().lower()] = url.strip()
    url = next((urls[k] for k in URL_LABELS if k in urls), None) or cff.repository
    return Citation(
        title=cff.title,
        authors=authors or ("ndcgspec maintainers",),
        version=meta["Version"] if meta else cff.version,
        year=cff.year,
        url=url,
    )
