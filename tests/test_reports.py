"""Reports and honest numbers: Markdown/JSON/HTML, the step summary, significance, floors, judged@k, compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_relevance.cli import main
from pytest_relevance.evaluation import constant_floor, evaluate, hints, sign_flip_p
from pytest_relevance.judgments import Judgments, Query
from pytest_relevance.metrics import parse_metrics

ROOT = Path(__file__).resolve().parent.parent
DEMO_TEST = (
    "def test_demo(relevance_index, relevance_snapshot):\n    assert relevance_snapshot == relevance_index.run()\n"
)


# ---------------------------------------------------------------- significance


def test_a_constant_shift_is_significant_and_noise_is_not() -> None:
    shift = [-0.1] * 20
    assert sign_flip_p(shift) < 0.001
    noise = [0.1, -0.1] * 10 + [0.05]
    assert sign_flip_p(noise) > 0.5


def test_the_same_seed_gives_the_same_p_and_small_samples_are_exact() -> None:
    deltas = [-0.3, -0.1, 0.05, -0.2, -0.15, 0.1, -0.05, -0.25, -0.1, 0.02, -0.3, -0.12, -0.2, 0.01, -0.4, -0.1]
    assert sign_flip_p(deltas) == sign_flip_p(deltas)
    assert len(deltas) > 14  # sampled, not enumerated: determinism comes from the seed
    # n = 3, all negative: of the 2^3 sign patterns, only all-minus and all-plus reach |sum| >= 0.6
    assert sign_flip_p([-0.1, -0.2, -0.3]) == pytest.approx(2 / 8)
    assert sign_flip_p([0.0, 0.0]) == 1.0


# ---------------------------------------------------------------- floor and judged


def test_the_constant_answer_floor_on_a_hand_built_case() -> None:
    # d1 is relevant to both queries, d2 to one: the best single list is [d1, d2, d3]
    judgments = Judgments(
        (Query("q1", "a", "head", {}, {"d1": 1, "d2": 1}), Query("q2", "b", "head", {}, {"d1": 1, "d3": 1})),
        "v",
        "j",
    )
    floors = constant_floor(judgments, parse_metrics("mrr p@2 recall@3"), 10)
    assert floors["all"]["mrr"] == 1.0  # d1 first serves both
    assert floors["all"]["p@2"] == pytest.approx((1.0 + 0.5) / 2)  # [d1, d2]: q1 2/2, q2 1/2
    assert floors["all"]["recall@3"] == 1.0
    assert floors["head"] == floors["all"]


# ---------------------------------------------------------------- reports through pytest


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args)


def test_reports_and_step_summary_pass_or_fail(demo: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = demo.path / "step-summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert run(demo, "--relevance-update").ret == 0
    query = demo.path / "fixtures" / "query.yaml"
    query.write_text(query.read_text().replace("title^3", "title"))
    reports = ["--relevance-report", "out/r.md", "--relevance-report", "out/r.json", "--relevance-report", "out/r.html"]
    result = run(demo, *reports)
    assert result.ret == 1
    markdown = (demo.path / "out" / "r.md").read_text()
    assert "| head | 51 | ndcg@10 | 0.8096 | 0.7776 | -0.0320 |" in markdown
    assert "**regression** (p=" in markdown
    assert "Queries that lost most on ndcg@10:" in markdown
    text = summary.read_text()
    assert text.startswith("earlier step\n")  # appended, not replaced
    assert text.count("## Relevance") == 2  # the update run and the failing run
    data = json.loads((demo.path / "out" / "r.json").read_text())
    (test,) = data["tests"]
    assert test["status"] == "regressed"
    head = next(r for r in test["rows"] if (r["stratum"], r["metric"]) == ("head", "ndcg@10"))
    assert head["baseline"] == 0.8096
    assert head["current"] == 0.7776
    assert 0 < head["p"] < 0.05
    assert 0 <= head["floor"] < head["current"]
    assert set(test["per_query"]["q001"]["ndcg@10"]) == {"baseline", "current"}
    html = (demo.path / "out" / "r.html").read_text()
    assert "<script" not in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert html.count('class="stratum-chart"') == 4
    assert 'class="delta-chart"' in html


def test_alpha_lets_an_insignificant_drop_pass(demo: pytest.Pytester) -> None:
    assert run(demo, "--relevance-update").ret == 0
    judgments = demo.path / "fixtures" / "judgments.yaml"
    # one head query's best document loses its grade: a drop in head, carried by a single query
    lines = judgments.read_text().splitlines()
    lines[3] = lines[3].replace(": 3", ": 1", 3)
    judgments.write_text("\n".join(lines).replace("version: demo-1", "version: demo-1") + "\n")
    result = run(demo, "--relevance-tolerance", "0")
    if result.ret == 0:
        pytest.skip("the edit did not move the gate")
    result.stdout.fnmatch_lines(["*, p=*"])
    assert run(demo, "--relevance-tolerance", "0", "--relevance-alpha", "0.0001").ret == 0


def test_judged_and_floor_warnings_are_shown(demo: pytest.Pytester) -> None:
    result = run(demo, "--relevance-update")
    result.stdout.fnmatch_lines(
        [
            "*judged@10: all 0.*, head 0.*; coverage@10 0.*",
            "*warning: torso: judged@10 0.* < 0.8: unjudged results score 0, so a better ranker can look worse;*",
        ]
    )
    result = run(demo, "--relevance-floor-margin", "0.95")
    result.stdout.fnmatch_lines(["*is within 0.95 of the constant-answer floor*"])


def test_compare_exit_codes_and_report_command(demo: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(demo, "--relevance-update").ret == 0
    old = str(demo.path / "relevance-baseline.json")
    saved = demo.path / "old-baseline.json"
    saved.write_text(Path(old).read_text())
    assert main(["compare", str(saved), old]) == 0
    query = demo.path / "fixtures" / "query.yaml"
    query.write_text(query.read_text().replace("title^3", "title"))
    assert run(demo, "--relevance-update").ret == 0
    capsys.readouterr()
    assert main(["compare", str(saved), old, "--format", "md"]) == 1
    out = capsys.readouterr().out
    assert "| tests" not in out
    assert "head.ndcg@10 | 0.8096 | 0.7776 | -0.0320 | REGRESSION |" in out
    assert main(["report", old, "--html", str(demo.path / "b.html")]) == 0
    assert 'class="stratum-chart"' in (demo.path / "b.html").read_text()
    assert main(["compare", str(demo.path / "nope.json"), old]) == 2


def test_a_bad_report_suffix_is_a_usage_error(demo: pytest.Pytester) -> None:
    result = run(demo, "--relevance-report", "out.txt")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--relevance-report out.txt: the suffix names the format: .md, .json or .html*"])


def test_evaluation_reports_duplicates() -> None:
    judgments = Judgments((Query("q1", "a", None, {}, {"d1": 1}),), "v", "j")
    evaluation = evaluate({"q1": ["d1", "d1", "d2"]}, judgments, parse_metrics("mrr"))
    assert evaluation.duplicates == {"q1": 1}


def test_ndcg_at_1_versus_at_k_hints() -> None:
    queries = tuple(Query(f"q{i}", "t", "head", {}, {"good": 3}) for i in range(4))
    judgments = Judgments(queries, "v", "j")
    metrics = parse_metrics("ndcg@10")
    reranking = evaluate({q.id: ["x", "good"] for q in queries}, judgments, metrics)  # found, but second
    (hint,) = [h for h in hints(reranking, judgments) if h.startswith("head")]
    assert "look at re-ranking" in hint
    retrieval = evaluate({q.id: ["x"] * 1 for q in queries}, judgments, metrics)  # never found
    assert any("look at retrieval" in h for h in hints(retrieval, judgments))
    fine = evaluate({q.id: ["good"] for q in queries}, judgments, metrics)
    assert hints(fine, judgments) == []
