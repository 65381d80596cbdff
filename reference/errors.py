"""The errors of ndcgspec. Each carries one line that names what is wrong and where."""

from __future__ import annotations


class NdcgSpecError(ValueError):
    """Base of every error ndcgspec reports to a user as a single line."""


class ConfigError(NdcgSpecError):
    """A configuration, measure string or preset that the specification does not allow."""


class InputError(NdcgSpecError):
    """Qrels or a run that cannot be scored under the configuration (spec anchor ``ndcg``).

    When a choice of an axis rejects the input (``ndcg.duplicates.error``, say), `axis` is
    the axis id and `anchor` that choice's spec anchor; both are None for an input that no
    axis rejects (a malformed file). `where` is the file and line, when known."""

    def __init__(
        self,
        message: str,
        where: str | None = None,
        *,
        anchor: str | None = None,
        axis: str | None = None,
    ) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.anchor = anchor
        self.axis = axis
