"""Judge-corrected (PPI) estimates in real pytest sessions, with and without xdist: a project whose judgments hold
a lenient judge's grades and a file of people's re-grades of some of them (relevance_human_judgments). The
candidate ranks the judge's documents second in head; the judge calls them relevant, people mostly do not (the
case of tests/gate/test_judge_correction.py, where its numbers are worked out by hand)."""

from __future__ import annotations

import json

import pytest

TEST_FILE = """\
import json, pathlib

def test_quality(relevance_snapshot):
    assert relevance_snapshot == json.loads(pathlib.Path("run.json").read_text())
"""
BASELINE = {f"q{i}": ["h1", "h2"] for i in range(1, 9)}
CANDIDATE = {f"q{i}": ["h1", "j"] if i <= 6 else ["h1", "h2"] for i in range(1, 9)}


def judgments() -> str:
    lines = ["version: v1", "queries:"]
    for i in range(1, 9):
        judged = ", j: {grade: 1, judge: lenient}" if i <= 6 else ""
        stratum = "head" if i <= 6 else "tail"
        lines.append(f"  - {{id: q{i}, text: text {i}, stratum: {stratum}, grades: {{h1: 2, h2: 1{judged}}}}}")
    return "\n".join(lines) + "\n"


def human() -> str:
    lines = ["version: people-1", "queries:"]
    for i in range(1, 5):
        lines.append(f"  - {{id: q{i}, text: text {i}, grades: {{j: {{grade: {0 if i < 4 else 1}, source: human}}}}}}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def workers() -> list[str]:
    """In process; the decision's test also runs under -n 2, where each worker reads the human file itself."""
    return []


def run(pytester: pytest.Pytester, workers: list[str], *args: str) -> pytest.RunResult:
    quiet = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
    if workers:  # xdist's workers need a real process to start from
        return pytester.runpytest_subprocess(*quiet, *workers, *args)
    return pytester.runpytest_inprocess(*quiet, *args)


@pytest.fixture
def project(pytester: pytest.Pytester, workers: list[str]) -> pytest.Pytester:
    pytester.makefile(".yaml", judgments=judgments(), human=human())
    pytester.makeini(
        "[pytest]\nrelevance_judgments = judgments.yaml\nrelevance_human_judgments = human.yaml\n"
        "relevance_metrics = p@2\n"
    )
    pytester.makepyfile(test_rel=TEST_FILE)
    (pytester.path / "run.json").write_text(json.dumps(BASELINE))
    assert run(pytester, workers, "--relevance-update", "--relevance-reason", "first").ret == 0
    (pytester.path / "run.json").write_text(json.dumps(CANDIDATE))
    return pytester


def test_the_corrected_estimates_are_reported_beside_the_plain_ones(
    project: pytest.Pytester, workers: list[str]
) -> None:
    baseline = (project.path / "relevance-baseline.json").read_bytes()
    result = run(project, workers, "-v", "--relevance-report", "out.json", "--relevance-report", "out.md")
    assert result.ret == 0  # the plain numbers decide: the judge says nothing changed
    said = result.stdout.str()  # (not fnmatch: the intervals' brackets are its character classes)
    assert (
        "  judge-corrected (PPI) estimates with 95% intervals, beside the plain numbers the gate decides on "
        "(relevance_judge_correction = none):\n"
        "    all (4 of 8 queries human-graded): p@2 0.7188 [0.5350, 0.9025] (plain 1.0000), change -0.2812 "
        "[-0.4650, -0.0975] (plain +0.0000)\n"
    ) in said
    assert "  no judge-corrected estimate for tail: no judge-made grades\n" in said
    report = json.loads((project.path / "out.json").read_text())["tests"][0]
    assert report["judge_correction"] == {"mode": "none", "plain": {"tail": "no judge-made grades"}}
    assert report["rows"][0]["ppi"]["delta"] == -0.2812 and not report["rows"][0]["ppi"]["gated"]
    assert "change -0.2812 [-0.4650, -0.0975]" in (project.path / "out.md").read_text()
    assert (project.path / "relevance-baseline.json").read_bytes() == baseline  # a check writes nothing


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["no-xdist", "xdist"])
def test_ppi_gates_on_the_corrected_change(project: pytest.Pytester, workers: list[str]) -> None:
    result = run(project, workers, "--relevance-judge-correction", "ppi", "--relevance-alpha", "0.05")
    assert result.ret == 1
    said = result.stdout.str()
    assert (
        "  all.p@2: 1.0000 -> 1.0000 (+0.0000 plain, judge-corrected -0.2812, p=0.001, adjusted p=0.004, "
        "95% CI [-0.4650, -0.0975])\n"
        "  head.p@2: 1.0000 -> 1.0000 (+0.0000 plain, judge-corrected -0.3750, p=0.001, adjusted p=0.004, "
        "95% CI [-0.6200, -0.1300])\n"
    ) in said
    assert (
        "judge-corrected (PPI) estimates with 95% intervals, the gate decides on them (relevance_judge_correction = "
        "ppi):"
    ) in said
    assert "gated on the plain numbers for tail: no judge-made grades" in said
    assert "relevance: 1 test: 1 regressed" in said


def test_ppi_without_the_human_file_is_one_error_naming_the_key(pytester: pytest.Pytester, workers: list[str]) -> None:
    pytester.makefile(".yaml", judgments=judgments())
    pytester.makeini("[pytest]\nrelevance_judgments = judgments.yaml\nrelevance_judge_correction = ppi\n")
    pytester.makepyfile(test_rel=TEST_FILE)
    result = run(pytester, workers)
    assert result.ret != 0
    text = result.stdout.str() + result.stderr.str()
    assert "relevance_judge_correction: ppi corrects the judge's grades by people's grades" in text
    assert "set relevance_human_judgments = FILE" in text


def test_a_missing_human_file_names_its_key(project: pytest.Pytester, workers: list[str]) -> None:
    (project.path / "human.yaml").unlink()
    result = run(project, workers)
    assert result.ret == 1
    assert "human judgments file not found; set relevance_human_judgments to" in result.stdout.str()
