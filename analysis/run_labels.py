"""What a run is called among several (``ndcgspec score`` and ``compare`` of many runs): its
own tag, or a name from its path. Apart from `comparison` so that ``score`` labels its runs
without importing what a comparison computes with (the sweep, tqdm: about 40 ms of CPU)."""

from __future__ import annotations

from pathlib import Path

from ndcgspec.engine.table import table_format
from ndcgspec.reference.trec_io import Source, run_tag


def run_name(path: str) -> str:
    """A run's name: its file name without ``.gz`` and the TREC ``input.`` prefix."""
    name = Path(path).name.removesuffix(".gz")
    return name.removeprefix("input.")


def run_label(run: str | Source, taken: set[str], fallback: str) -> str:
    """What a run is called among several, added to `taken`: its tag, trec_eval's ``runid``
    (the tag of its last line, ``reference/trec_io.run_tag``) and the name its users know, or
    `fallback` where it has none (a table, or a path another engine reads) or an earlier run
    already goes by it."""
    tag = None
    if isinstance(run, Source) and table_format(run) is None:
        tag = run_tag(run) or None
    label = tag if tag is not None and tag not in taken else fallback
    taken.add(label)
    return label
