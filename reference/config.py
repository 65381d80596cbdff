"""Configurations: one choice per axis of ``spec/ndcg.yaml``, canonical strings, fingerprints.

The grammar of a measure string (spec anchor ``ndcg``), hand-written and small:

    measure := head [ "(" [ arg { "," arg } ] ")" ] [ "@" integer ]
    head    := "nDCG" | a preset id or alias
    arg     := name "=" value
    value   := atom | "{" [ atom ":" atom { "," atom ":" atom } ] "}"
    atom    := one or more of letters, digits and "_" "." "+" "-"

White space between tokens is ignored. The canonical short form lists only what differs from
the defaults; the full form lists every axis and every parameter of the chosen choices. Both
round-trip through `parse_measure`, and configurations are equal when their full forms are.
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from functools import cache

from ndcgspec.reference.decimals import BeyondLimits, canonical_decimal, parse_decimal
from ndcgspec.reference.errors import ConfigError, NdcgSpecError
from ndcgspec.spec import load_presets, load_spec, load_yaml
from ndcgspec.spec.axes import Choice, Citation, IntegerValue, Param, ValueAxis

# The engine, which may not import the spec, tells the choice axes by this record.
from ndcgspec.spec.axes import ChoiceAxis as ChoiceAxis
from ndcgspec.spec.digest import sha256_hex

# typing, dataclasses and the presets' records cost milliseconds of every start that reads a
# measure (issue 41); type checkers read the name TYPE_CHECKING as true whatever its value.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, overload

    from ndcgspec.spec.axes import Axis
    from ndcgspec.spec.presets import ConfigValue, Preset

MEASURE_NAME = "nDCG"
LIMITS: dict[str, Any] = load_spec()["limits"]
LabelMap = tuple[tuple[Decimal, Decimal], ...]
ParamValue = Decimal | str | LabelMap


class _Axes:
    """The axes as read from one parse of ``ndcg.yaml``, kept with that parse."""

    __slots__ = ("all", "by_id", "choice_axes", "parameters", "parsed")

    def __init__(
        self,
        parsed: object,
        all: tuple[Axis, ...],
        by_id: dict[str, Axis],
        choice_axes: tuple[ChoiceAxis, ...],
        parameters: dict[str, Param],
    ) -> None:
        self.parsed = parsed
        self.all = all
        self.by_id = by_id
        self.choice_axes = choice_axes
        self.parameters = parameters


# The axes are read again whenever the spec's parse is another object, since the tests replace
# the spec at run time; the search reads them hundreds of thousands of times, so each reader
# checks the parse inline and calls `_reread` only when it changed. No parse is the first.
_kept = _Axes(object(), (), {}, (), {})


def _reread() -> _Axes:
    """The axes as records, read from the current parse of ``ndcg.yaml`` and kept."""
    global _kept
    parsed = load_spec()
    read = tuple(
        ChoiceAxis(
            id=a["id"],
            anchor=a["anchor"],
            description=a["description"],
            default=a["default"],
            choices=tuple(
                Choice(
                    id=c["id"],
                    anchor=c["anchor"],
                    definition=c["definition"],
                    params=tuple(c.get("params", [])),
                    since=_version(c.get("since", "1.0.0")),
                    # The choices the tests add to the spec cite nothing.
                    citations=tuple(Citation(**cited) for cited in c.get("citations", [])),
                )
                for c in a["choices"]
            ),
            params=tuple(
                Param(
                    id=p["id"],
                    axis=a["id"],
                    kind=p["type"],
                    anchor=p["anchor"],
                    description=p["description"],
                    default=p.get("default"),
                    exclusive_minimum=_bound(p.get("exclusive_minimum")),
                    exclusive_maximum=_bound(p.get("exclusive_maximum")),
                    required=bool(p.get("required")),
                    users=tuple(c["id"] for c in a["choices"] if p["id"] in c.get("params", [])),
                )
                for p in a.get("params", [])
            ),
        )
        if "choices" in a
        else ValueAxis(
            id=a["id"],
            anchor=a["anchor"],
            description=a["description"],
            default=a["default"],
            value=IntegerValue(**a["value"]),
            citations=tuple(Citation(**cited) for cited in a["citations"]),
        )
        for a in parsed["axes"]
    )
    choice_axes = tuple(a for a in read if isinstance(a, ChoiceAxis))
    _kept = _Axes(
        parsed,
        read,
        {a.id: a for a in read},
        choice_axes,
        {p.id: p for a in choice_axes for p in a.params},
    )
    return _kept


def axes() -> tuple[Axis, ...]:
    """The axes of the specification, in spec order (``ndcg.yaml`` ``axes``)."""
    kept = _kept
    return (kept if kept.parsed is load_spec() else _reread()).all


def axis(axis_id: str) -> Axis:
    """The spec entry of one axis; ConfigError lists the valid ids."""
    kept = _kept
    found = (kept if kept.parsed is load_spec() else _reread()).by_id.get(axis_id)
    if found is None:
        valid = ", ".join(a.id for a in axes())
        raise ConfigError(f"unknown axis {shown(axis_id)}; valid: {valid}")
    return found


def choice_axes() -> tuple[ChoiceAxis, ...]:
    """The axes that are a choice among named conventions (every axis but the cutoff)."""
    kept = _kept
    return (kept if kept.parsed is load_spec() else _reread()).choice_axes


def choice_ids(axis_id: str, as_of: str | None = None) -> list[str]:
    """The choice ids of one axis, in spec order; with `as_of`, only the choices that spec
    version had (``ndcg.definition.versions``: a choice's `since`, 1.0.0 when absent)."""
    return [
        c.id for c in _choice_axis(axis_id).choices if as_of is None or c.since <= _version(as_of)
    ]


def since(axis_id: str, choice_id: str) -> tuple[int, ...]:
    """The spec version that added a choice (``ndcg.definition.versions``: its `since`,
    1.0.0 when absent), as a tuple of integers."""
    return spec_choice(axis_id, choice_id).since


@cache
def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _choice_axis(axis_id: str) -> ChoiceAxis:
    found = axis(axis_id)
    if not isinstance(found, ChoiceAxis):
        raise ConfigError(f"axis {shown(axis_id)} takes a number, not a choice")
    return found


def spec_choice(axis_id: str, choice_id: str) -> Choice:
    """The spec entry of one choice of one axis; ConfigError lists the valid ids."""
    found = _choice_axis(axis_id).by_id.get(choice_id)
    if found is None:
        valid = ", ".join(choice_ids(axis_id))
        raise ConfigError(
            f"unknown choice {shown(choice_id)} for axis {shown(axis_id)}; valid: {valid}"
        )
    return found


def _bound(value: str | None) -> Decimal | None:
    """A parameter's bound as the spec writes it (a decimal string), exactly; None when
    absent."""
    return None if value is None else Decimal(value)


def parameters() -> dict[str, Param]:
    """Every parameter of the spec by id, in spec order."""
    kept = _kept
    return (kept if kept.parsed is load_spec() else _reread()).parameters


def key_names() -> list[str]:
    """The keys of a configuration object: every axis id, then every parameter id."""
    return [a.id for a in axes()] + list(parameters())


def _decimal_param(spec: Param, raw: Any) -> Decimal:
    name, value = spec.id, _decimal(spec.id, raw)
    low, high = spec.exclusive_minimum, spec.exclusive_maximum
    if low is not None and not value > low:
        raise ConfigError(f"parameter {name!r} must be > {low}, got {canonical_decimal(value)}")
    if high is not None and not value < high:
        raise ConfigError(f"parameter {name!r} must be < {high}, got {canonical_decimal(value)}")
    return value


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 80


def shown(raw: Any) -> str:
    """`raw` for an error message, cut short: a value from a hostile file may be huge or an
    alias bomb whose full repr never ends."""
    try:
        return _SHORT.repr(raw)
    except ValueError:
        # An integer too long for Python to write in decimal.
        return f"a {type(raw).__name__} too long to show"


def _decimal(name: str, raw: Any) -> Decimal:
    """The exact decimal `raw` holds, within ``ndcg.limits`` (checked before any arithmetic)."""
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float, Decimal)):
        raise ConfigError(f"parameter {name!r} must be a decimal number, got {shown(raw)}")
    # A float from YAML or JSON was written as a decimal: its shortest repr is that text.
    text = repr(raw) if isinstance(raw, float) else str(raw)
    if len(text) > LIMITS["number_text"]:
        raise ConfigError(
            f"parameter {name!r} is written in {len(text)} characters; "
            f"at most {LIMITS['number_text']} are allowed (ndcg.limits)"
        )
    try:
        value = parse_decimal(text)
    except BeyondLimits:
        # Beyond the bound of labels and scores, so beyond this one too: its magnitude is named
        # below, unless even Decimal cannot hold its exponent.
        try:
            value = Decimal(text)
        except InvalidOperation:
            raise ConfigError(
                f"parameter {name!r} is {shown(raw)}, beyond 10^{LIMITS['decimal_exponent']} "
                "in magnitude (ndcg.limits)"
            ) from None
    except NdcgSpecError:
        raise ConfigError(
            f"parameter {name!r} must be a decimal number, got {shown(raw)}"
        ) from None
    _, digits, _ = value.as_tuple()
    significant = len("".join(map(str, digits)).strip("0"))
    if significant > LIMITS["decimal_digits"]:
        raise ConfigError(
            f"parameter {name!r} has {significant} significant digits; "
            f"at most {LIMITS['decimal_digits']} are allowed (ndcg.limits)"
        )
    if significant and abs(value.adjusted()) > LIMITS["decimal_exponent"]:
        raise ConfigError(
            f"parameter {name!r} is {text.strip()}, of magnitude 10^{value.adjusted()}; "
            f"nonzero decimals lie within 10^-{LIMITS['decimal_exponent']} and "
            f"10^{LIMITS['decimal_exponent']} (ndcg.limits)"
        )
    return value


