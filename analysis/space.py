"""The configurations `ndcgspec which` searches, most plausible first.

The space is declared here and stated in every answer:

1. the presets of ``spec/presets.yaml``, in file order;
2. every one-axis departure from a preset: one choice axis of ``spec/ndcg.yaml`` set to
   another of its choices (parameters at their spec defaults);
3. every two-axis departure from a preset;

each at every cutoff of `DEFAULT_CUTOFFS` (and the preset's own cutoff, if it has one). On
the gain axis the choices are the spec's (binary among them) and gain maps (``ndcg.gain.map``) that
collapse grades, built from the integer grades of the qrels (`collapsing_maps`), plus any map
the user gives. A configuration reached from several presets keeps its most plausible origin.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations, product

from ndcgspec.measures.trec_eval_names import DEFAULT_CUTOFFS as TREC_EVAL_CUTOFFS
from ndcgspec.reference.config import (
    Config,
    choice_axes,
    choice_ids,
    parameters,
    presets,
    spec_choice,
)
from ndcgspec.reference.decimals import canonical_decimal

# The cutoffs papers report.
REPORTED_CUTOFFS = (1, 3, 5, 10, 20, 100, 1000)
# Those, the cutoffs trec_eval prints for ndcg_cut by default, then the whole ranking.
DEFAULT_CUTOFFS: tuple[int | None, ...] = (
    *sorted({*REPORTED_CUTOFFS, *TREC_EVAL_CUTOFFS}),
    None,
)
MAX_DEPARTURES = 2
AxisValue = str | dict[str, str]
"""The value of a choice or parameter key of a configuration object (``Config.to_mapping``):
a choice id, a parameter's canonical string, or a gain map's."""


@dataclass(frozen=True)
class Option:
    """One value an axis can take in the search: its name and the configuration keys it sets."""

    axis: str
    name: str
    values: tuple[tuple[str, AxisValue], ...]


@dataclass(frozen=True)
class Candidate:
    """A configuration of the space with its most plausible origin: the preset it departs
    from and the departures, each ``(axis, option name)``. `config` has no cutoff; the
    candidate's cutoff is `cutoff`."""

    config: Config
    cutoff: int | None
    preset: str
    departures: tuple[tuple[str, str], ...]
    order: tuple[int, ...]

    def measure(self) -> Config:
        """The configuration with its cutoff."""
        return self.config.replace(cutoff=self.cutoff)

    def origin(self) -> str:
        """How the candidate is reached, e.g. ``trec_eval@10 with ties=input``."""
        at = "" if self.cutoff is None else f"@{self.cutoff}"
        changes = ", ".join(f"{a}={o}" for a, o in self.departures)
        return f"{self.preset}{at}" + (f" with {changes}" if changes else "")


def _map_text(table: dict[Decimal, Decimal]) -> str:
    return (
        "{"
        + ",".join(f"{canonical_decimal(k)}:{canonical_decimal(v)}" for k, v in table.items())
        + "}"
    )


def collapsing_maps(labels: Iterable[Decimal]) -> list[dict[Decimal, Decimal]]:
    """Gain maps that collapse grades, over the positive integer grades of `labels` (read
    as trec_eval reads them, truncated toward zero):

    - linear gain with every grade below t counted as 0, for each grade t above the lowest
      (NIST counted grade 1 as 0 for the TREC 2020 Deep Learning passage nDCG);
    - exponential gain 2^l − 1 with every grade below t counted as 0, likewise;
    - binary relevance at t: grades ≥ t gain 1, those below 0, for each grade t.

    A map that gives every grade its linear gain is left out; so are repeats."""
    grades = sorted({int(label) for label in labels if int(label) > 0})
    tables: list[dict[Decimal, Decimal]] = []
    for t in grades[1:]:
        tables.append({Decimal(g): Decimal(0 if g < t else g) for g in grades})
    for t in grades[1:]:
        tables.append({Decimal(g): Decimal(0 if g < t else 2**g - 1) for g in grades})
    for t in grades:
        tables.append({Decimal(g): Decimal(0 if g < t else 1) for g in grades})
    unique: list[dict[Decimal, Decimal]] = []
    for table in tables:
        if table not in unique and any(k != v for k, v in table.items()):
            unique.append(table)
    return unique


def axis_options(
    labels: Iterable[Decimal], extra_maps: Sequence[dict[Decimal, Decimal]] = ()
) -> dict[str, list[Option]]:
    """Every value each choice axis takes in the search, in spec order."""
    options: dict[str, list[Option]] = {}
    for entry in choice_axes():
        name = entry.id
        plain = [c for c in choice_ids(name) if not _needs_params(name, c)]
        options[name] = [Option(name, c, ((name, c),)) for c in plain]
    maps = [*extra_maps, *(m for m in collapsing_maps(labels) if m not in extra_maps)]
    options["gain"] += [
        Option(
            "gain",
            f"map{_map_text(table)}",
            (
                ("gain", "map"),
                (
                    "gain_map",
                    {canonical_decimal(k): canonical_decimal(v) for k, v in table.items()},
                ),
            ),
        )
        for table in maps
    ]
    return options


