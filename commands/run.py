"""The ``run`` command (``harness/run_command.py``), its failures diagnosed by the survey.

The harness runs and judges the cases; why they fail is ``identify``'s question, which the
survey answers (``survey/diagnosis.py``). The harness may not import the survey, so the
diagnosis is handed to it here, as a function of the failing cases."""

from __future__ import annotations

import argparse

from ndcgspec.harness import run_command
from ndcgspec.survey.diagnosis import diagnose


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``run`` subcommand with the survey's diagnosis."""
    run_command.register(subparsers, diagnose)
