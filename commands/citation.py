"""How to cite ndcgspec: the title, authors, version, release year and repository of
CITATION.cff (shipped in the package), whose version and authors the tests hold to the
package's metadata. The file's fields are kept by its digest (`ndcgspec.spec.kept`), as the
spec's YAML is, so that ``ndcgspec explain`` imports neither PyYAML nor importlib.metadata
(together about half of its start-up), nor dataclasses, typing and pathlib (issue 41)."""

from __future__ import annotations

import os
from functools import cache

from ndcgspec.spec import kept
from ndcgspec.spec.digest import sha256_hex

CffFields = tuple[str, list[str], str, str | None, str | None]
"""A `Citation`'s fields as CITATION.cff gives them, in plain values that `kept` stores."""


class Citation:
    """What a reference to the software needs; `year` and `url` may be unknown."""

    __slots__ = ("authors", "title", "url", "version", "year")

    def __init__(
        self,
        title: str,
        authors: tuple[str, ...],
        version: str,
        year: str | None,
        url: str | None,
    ) -> None:
        self.title = title
        self.authors = authors
        self.version = version
        self.year = year
        self.url = url


def _cff_fields(text: str) -> CffFields:
    """What a citation takes from CITATION.cff's text, each field's fallback where the file has
    none; the release date (a date to YAML) as its year."""
    import yaml

    found = yaml.safe_load(text) or {}
    released = found.get("date-released")
    return (
        str(found.get("title", "ndcgspec")),
        [a.get("name") or a.get("family-names", "") for a in found.get("authors", [])],
        str(found.get("version", "unknown")),
        str(released)[:4] if released else None,
        found.get("repository-code"),
    )


@cache
def citation() -> Citation:
    """The citation of the installed ndcgspec, from its CITATION.cff, read once a process."""
    try:
        with open(os.path.join(os.path.dirname(__file__), "CITATION.cff"), encoding="utf-8") as cff:
            text = cff.read()
    except FileNotFoundError:
        text = ""
    digest = sha256_hex(text.encode("utf-8"))
    title, authors, version, year, url = kept(
        "citation", f"CITATION-{digest}", lambda: _cff_fields(text)
    )
    return Citation(title, tuple(authors) or ("ndcgspec maintainers",), version, year, url)
