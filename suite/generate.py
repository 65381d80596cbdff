"""``ndcgspec cases generate``: write every hand-specified, documented, generated and published
case file, then the preset files built from them, byte for byte the same on every run (fixed
layout, no timestamps, fixed order)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

from ndcgspec.reference.config import presets
from ndcgspec.suite import documents, generated, ids
from ndcgspec.suite.canonical_json import dumps
from ndcgspec.suite.case_record import CaseFile
from ndcgspec.suite.folders import data_root
from ndcgspec.suite.hand import hand_files
from ndcgspec.suite.load import cases_root
from ndcgspec.suite.presets import preset_file, preset_inputs
from ndcgspec.suite.published import published_files

Task = tuple[str, Any]


def sources_dir() -> Path:
    """The hand-authored sources: ``cases/sources/*.yaml``."""
    return cases_root() / "sources"


def tasks(published: Path | None) -> list[Task]:
    """The units of generation, largest first so that parallel workers finish together; the
    published files only from a data root `published` (None leaves them as they are)."""
    found: list[Task] = [("large", None)]
    found += [("generated", seed) for seed in generated.FILE_SEEDS]
    found += [("documents", name) for name in documents.BUILDERS]
    found.append(("ids", None))
    found += [("hand", str(path)) for path in sorted(sources_dir().glob("*.yaml"))]
    if published is not None:
        found.append(("published", str(published)))
    return found


def run_task(task: Task) -> list[CaseFile]:
    """The case files of one unit of generation."""
    kind, argument = task
    builders: dict[str, Callable[[Any], list[CaseFile]]] = {
        "large": lambda _: [generated.large_file()],
        "generated": lambda seed: [generated.generated_file(seed)],
        "documents": lambda name: [documents.BUILDERS[name]()],
        "ids": lambda _: [ids.numeric_ids()],
        "hand": lambda path: hand_files(Path(path)),
        "published": lambda data: published_files(Path(data)),
    }
    return builders[kind](argument)


def published_available(data: Path | None) -> bool:
    """Whether the shared data the published cases are built from is present under the data
    root `data` (None: no shared folder is known)."""
    return data is not None and (data / "trec_eval-test" / "QUICKTEST.make").is_file()


def generate(out: Path | None = None, data: Path | None = None, jobs: int = 2) -> list[Path]:
    """Write every case file below `out` (the suite's ``cases/`` by default); published files
    only when the shared data is present (otherwise they are left as they are)."""
    out = out or cases_root()
    data = data or data_root()
    work = tasks(data if published_available(data) else None)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        mapped = pool.map if jobs > 1 else map
        contents = [c for files in mapped(run_task, work) for c in files]
        # The preset files judge the inputs of the files above under every preset.
        inputs = preset_inputs(c for c in contents if c.origin != "published")
        named = presets()
        ids, titles = [entry.id for entry in named], [entry.title for entry in named]
        contents += list(mapped(partial(preset_file, inputs=inputs), ids, titles))
    written = []
    for content in contents:
        path = out / f"{content.group}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(dumps(content.to_json()).encode("utf-8"))
        written.append(path)
    return sorted(written)
