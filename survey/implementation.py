"""What the conformance page says about one built-in adapter: the record `matrix` fills and
its grid (`grid`) and HTML page (`page_html`) read."""

from __future__ import annotations

from dataclasses import dataclass, field

from ndcgspec.survey.identification import Identification
from ndcgspec.survey.prediction import Prediction
from ndcgspec.survey.preset_check import PresetCheck


@dataclass
class Implementation:
    """Everything the matrix says about one built-in adapter."""

    name: str
    identification: Identification
    presets: list[PresetCheck] = field(default_factory=list)
    ulps: list[float] = field(default_factory=list)
    published: dict[str, str] = field(default_factory=dict)
    prediction: Prediction | None = None
