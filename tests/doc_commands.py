"""The shell blocks of the written pages (the README, CONTRIBUTING.md and docs/), and their
commands run as written, for ``tests/test_readme.py``.

A block is fenced (``sh``, ``bash``, ``console``) or indented by four spaces; an indented block
is shell unless it is fenced with another language. Its commands are its lines, continuation
lines joined, comments and blank lines left out; ``NAME=value`` alone on a line sets a variable
for the commands after it in the block. What a page says beside its commands:

- a prompted line, ``$ command``, is followed by the lines it prints (standard output and
  standard error as a terminal interleaves them), up to the next prompt or the end of the block.
  A line ``…`` stands for any lines, ``…`` inside a line for any text in that line; every other
  line is printed exactly (trailing white space and trailing blank lines aside). A block holding
  one prompt holds nothing but prompts and their output;
- a command exits 0, unless its comment says ``# exits N``;
- an HTML comment on the line before a block (for an indented one, a blank line between) says
  what else the block is: ``<!-- not run: REASON -->`` (the test lists these blocks, each with
  its reason), ``<!-- file: PATH -->`` (the block is the file PATH of the reader's folder,
  written when the page reaches it) or ``<!-- without: MODULE ... -->`` (its commands run with
  those modules unimportable, in every Python process they start).

Each page runs in a scratch folder of its own, from its first block to its last, as a reader at
a clone's root would run it: a file of the checkout that a command names (``examples/qrels.txt``,
``harness/adapters/ndcg_adapter.mjs``) is copied there, a file of the shared data named by its
file name alone (``qrels.dl19-passage.txt``) is linked there, ``../shared`` is the shared folder,
and a file an earlier command or ``file`` block of the page wrote is where it wrote it. A command
identical to one run before, on the same files of its page, is run once.

Run as a script, it runs the pages named and writes, under each prompt whose output differs from
what the page shows, the output as printed; elide what a reader need not see with ``…`` after::

    python tests/doc_commands.py docs/usage.md
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement

REPO_ROOT = Path(__file__).resolve().parent.parent
TESTS_DIR = Path(__file__).resolve().parent
SHELL = {"indented", "sh", "bash", "console", "shell"}
ELISION = "…"
PROMPT = "$ "
MARKER = re.compile(r"<!-- (not run|file|without): (.+?) -->")
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")
EXITS = re.compile(r"(?:^|\s)#\s*exits (\d+)\b")
HINT = re.compile(r"\(ndcgspec's extras? ([\w, -]+)\)")
TIMEOUT = 900
"""Seconds a command may take: ``ndcgspec run reference`` judges every case, about two minutes
of CPU."""

# The ``sitecustomize`` that makes `blocked` (top-level module names) unimportable in a Python
# process: a `without` block's, and tests/commands/test_commands_without_extras.py's plain
# install (PYTHONPATH reaches the workers and adapters a command starts too).
BLOCKER = """import importlib.abc, sys
BLOCKED = {blocked!r}
class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Blocked())
"""


@dataclass(frozen=True)
class Block:
    """A code block of a page: its language (``indented`` for an indented one), its text with the
    indentation removed, and the marker on the line before it."""

    page: Path
    line: int
    """The page's line number of the block's first line (1-based)."""
    language: str
    text: str
    indent: str
    """What each line of the block starts with on the page."""
    marker: tuple[str, str] | None = None
    """(kind, value) of the HTML comment before the block: ``not run``, ``file`` or
    ``without``."""

    @property
    def shell(self) -> bool:
        return self.language in SHELL and self.file is None

    @property
    def not_run(self) -> str | None:
        """The reason the page gives for not running the block."""
        return self.marker[1] if self.marker and self.marker[0] == "not run" else None

    @property
    def file(self) -> str | None:
        """The path of the reader's folder the block is, when the page says so."""
        return self.marker[1] if self.marker and self.marker[0] == "file" else None

    @property
    def without(self) -> tuple[str, ...]:
        """The modules its commands run without."""
        return tuple(self.marker[1].split()) if self.marker and self.marker[0] == "without" else ()

    @property
    def where(self) -> str:
        return f"{named(self.page)}:{self.line}"


