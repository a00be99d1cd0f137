"""Why it moved, on the demo: four ranking changes a team really makes each give explanation lines that name the
changed clause or the analysis change, in `pytest-relevance diff` always and in the gate's failure text where the
change regresses. The baseline's trees are rebuilt from the blob ids its entry recorded (git has them: the
re-baseline was committed)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_relevance.cli.commands import main

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

FVF = "      - field_value_factor: {field: popularity, modifier: ln2p, missing: 0}\n"
STEMMED = """settings:
  analysis:
    filter:
      en_stem: {type: stemmer, language: english}
    analyzer:
      en: {tokenizer: standard, filter: [lowercase, en_stem]}
"""


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    subprocess.run(["git", *args], cwd=root, env={**env, "GIT_COMMITTER_EMAIL": "t@t"}, check=True, capture_output=True)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def _stemmed_index(root: Path) -> None:
    """The demo's index with the title analyzer as a custom chain whose stemmer a team might switch."""
    index = root / "fixtures" / "index.yaml"
    text = index.read_text().replace("settings:\n  number_of_shards: 1\n", STEMMED)
    index.write_text(text.replace("      analyzer: english\n", "      analyzer: en\n", 1))


# (name, the baseline's state, the change, what an explanation line must say)
CASES: list[tuple[str, Callable[[Path], None] | None, Callable[[Path], None], str]] = [
    (
        "field boost",
        None,
        lambda root: _edit(root / "fixtures" / "query.yaml", '"title^3"', '"title^1"'),
        r"multi_match\[title\][^;]*\(boost 3 -> 1",
    ),
    (
        "popularity factor added",
        lambda root: _edit(root / "fixtures" / "query.yaml", FVF, ""),
        lambda root: _edit(root / "fixtures" / "query.yaml", "    score_mode:", FVF.rstrip("\n") + "\n    score_mode:"),
        r"added: query\.function_score\.functions\[1\]\.field_value_factor",
    ),
    (
        "stemmer english -> light_english",
        _stemmed_index,
        lambda root: _edit(root / "fixtures" / "index.yaml", "language: english", "language: light_english"),
        r"analysis: title '[^']+' -> '[^']+'",
    ),
    (
        "max_boost",
        lambda root: _edit(root / "fixtures" / "query.yaml", "    score_mode:", "    max_boost: 40\n    score_mode:"),
        lambda root: _edit(root / "fixtures" / "query.yaml", "max_boost: 40", "max_boost: 6"),
        r"function_score[^;]*\(max_boost 40 -> 6",
    ),
]


@pytest.mark.parametrize(("name", "setup", "change", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_ranking_change_names_its_clause(
    demo: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    setup: Callable[[Path], None] | None,
    change: Callable[[Path], None],
    expected: str,
) -> None:
    root = demo.path
    if setup is not None:
        setup(root)
    demo.runpytest("-p", "no:randomly", "--relevance-update", "--relevance-reason", "baseline").assert_outcomes(
        passed=1
    )
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "baseline")
    change(root)

    monkeypatch.chdir(root)
    assert main(["diff", "-v"]) == 0
    out = capsys.readouterr().out
    why = [line for line in out.splitlines() if line.strip().startswith("why ")]
    assert why, out
    assert any(re.search(expected, line) for line in why), "\n".join(why)

    result = demo.runpytest("-p", "no:randomly", "-v")
    text = result.stdout.str()
    if result.ret == 1:  # the change regressed: the failure says why, on the lines under each mover
        failure = [line for line in text.splitlines() if line.strip().startswith("why ")]
        assert failure, text
        assert any(re.search(expected, line) for line in failure), "\n".join(failure)
    else:
        assert result.ret == 0, text
    if name == "field boost":
        assert result.ret == 1  # the demo's head stratum loses 0.0275 ndcg@10 with title^1


def _failing_boost(demo: pytest.Pytester, commit: bool) -> None:
    demo.runpytest("-p", "no:randomly", "--relevance-update", "--relevance-reason", "baseline").assert_outcomes(
        passed=1
    )
    if commit:
        _git(demo.path, "init", "-q", "-b", "main")
        _git(demo.path, "add", "-A")
        _git(demo.path, "commit", "-q", "-m", "baseline")
    _edit(demo.path / "fixtures" / "query.yaml", '"title^3"', '"title^1"')


def test_every_report_says_why(demo: pytest.Pytester) -> None:
    import json

    _failing_boost(demo, commit=True)
    result = demo.runpytest(
        "-p", "no:randomly", "--relevance-report", "out.md", "--relevance-report", "out.html",
        "--relevance-report", "out.json",
    )  # fmt: skip
    assert result.ret == 1
    lines = result.stdout.lines
    failure = lines[: next(i for i, line in enumerate(lines) if "short test summary info" in line)]  # on CI the
    default = [line for line in failure if line.strip().startswith("why ")]  # summary repeats the whole text
    assert 0 < len(default) <= 2 * 5  # two documents per listed query by default
    markdown = (demo.path / "out.md").read_text()
    assert "Why they moved:" in markdown and "(boost 3 -> 1)" in markdown
    html = (demo.path / "out.html").read_text()
    assert '<div class="trees">' in html and "<mark>" in html
    movers = json.loads((demo.path / "out.json").read_text())["tests"][0]["movers"]["lost"]
    assert all(m["why"] for m in movers) and any("(boost 3 -> 1)" in line for m in movers for line in m["why"])


def test_without_git_it_explains_todays_trees_and_says_why(demo: pytest.Pytester) -> None:
    _failing_boost(demo, commit=False)
    result = demo.runpytest("-p", "no:randomly")
    assert result.ret == 1
    text = result.stdout.str()
    assert "why they moved: today's score trees only; the baseline's inputs cannot be read back" in text
    assert re.search(r"why p\d+ \d+ -> (\d+|out): now \d", text), text
