"""The survey's diagnosis of failing cases for the pytest plugin (``harness/pytest_plugin.py``),
which may not import the survey: this plugin answers its hook with ``survey/diagnosis.py``."""

from __future__ import annotations

import pytest

from ndcgspec.harness.diagnosis import Diagnose


@pytest.hookimpl(optionalhook=True)
def pytest_ndcgspec_diagnose() -> Diagnose:
    """The survey's diagnosis, imported only when a session runs conformance cases."""
    from ndcgspec.survey.diagnosis import diagnose

    return diagnose
