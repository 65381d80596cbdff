"""``cases/MANIFEST``: every file of the suite with its SHA-256, under the suite version, and
``cases/CHANGELOG.md``, which must name every case id or the group file that holds it."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ndcgspec.suite.case import SUITE_VERSION

MANIFEST = "MANIFEST"
CHANGELOG = "CHANGELOG.md"


def manifest_files(root: Path) -> list[Path]:
    """The files the manifest lists: every case file and the suite's documents."""
    files = [p for p in root.glob("**/*.json") if p.is_file()]
    files += [p for p in root.glob("*.md") if p.is_file()]
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def manifest_text(root: Path) -> str:
    """The manifest as it must read for the files now below `root`."""
    lines = [f"ndcgspec cases {SUITE_VERSION}"]
    for path in manifest_files(root):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        lines.append(f"{digest}  {path.relative_to(root).as_posix()}")
    return "\n".join(lines) + "\n"


def write_manifest(root: Path) -> Path:
    """Rewrite ``MANIFEST`` below `root`."""
    path = root / MANIFEST
    path.write_bytes(manifest_text(root).encode("utf-8"))
    return path


def manifest_is_current(root: Path) -> bool:
    """Whether ``MANIFEST`` lists exactly the files below `root` with their present checksums."""
    path = root / MANIFEST
    return path.is_file() and path.read_text(encoding="utf-8") == manifest_text(root)


def untraced_ids(root: Path, ids: dict[str, str]) -> list[str]:
    """The case ids (mapped to their group) that ``CHANGELOG.md`` names neither by id nor by
    the group's file ``<group>.json``."""
    text = (root / CHANGELOG).read_text(encoding="utf-8")
    return sorted(i for i, group in ids.items() if i not in text and f"{group}.json" not in text)
