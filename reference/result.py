"""One configuration's scores as exact decimals: what ``ndcgspec score`` prints and
``ndcgspec.score`` returns, built once from the result object scoring gives (`from_json`) and
written back as exactly that object (`to_json`, the ``--format json`` contract).

Every value is a Decimal of the spec's output digits (``ndcg.precision``), or None where the
spec leaves it undefined (``ndcg.empty.nan``): the decimal string of the result object is read
exactly and written again digit for digit (`format(value, "f")`, never an exponent)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from ndcgspec.reference.decimals import parse_decimal
from ndcgspec.reference.errors import NdcgSpecError

Values = Mapping[str, Decimal | None]


def _decimal(text: str | None) -> Decimal | None:
    return None if text is None else Decimal(text)


_MISSING = object()


def _kind(value: Any) -> str:
    """What a JSON value is, as a message names it."""
    if value is _MISSING:
        return "nothing: the key is missing"
    names = {bool: "true or false", int: "a number", float: "a number", list: "a list"}
    return names.get(type(value), "an object" if isinstance(value, dict) else repr(value))


def _checked(value: Any, where: str) -> None:
    """`value` is null or a decimal string `parse_decimal` reads."""
    if value is None:
        return
    if not isinstance(value, str):
        raise NdcgSpecError(f"{where}: a decimal string or null wanted, not {_kind(value)}")
    try:
        parse_decimal(value)
    except NdcgSpecError as error:
        raise NdcgSpecError(f"{where}: {error}") from None


def _text(value: Decimal | None) -> str | None:
    return None if value is None else format(value, "f")


def _frozen(values: Values) -> Values:
    return MappingProxyType(dict(values))


@dataclass(frozen=True)
class Result:
    """One measure's scores: `measure` as written (the canonical form when the configuration
    came from a file), its `canonical` form and `fingerprint`, the `aggregate` and, per query
    in qrels order, its nDCG (`per_query`), DCG (`dcg`) and IDCG (`idcg`); the mappings are
    read-only views, the spec version the one the values were computed under."""

    measure: str
    canonical: str
    fingerprint: str
    aggregate: Decimal | None
    per_query: Values
    dcg: Values
    idcg: Values
    spec_version: str

    def __post_init__(self) -> None:
        # A frozen dataclass still holds whatever mappings it was given: copies behind
        # read-only views keep a caller's later changes out.
        for name in ("per_query", "dcg", "idcg"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    @classmethod
    def from_json(cls, result: Mapping[str, Any], written: str | None = None) -> Result:
        """The record of a result object of `Evaluation.to_json` (the engine's and the
        reference's), the measure as `written` (its canonical form when None)."""
        per_query = result["per_query"]
        return cls(
            measure=written or result["measure"],
            canonical=result["measure"],
            fingerprint=result["fingerprint"],
            aggregate=_decimal(result["aggregate"]),
            per_query={q: _decimal(v["ndcg"]) for q, v in per_query.items()},
            dcg={q: _decimal(v["dcg"]) for q, v in per_query.items()},
            idcg={q: _decimal(v["idcg"]) for q, v in per_query.items()},
            spec_version=result["spec_version"],
        )

    @classmethod
    def read(cls, found: Any, written: str | None = None) -> Result:
        """A result object read from a file (``score --format json``'s), every part checked
        before any arithmetic: a JSON object of the keys `to_json` writes, its values decimal
        strings in the number grammar within ``ndcg.limits`` or null (``ndcg.input.number``);
        anything else raises NdcgSpecError naming the key."""
        if not isinstance(found, dict):
            raise NdcgSpecError(f"a JSON object wanted, not {_kind(found)}")
        for key in ("measure", "fingerprint", "spec_version"):
            if not isinstance(found.get(key), str):
                got = _kind(found.get(key, _MISSING))
                raise NdcgSpecError(f"{key!r}: a string wanted, not {got}")
        _checked(found.get("aggregate", _MISSING), "'aggregate'")
        per_query = found.get("per_query", _MISSING)
        if not isinstance(per_query, dict):
            raise NdcgSpecError(f"'per_query': an object wanted, not {_kind(per_query)}")
        for query, values in per_query.items():
            if not isinstance(values, dict):
                raise NdcgSpecError(f"query {query!r}: an object wanted, not {_kind(values)}")
            for key in ("ndcg", "dcg", "idcg"):
                _checked(values.get(key, _MISSING), f"query {query!r} {key!r}")
        return cls.from_json(found, written)

    def to_json(self) -> dict[str, Any]:
        """The JSON result object of ``ndcgspec score --format json`` (a contract): the
        result object scoring gave, and the measure as ``written``."""
        return {
            "measure": self.canonical,
            "fingerprint": self.fingerprint,
            "spec_version": self.spec_version,
            "aggregate": _text(self.aggregate),
            "per_query": {
                q: {
                    "ndcg": _text(value),
                    "dcg": _text(self.dcg[q]),
                    "idcg": _text(self.idcg[q]),
                }
                for q, value in self.per_query.items()
            },
            "written": self.measure,
        }

    def __float__(self) -> float:
        """The aggregate as a float (NaN when undefined)."""
        return float("nan") if self.aggregate is None else float(self.aggregate)

    def per_query_float(self) -> dict[str, float]:
        """The per-query values as floats (NaN when undefined)."""
        return {q: float("nan") if v is None else float(v) for q, v in self.per_query.items()}
