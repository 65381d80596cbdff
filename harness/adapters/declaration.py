"""What an adapter declares of itself: the ``adapter`` object of the protocol's start reply
(``spec/schema/protocol/start-reply.json``), read once where the harness receives it and checked
against the spec, and what follows from it: the configurations the adapter computes, its native
configuration, the cases its API cannot be shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ndcgspec.harness.adapters.base import ANY_VALUE, AdapterError, ApiView, NumberFormat
from ndcgspec.reference import Config
from ndcgspec.reference.aggregate import CHOICES as AGGREGATE_CHOICES
from ndcgspec.reference.config import choice_axes, choice_ids, parameters
from ndcgspec.reference.decimals import canonical_decimal, parse_decimal
from ndcgspec.suite.case_record import Case
from ndcgspec.suite.tolerance import float_widths


class DeclarationError(AdapterError):
    """A start reply's ``adapter`` object that declares what the spec does not know."""


OBSERVABILITY_SHAPE = (
    "adapter observability must be an object with an object not_observable "
    "(axis id → reason) and a boolean sees_unretrieved_labels"
)


@dataclass(frozen=True)
class Declaration:
    """An adapter's start-reply ``adapter`` object, checked: its `name` and `version`; on each
    axis it names, the choices it `claims` in its order (native first); the values of each
    parameter it declares (`params`, a tuple or `ANY_VALUE`); its `number_format` and its
    `view`. `sent` is the object as the adapter sent it, which the report's header records."""

    name: str
    version: str
    claims: Mapping[str, tuple[str, ...]]
    params: Mapping[str, tuple[str, ...] | str]
    number_format: NumberFormat
    view: ApiView
    sent: Mapping[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, adapter: Mapping[str, Any]) -> Declaration:
        """The declaration of a start reply's ``adapter`` object. An axis, choice or parameter
        the spec does not know, a float width it does not define or a malformed
        ``observability`` is a DeclarationError."""
        claimed = adapter.get("capabilities") or {}
        view = _view(adapter.get("observability", {}))
        for axis_id, choices in claimed.items():
            _check_axis(axis_id)
            unknown = [c for c in choices if c not in choice_ids(axis_id)]
            if unknown:
                raise DeclarationError(
                    f"adapter declares unknown choice {unknown[0]!r} on axis {axis_id!r}; "
                    f"valid: {', '.join(choice_ids(axis_id))}"
                )
        if adapter.get("float_width") not in float_widths():
            raise DeclarationError(
                f"adapter float_width must be one of {', '.join(map(str, float_widths()))}, "
                f"got {adapter.get('float_width')!r}"
            )
        declared_params = adapter.get("params") or {}
        for name in declared_params:
            if name not in parameters():
                raise DeclarationError(
                    f"adapter declares unknown parameter {name!r}; "
                    f"valid: {', '.join(sorted(parameters()))}"
                )
        return cls(
            name=str(adapter.get("name", "")),
            version=str(adapter.get("version", "")),
            claims={axis_id: tuple(choices) for axis_id, choices in claimed.items()},
            params={
                name: values if values == ANY_VALUE else tuple(str(v) for v in values)
                for name, values in declared_params.items()
            },
            number_format=(int(adapter["float_width"]), adapter.get("decimal_places")),
            view=view,
            sent=adapter,
        )

    def to_json(self) -> dict[str, Any]:
        """The ``adapter`` object as the adapter sent it, for the report's header."""
        return dict(self.sent)

    def capabilities(self) -> dict[str, set[str]]:
        """Every choice axis mapped to the choices the adapter computes: those it claims, or
        the spec's default on an axis it does not name."""
        return {a.id: set(self.claims.get(a.id, [a.default])) for a in choice_axes()}

    def native_config(self) -> Config:
        """The configuration the adapter declares first: on each axis its first declared
        choice, for each parameter of those choices its first declared value (``spec``
        defaults for what it leaves out). A ConfigError when that is no configuration of the
        spec."""
        values: dict[str, Any] = {
            axis.id: (self.claims.get(axis.id) or [axis.default])[0] for axis in choice_axes()
        }
        chosen = Config.from_mapping(values)
        for name, accepted in self.params.items():
            if accepted and accepted != ANY_VALUE and name in chosen.to_mapping():
                values[name] = accepted[0]
        return Config.from_mapping(values)

    def unsupported_reason(self, chosen: Config) -> str | None:
        """Why the adapter cannot compute `chosen`, or None. A parameter the adapter does not
        declare supports only its spec default; one without a default (a required table) any
        value its declared choice takes."""
        # The values as a configuration object writes them, which the reason quotes.
        config = chosen.to_mapping()
        for axis_id, choices in self.capabilities().items():
            if config[axis_id] not in choices:
                return f"{axis_id}={config[axis_id]} is not among the declared {sorted(choices)}"
        for param in parameters().values():
            name = param.id
            if name not in config:
                continue
            declared = self.params.get(name)
            if declared == ANY_VALUE:
                continue
            if declared is not None:
                accepted = list(declared)
            elif param.default is not None:
                accepted = [canonical_decimal(parse_decimal(param.default))]
            else:
                continue
            if str(config[name]) not in accepted:
                return f"{name}={config[name]} is not among the declared {accepted}"
        return None

    def unseen_reason(self, case: Case) -> str | None:
        """Why the adapter's API cannot be shown the case's input, or None: a run that repeats
        a document, for an adapter that declares the duplicates axis not observable
        (``ndcg.duplicates``: label and score arrays, or a ``{docid: score}`` mapping, cannot
        hold the repetition, so whatever the case expects of it is no evidence about the
        library); or, under ``negative=error``, negative labels on unretrieved documents alone,
        for an adapter that is never given the labels of unretrieved documents: the rejection
        the case expects depends on what its API cannot be shown."""
        rows = [] if case.input is None else case.input.run
        reason = self.view.hidden.get("duplicates")
        if reason is not None and len({(q, d) for q, d, _ in rows}) < len(rows):
            return f"the run repeats a document, which this API cannot be shown: {reason}"
        config = case.config
        if not self.view.unretrieved_labels and config.choice("negative") == "error":
            qrels = [] if case.input is None else case.input.qrels
            scored = AGGREGATE_CHOICES[config.choice("aggregate")](
                dict.fromkeys(q for q, _, _ in qrels), dict.fromkeys(q for q, _, _ in rows)
            )
            negative = {(q, d) for q, d, label in qrels if q in scored and parse_decimal(label) < 0}
            if negative and not negative & {(q, d) for q, d, _ in rows}:
                return (
                    "only documents the run does not retrieve have a negative label in the "
                    "scored queries, which negative=error rejects and this API is never given"
                )
        return None


def _check_axis(axis_id: object, context: str = "") -> None:
    known = {a.id for a in choice_axes()}
    if axis_id not in known:
        raise DeclarationError(
            f"adapter declares unknown axis {axis_id!r}{context}; valid: {', '.join(sorted(known))}"
        )


def _view(declared: object) -> ApiView:
    """The view an ``adapter`` object declares in its ``observability`` value (`declared`);
    an adapter that declares nothing shows everything."""
    if not isinstance(declared, Mapping):
        raise DeclarationError(OBSERVABILITY_SHAPE)
    hidden = declared.get("not_observable", {})
    labels = declared.get("sees_unretrieved_labels", True)
    if not isinstance(hidden, Mapping) or not isinstance(labels, bool):
        raise DeclarationError(OBSERVABILITY_SHAPE)
    for axis_id, reason in hidden.items():
        _check_axis(axis_id, " in observability")
        if not isinstance(reason, str) or not reason:
            raise DeclarationError(f"adapter gives no reason why {axis_id!r} is not observable")
    return ApiView(dict(hidden), labels)