def _label_map(name: str, raw: Any) -> LabelMap:
    if isinstance(raw, Mapping):
        pairs = list(raw.items())
    elif isinstance(raw, (list, tuple)) and all(
        isinstance(p, (list, tuple)) and len(p) == 2 for p in raw
    ):
        pairs = [tuple(p) for p in raw]
    else:
        raise ConfigError(
            f"parameter {name!r} must map labels to gains (an object, or a list of "
            f"[label, gain] pairs), got {shown(raw)}"
        )
    table: dict[Decimal, Decimal] = {}
    for key, value in pairs:
        label = _decimal(f"{name} label", key)
        if label in table:
            raise ConfigError(f"parameter {name!r} lists label {canonical_decimal(label)} twice")
        table[label] = _decimal(f"{name} gain", value)
    if not table:
        raise ConfigError(f"parameter {name!r} must list at least one label")
    return tuple(sorted(table.items()))


def _param_value(spec: Param, raw: Any) -> ParamValue:
    if spec.kind == "label_map":
        return _label_map(spec.id, raw)
    if spec.kind == "log_base" and raw == "e":
        return "e"
    return _decimal_param(spec, raw)


def _format_param(value: ParamValue) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Decimal):
        return canonical_decimal(value)
    return "{" + ",".join(f"{canonical_decimal(k)}:{canonical_decimal(v)}" for k, v in value) + "}"


