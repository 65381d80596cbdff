"""``ndcgspec cases generate``: write every hand-specified, documented, generated and published
case file, byte for byte the same on every run (fixed layout, no timestamps, fixed order)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ndcgspec.harness.suite import documents, generated
from ndcgspec.harness.suite.canonical_json import dumps
from ndcgspec.harness.suite.hand import hand_files
from ndcgspec.harness.suite.load import cases_root, data_root
from ndcgspec.harness.suite.published import published_files

Task = tuple[str, Any]


def sources_dir() -> Path:
    """The hand-authored sources: ``cases/sources/*.yaml``."""
    return cases_root() / "sources"


def tasks(data: Path, with_published: bool) -> list[Task]:
    """The units of generation, largest first so that parallel workers finish together."""
    found: list[Task] = [("large", None)]
    found += [("generated", seed) for seed in generated.FILE_SEEDS]
    found += [("documents", name) for name in documents.BUILDERS]
    found += [("hand", str(path)) for path in sorted(sources_dir().glob("*.yaml"))]
    if with_published:
        found.append(("published", str(data)))
    return found


def run_task(task: Task) -> list[dict[str, Any]]:
    """The case files of one unit of generation."""
    kind, argument = task
    builders: dict[str, Callable[[Any], list[dict[str, Any]]]] = {
        "large": lambda _: [generated.large_file()],
        "generated": lambda seed: [generated.generated_file(seed)],
        "documents": lambda name: [documents.BUILDERS[name]()],
        "hand": lambda path: hand_files(Path(path)),
        "published": lambda data: published_files(Path(data)),
    }
    return builders[kind](argument)


def published_available(data: Path) -> bool:
    """Whether the shared data the published cases are built from is present."""
    return (data / "trec_eval-test" / "QUICKTEST.make").is_file()


def generate(out: Path | None = None, data: Path | None = None, jobs: int = 2) -> list[Path]:
    """Write every case file below `out` (the suite's ``cases/`` by default); published files
    only when the shared data is present (otherwise they are left as they are)."""
    out = out or cases_root()
    data = data or data_root()
    work = tasks(data, published_available(data))
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(run_task, work))
    else:
        results = [run_task(t) for t in work]
    written = []
    for content in (c for files in results for c in files):
        path = out / f"{content['group']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(dumps(content).encode("utf-8"))
        written.append(path)
    return sorted(written)