@dataclass(frozen=True)
class Command:
    """One command of a block, as written, with what the page says it does."""

    block: Block
    line: int
    """The page's line number of the command's first line."""
    text: str
    """Continuation lines joined, the comment kept (bash drops it)."""
    setting: tuple[str, ...]
    """The block's ``NAME=value`` lines before the command."""
    shown: tuple[str, ...] | None
    """The output lines a prompted command is shown printing; None when not prompted."""
    output_lines: tuple[int, int] = (0, 0)
    """The page's lines [start, end) holding `shown`."""

    @property
    def status(self) -> int:
        said = EXITS.search(self.text)
        return int(said.group(1)) if said else 0

    @property
    def script(self) -> str:
        return "\n".join([*self.setting, self.text])

    @property
    def where(self) -> str:
        return f"{named(self.block.page)}:{self.line}"


@dataclass(frozen=True)
class Outcome:
    """What running a command gave: the exit status and the output (standard output and error
    interleaved), or why it was skipped."""

    command: Command
    status: int = 0
    output: str = ""
    skipped: str = ""

    def problems(self) -> list[str]:
        """What differs from what the page says, as lines for a failure message."""
        if self.skipped:
            return []
        wrong = []
        if self.status != self.command.status:
            wrong.append(f"exit status {self.status}, the page says {self.command.status}")
        shown = self.command.shown
        if shown is not None and not matches(shown, self.output):
            wrong.append("printed other lines than the page shows:\n" + "\n".join(shown))
        if not wrong:
            return []
        printed = textwrap.indent(self.output[-4000:], "    | ")
        return [f"{self.command.where}: {self.command.text}\n  " + "\n  ".join(wrong), printed]


@dataclass(frozen=True)
class PageRun:
    """Every command of a page, run in its scratch folder, and what each gave."""

    page: Path
    folder: Path
    outcomes: tuple[Outcome, ...]

    def problems(self) -> list[str]:
        return [p for o in self.outcomes for p in o.problems()]


@dataclass
class Runner:
    """Runs pages in scratch folders below `scratch`, each command identical to one run before
    on the same files of its page run once."""

    scratch: Path
    shared: Path | None
    """The shared folder (its ``data/`` holds the real data), None when there is none."""
    done: dict[tuple[str, ...], tuple[int, str]] = field(default_factory=dict)
    pages: dict[Path, PageRun] = field(default_factory=dict)

    def run(self, page: Path) -> PageRun:
        """Every block of `page`, run once in the session."""
        if page not in self.pages:
            self.pages[page] = self.run_blocks(page, list(blocks_of(page)))
        return self.pages[page]

    def run_blocks(self, page: Path, blocks: Sequence[Block]) -> PageRun:
        """`blocks` of `page` in order, in a new scratch folder."""
        folder = self.scratch / f"{page.stem}-{len(list(self.scratch.glob('*')))}" / "clone"
        folder.mkdir(parents=True)
        if self.shared is not None:
            (folder.parent / "shared").symlink_to(self.shared.resolve())
        run = [c for b in blocks if b.shell and b.not_run is None for c in commands(b)]
        provided = self.provide(folder, run)
        outcomes = []
        for block in blocks:
            if block.file is not None:
                path = folder / block.file
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(block.text, encoding="utf-8")
            elif block.shell and block.not_run is None:
                outcomes += [self.outcome(c, folder, provided) for c in commands(block)]
        return PageRun(page, folder, tuple(outcomes))

    def provide(self, folder: Path, every: Sequence[Command]) -> set[Path]:
        """The checkout's files and the shared data's the commands name, put in `folder`: the
        checkout's copied (a command may write over them), the shared data's linked."""
        shared = [] if self.shared is None else (self.shared / "data").rglob("*")
        data = {p.name: p for p in shared if p.is_file()}
        provided = set()
        for word in {w for c in every for w in words(c.text)}:
            target = folder / word
            if target.exists() or target.is_symlink():
                continue
            if "/" in word and not word.startswith(("/", "..")) and (REPO_ROOT / word).is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(REPO_ROOT / word, target)
            elif word in data:
                target.symlink_to(data[word])
            else:
                continue
            provided.add(target)
        return provided

    def outcome(self, command: Command, folder: Path, provided: set[Path]) -> Outcome:
        key = (*spoken(command.script), *command.block.without, *written(folder, provided))
        if key not in self.done:
            self.done[key] = run(command, folder, self.environment(folder, command.block.without))
        status, output = self.done[key]
        skipped = "" if status == command.status else absent_extra(output)
        return Outcome(command, status, output, skipped)

    def environment(self, folder: Path, without: Sequence[str]) -> dict[str, str]:
        """The tests' environment as a reader's: the virtual environment's programs first,
        without the tests' own folder on PYTHONPATH, the shared folder named, and Python's
        output unbuffered, so that standard output and error interleave as on a terminal."""
        path = [
            p
            for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and Path(p) != TESTS_DIR
        ]
        if without:
            blocker = folder.parent / "without"
            blocker.mkdir(exist_ok=True)
            (blocker / "sitecustomize.py").write_text(BLOCKER.format(blocked=sorted(without)))
            path.insert(0, str(blocker))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        if path:
            env["PYTHONPATH"] = os.pathsep.join(path)
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        if self.shared is not None:
            env["NDCGSPEC_SHARED"] = str(self.shared)
        env["PYTHONUNBUFFERED"] = "1"
        return env


