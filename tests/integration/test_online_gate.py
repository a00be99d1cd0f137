"""relevance_clicks_log in the gate, on a project whose click log the simulator wrote (PBM users, a known truth):
the estimate's line in the failure text, -v and every report; a run that is truly worse for those users fails
with relevance_online_tolerance; a run of documents the log never showed is "not estimable", never a number; a
bad log is one line naming it. Under no xdist and -n 2 (each worker fits the log itself)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pytest_relevance.online import simulator as sim

QUERIES = 30
TEST = """\
import json, pathlib

def test_clicks(relevance_snapshot):
    assert relevance_snapshot == json.loads((pathlib.Path(__file__).parent / "run.json").read_text())
"""
XDIST = [pytest.param([], id="serial"), pytest.param(["-n", "2"], id="xdist")]


def _world() -> tuple[dict[str, dict[str, int]], dict[str, list[str]]]:
    """Query text -> doc -> grade, and the logging ranking (by name, so grades are mixed in every top 10)."""
    rng = np.random.default_rng(7)
    grades = {f"query {q}": {f"d{q}-{i:02}": int(rng.integers(0, 4)) for i in range(20)} for q in range(QUERIES)}
    return grades, {text: sorted(docs) for text, docs in grades.items()}


def _by_id(ranking: dict[str, list[str]]) -> dict[str, list[str]]:
    return {f"q{text.split()[1]}": docs for text, docs in ranking.items()}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """Judgments, a click log of 4,000 simulated searches of the logging ranking, and a baseline of that ranking."""
    grades, logging = _world()
    user = sim.UserModel("pbm")
    found = sim.truth(grades, user, sim.zipf(sorted(grades), 0.5, 7))
    sim.write_ubi_file(sim.simulate(found, user, logging, 4000, 10, 7, noise=1.5), pytester.path / "clicks.ndjson")
    lines = ["version: v1", "queries:"]
    for text, docs in grades.items():
        graded = ", ".join(f"{doc}: {grade}" for doc, grade in docs.items())
        lines.append(f"  - {{id: q{text.split()[1]}, text: {text}, stratum: head, grades: {{{graded}}}}}")
    (pytester.path / "judgments.yaml").write_text("\n".join(lines) + "\n")
    pytester.makeini(
        "[pytest]\nrelevance_judgments = judgments.yaml\nrelevance_metrics = ndcg@10\nrelevance_tolerance = 0.99\n"
    )
    pytester.makepyfile(test_online_project=TEST)
    (pytester.path / "run.json").write_text(json.dumps(_by_id(logging)))
    pytester.runpytest("-p", "no:randomly", "--relevance-update", "--relevance-reason", "base").assert_outcomes(
        passed=1
    )
    return pytester


def _worse() -> dict[str, list[str]]:
    """Each top 12 by ascending grade: fewer clicks for PBM users (checked against the exact truth)."""
    grades, logging = _world()
    worse = {t: sorted(docs[:12], key=lambda d: grades[t][d]) + docs[12:] for t, docs in logging.items()}
    user = sim.UserModel("pbm")
    found = sim.truth(grades, user, sim.zipf(sorted(grades), 0.5, 7))
    before = sim.value(found, user, logging, 10)
    assert (sim.value(found, user, worse, 10) - before) / before < -0.1  # the truth: a drop users notice
    return worse


@pytest.mark.parametrize("xdist", XDIST)
def test_a_truly_worse_run_fails_with_the_tolerance_and_the_line_is_everywhere(
    project: pytest.Pytester, xdist: list[str]
) -> None:
    (project.path / "run.json").write_text(json.dumps(_by_id(_worse())))
    reports = ["--relevance-report", "out.json", "--relevance-report", "out.md", "--relevance-report", "out.html"]
    shown = project.runpytest("-p", "no:randomly", "-v", "--relevance-clicks-log", "clicks.ndjson", *xdist, *reports)
    assert shown.ret == 0, shown.stdout.str()  # no tolerance: the estimate is shown, not gated
    line = next(line.strip() for line in shown.stdout.lines if line.strip().startswith("estimated clicks@10: -"))
    assert line.endswith(")") is False and ", DR, support " in line
    online = json.loads((project.path / "out.json").read_text())["tests"][0]["online"]
    assert online["line"] == line and online["estimable"] and not online["failed"] and online["tolerance"] is None
    assert online["ci"][1] < 0 and online["queries"] == QUERIES and online["log"]
    assert line in (project.path / "out.md").read_text()
    assert line in (project.path / "out.html").read_text()

    gated = project.runpytest(
        "-p", "no:randomly", "--relevance-clicks-log", "clicks.ndjson", "--relevance-online-tolerance", "0.02", *xdist
    )  # fmt: skip
    assert gated.ret == 1
    text = gated.stdout.str()
    assert "relevance: estimated clicks drop beyond relevance_online_tolerance 0.02" in text
    assert line in text and "fails below -0.02 with support >= 0.5" in text
    assert "1 regressed" in text


def test_documents_the_log_never_showed_are_not_estimable(project: pytest.Pytester) -> None:
    _, logging = _world()
    (project.path / "run.json").write_text(json.dumps(_by_id({t: [f"new-{i}" for i in range(10)] for t in logging})))
    project.makeini(
        "[pytest]\nrelevance_judgments = judgments.yaml\nrelevance_metrics = ndcg@10\nrelevance_tolerance = 0.99\n"
        "relevance_clicks_log = clicks.ndjson\nrelevance_online_tolerance = 0.02\n"
    )
    result = project.runpytest("-p", "no:randomly", "-v")
    assert result.ret == 0, result.stdout.str()  # not estimable: never a failure
    assert "  estimated clicks@10: not estimable, DR, support 0.00" in result.stdout.lines


def test_the_same_run_estimates_no_change(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "no:randomly", "-v", "--relevance-clicks-log", "clicks.ndjson")
    assert result.ret == 0
    assert "  estimated clicks@10: +0.0% [+0.0, +0.0], DR, support 1.00" in result.stdout.lines


@pytest.mark.parametrize("xdist", XDIST)
def test_a_bad_log_is_one_line_naming_it(project: pytest.Pytester, xdist: list[str]) -> None:
    missing = project.runpytest("-p", "no:randomly", "--relevance-clicks-log", "gone.ndjson", *xdist)
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    (error,) = [line for line in missing.stderr.lines if "relevance_clicks_log" in line]
    assert (
        error.endswith(
            "gone.ndjson: file not found; give the UBI click log (NDJSON) the relevance tests estimate clicks from, or "
            "remove the setting"
        )
        and str(project.path) in error
    )

    (project.path / "broken.ndjson").write_text('{"action_name": "click"}\nnot json\n')
    broken = project.runpytest("-p", "no:randomly", "--relevance-clicks-log", "broken.ndjson", *xdist)
    assert broken.ret == 1
    assert any(line.startswith("relevance: broken.ndjson:2: not NDJSON") for line in broken.stdout.lines), (
        broken.stdout.str()
    )


def test_a_tolerance_without_a_log_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "no:randomly", "--relevance-online-tolerance", "0.02")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "relevance_online_tolerance: is set but relevance_clicks_log is not" in result.stderr.str()


def test_a_plain_run_leaves_the_baseline_as_it_was(project: pytest.Pytester) -> None:
    before = (project.path / "relevance-baseline.json").read_bytes()
    project.runpytest("-p", "no:randomly", "--relevance-clicks-log", "clicks.ndjson").assert_outcomes(passed=1)
    assert (project.path / "relevance-baseline.json").read_bytes() == before
