"""The axes of ``ndcg.yaml`` as records: each choice with its anchor, definition, parameters,
version and citations, each parameter with its bounds, and the cutoff's integer value (anchor
``ndcg``; ``spec.schema.json`` says what each field holds). ``reference/config.py`` reads
them from the parse, again whenever the parse is another object, since the tests replace the
spec at run time."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


@dataclass(frozen=True)
class Citation:
    """A citation of a choice or an axis: its kind (``paper``, ``source``, ``spec``), the
    reference and a note."""

    kind: str
    ref: str
    note: str


@dataclass(frozen=True)
class Choice:
    """One choice of an axis (``ndcg.<axis>.<choice>``): the parameters it takes and the
    spec version that added it (``ndcg.definition.versions``: 1.0.0 when the spec names
    none)."""

    id: str
    anchor: str
    definition: str
    params: tuple[str, ...]
    since: tuple[int, ...]
    citations: tuple[Citation, ...]


@dataclass(frozen=True)
class Param:
    """A parameter of the choices of one axis, as ``spec/ndcg.yaml`` declares it (an axis's
    ``params``): its kind (``label_map``, ``log_base``, ``decimal``), its exact bounds and
    default, and the choices that take it."""

    id: str
    axis: str
    kind: str
    anchor: str
    description: str
    default: str | None
    exclusive_minimum: Decimal | None
    exclusive_maximum: Decimal | None
    required: bool
    users: tuple[str, ...]


@dataclass(frozen=True)
class ChoiceAxis:
    """An axis that is a choice among named conventions, its default one of them."""

    id: str
    anchor: str
    description: str
    default: str
    choices: tuple[Choice, ...]
    params: tuple[Param, ...]
    # Looked up by id for every axis of every configuration built.
    by_id: dict[str, Choice] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {c.id: c for c in self.choices})


@dataclass(frozen=True)
class IntegerValue:
    """The values a value axis takes (``value``): integers from `minimum`, and null when
    `nullable`."""

    type: str
    minimum: int
    nullable: bool


@dataclass(frozen=True)
class ValueAxis:
    """An axis whose setting is a number, not a named choice: the cutoff (``ndcg.cutoff``)."""

    id: str
    anchor: str
    description: str
    default: int | None
    value: IntegerValue
    citations: tuple[Citation, ...]


Axis = ChoiceAxis | ValueAxis