def _cutoff(raw: Any) -> int | None:
    """The cutoff written in `raw`: decimal digits, at most ``ndcg.limits`` cutoff_digits of
    them, counted before the text becomes a number."""
    if raw is None:
        return None
    cutoff_axis = axis("cutoff")
    # The spec's schema makes the cutoff its one axis that is a number.
    assert isinstance(cutoff_axis, ValueAxis)
    minimum = cutoff_axis.value.minimum
    expected = f"cutoff must be an integer >= {minimum} or null, got {shown(raw)}"
    if isinstance(raw, bool) or not isinstance(raw, (int, str)):
        raise ConfigError(expected)
    if isinstance(raw, str):
        text = raw.strip()
        if not re.fullmatch(r"[0-9]+", text):
            raise ConfigError(expected)
        if len(text) > LIMITS["cutoff_digits"]:
            raise ConfigError(
                f"cutoff is written in {len(text)} digits; "
                f"at most {LIMITS['cutoff_digits']} are allowed (ndcg.limits)"
            )
    value = int(text) if isinstance(raw, str) else raw
    if value >= 10 ** LIMITS["cutoff_digits"]:
        raise ConfigError(f"cutoff must be below 10^{LIMITS['cutoff_digits']} (ndcg.limits)")
    if value < minimum:
        raise ConfigError(expected)
    return value


