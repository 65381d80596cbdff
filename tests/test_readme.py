"""The README and the pages of ``docs/``, held to what they say.

The adapter example and CI step of ``docs/adapters.md`` declare trec_eval's convention. Copied
into a project of its own, the example must be judged on at least 1,500 cases and pass them all,
through ``ndcgspec run`` and through the pytest plugin; with one deliberate bug (ties ordered by
document id ascending instead of descending) it must fail, and only on inputs whose score
depends on the order of tied documents.

Every ``ndcgspec`` command shown in a code block must parse with the command line's own parser,
every option of a documented benchmark command must be one its script defines, every relative
link and every path named in code must lead to a file of the checkout, the README's Python
example must run, and the README stays short enough to be a front door.
"""

from __future__ import annotations

import itertools
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndcgspec.commands.cli import build_parser
from ndcgspec.engine.memory import Inputs
from ndcgspec.harness.runner import load_cases
from ndcgspec.reference import Config, NdcgSpecError
from ndcgspec.suite.load import LoadedCase, case_inputs

REPO_ROOT = Path(__file__).resolve().parent.parent
README = REPO_ROOT / "README.md"
ADAPTERS = REPO_ROOT / "docs" / "adapters.md"
GENERATED = {"conformance.md"}
"""Pages of docs/ that ``ndcgspec matrix`` writes: held to its output by CI, not here."""
WRITTEN = [
    README,
    REPO_ROOT / "CONTRIBUTING.md",
    *sorted(p for p in (REPO_ROOT / "docs").glob("*.md") if p.name not in GENERATED),
]
README_LINES = 200
MINIMUM_JUDGED = 1500
CORRECT_TIES = "sorted(scores, key=lambda doc: (scores[doc], doc), reverse=True)"
DOCID_ASCENDING = "sorted(scores, key=lambda doc: (-scores[doc], doc))"

# The tests that run the documented commands over the whole bundled suite (thousands of cases).
whole_suite = pytest.mark.slow


def named(path: Path) -> str:
    return str(path.relative_to(REPO_ROOT))


def fenced(language: str, after: str, document: Path = ADAPTERS) -> str:
    """The first ``language`` code block of `document` below the heading `after`."""
    text = document.read_text(encoding="utf-8")
    section = text[text.index(after) :]
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)


def prose(document: Path) -> str:
    """`document` without its fenced code blocks."""
    return re.sub(r"^```.*?^```", "", document.read_text(encoding="utf-8"), flags=re.S | re.M)


def code_blocks(document: Path) -> Iterator[tuple[str, str]]:
    """(language, text) of every code block of `document`: fenced ones with their language,
    indented ones (four spaces after a blank line) as ``"indented"``."""
    text = document.read_text(encoding="utf-8")
    for match in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
        yield match.group(1), match.group(2)
    for match in re.finditer(r"(?:^|\n\n)((?: {4}.*\n?)+)", prose(document)):
        yield "indented", "".join(line[4:] + "\n" for line in match.group(1).splitlines())


def shell_lines(document: Path) -> Iterator[str]:
    """The lines of `document`'s shell blocks (indented, ``sh`` or ``console``), continuation
    lines joined."""
    for language, block in code_blocks(document):
        if language in ("indented", "sh", "console"):
            yield from block.replace("\\\n", " ").splitlines()


def commands_of(line: str, program: str) -> Iterator[list[str]]:
    """The argument lists `line` gives `program` (``ndcgspec``, ``python``): the line itself,
    after a ``$`` prompt, or a part of it after ``&&`` or ``|``; comments and redirections
    dropped."""
    for part in re.split(r"&&|\|", line.removeprefix("$ ")):
        try:
            words = shlex.split(part, comments=True)
        except ValueError:
            continue
        if words and words[0] == program:
            yield [w for w in words[1:] if not w.startswith(">")]


def documented_commands(program: str) -> list[tuple[str, list[str]]]:
    return [
        (named(document), words)
        for document in WRITTEN
        for line in shell_lines(document)
        for words in commands_of(line, program)
    ]


def ci_commands() -> Iterator[list[str]]:
    """The documented CI step as argument lists: continuation lines joined, comments dropped,
    and the install line left out (this checkout is installed)."""
    script = fenced("sh", "## In a project's CI").replace("\\\n", " ")
    for line in script.splitlines():
        words = shlex.split(line, comments=True)
        if words and "install" not in words:
            yield words


