"""The ``identify`` command: the fingerprint of an nDCG implementation (``survey/identify.py``),
as text for a terminal or, with ``--format json``, as its record's JSON."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from ndcgspec.commands.adapter_flags import add_time_arguments
from ndcgspec.harness.execution import show_progress
from ndcgspec.reference import NdcgSpecError
from ndcgspec.survey.identification import EVIDENCE_SHOWN, CaseError, Identification
from ndcgspec.survey.identify import identify
from ndcgspec.survey.probes import time_limits


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``identify`` subcommand."""
    parser = subparsers.add_parser(
        "identify",
        help="fingerprint an nDCG implementation: which choice it makes on every axis",
        description="Run probe cases derived from the golden cases and report, per axis, the "
        "choice the implementation matches, with the case ids that show it.",
    )
    parser.add_argument(
        "adapter", nargs="?", metavar="ADAPTER", help="built-in name or module:object"
    )
    parser.add_argument("--exec", dest="exec_line", metavar="COMMAND", help="a protocol adapter")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument(
        "--every-probe",
        action="store_true",
        help="ask every probe under the adapter's own configuration, not only those that tell "
        "the candidates left apart and one of every case file",
    )
    add_time_arguments(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Print the fingerprint."""
    if bool(args.adapter) == bool(args.exec_line):
        raise NdcgSpecError("name exactly one adapter: ADAPTER or --exec COMMAND")
    with time_limits(args.timeout, args.budget):
        result = identify(
            args.adapter, args.exec_line, show_progress(quiet=False), every_probe=args.every_probe
        )
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2, sort_keys=False))
    else:
        print(render(result), end="")
    return 0


def render(result: Identification) -> str:
    """The fingerprint as text for a terminal, from the same data as ``--format json``."""
    a = result.adapter
    lines = [f"{a.name} {a.version} (float{a.number_format[0]})", ""]
    for f in result.findings:
        lines += _entry(f.axis, f.asked, f.verdict(), f.evidence, f.disagreeing, f.errors, f.note())
    for o in result.extras:
        lines += _entry(o.topic, o.asked, o.verdict(), o.evidence, o.disagreeing, [], o.note())
    lines += ["", f"configuration: {result.configuration_text()}"]
    if result.probes is not None and result.probes.asked < result.probes.shown:
        lines.append(
            f"probes asked: {result.probes.asked} of {result.probes.shown}, those that tell the "
            "choices apart and one of every case file (--every-probe asks every one)"
        )
    if not result.preset_differences:
        lines.append(f"closest preset: {result.preset} (matches on every observable axis)")
    else:
        lines.append(f"matches no preset; closest: {result.preset}, differing on:")
        for axis_id, why in result.preset_differences.items():
            lines.append(f"    {axis_id}: {'; '.join(why)}")
    return "\n".join(lines) + "\n"


def _entry(
    name: str,
    asked: str,
    verdict: str,
    evidence: Sequence[str],
    disagreeing: Sequence[str],
    errors: Sequence[CaseError],
    note: str,
) -> list[str]:
    """The lines of one finding or observation."""
    shown = f" (asked {asked})" if asked and len(asked) < 40 else ""
    lines = [f"{name}{shown}: {verdict}"]
    for label, case_ids in (("shown by", evidence), ("disagreeing", disagreeing)):
        if case_ids:
            lines.append(f"    {label}: {_first_ids(case_ids)}")
    if errors:
        first = f"{errors[0].case}: {errors[0].error}"
        lines.append(f"    errors: {len(errors)}, first: {first[:160]}")
    if note:
        lines.append(f"    {note}")
    return lines


def _first_ids(case_ids: Sequence[str]) -> str:
    """The first case ids of a list, and how many more there are."""
    more = len(case_ids) - EVIDENCE_SHOWN
    return ", ".join(case_ids[:EVIDENCE_SHOWN]) + (f" (+{more})" if more > 0 else "")
