"""The README, CONTRIBUTING.md and the pages of ``docs/``, held to what they say.

Every command of every shell block runs as written, in a scratch folder of its page's own
(``tests/doc_commands.py`` has the rules): it exits 0 unless its page says otherwise, and a
prompted command prints the lines its page shows under it. A block a page does not run says why,
and is one of those ``NOT_RUN`` lists with that reason, so that they cannot grow unseen.

The adapter example and CI step of ``docs/adapters.md`` declare trec_eval's convention. Copied
into a project of its own as the page runs it, the example must be judged on at least 1,500
cases and pass them all, through ``ndcgspec run`` and through the pytest plugin; with one
deliberate bug (ties ordered by document id ascending instead of descending) it must fail, and
only on inputs whose score depends on the order of tied documents.

Every ``ndcgspec`` command shown in a code block must parse with the command line's own parser,
every option of a documented benchmark command must be one its script defines, every relative
link and every path named in code must lead to a file of the checkout, the README's Python
example must run, and the README stays short enough to be a front door.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError
from pathlib import Path

import doc_commands
import pytest
from doc_commands import (
    REPO_ROOT,
    Block,
    Command,
    Runner,
    absent_extra,
    blocks_of,
    commands,
    matches,
    named,
)

from ndcgspec.commands.cli import build_parser
from ndcgspec.engine.memory import Inputs
from ndcgspec.harness.runner import load_cases
from ndcgspec.reference import Config, NdcgSpecError
from ndcgspec.suite.loaded import LoadedCase

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


def fenced(language: str, after: str, document: Path = ADAPTERS) -> str:
    """The first ``language`` code block of `document` below the heading `after`."""
    text = document.read_text(encoding="utf-8")
    section = text[text.index(after) :]
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)


def prose(document: Path) -> str:
    """`document` without its fenced code blocks."""
    return re.sub(r"^```.*?^```", "", document.read_text(encoding="utf-8"), flags=re.S | re.M)


def commands_of(line: str, program: str) -> Iterator[list[str]]:
    """The argument lists `line` gives `program` (``ndcgspec``, ``python``): the line itself,
    or a part of it after ``&&`` or ``|``; comments and redirections dropped."""
    for part in re.split(r"&&|\|", line):
        try:
            words = shlex.split(re.sub(r"\d?>>?\s*\S+", "", part), comments=True)
        except ValueError:
            continue
        if words and words[0] == program:
            yield words[1:]


def shell_commands(document: Path) -> list[Command]:
    """The commands of every shell block of `document`, run or not."""
    return [c for block in blocks_of(document) if block.shell for c in commands(block)]


def documented_commands(program: str) -> list[tuple[str, list[str]]]:
    return [
        (command.where, words)
        for document in WRITTEN
        for command in shell_commands(document)
        for words in commands_of(command.text, program)
    ]


def block_under(heading: str, document: Path = ADAPTERS) -> Block:
    """The first shell block of `document` below the heading `heading` that is run."""
    lines = document.read_text(encoding="utf-8").splitlines()
    below = lines.index(heading) + 1
    return next(b for b in blocks_of(document) if b.shell and not b.not_run and b.line > below)


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
def test_the_documented_ci_step_passes_on_the_bundled_suite(pages: Runner) -> None:
    # The step ran with its page (the test below): every command exited 0 as the page says.
    ran = pages.run(ADAPTERS)
    step = block_under("## In a project's CI")
    done = [o for o in ran.outcomes if o.command.block == step]
    assert [shlex.split(o.command.text)[:3] for o in done] == [
        ["python", "-m", "pytest"],
        ["ndcgspec", "run", "mypkg.ndcg_adapter:adapter"],
        ["ndcgspec", "report", "ndcg.jsonl"],
        ["ndcgspec", "report", "ndcg.jsonl"],
    ]
    assert [o.status for o in done] == [0, 0, 0, 0], [o.output[-3000:] for o in done]
    passed = int(re.search(r"(\d+) passed", done[0].output).group(1))
    assert passed >= MINIMUM_JUDGED and " failed" not in done[0].output
    judged = report_results(ran.folder / "ndcg.jsonl")
    judged_ran = [r for r in judged if r["outcome"] != "unsupported"]
    assert len(judged_ran) >= MINIMUM_JUDGED
    assert {r["outcome"] for r in judged_ran} == {"pass"}
    assert {r["expected_source"] for r in judged_ran} == {"stored", "computed"}
    junit = (ran.folder / "ndcg-junit.xml").read_text()
    assert 'failures="0"' in junit and 'errors="0"' in junit
    badge = json.loads((ran.folder / "ndcg-badge.json").read_text())
    assert badge["message"] == f"100.0% ({len(judged_ran)}/{len(judged_ran)})"


def case_of(case_id: str, cases: dict[str, LoadedCase]) -> LoadedCase:
    """The stored case behind a result id (a computed case's id is ``<input's id>@<fp>``)."""
    return cases[case_id.split("@")[0]]


def tie_order_matters(loaded: LoadedCase, config: dict) -> bool:
    """Whether the input scores differently with docid-asc ties, the bug: the reference's
    answer, from the engine's in-memory scoring (``tests/engine/test_equals_reference.py`` holds
    it equal to the reference on every case)."""
    inputs = Inputs(*loaded.case.inputs(None))
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
    cases = {c.case.id: c for c in load_cases()}
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


# -- every command of every page, run as written ----------------------------------------------

NOT_RUN: dict[tuple[str, str], str] = {
    ("README.md", "pip install ."): (
        "it installs into the environment the tests run in; .ci/user-install builds the wheel "
        "and installs it in a fresh venv"
    ),
    ("README.md", "pip install -e '.[test]' && pytest"): (
        "it installs into the environment the tests run in, and runs the tests, this one "
        "among them; .ci/user-install runs it in a fresh venv"
    ),
    ("README.md", "ndcgspec identify mypkg.ndcg_adapter:adapter"): (
        "mypkg.ndcg_adapter is the reader's own adapter; docs/adapters.md defines one and "
        "runs these commands on it"
    ),
    (
        "README.md",
        "python -m pytest -p no:cacheprovider --ndcgspec-adapter=mypkg.ndcg_adapter:adapter "
        "--ndcgspec-preset trec_eval",
    ): (
        "mypkg.ndcg_adapter is the reader's own adapter; docs/adapters.md defines one and "
        "runs this step on it"
    ),
    ("CONTRIBUTING.md", "pip install -e '.[test]' && pytest"): (
        "it installs into the environment the tests run in, and runs the tests, this one "
        "among them; .ci/user-install runs it in a fresh venv"
    ),
    ("CONTRIBUTING.md", "pip install -e '.[test,peers,tables,spark]' -c .ci/peer-versions.txt"): (
        "it installs into the environment the tests run in, and runs a folder of the tests; "
        ".ci/run installs the same pins"
    ),
    ("CONTRIBUTING.md", "ndcgspec cases generate"): (
        "it writes the checkout's case files; tests/suite/test_cases_suite.py regenerates "
        "them and runs the check"
    ),
    ("CONTRIBUTING.md", "ndcgspec matrix --out docs -j 2"): (
        "it runs every peer library for minutes and writes the checkout's docs/; CI "
        "regenerates the page and compares it"
    ),
    ("docs/adapters.md", "python -m pip install ci/ndcgspec-*.whl pytest"): (
        "it installs into the environment the tests run in, which holds ndcgspec and pytest"
    ),
    ("docs/performance.md", "python benchmarks/shapes.py --queries 5000 --rounds 3"): (
        "it times minutes of work against trec_eval's C program and prints timings; "
        "tests/test_benchmarks.py runs it on two tiny workloads"
    ),
    ("docs/performance.md", "python benchmarks/startup.py --rounds 15"): (
        "it times 15 rounds of each start-up and prints timings; tests/test_benchmarks.py runs "
        "it on two commands for two rounds"
    ),
    (
        "docs/performance.md",
        "PATH=/path/to/venv/bin:$PATH python benchmarks/startup.py --rounds 15 "
        "--commands help explain-help explain which-help score",
    ): "it times 15 rounds of each start-up of the ndcgspec of a venv and prints timings",
    ("docs/performance.md", "cd benchmarks && python waits.py --rounds 5"): (
        "it times minutes of work over the DL19 runs against trec_eval's C program and prints "
        "timings"
    ),
    (
        "docs/performance.md",
        "python benchmarks/score.py --sizes 500 5000 50000 --ids msmarco --rounds 3 "
        "--peers-up-to 5000 --ranx-up-to 0",
    ): (
        "it times minutes of work on run files of up to 2.5 GiB against trec_eval's C program "
        "and pytrec_eval, and prints timings"
    ),
    (
        "docs/performance.md",
        "python benchmarks/score.py --sizes 5000 --ids short msmarco --rounds 3 --ranx-up-to "
        "0 --no-dl19 --no-digits",
    ): (
        "it times minutes of work against trec_eval's C program and pytrec_eval, and prints timings"
    ),
    ("docs/performance.md", "pip install -e '.[bench]'"): (
        "it installs into the environment the tests run in, and times minutes of work against "
        "the peers"
    ),
    (
        "docs/performance.md",
        "python benchmarks/which.py --queries 50 --documents 1000 --sample 20",
    ): (
        "it times minutes of work (which, and the plain reference on a sample) and prints "
        "timings; tests/test_benchmarks.py runs it on a tiny workload"
    ),
    (
        "docs/spark.md",
        "ndcgspec score --engine spark --master spark://host:7077 hdfs:///ndcg/qrels.parquet "
        "hdfs:///ndcg/run.parquet -m trec_eval@10 --format json",
    ): ("it needs a Spark cluster and its storage"),
    ("docs/spark.md", "python benchmarks/spark.py --queries 50000 --rounds 1"): (
        "it times minutes of work on Spark and on one machine, and prints timings"
    ),
    (
        "docs/usage.md",
        "NDCGSPEC_SHARED=/path/to/shared pytest tests/commands/test_trec_eval_cli.py",
    ): "it runs a test module of the checkout, which the tests run themselves",
}
"""The shell blocks a page marks ``<!-- not run: REASON -->``, by page and first command, with
the reason the page gives: each one is a command no test runs as written."""


def first_command(block: Block) -> str:
    return re.sub(r"\s+#.*$", "", commands(block)[0].text)


def not_run_blocks() -> dict[tuple[str, str], str]:
    return {
        (named(block.page), first_command(block)): block.not_run
        for document in WRITTEN
        for block in blocks_of(document)
        if block.not_run is not None
    }


def run_pages() -> list[Path]:
    """The pages with a shell block to run."""
    return [p for p in WRITTEN if any(b.shell and b.not_run is None for b in blocks_of(p))]


def test_the_blocks_not_run_are_the_listed_ones_each_with_its_reason() -> None:
    assert not_run_blocks() == NOT_RUN


def test_every_shell_block_of_a_page_parses_into_commands() -> None:
    # commands() refuses a prompted block with a line before its first prompt; a block of
    # comments alone would be a shell block that runs nothing.
    for document in WRITTEN:
        for block in blocks_of(document):
            if block.shell:
                assert commands(block), block.where


def test_an_elision_stands_for_any_lines_alone_and_for_any_text_inside_a_line() -> None:
    printed = "a 1\nb 2\nc 3\n\n"
    assert matches(["a 1", "b 2", "c 3"], printed)
    assert matches(["a 1", "…", "c 3  "], printed)
    assert matches(["a …", "…"], printed)
    assert matches(["…", "a 1", "b 2", "c 3", "…"], printed)
    assert not matches(["a 1", "c 3"], printed)
    assert not matches(["a 1", "b 2"], printed)
    assert not matches(["a 1", "b …", "c 4"], printed)
    assert not matches(["a …"], printed)


def test_a_page_says_a_commands_exit_status_output_and_the_files_it_is_given(
    tmp_path: Path,
) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text.\n\n"
        "<!-- file: data/a.txt -->\n```text\nx 1\n```\n\n"
        "<!-- not run: an example -->\n\n    pip install .\n\n"
        "Then:\n\n"
        "    D=data\n    cat $D/a.txt \\\n        data/a.txt   # twice\n\n"
        "<!-- without: sqlite3 -->\n\n"
        "    $ wc -l data/a.txt\n    1 data/a.txt\n\n"
        "    $ python -c 'import sqlite3'   # exits 1\n    …\n    ModuleNotFoundError: …\n"
    )
    blocks = list(blocks_of(page))
    assert [(b.line, b.language, b.marker) for b in blocks] == [
        (5, "text", ("file", "data/a.txt")),
        (10, "indented", ("not run", "an example")),
        (14, "indented", None),
        (20, "indented", ("without", "sqlite3")),
    ]
    assert [b.shell for b in blocks] == [False, True, True, True]
    cat = commands(blocks[2])
    assert [(c.line, c.text, c.setting, c.shown, c.status) for c in cat] == [
        (15, "cat $D/a.txt data/a.txt   # twice", ("D=data",), None, 0)
    ]
    counted, blocked = commands(blocks[3])
    assert (counted.text, counted.shown, counted.output_lines) == (
        "wc -l data/a.txt",
        ("1 data/a.txt",),
        (21, 22),
    )
    assert (blocked.shown, blocked.status) == (("…", "ModuleNotFoundError: …"), 1)
    ran = Runner(tmp_path / "scratch", None).run_blocks(page, blocks)
    assert [(o.status, o.problems()) for o in ran.outcomes] == [(0, []), (0, []), (1, [])]
    assert [o.output for o in ran.outcomes[:2]] == ["x 1\nx 1\n", "1 data/a.txt\n"]
    # The module is there, but not for the block's commands.
    assert ran.outcomes[2].output.endswith("ModuleNotFoundError: No module named 'sqlite3'\n")


@pytest.fixture(scope="session")
def pages(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Runner:
    """The pages' commands, each page run once in the session, in a scratch folder of its
    own."""
    return Runner(tmp_path_factory.mktemp("pages"), shared_data.parent)


def test_the_quick_start_prints_what_the_readme_shows_and_the_values_its_prose_names(
    tmp_path: Path,
) -> None:
    start = block_under("## Quick start", README)
    ran = Runner(tmp_path, None).run_blocks(README, [start])
    assert ran.problems() == []
    [score] = [o.command for o in ran.outcomes]
    said = re.search(r"The two differ \((0\.\d+) and (0\.\d+)\)", prose(README))
    values = [line.split("\t") for line in score.shown or ()]
    assert said is not None
    assert [f"{float(v[-1]):.3f}" for v in values if len(v) == 3] == list(said.groups())
    # The note on stderr the prose promises: q3 is missing from the run.
    assert any("'q3'" in line and "aggregate=qrels scores them 0" in line for line in score.shown)


@pytest.mark.slow
@pytest.mark.parametrize("page", run_pages(), ids=named)
def test_every_command_of_the_page_exits_and_prints_as_the_page_says(
    page: Path, pages: Runner
) -> None:
    ran = pages.run(page)
    problems = ran.problems()
    assert not problems, "\n".join(problems)
    skipped = [f"{o.command.where}: {o.skipped}" for o in ran.outcomes if o.skipped]
    if skipped:
        pytest.skip("; ".join(skipped))


def test_a_command_failing_for_want_of_an_extra_is_skipped_naming_what_is_absent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    said = "ndcgspec: error: no sklearn: pip install scikit-learn (ndcgspec's extra sklearn)"

    def installed_but_scikit_learn(distribution: str) -> str:
        if distribution == "scikit-learn":
            raise PackageNotFoundError(distribution)
        return "1.0"

    monkeypatch.setattr(doc_commands, "version", installed_but_scikit_learn)
    assert absent_extra(said) == "scikit-learn is not installed (ndcgspec's extra sklearn)"
    assert absent_extra("ndcgspec: error: qrels.txt: cannot read") == ""
    monkeypatch.setattr(doc_commands, "version", lambda distribution: "1.0")
    assert absent_extra(said) == ""