def named(path: Path) -> str:
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


def blocks_of(page: Path) -> Iterator[Block]:
    """The code blocks of `page`, in order: fenced ones with their language, indented ones
    (lines of four spaces or more after a blank line, blank lines inside) as ``indented``."""
    lines = page.read_text(encoding="utf-8").splitlines()
    at = 0
    while at < len(lines):
        fence = re.fullmatch(r"(\s*)```(\w*)\s*", lines[at])
        if fence:
            end = next(i for i in range(at + 1, len(lines)) if lines[i].strip() == "```")
            body, language, first = lines[at + 1 : end], fence.group(2), at + 2
        elif lines[at].startswith("    ") and (at == 0 or not lines[at - 1].strip()):
            end = at
            while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
                end += 1
            while not lines[end - 1].strip():
                end -= 1
            body, language, first = lines[at:end], "indented", at + 1
        else:
            at += 1
            continue
        depth = min(len(line) - len(line.lstrip()) for line in body if line.strip())
        indent = " " * depth
        text = "".join(line.removeprefix(indent) + "\n" for line in body)
        yield Block(page, first, language, text, indent, marker(lines, at))
        at = end + 1 if fence else end


def marker(lines: list[str], at: int) -> tuple[str, str] | None:
    """The marker of the HTML comment before line `at`, past one blank line."""
    before = at - 1
    if before >= 0 and not lines[before].strip():
        before -= 1
    found = MARKER.fullmatch(lines[before].strip()) if before >= 0 else None
    return (found.group(1), found.group(2)) if found else None


def commands(block: Block) -> list[Command]:
    """The commands of a shell block; a prompted block's with the lines shown below each."""
    lines = block.text.splitlines()
    prompted = any(line.startswith(PROMPT) for line in lines)
    found: list[Command] = []
    setting: list[str] = []
    at = 0
    while at < len(lines):
        line = lines[at]
        start = at
        if prompted and not line.startswith(PROMPT):
            raise ValueError(f"{block.where}: a line of a prompted block before its first prompt")
        text = line.removeprefix(PROMPT) if prompted else line
        while text.endswith("\\") and at + 1 < len(lines):
            at += 1
            text = text[:-1].rstrip() + " " + lines[at].strip()
        at += 1
        if not prompted and (not text.strip() or text.lstrip().startswith("#")):
            continue
        if ASSIGNMENT.fullmatch(text.strip()):
            setting.append(text.strip())
            continue
        shown = None
        output = (0, 0)
        if prompted:
            end = at
            while end < len(lines) and not lines[end].startswith(PROMPT):
                end += 1
            shown = tuple(lines[at:end])
            while shown and not shown[-1].strip():
                shown = shown[:-1]
            output = (block.line + at, block.line + at + len(shown))
            at = end
        found.append(Command(block, block.line + start, text, tuple(setting), shown, output))
    return found


