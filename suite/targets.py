"""The configurations a run judges inputs under (``--preset``, ``-m``, an adapter's native
configuration), and how each sets an input's cutoff: the targets of ``ndcgspec.harness.plan``
and of the preset cases (``ndcgspec.suite.presets``)."""

from __future__ import annotations

from dataclasses import dataclass

from ndcgspec.measures.grammar import parse_measure
from ndcgspec.reference.config import Config, preset


@dataclass(frozen=True)
class Target:
    """A configuration every input is judged under, and how it sets the cutoff."""

    config: Config
    every_input: bool
    """The target's cutoff replaces every input's (a measure's @k); otherwise it applies only
    to inputs without one (a preset's own cutoff)."""

    def for_input(self, cutoff: int | None) -> Config:
        """The configuration one input is judged under."""
        if self.every_input or (cutoff is None and self.config.cutoff is not None):
            return self.config
        return self.config.replace(cutoff=cutoff)


def preset_target(name: str) -> Target:
    """The target of ``--preset NAME``."""
    return Target(Config.from_mapping(preset(name).config), every_input=False)


def measure_target(text: str) -> Target:
    """The target of ``-m MEASURE``: its cutoff, when it states one, applies to every input."""
    config = parse_measure(text)
    return Target(config, every_input=config.cutoff is not None)