class _Concerning:
    """Mark a ConfigError raised inside as concerning the configuration key `key`, unless an
    inner key already claimed it; a configuration file then names that key's line. A class,
    not a contextlib generator: contextlib costs a millisecond of every start (issue 41)."""

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, traceback: object) -> None:
        if isinstance(error, ConfigError) and error_key(error) is None:
            error.config_key = self.key  # type: ignore[attr-defined]


def error_key(error: ConfigError) -> str | None:
    """The configuration key a ConfigError of `Config.from_mapping` concerns, if known."""
    return getattr(error, "config_key", None)


class Config:
    """One fully specified nDCG configuration: a choice for every axis (``ndcg``).

    Build one with `Config.from_mapping` or `parse_measure`; missing axes take the spec's
    defaults and only the parameters of the chosen choices are kept.
    """

    __slots__ = ("_choices", "_cutoff", "_full", "_params")

    def __init__(
        self, choices: dict[str, str], params: dict[str, ParamValue], cutoff: int | None
    ) -> None:
        self._choices = choices
        self._params = params
        self._cutoff = cutoff
        # The full form is what a configuration is: equality and hashing go through it.
        self._full = self._format(full=True)

    @classmethod
    def default(cls) -> Config:
        """The configuration of the spec's defaults (whole ranking, no cutoff)."""
        return cls.from_mapping({})

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Config:
        """Validate a configuration object (axis and parameter ids as keys, as in
        ``spec/schema/config.schema.json``) and fill in the defaults. A ConfigError names
        the key it concerns in `error_key`."""
        names = key_names()
        known = set(names)
        unknown = [k for k in values if k not in known]
        if unknown:
            with _Concerning(unknown[0]):
                raise ConfigError(
                    f"unknown configuration key {shown(unknown[0])}; valid: {', '.join(names)}"
                )
        choices: dict[str, str] = {}
        chosen_params: dict[str, ParamValue] = {}
        param_specs = parameters()
        for entry in choice_axes():
            with _Concerning(entry.id):
                raw = values.get(entry.id, entry.default)
                if not isinstance(raw, str):
                    valid = ", ".join(choice_ids(entry.id))
                    raise ConfigError(f"axis {entry.id!r} takes a choice id; valid: {valid}")
                chosen = spec_choice(entry.id, raw)
                choices[entry.id] = chosen.id
                for name in chosen.params:
                    spec = param_specs[name]
                    if name in values:
                        with _Concerning(name):
                            chosen_params[name] = _param_value(spec, values[name])
                    elif spec.required:
                        raise ConfigError(f"{entry.id}={chosen.id} requires parameter {name!r}")
                    else:
                        chosen_params[name] = _param_value(spec, spec.default)
        for name, spec in param_specs.items():
            if name in values and name not in chosen_params:
                owner = spec.axis
                with _Concerning(name):
                    raise ConfigError(
                        f"parameter {name!r} applies only to {owner}={' or '.join(spec.users)}, "
                        f"not {owner}={choices[owner]}"
                    )
        with _Concerning("cutoff"):
            return cls(choices, chosen_params, _cutoff(values.get("cutoff")))

    def choice(self, axis_id: str) -> str:
        """The choice id this configuration makes on `axis_id`."""
        return self._choices[axis_id]

    if TYPE_CHECKING:
        # The parameters of spec/ndcg.yaml by their type there: a label_map, a log_base (a
        # decimal or "e") and decimals; a parameter not listed is any ParamValue.
        @overload
        def param(self, name: Literal["gain_map"]) -> LabelMap: ...
        @overload
        def param(self, name: Literal["log_base"]) -> Decimal | Literal["e"]: ...
        @overload
        def param(self, name: Literal["log_offset", "persistence"]) -> Decimal: ...
        @overload
        def param(self, name: str) -> ParamValue: ...

    def param(self, name: str) -> ParamValue:
        """The value of a parameter of one of the chosen choices."""
        return self._params[name]

    @property
    def cutoff(self) -> int | None:
        """The cutoff k, or None for the whole ranking (``ndcg.cutoff``)."""
        return self._cutoff

    def replace(self, **changes: Any) -> Config:
        """A copy with some axes or parameters changed; parameters of a dropped choice go."""
        if changes.keys() == {"cutoff"}:
            # The choices and parameters are valid as they are: only the cutoff is checked.
            # `which` and identify set a cutoff on tens of thousands of configurations.
            with _Concerning("cutoff"):
                return Config(self._choices, self._params, _cutoff(changes["cutoff"]))
        values: dict[str, Any] = dict(self._choices)
        for name, value in self._params.items():
            if parameters()[name].axis not in changes:
                values[name] = value
        values["cutoff"] = self._cutoff
        values.update(changes)
        return Config.from_mapping(values)

    def to_mapping(self) -> dict[str, Any]:
        """The full configuration object, JSON-ready: decimals as canonical strings."""
        out: dict[str, Any] = {}
        for entry in axes():
            if isinstance(entry, ValueAxis):
                out[entry.id] = self._cutoff
                continue
            out[entry.id] = self._choices[entry.id]
            for name in entry.by_id[self._choices[entry.id]].params:
                value = self._params[name]
                out[name] = (
                    {canonical_decimal(k): canonical_decimal(v) for k, v in value}
                    if isinstance(value, tuple)
                    else _format_param(value)
                )
        return out

    def _arguments(self, full: bool) -> list[str]:
        args = []
        for entry in choice_axes():
            chosen = self._choices[entry.id]
            if full or chosen != entry.default:
                args.append(f"{entry.id}={chosen}")
            for name in entry.by_id[chosen].params:
                default = parameters()[name].default
                value = self._params[name]
                if full or default is None or _format_param(value) != default:
                    args.append(f"{name}={_format_param(value)}")
        return args

    def _format(self, full: bool) -> str:
        args = self._arguments(full)
        text = MEASURE_NAME + (f"({','.join(args)})" if args else "")
        return text + (f"@{self._cutoff}" if self._cutoff is not None else "")

    def canonical(self) -> str:
        """The canonical short measure string: only what differs from the spec's defaults."""
        return self._format(full=False)

    def full(self) -> str:
        """The full measure string: every axis and every parameter of the chosen choices."""
        return self._full

    def fingerprint(self) -> str:
        """A 16-hex-digit hash of the full form and the spec's major version, for citing
        (``ndcg.definition.versions``)."""
        text = f"ndcgspec {_version(load_spec()['spec_version'])[0]} {self.full()}"
        return sha256_hex(text.encode("utf-8"))[:16]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and self.full() == other.full()

    def __hash__(self) -> int:
        return hash(self.full())

    def __repr__(self) -> str:
        return f"Config({self.canonical()!r})"