def words(text: str) -> list[str]:
    """The words of a command that may name a file: each shell word, split at white space and
    after an ``=``."""
    try:
        split = shlex.split(text, comments=True)
    except ValueError:
        split = text.split()
    return [part.rpartition("=")[2] for word in split for part in word.split()]


def spoken(script: str) -> list[str]:
    """The words bash runs of `script`, comments and the spacing between words left out."""
    try:
        return shlex.split(script, comments=True)
    except ValueError:
        return [script]


def written(folder: Path, provided: set[Path]) -> list[str]:
    """Each file of `folder` a command or block of the page wrote, with its digest."""
    found = []
    for path in sorted(folder.rglob("*")):
        if path in provided or not path.is_file() or "__pycache__" in path.parts:
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        found.append(f"{path.relative_to(folder)} {digest}")
    return found


def run(command: Command, folder: Path, env: dict[str, str]) -> tuple[int, str]:
    """The exit status and output of `command` run by bash in `folder`; a pipeline fails when
    any of its commands does."""
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command.script],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
    )
    return done.returncode, done.stdout


def absent_extra(output: str) -> str:
    """Why a command that failed is skipped: its output names an extra of ndcgspec (the install
    hint of a missing library) of which a requirement is not installed; "" otherwise."""
    from ndcgspec.reference.errors import extra_requirements

    for named_extras in HINT.findall(output):
        for extra in named_extras.split(", "):
            for requirement in extra_requirements(extra.strip()):
                try:
                    version(Requirement(requirement).name)
                except PackageNotFoundError:
                    return f"{requirement} is not installed (ndcgspec's extra {extra.strip()})"
    return ""


def matches(shown: Sequence[str], printed: str) -> bool:
    """Whether `printed` is what the page shows: each shown line printed exactly but for
    trailing white space, ``…`` alone on a line for any lines and inside a line for any text of
    that line, trailing blank lines of either aside."""
    pattern = "".join(
        r"(?:[^\n]*\n)*?"
        if line.strip() == ELISION
        else r"[^\n]*?".join(map(re.escape, line.rstrip().split(ELISION))) + r"\n"
        for line in trimmed(shown)
    )
    text = "".join(line + "\n" for line in trimmed(printed.splitlines()))
    return re.fullmatch(pattern, text) is not None


def trimmed(lines: Sequence[str]) -> list[str]:
    out = [line.rstrip() for line in lines]
    while out and not out[-1]:
        out.pop()
    return out


def write_outputs(page_run: PageRun) -> int:
    """Writes, under each prompt of the page whose output differs from what it shows, the
    output as printed; the number of prompts rewritten."""
    lines = page_run.page.read_text(encoding="utf-8").splitlines()
    stale = [
        o
        for o in page_run.outcomes
        if o.command.shown is not None and not o.skipped and not matches(o.command.shown, o.output)
    ]
    for outcome in sorted(stale, key=lambda o: -o.command.line):
        start, end = outcome.command.output_lines
        indent = outcome.command.block.indent
        printed = [indent + line if line else "" for line in trimmed(outcome.output.splitlines())]
        lines[start - 1 : end - 1] = printed
    page_run.page.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(stale)


def main(pages: Sequence[str]) -> int:
    import tempfile

    from ndcgspec.suite.folders import shared_root

    shared = shared_root()
    if shared is None or not (shared / "data").is_dir():
        print("the shared data is needed: set NDCGSPEC_SHARED", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        runner = Runner(Path(scratch), shared)
        for page in pages:
            page_run = runner.run(Path(page).resolve())
            print(f"{page}: {write_outputs(page_run)} outputs written")
            for outcome in page_run.outcomes:
                if outcome.status != outcome.command.status and not outcome.skipped:
                    print(*outcome.problems(), sep="\n", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
