"""The errors of ndcgspec. Each carries one line that names what is wrong and where."""

from __future__ import annotations


class NdcgSpecError(ValueError):
    """Base of every error ndcgspec reports to a user as a single line."""


class ConfigError(NdcgSpecError):
    """A configuration, measure string or preset that the specification does not allow."""


class InputError(NdcgSpecError):
    """Qrels or a run that cannot be scored under the configuration (spec anchor ``ndcg``)."""

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