def presets() -> tuple[Preset, ...]:
    """The presets of ``spec/presets.yaml``, in file order."""
    return load_presets().presets


def preset(name: str) -> Preset:
    """The preset whose id or alias is `name` (case-insensitive); ConfigError lists the ids."""
    return presets()[_preset_index(name)]


def preset_config(name: str) -> Config:
    """The configuration of the preset whose id or alias is `name` (`preset`), read from the
    file's parse: building every preset's record (`load_presets`) costs milliseconds of each
    start that reads a measure naming one (issue 41)."""
    return Config.from_mapping(_preset_entries()[_preset_index(name)][1])


@cache
def _preset_entries() -> tuple[tuple[tuple[str, ...], Mapping[str, ConfigValue]], ...]:
    """Each preset of ``spec/presets.yaml`` as its id and aliases and its configuration object,
    in file order."""
    return tuple(
        ((p["id"], *p.get("aliases", [])), p["config"])
        for p in load_yaml("presets.yaml")["presets"]
    )


def _preset_index(name: str) -> int:
    """The place in the file of the preset whose id or alias is `name` (case-insensitive);
    ConfigError lists the ids."""
    wanted = name.lower()
    entries = _preset_entries()
    for index, (names, _) in enumerate(entries):
        if wanted in [known.lower() for known in names]:
            return index
    ids = ", ".join(names[0] for names, _ in entries)
    raise ConfigError(f"unknown preset {shown(name)}; valid: {ids}")