def _needs_params(axis_id: str, choice_id: str) -> bool:
    """Whether the choice has a parameter without a spec default (the gain map)."""
    return any(parameters()[p].required for p in spec_choice(axis_id, choice_id).params)


def _own_options(preset: Config, options: dict[str, list[Option]]) -> list[int]:
    """The preset's value on each axis as an index into `options`; a value the search does
    not list (a preset with its own parameters) is added to its axis."""
    point = []
    preset_values = _by_axis(preset)
    for name, values in options.items():
        own = preset_values.get(name, {})
        listed = [_by_axis(Config.from_mapping(dict(o.values))).get(name, {}) for o in values]
        if own not in listed:
            text = ",".join(f"{k}={v}" for k, v in own.items())
            values.append(Option(name, text, tuple(own.items())))
            listed.append(own)
        point.append(listed.index(own))
    return point


def _by_axis(config: Config) -> dict[str, dict[str, AxisValue]]:
    """The keys of the configuration's object by the axis they belong to: its choice and
    params."""
    out: dict[str, dict[str, AxisValue]] = {}
    for key, value in config.to_mapping().items():
        out.setdefault(_axis_of(key), {})[key] = value
    return out


def _axis_of(key: str) -> str:
    """The axis a configuration key belongs to (a parameter's owning axis)."""
    for entry in choice_axes():
        if key == entry.id or key in {p.id for p in entry.params}:
            return entry.id
    return key


def _points(base: list[int], sizes: list[int]) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every point within `MAX_DEPARTURES` changed axes of `base`, fewest changes first, with
    its position in the search order (changed axis and option indexes)."""
    for count in range(MAX_DEPARTURES + 1):
        for changed in combinations(range(len(sizes)), count):
            alternatives = [[j for j in range(sizes[i]) if j != base[i]] for i in changed]
            for picks in product(*alternatives):
                point = list(base)
                for i, j in zip(changed, picks, strict=True):
                    point[i] = j
                position = tuple(x for pair in zip(changed, picks, strict=True) for x in pair)
                yield tuple(point), (count, *position)


def search_space(
    labels: Iterable[Decimal],
    cutoffs: Sequence[int | None] = DEFAULT_CUTOFFS,
    extra_maps: Sequence[dict[Decimal, Decimal]] = (),
) -> tuple[list[Candidate], dict[str, list[Option]]]:
    """Every configuration of the space once, most plausible first (fewer departures, then
    the preset's place in ``spec/presets.yaml``, then the axes and choices in spec order, then
    the cutoff in the order given), and the options searched on each axis."""
    options = axis_options(list(labels), extra_maps)
    names = list(options)
    best: dict[
        tuple[tuple[int, ...], int | None], tuple[tuple[int, ...], str, tuple[int, ...]]
    ] = {}
    for index, entry in enumerate(presets()):
        # Its cutoff is on no choice axis: each cutoff of the space is searched from it.
        base = _own_options(Config.from_mapping(entry.config), options)
        own = entry.cutoff
        preset_cutoffs = [*cutoffs, *([own] if own is not None and own not in cutoffs else [])]
        sizes = [len(options[name]) for name in names]
        for point, (count, *position) in _points(base, sizes):
            for at, k in enumerate(preset_cutoffs):
                order = (count, index, *position, at)
                held = best.get((point, k))
                if held is None or order < held[0]:
                    best[point, k] = (order, entry.id, tuple(base))
    configs: dict[tuple[int, ...], Config] = {}
    candidates = []
    for (point, k), (order, preset_id, preset_base) in best.items():
        if point not in configs:
            values: dict[str, AxisValue] = {}
            for name, j in zip(names, point, strict=True):
                values.update(options[name][j].values)
            configs[point] = Config.from_mapping(values)
        departures = tuple(
            (name, options[name][j].name)
            for name, j, b in zip(names, point, preset_base, strict=True)
            if j != b
        )
        candidates.append(Candidate(configs[point], k, preset_id, departures, order))
    candidates.sort(key=lambda c: c.order)
    return candidates, options


def describe_space(options: dict[str, list[Option]], cutoffs: Sequence[int | None]) -> list[str]:
    """The space in words, one line per part, for the output of `which`."""
    shown = ", ".join("none" if k is None else str(k) for k in cutoffs)
    lines = [
        f"presets of spec/presets.yaml ({len(presets())}), then every one-axis and two-axis "
        "departure from each, over these choices (parameters at their spec defaults):",
    ]
    lines += [f"  {name}: {', '.join(o.name for o in values)}" for name, values in options.items()]
    lines.append(f"  cutoff: {shown} (and a preset's own cutoff)")
    return lines
