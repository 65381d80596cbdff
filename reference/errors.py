"""The errors of ndcgspec. Each carries one line that names what is wrong and where.

An error that needs a library ndcgspec does not depend on names the smallest install that
supplies it (`install_hint`): the requirements of one of the distribution's optional extras,
read from the installed metadata, so pyproject.toml stays their only statement, with the
extras it names itself expanded, since ``ndcgspec`` is not on the package index."""

from __future__ import annotations

import re
from functools import cache

# typing, which a NamedTuple imports, costs milliseconds of every start (issue 41): Location
# is a module of its own, which the readers import. Type checkers read the name TYPE_CHECKING
# as true whatever its value.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ndcgspec.reference.location import Location


class NdcgSpecError(ValueError):
    """Base of every error ndcgspec reports to a user as a single line: ``file:line: problem``
    when the problem has a location, whose parts `file` and `line` hold (None when unknown)."""

    def __init__(self, message: str, where: Location | None = None) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.file = where.file if where else None
        self.line = where.line if where else None


class ConfigError(NdcgSpecError):
    """A configuration, measure string or preset that the specification does not allow."""


class InputError(NdcgSpecError):
    """Qrels or a run that cannot be scored under the configuration (spec anchor ``ndcg``).

    When a choice of an axis rejects the input (``ndcg.duplicates.error``, say), `axis` is
    the axis id and `anchor` that choice's spec anchor; both are None for an input that no
    axis rejects (a malformed file)."""

    def __init__(
        self,
        message: str,
        where: Location | None = None,
        *,
        anchor: str | None = None,
        axis: str | None = None,
    ) -> None:
        super().__init__(message, where)
        self.anchor = anchor
        self.axis = axis


# Patterns, not compiled here: every command imports this module, few need an install hint.
_MARKER = r"""extra\s*==\s*["']([^"']+)["']"""
_SELF = r"ndcgspec\[([^\]]*)\]\s*$"


@cache
def _requirements() -> dict[str, tuple[str, ...]]:
    """extra → its requirements as pyproject.toml writes them (markers stripped)."""
    # Imported here: every command imports this module, few need an install hint, and
    # importlib.metadata costs about 20 ms of each start-up.
    from importlib.metadata import requires

    found: dict[str, list[str]] = {}
    for line in requires("ndcgspec") or []:
        requirement, _, marker = line.partition(";")
        extra = re.search(_MARKER, marker)
        if extra:
            found.setdefault(extra.group(1), []).append(requirement.strip())
    return {extra: tuple(items) for extra, items in found.items()}


def extra_requirements(extra: str) -> list[str]:
    """What ``pip install`` needs for `extra`: its requirements, with ``ndcgspec[a,b]``
    replaced by the requirements of extras a and b, in order, each once."""
    out: list[str] = []
    for requirement in _requirements()[extra]:
        named = re.fullmatch(_SELF, requirement.replace(" ", ""))
        inner = (
            [r for e in named.group(1).split(",") for r in extra_requirements(e)]
            if named
            else [requirement]
        )
        out += [r for r in inner if r not in out]
    return out


def install_hint(*extras: str) -> str:
    """``pip install scikit-learn (ndcgspec's extra sklearn)``: the command that installs
    what `extras` bring, and the extras' names for an install from a clone or a wheel."""
    # Imported for a hint only: every command imports this module.
    import shlex

    requirements = [r for e in extras for r in extra_requirements(e)]
    command = " ".join(shlex.quote(r) for r in dict.fromkeys(requirements))
    noun = "extra" if len(extras) == 1 else "extras"
    return f"pip install {command} (ndcgspec's {noun} {', '.join(extras)})"
