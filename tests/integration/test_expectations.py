"""Known-item expectations on the demo: one taken from a grade-3 document ranked first catches the `title^3 ->
title` break with the document's why-line; a failed expectation fails the test with no baseline entry, on a metric
pass and under --relevance-update (it is not a baseline value); a bad entry is one line naming the file and line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

# q014 'espresso machine': p0012 (grade 3) is ranked first with title^3, second with title
CAUGHT = "  - {query: q014, doc: p0012, rank: 1}\n"
# q001 'headphones': p0071 (grade 3) is ranked 10th: never met
UNMET = "  - {query: q001, doc: p0071, rank: 1}\n"


def _expect(root: Path, *entries: str) -> None:
    with (root / "fixtures" / "judgments.yaml").open("a") as handle:
        handle.write("expect:\n" + "".join(entries))


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    subprocess.run(["git", *args], cwd=root, env={**env, "GIT_COMMITTER_EMAIL": "t@t"}, check=True, capture_output=True)


def _break_title_boost(root: Path) -> None:
    query = root / "fixtures" / "query.yaml"
    text = query.read_text()
    assert '"title^3"' in text
    query.write_text(text.replace('"title^3"', '"title"', 1))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_grade_3_expectation_catches_the_title_boost_break_and_says_why(demo: pytest.Pytester) -> None:
    _expect(demo.path, CAUGHT)
    demo.runpytest("-p", "no:randomly", "--relevance-update", "--relevance-reason", "base").assert_outcomes(passed=1)
    _git(demo.path, "init", "-q", "-b", "main")
    _git(demo.path, "add", "-A")
    _git(demo.path, "commit", "-q", "-m", "baseline")
    _break_title_boost(demo.path)
    result = demo.runpytest(
        "-p", "no:randomly", "--relevance-report", "out.json", "--relevance-report", "out.md",
        "--relevance-report", "out.html",
    )  # fmt: skip
    assert result.ret == 1
    text = result.stdout.str()
    assert "relevance: 1 of 1 expectations failed:" in text
    assert "  q014 'espresso machine': p0012 expected at rank 1, is at 2" in text
    why = [line.strip() for line in result.stdout.lines if line.strip().startswith("why p0012 1 -> 2: ")]
    assert why and "multi_match[title]" in why[0] and "(boost 3 -> 1)" in why[0], text
    # after the metric lines: the metrics regress too
    assert text.index("relevance regression in") < text.index("expectations failed")
    (item,) = json.loads((demo.path / "out.json").read_text())["tests"][0]["expectations"]
    assert (item["passed"], item["ranks"], item["kind"], item["n"]) == (False, {"p0012": 2}, "rank", 1)
    assert any("(boost 3 -> 1)" in line for line in item["why"])
    markdown = (demo.path / "out.md").read_text()
    assert "Expectations: 0 of 1 met" in markdown and "p0012 expected at rank 1, is at 2" in markdown
    html = (demo.path / "out.html").read_text()
    assert "Expectations: 0 of 1 met</h3>" in html and "why p0012 1 -&gt; 2: " in html


def test_a_failed_expectation_fails_an_update_and_a_metric_pass(demo: pytest.Pytester) -> None:
    _expect(demo.path, CAUGHT, UNMET)
    update = demo.runpytest("-p", "no:randomly", "--relevance-update", "--relevance-reason", "base")
    assert update.ret == 1
    text = update.stdout.str()
    assert "relevance: 1 of 2 expectations failed:" in text
    assert "  q001 'headphones': p0071 expected at rank 1, is at 10" in text
    assert any(line.strip().startswith("why p0071 at 10: now ") for line in update.stdout.lines), text
    assert "why: today's score trees only (no baseline rankings to compare with)" in text
    assert (demo.path / "relevance-baseline.json").is_file()  # the metrics are baselined all the same

    again = demo.runpytest("-p", "no:randomly")
    assert again.ret == 1
    text = again.stdout.str()
    assert "relevance regression" not in text and "q001 'headphones': p0071 expected at rank 1, is at 10" in text
    assert "1 passed (1 with failed expectations)" in text


def test_expectations_fail_a_test_without_a_baseline_entry(demo: pytest.Pytester) -> None:
    _expect(demo.path, UNMET)
    result = demo.runpytest("-p", "no:randomly")
    assert result.ret == 1
    text = result.stdout.str()
    assert "no baseline entry for test_gate.py::test_demo" in text
    assert text.index("no baseline entry") < text.index("q001 'headphones': p0071 expected at rank 1, is at 10")


def test_a_bad_expectation_is_one_line_naming_file_and_line(demo: pytest.Pytester) -> None:
    _expect(demo.path, "  - {query: q014, doc: p0012, rank: 1, within: 10}\n")
    lines = (demo.path / "fixtures" / "judgments.yaml").read_text().splitlines()
    result = demo.runpytest("-p", "no:randomly")
    assert result.ret != 0
    text = result.stdout.str() + result.stderr.str()
    message = f"judgments.yaml:{len(lines)}: expect[0] (query 'q014'): both 'rank' and 'within'"
    assert message in text and "Traceback" not in text, text


def test_pool_proposes_the_expectation_that_catches_the_break(
    demo: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_relevance.cli.commands import main

    demo.runpytest("-p", "no:randomly", "--relevance-update", "--relevance-reason", "base").assert_outcomes(passed=1)
    monkeypatch.chdir(demo.path)
    assert main(["pool", "relevance-baseline.json", "--propose-expectations", "-o", "proposed.yaml"]) == 0
    assert "expectations (of 165 judged queries) to review" in capsys.readouterr().out
    proposed = (demo.path / "proposed.yaml").read_text().split("expect:\n", 1)[1]
    assert CAUGHT in proposed
    _expect(demo.path, proposed)
    demo.runpytest("-p", "no:randomly").assert_outcomes(passed=1)  # every proposal holds now
    _break_title_boost(demo.path)
    result = demo.runpytest("-p", "no:randomly")
    assert result.ret == 1
    assert "  q014 'espresso machine': p0012 expected at rank 1, is at 2" in result.stdout.str()