def project(tmp_path: Path, source: str) -> Path:
    """A folder holding ``mypkg/ndcg_adapter.py`` with `source`, as a user's project would."""
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ndcg_adapter.py").write_text(source)
    return tmp_path


def run_in(folder: Path, words: list[str]) -> subprocess.CompletedProcess[str]:
    command = {
        "python": [sys.executable],
        "ndcgspec": [sys.executable, "-m", "ndcgspec.commands.cli"],
    }
    return subprocess.run(
        [*command[words[0]], *words[1:]],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=900,
    )


def report_results(path: Path) -> list[dict]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [r for r in lines if r["type"] == "result"]


# -- the front door -------------------------------------------------------------------------


def test_the_readme_is_at_most_200_lines() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= README_LINES


def test_ci_finds_the_readme_set_up_commands_it_runs() -> None:
    # .ci/user-install runs the quick start and the test command it greps from the README.
    script = (REPO_ROOT / ".ci" / "user-install").read_text(encoding="utf-8")
    patterns = re.findall(r"grep -m1 (['\"])(.+?)\1 README\.md", script)
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(patterns) == 2
    for _, pattern in patterns:
        assert any(re.search(pattern, line) for line in lines), pattern


def test_the_readme_python_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-c", fenced("python", "## What it is for", README)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    # examples/: q1 and q2 scored, q3 missing from the run, so trec_eval's mean is over two.
    assert done.stdout.startswith("nDCG(negative=unjudged,fractional=truncate,aggregate=run)@10 0.")


# -- links, paths and commands of every written page ------------------------------------------


