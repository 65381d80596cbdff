"""Type-check ndcgspec with mypy, under the configuration of pyproject's ``[tool.mypy]``.

Each folder of the checkout is installed as a package under ``ndcgspec`` through pyproject's
``[tool.setuptools] package-dir`` (``engine/`` is ``ndcgspec.engine``, ``api/`` is ``ndcgspec``
itself), which mypy cannot follow. This script lays that mapping out as symbolic links under
``build/mypy-path/ndcgspec/`` (``engine -> ../../../engine``, and one link per entry of ``api/``),
which ``[tool.mypy]``'s ``mypy_path`` names, and runs ``mypy -p ndcgspec`` on it. mypy's messages
name the checkout's files (``engine/rank.py``, not the link's path), and its exit status is the
script's.

    python .ci/typecheck.py
"""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = ROOT / "build" / "mypy-path"
PACKAGE = "ndcgspec"


def package_folders() -> dict[str, str]:
    """Each package of pyproject's package-dir under ``ndcgspec`` → its folder in the checkout."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        mapping: dict[str, str] = tomllib.load(file)["tool"]["setuptools"]["package-dir"]
    return {name: folder for name, folder in mapping.items() if name.split(".")[0] == PACKAGE}


def lay_out(folders: dict[str, str]) -> None:
    """Links ``build/mypy-path/ndcgspec/...`` to the folders, laid anew on every run."""
    shutil.rmtree(LAYOUT, ignore_errors=True)
    top = LAYOUT / PACKAGE
    top.mkdir(parents=True)
    for name, folder in folders.items():
        if name == PACKAGE:
            for entry in sorted((ROOT / folder).iterdir()):
                if entry.name != "__pycache__":
                    link = top / entry.name
                    link.symlink_to(os.path.relpath(entry, link.parent))
        else:
            link = LAYOUT.joinpath(*name.split("."))
            link.symlink_to(os.path.relpath(ROOT / folder, link.parent), target_is_directory=True)


def main() -> int:
    folders = package_folders()
    lay_out(folders)
    # A message's path, build/mypy-path/ndcgspec/<package path>/..., back to the checkout's
    # folder; the longest first, since the root's (ndcgspec, folder api/) begins every other.
    prefix = f"{LAYOUT.relative_to(ROOT).as_posix()}/"
    names = sorted(folders, key=len, reverse=True)
    paths = {f"{prefix}{name.replace('.', '/')}/": f"{folders[name]}/" for name in names}
    pattern = re.compile("|".join(re.escape(path) for path in paths))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "-p", PACKAGE],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    sys.stdout.write(pattern.sub(lambda match: paths[match.group(0)], result.stdout))
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
