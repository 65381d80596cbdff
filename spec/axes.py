"""The axes of ``ndcg.yaml`` as records: each choice with its anchor, definition, parameters,
version and citations, each parameter with its bounds, and the cutoff's integer value (anchor
``ndcg``; ``spec.schema.json`` says what each field holds). ``reference/config.py`` reads
them from the parse, again whenever the parse is another object, since the tests replace the
spec at run time."""

from __future__ import annotations

# The records are plain classes, set once in __init__: a dataclass imports inspect and
# compiles its methods, milliseconds of every start that reads a measure (issue 41). Type
# checkers read the name TYPE_CHECKING as true whatever its value.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from decimal import Decimal


class Citation:
    """A citation of a choice or an axis: its kind (``paper``, ``source``, ``spec``), the
    reference and a note."""

    __slots__ = ("kind", "note", "ref")

    def __init__(self, *, kind: str, ref: str, note: str) -> None:
        self.kind = kind
        self.ref = ref
        self.note = note


class Choice:
    """One choice of an axis (``ndcg.<axis>.<choice>``): the parameters it takes and the
    spec version that added it (``ndcg.definition.versions``: 1.0.0 when the spec names
    none)."""

    __slots__ = ("anchor", "citations", "definition", "id", "params", "since")

    def __init__(
        self,
        *,
        id: str,
        anchor: str,
        definition: str,
        params: tuple[str, ...],
        since: tuple[int, ...],
        citations: tuple[Citation, ...],
    ) -> None:
        self.id = id
        self.anchor = anchor
        self.definition = definition
        self.params = params
        self.since = since
        self.citations = citations


class Param:
    """A parameter of the choices of one axis, as ``spec/ndcg.yaml`` declares it (an axis's
    ``params``): its kind (``label_map``, ``log_base``, ``decimal``), its exact bounds and
    default, and the choices that take it."""

    __slots__ = (
        "anchor",
        "axis",
        "default",
        "description",
        "exclusive_maximum",
        "exclusive_minimum",
        "id",
        "kind",
        "required",
        "users",
    )

    def __init__(
        self,
        *,
        id: str,
        axis: str,
        kind: str,
        anchor: str,
        description: str,
        default: str | None,
        exclusive_minimum: Decimal | None,
        exclusive_maximum: Decimal | None,
        required: bool,
        users: tuple[str, ...],
    ) -> None:
        self.id = id
        self.axis = axis
        self.kind = kind
        self.anchor = anchor
        self.description = description
        self.default = default
        self.exclusive_minimum = exclusive_minimum
        self.exclusive_maximum = exclusive_maximum
        self.required = required
        self.users = users


class ChoiceAxis:
    """An axis that is a choice among named conventions, its default one of them; `by_id`
    holds its choices by id."""

    __slots__ = ("anchor", "by_id", "choices", "default", "description", "id", "params")

    def __init__(
        self,
        *,
        id: str,
        anchor: str,
        description: str,
        default: str,
        choices: tuple[Choice, ...],
        params: tuple[Param, ...],
    ) -> None:
        self.id = id
        self.anchor = anchor
        self.description = description
        self.default = default
        self.choices = choices
        self.params = params
        # Looked up by id for every axis of every configuration built.
        self.by_id = {c.id: c for c in choices}


class IntegerValue:
    """The values a value axis takes (``value``): integers from `minimum`, and null when
    `nullable`."""

    __slots__ = ("minimum", "nullable", "type")

    def __init__(self, *, type: str, minimum: int, nullable: bool) -> None:
        self.type = type
        self.minimum = minimum
        self.nullable = nullable


class ValueAxis:
    """An axis whose setting is a number, not a named choice: the cutoff (``ndcg.cutoff``)."""

    __slots__ = ("anchor", "citations", "default", "description", "id", "value")

    def __init__(
        self,
        *,
        id: str,
        anchor: str,
        description: str,
        default: int | None,
        value: IntegerValue,
        citations: tuple[Citation, ...],
    ) -> None:
        self.id = id
        self.anchor = anchor
        self.description = description
        self.default = default
        self.value = value
        self.citations = citations


Axis = ChoiceAxis | ValueAxis