def slug(heading: str) -> str:
    """The fragment GitHub gives a heading: lower case, punctuation dropped, spaces hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def fragments(document: Path) -> set[str]:
    return {slug(h) for h in re.findall(r"^#+ (.*)$", prose(document), re.M)}


def leads(document: Path, link: str) -> bool:
    """Whether the relative `link` of `document` names a file, and a heading of it if it names
    one (``README.md#the-map``)."""
    target, _, fragment = link.partition("#")
    path = (document.parent / target).resolve() if target else document
    if not path.exists():
        return False
    return not fragment or path.suffix != ".md" or fragment in fragments(path)


@pytest.mark.parametrize("document", WRITTEN, ids=named)
def test_every_relative_link_leads_to_a_file_of_the_checkout(document: Path) -> None:
    links = re.findall(r"\]\(([^)\s]+)\)", prose(document))
    assert links
    assert [
        link for link in links if not re.match(r"[a-z]+:", link) and not leads(document, link)
    ] == []


def named_paths(document: Path) -> Iterator[str]:
    """The paths of the checkout `document` names in code (``engine/support.py``): those
    starting at a top-level folder, without a placeholder (``<name>``, ``*``)."""
    tops = {p.name for p in REPO_ROOT.iterdir() if p.is_dir()} - {".git", ".venv"}
    for span in re.findall(r"`([^`\n]+)`", document.read_text(encoding="utf-8")):
        for word in span.split():
            top, slash, _ = word.partition("/")
            if slash and top in tops and not re.search(r"[<>*{}$]|\.\.\.", word):
                yield word.rstrip(",.;:)")


@pytest.mark.parametrize("document", WRITTEN, ids=named)
def test_every_path_named_in_code_exists(document: Path) -> None:
    missing = [p for p in named_paths(document) if not (REPO_ROOT / p).exists()]
    assert missing == []


def test_every_documented_ndcgspec_command_parses() -> None:
    commands = documented_commands("ndcgspec")
    # The CI step, the quick start, run, report, which, compare, score on Spark, ... .
    assert len(commands) >= 20
    refused = []
    for where, words in commands:
        try:
            build_parser(words).parse_args(words)
        except SystemExit:
            refused.append(f"{where}: ndcgspec {shlex.join(words)}")
    assert refused == []


def options_of(script: str) -> set[str]:
    """The option strings `script`'s own parser lists in its ``--help``."""
    done = subprocess.run(
        [sys.executable, script, "--help"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return set(re.findall(r"--[a-z0-9][a-z0-9-]*", done.stdout))


def test_every_option_of_a_documented_benchmark_is_one_its_script_takes() -> None:
    commands = [(w, c) for w, c in documented_commands("python") if c[0].startswith("benchmarks/")]
    scripts = {c[0] for _, c in commands}
    assert scripts >= {"benchmarks/score.py", "benchmarks/which.py", "benchmarks/spark.py"}
    known = {script: options_of(script) for script in sorted(scripts)}
    unknown = [
        f"{where}: {words[0]} {option}"
        for where, words in commands
        for option in sorted({w.partition("=")[0] for w in words[1:] if w.startswith("--")})
        if option not in known[words[0]]
    ]
    assert unknown == []


# -- the adapter example and the CI step, run as written ---------------------------------------


def test_the_adapter_example_is_the_trec_eval_convention_with_correct_ties() -> None:
    # The mutation below must change the example; the example must compute docid-desc ties.
    assert fenced("python", "# Checking an implementation").count(CORRECT_TIES) == 1


@whole_suite
def test_the_documented_ci_step_passes_on_the_bundled_suite(tmp_path: Path) -> None:
    folder = project(tmp_path, fenced("python", "# Checking an implementation"))
    commands = list(ci_commands())
    assert [c[:3] for c in commands] == [
        ["python", "-m", "pytest"],
        ["ndcgspec", "run", "mypkg.ndcg_adapter:adapter"],
        ["ndcgspec", "report", "ndcg.jsonl"],
        ["ndcgspec", "report", "ndcg.jsonl"],
    ]
    done = [run_in(folder, words) for words in commands]
    for words, result in zip(commands, done, strict=True):
        assert result.returncode == 0, (words, result.stdout[-3000:], result.stderr[-2000:])
    passed = int(re.search(r"(\d+) passed", done[0].stdout).group(1))
    assert passed >= MINIMUM_JUDGED and " failed" not in done[0].stdout
    judged = report_results(folder / "ndcg.jsonl")
    ran = [r for r in judged if r["outcome"] != "unsupported"]
    assert len(ran) >= MINIMUM_JUDGED
    assert {r["outcome"] for r in ran} == {"pass"}
    assert {r["expected_source"] for r in ran} == {"stored", "computed"}
    junit = (folder / "ndcg-junit.xml").read_text()
    assert 'failures="0"' in junit and 'errors="0"' in junit
    badge = json.loads((folder / "ndcg-badge.json").read_text())
    assert badge["message"] == f"100.0% ({len(ran)}/{len(ran)})"


def case_of(case_id: str, cases: dict[str, LoadedCase]) -> LoadedCase:
    """The stored case behind a result id (a computed case's id is ``<input's id>@<fp>``)."""
    return cases[case_id.split("@")[0]]


def tie_order_matters(loaded: LoadedCase, config: dict) -> bool:
    """Whether the input scores differently with docid-asc ties, the bug: the reference's
    answer, from the engine's in-memory scoring (``tests/engine/test_equals_reference.py`` holds
    it equal to the reference on every case)."""
    inputs = Inputs(*case_inputs(loaded.case))
    right = Config.from_mapping(config)
    try:
        values = [inputs.result(c) for c in (right, right.replace(ties="docid-asc"))]
    except NdcgSpecError:
        return False
    return values[0].per_query != values[1].per_query


@whole_suite
def test_one_bug_fails_only_where_tied_documents_decide(tmp_path: Path) -> None:
    example = fenced("python", "# Checking an implementation")
    folder = project(tmp_path, example.replace(CORRECT_TIES, DOCID_ASCENDING))
    report = folder / "bug.jsonl"
    done = run_in(
        folder, ["ndcgspec", "run", "mypkg.ndcg_adapter:adapter", "--report", str(report)]
    )
    assert done.returncode == 1, done.stderr
    results = report_results(report)
    failed = [r for r in results if r["outcome"] == "fail"]
    assert not [r for r in results if r["outcome"] == "error"]
    assert any(r["group"].startswith("ties/") for r in failed)
    cases = {c.case["id"]: c for c in load_cases()}
    for record in failed:
        assert tie_order_matters(case_of(record["id"], cases), record["config"]), record["id"]
    # A repeated document is unsupported for the dict helper (a dict cannot hold one), so the
    # cases judged are counted as in the test above: the bug's passes and fails together.
    passed = [r for r in results if r["outcome"] == "pass"]
    assert len(passed) + len(failed) >= MINIMUM_JUDGED and len(passed) > len(failed)


@whole_suite
def test_identify_names_the_one_axis_the_bug_is_on(tmp_path: Path) -> None:
    example = fenced("python", "# Checking an implementation")
    folder = project(tmp_path, example.replace(CORRECT_TIES, DOCID_ASCENDING))
    done = run_in(
        folder, ["ndcgspec", "identify", "mypkg.ndcg_adapter:adapter", "--format", "json"]
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["closest_preset"] == ["trec_eval"]
    assert list(found["preset_differences"]) == ["ties"]
    ties = next(f for f in found["axes"] if f["axis"] == "ties")
    assert ties["choices"] == ["docid-asc"]


def quick_start_runs() -> list[list[str]]:
    """The quick start's ``ndcgspec run`` commands, as the README gives them."""
    start = README.read_text().partition("## Quick start")[2].partition("\n## ")[0]
    return [
        words
        for line in start.splitlines()
        if line.startswith("    ")
        for words in commands_of(line.strip(), "ndcgspec")
        if words[0] == "run"
    ]


@pytest.mark.slow
def test_the_quick_start_runs_pass_as_written(tmp_path: Path) -> None:
    # Each built-in adapter passes its own convention: sklearn's refusal of a one-document
    # query is its preset's declared departure, shown apart and no failure of the run.
    runs = quick_start_runs()
    assert [words[:2] for words in runs] == [["run", "reference"], ["run", "sklearn"]]
    pytest.importorskip("sklearn", reason="scikit-learn (ndcgspec's extra sklearn) is absent")
    for words in runs:
        done = run_in(REPO_ROOT, ["ndcgspec", *words])
        assert done.returncode == 0, (words, done.stdout[-3000:], done.stderr[-2000:])
    assert "declared departures, which fail the run only under --strict:" in done.stdout
    strict = run_in(REPO_ROOT, ["ndcgspec", *runs[-1], "--strict"])
    assert strict.returncode == 1, strict.stdout[-2000:]


# -- what the pages say the commands print ----------------------------------------------------


def test_the_quick_start_score_prints_the_values_its_prose_names() -> None:
    start = README.read_text().partition("## Quick start")[2]
    [words] = [w for line in start.splitlines()[:6] for w in commands_of(line, "ndcgspec")]
    said = re.search(r"The two differ \((0\.\d+) and (0\.\d+)\)", start)
    assert words[0] == "score" and said is not None
    done = run_in(REPO_ROOT, ["ndcgspec", *words])
    assert done.returncode == 0, done.stderr
    printed = [f"{float(line.split()[-1]):.3f}" for line in done.stdout.splitlines()]
    assert printed == list(said.groups())
    # The note on stderr the prose promises: q3 is missing from the run.
    assert "'q3'" in done.stderr and "aggregate=qrels scores them 0" in done.stderr


def prompted_blocks(document: Path) -> Iterator[tuple[list[str], list[str]]]:
    """Each ``$ ndcgspec ...`` command of `document`'s indented and ``console`` blocks (a
    ``console`` block holds blank lines, as a command prints them), its continuation lines
    joined, with the lines the page shows it printing (up to the next prompt or the end of the
    block)."""
    for language, block in code_blocks(document):
        if language not in ("indented", "console"):
            continue
        lines = block.replace("\\\n", " ").splitlines()
        for at, line in enumerate(lines):
            if line.startswith("$ ndcgspec "):
                shown = list(itertools.takewhile(lambda s: not s.startswith("$ "), lines[at + 1 :]))
                yield shlex.split(line.removeprefix("$ "))[1:], shown


@whole_suite
def test_each_prompted_command_prints_what_its_page_shows(
    shared_data: Path, tmp_path: Path
) -> None:
    # The files a prompt names are the shared data's, found by name; a shown line that elides
    # (… or ...) is left out, every other must be a line of the output as printed.
    found = {p.name: p for p in shared_data.rglob("*") if p.is_file()}
    checked = 0
    for document in WRITTEN:
        for words, shown in prompted_blocks(document):
            for word in words:
                if word in found and not (tmp_path / word).exists():
                    (tmp_path / word).symlink_to(found[word])
            done = run_in(tmp_path, ["ndcgspec", *words])
            printed = done.stdout.splitlines()
            missing = [s for s in shown if "…" not in s and "..." not in s and s not in printed]
            assert not missing, (named(document), words, missing, done.stdout[-2000:])
            checked += 1
    assert checked >= 1
