"""The presets of ``presets.yaml`` as records: named configurations of real tools and papers,
each with the sources that decide it, what could not be confirmed, and the departures of its
library that no choice of the spec describes (``presets.schema.json`` says what each field
holds; the file is validated against it as parsed, before it becomes these records)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

ConfigValue = str | int | float | Mapping[int | float | str, int | float | str] | None
"""A value of a configuration object as YAML gives it (``config.schema.json``): a choice id,
a cutoff, a decimal or a label map; `Config.from_mapping` reads it exactly."""


@dataclass(frozen=True)
class Source:
    """A source a preset cites (``sources``): its kind (``paper``, ``source``, ``spec``,
    ``doc``), the reference, the evidence quoted from it and its address, if any."""

    kind: str
    ref: str
    evidence: str
    url: str | None = None


@dataclass(frozen=True)
class Departure:
    """A departure a preset declares: how the library departs from the preset's value on the
    probe `cases` (`outcome`), the library behaviour that makes it, the condition on any input
    under which it does (`when`, ``harness/departure_conditions.py``), if one is known, and the
    model ``predict`` reproduces it with (`model`, ``survey/prediction.py``), if any."""

    outcome: str
    behaviour: str
    cases: tuple[str, ...]
    when: str | None = None
    model: str | None = field(default=None, compare=False)

    @property
    def said(self) -> str:
        """The behaviour on one line, as reports give it."""
        return " ".join(self.behaviour.split())


@dataclass(frozen=True)
class Preset:
    """One preset: its id and aliases, title and description, the configuration object of
    what differs from the spec's defaults (`config`), the built-in adapter of its library
    (`adapter`), if any, and its evidence."""

    id: str
    aliases: tuple[str, ...]
    title: str
    description: str
    config: Mapping[str, ConfigValue]
    sources: tuple[Source, ...]
    unverified: tuple[str, ...] = ()
    adapter: str | None = None
    departures: tuple[Departure, ...] = ()

    @property
    def cutoff(self) -> int | None:
        """The cutoff the tool applies when the user asks for none, if any (an integer:
        ``presets.schema.json``)."""
        value = self.config.get("cutoff")
        return value if isinstance(value, int) else None


@dataclass(frozen=True)
class Condition:
    """A condition on an input that a departure's `when` names (``conditions``), implemented
    under its id by ``harness/departure_conditions.py``."""

    id: str
    text: str


@dataclass(frozen=True)
class Presets:
    """The whole of ``presets.yaml``: its version, the conditions and the presets, in file
    order."""

    version: int | str
    conditions: tuple[Condition, ...]
    presets: tuple[Preset, ...]
