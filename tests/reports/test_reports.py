"""Reports and honest numbers: Markdown/JSON/HTML, the step summary, significance, floors, judged@k, compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_model import report_of

from pytest_relevance.cli.commands import main
from pytest_relevance.evaluation.diagnostics import hints
from pytest_relevance.evaluation.evaluation import evaluate
from pytest_relevance.evaluation.floors import constant_floor
from pytest_relevance.evaluation.significance import sign_flip_p
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import parse_metrics

ROOT = Path(__file__).resolve().parent.parent.parent
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
    assert "| head | 51 | ndcg@10 | 0.8665 | 0.8390 | -0.0275 |" in markdown
    assert "**regression** (p=" in markdown
    assert "Queries that lost most on head.ndcg@10:" in markdown
    assert "| q022 | hiking boots | head | 1.0000 | 0.6300 | -0.3700 | fell: p0569 (3) 5 -> 9," in markdown
    result.stdout.fnmatch_lines(
        [
            "*q022 'hiking boots' [[]head]: 1.0000 -> 0.6300",
            "*    fell: p0569 (3) 5 -> 9, p0140 (3) 6 -> 11, p1049 (3) 7 -> 14, p0835 (3) 8 -> 15, +2 more",
            "*    in: p0433 (0) at 5, p0368 (0) at 6, p0983 (0) at 7, p1066 (0) at 8, +1 more",
        ]
    )
    text = summary.read_text()
    assert text.startswith("earlier step\n")  # appended, not replaced
    assert "## 1 relevance test, 0 regressed, 0 need a baseline, 0 could not compare, 1 updated\n" in text
    assert "## 1 relevance test, 1 regressed, 0 need a baseline, 0 could not compare\n" in text
    assert markdown.startswith("## 1 relevance test, 1 regressed, 0 need a baseline, 0 could not compare\n")
    data = json.loads((demo.path / "out" / "r.json").read_text())
    (test,) = data["tests"]
    assert test["status"] == "regressed"
    head = next(r for r in test["rows"] if (r["stratum"], r["metric"]) == ("head", "ndcg@10"))
    assert head["baseline"] == 0.8665
    assert head["current"] == 0.8390
    assert test["churn"]["per_stratum"]["head"] == {"rbo": 0.9336, "overlap": 0.949, "n": 51}
    assert max(len(r) for r in test["rankings"].values()) == 100  # the run to the depth the metrics need, for `pool`
    assert 0 < head["p"] < 0.05
    assert 0 <= head["floor"] < head["current"]
    assert set(test["per_query"]["q001"]["ndcg@10"]) == {"baseline", "current"}
    html = (demo.path / "out" / "r.html").read_text()
    assert "<script" not in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert html.count('class="stratum-chart"') == 4
    assert 'class="delta-chart"' in html


def test_alpha_lets_an_insignificant_drop_pass(demo: pytest.Pytester) -> None:
    # one query's ranking reversed once a file `drop` exists: a drop carried by a single query
    demo.makepyfile(
        test_gate="import pathlib\n\n"
        "def test_demo(relevance_index, relevance_snapshot):\n"
        "    run = relevance_index.run()\n"
        "    if pathlib.Path('drop').exists():\n"
        "        run[sorted(run)[0]].reverse()\n"
        "    assert relevance_snapshot == run\n"
    )
    assert run(demo, "--relevance-update").ret == 0
    (demo.path / "drop").write_text("")
    result = run(demo, "--relevance-tolerance", "0")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*, p=*"])
    assert run(demo, "--relevance-tolerance", "0", "--relevance-alpha", "0.0001").ret == 0


def test_the_failure_names_the_adjusted_p_value_and_the_scope_setting_restores_the_per_row_test(
    demo: pytest.Pytester,
) -> None:
    """With relevance_alpha the failure shows each drop's p-value adjusted over the test, and how; the -v table each
    delta's interval and MDE. relevance_alpha_scope = comparison: each row at alpha, nothing adjusted."""
    demo.makepyfile(
        test_gate="import pathlib\n\n"
        "def test_demo(relevance_index, relevance_snapshot):\n"
        "    run = relevance_index.run()\n"
        "    if pathlib.Path('drop').exists():\n"
        "        for qid in sorted(run)[::2]:\n"
        "            run[qid].reverse()\n"
        "    assert relevance_snapshot == run\n"
    )
    assert run(demo, "--relevance-update").ret == 0
    (demo.path / "drop").write_text("")
    result = run(demo, "--relevance-alpha", "0.05", "-v")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*all.ndcg@10: * (-0.*, p<0.001, adjusted p<0.001, 95% CI [[]-0.*, -0.*[]])",
            "*relevance_alpha 0.05 bounds the test's chance of any false regression: p-values adjusted by max-T "
            "(Westfall-Young step-down) over * stratum x metric rows, 10,000 sign flips",
            "*95% CI of each delta, and MDE (the smallest drop flagged 80% of the time):",
            "*all: ndcg@10 [[]-0.*, -0.*[]] MDE 0.*",
        ]
    )
    result = run(demo, "--relevance-alpha", "0.05", "--relevance-alpha-scope", "comparison")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*relevance_alpha 0.05 per stratum x metric (relevance_alpha_scope = comparison)"])
    assert "adjusted p" not in result.stdout.str()


def test_judged_and_floor_warnings_are_in_the_report(demo: pytest.Pytester) -> None:
    def warnings(*args: str) -> list[str]:
        run(demo, "--relevance-report", "out.json", *args)
        (test,) = json.loads((demo.path / "out.json").read_text())["tests"]
        return test["warnings"]

    result = run(demo, "--relevance-update", "-v")
    # the demo's pooled top 20 is judged: no judged@k warning out of the box
    result.stdout.fnmatch_lines(["*judged@10: all 1.00, head 1.00, torso 1.00, tail 1.00; coverage@10 0.*"])
    assert warnings() == []
    query = demo.path / "fixtures" / "query.yaml"
    query.write_text(query.read_text().replace("title^3", "title"))
    assert any(
        w.startswith("torso: judged@10 0.99 < 0.995: unjudged results score 0, so a better ranker can look worse;")
        for w in warnings("--relevance-min-judged", "0.995")
    )
    assert any("is within 0.95 of the constant-answer floor" in w for w in warnings("--relevance-floor-margin", "0.95"))


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
    assert "head.ndcg@10 | 0.8665 | 0.8390 | -0.0275 | REGRESSION |" in out
    assert main(["report", old, "--html", str(demo.path / "b.html")]) == 0
    assert 'class="stratum-chart"' in (demo.path / "b.html").read_text()
    assert main(["compare", str(demo.path / "nope.json"), old]) == 2


def test_a_bad_report_suffix_is_a_usage_error(demo: pytest.Pytester) -> None:
    result = run(demo, "--relevance-report", "out.txt")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--relevance-report out.txt: the suffix names the format: *.trec*"])


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


# ---------------------------------------------------------------- what moved, churn, first runs


def _small() -> tuple[Judgments, dict[str, list[str]]]:
    judgments = Judgments(
        (
            Query("q1", "alpha", "head", {}, {"a": 3, "b": 2, "c": 0}),
            Query("q2", "beta", "tail", {}, {"d": 1}),
            Query("q3", "gamma", "tail", {}, {"e": 2}),
        ),
        "v1",
        "judgments.yaml",
    )
    return judgments, {"q1": ["a", "b", "c"], "q2": ["d", "x"], "q3": ["e", "y"]}


def _report(judgments: Judgments, before: dict, after: dict, entry_edit=None, **settings):
    from pytest_relevance.config.settings import Tolerance
    from pytest_relevance.gate.entry import make_entry

    metrics = parse_metrics("ndcg@10 mrr")
    entry = make_entry(evaluate(before, judgments, metrics), "v1", "custom", Tolerance(), "")
    if entry_edit:
        entry = entry_edit(entry)
    evaluation = evaluate(after, judgments, metrics)
    return report_of("t::test", evaluation, judgments, entry, **settings)


def test_the_queries_that_dropped_most_are_the_regressed_stratums_on_the_regressed_metric() -> None:
    from pytest_relevance.reports import markdown
    from pytest_relevance.reports.formatting import brief
    from pytest_relevance.reports.terminal import failure_text

    judgments, before = _small()
    # q1 (head) drops on ndcg@10 only (b is relevant: its reciprocal rank stays 1); q2 (tail) drops on both, and
    # tail.mrr (1 -> 0.75, -0.25) is the largest regression, where q1 has no say
    report = _report(judgments, before, {**before, "q1": ["b", "a", "c"], "q2": ["x", "d"]})
    assert (report["movers"]["stratum"], report["movers"]["metric"]) == ("tail", "mrr")
    assert [m["query"] for m in report["movers"]["lost"]] == ["q2"]
    text = "\n".join(failure_text(report, "relevance-baseline.json"))
    assert "queries that dropped most on tail.mrr:\n  q2 'beta' [tail]: 1.0000 -> 0.5000" in text
    assert "Queries that lost most on tail.mrr:" in markdown.render([report])
    assert brief(report).startswith("regressed in ") and ", ndcg@10 " in brief(report)  # the headline stays


def test_reports_show_what_fell_and_came_in_for_lost_and_gained_queries() -> None:
    from pytest_relevance.reports import html, markdown
    from pytest_relevance.reports.terminal import failure_text

    judgments, before = _small()
    after = {"q1": ["n", "c", "b", "m"], "q2": ["x", "d"], "q3": ["e", "y"]}
    report = _report(judgments, before, {**before, "q1": after["q1"], "q2": ["d", "x"]})
    (lost,) = report["movers"]["lost"]
    assert lost["change"]["fell"] == [
        {"doc": "a", "grade": 3, "before": 1, "after": None},
        {"doc": "b", "grade": 2, "before": 2, "after": 3},
    ]
    assert [(m["doc"], m["grade"], m["after"]) for m in lost["change"]["came"]] == [("n", None, 1), ("m", None, 4)]
    text = "\n".join(failure_text(report, "relevance-baseline.json"))
    assert "  q1 'alpha' [head]: 1.0000 -> 0.2346\n      fell: a (3) 1 -> out, b (2) 2 -> 3\n" in text
    assert "      in: n (?) at 1, m (?) at 4\n" in text
    assert "top 3" not in text
    # the other way round, the reports show the gain and what came in
    report = _report(judgments, {**before, "q1": after["q1"]}, before)
    (gained,) = report["movers"]["gained"]
    assert gained["change"]["came"] == [{"doc": "a", "grade": 3, "before": None, "after": 1}]
    md = markdown.render([report])
    assert "| q1 | alpha | head | 0.2346 | 1.0000 | +0.7654 | rose: b (2) 3 -> 2<br>in: a (3) at 1 |" in md
    assert '<td class="text moved">rose: b (2) 3 -&gt; 2<br>in: a (3) at 1</td>' in html.render([report])


def test_a_failure_says_what_the_change_improved_and_that_a_drop_may_be_chance() -> None:
    from pytest_relevance.reports.terminal import failure_text

    judgments, before = _small()
    before = {**before, "q2": ["x", "d"]}
    report = _report(judgments, before, {**before, "q1": ["c", "b", "a"], "q2": ["d", "x"]})
    text = failure_text(report, "relevance-baseline.json")
    assert text[1:5] == [
        "  head.ndcg@10: 1.0000 -> 0.6480 (-0.3520, p=1.000)",
        "  head.mrr: 1.0000 -> 0.5000 (-0.5000, p=1.000)",
        "the same change improved: all.ndcg@10 (+0.0057), tail.ndcg@10 (+0.1845), tail.mrr (+0.2500)",
        "hint: head.ndcg@10 (p=1.000), head.mrr (p=1.000) may be chance; relevance_alpha = 0.05 fails only on drops "
        "that are also significant",
    ]
    assert not any(line.startswith("hint:") for line in failure_text(report, "b.json", 0.5))


def test_cannot_compare_names_the_command_that_re_baselines() -> None:
    from pytest_relevance.reports.terminal import cannot_compare_text

    judgments, before = _small()
    report = _report(judgments, before, before)
    report["problems"] = ["judgments changed: v0 -> v1"]
    assert cannot_compare_text(report, "t::test", "relevance-baseline.json")[-1] == (
        "if the change is intended: re-baseline with pytest --relevance-update 't::test' --relevance-reason '<why>', "
        "then commit relevance-baseline.json in a commit of its own"
    )


def test_churn_is_always_reported_and_max_churn_fails_without_a_metric_moving() -> None:
    from pytest_relevance.reports import html, markdown
    from pytest_relevance.reports.terminal import failure_text, summary_lines

    judgments, before = _small()
    after = {**before, "q2": ["d", "u1"], "q3": ["e", "u3"]}  # unjudged swaps below the relevant ones
    report = _report(judgments, before, after)
    assert all(row["status"] == "same" for row in report["rows"])
    churned = report["churn"]
    assert churned["max"] is None and churned["exceeded"] == [] and report["status"] == "passed"
    # q2: [d, x] vs [d, u1] = (1-p)/p * (0.9 + 0.5 * 0.81) + 0.5 * 0.81 = 0.55; q3 the same; q1 1.0
    assert churned["per_stratum"]["tail"] == {"rbo": 0.55, "overlap": 0.5, "n": 2}
    assert churned["per_stratum"]["head"] == {"rbo": 1.0, "overlap": 1.0, "n": 1}
    line = (
        "rankings vs baseline, RBO (p=0.9) / top-10 overlap: all 0.7000/0.6667, head 1.0000/1.0000, tail 0.5500/0.5000"
    )
    assert f"  {line}" in summary_lines("t::test", {"engine": "custom", "judgments": "v1", "report": report})
    assert line in markdown.render([report])
    assert "most changed rankings: q2 (RBO 0.5500, 1 new, 1 unjudged), q3 (RBO 0.5500, 1 new, 1 unjudged)" in (
        markdown.render([report])
    )
    assert '<table class="churn">' in html.render([report])
    report = _report(judgments, before, after, max_churn=0.4)
    assert report["status"] == "regressed" and report["churn"]["exceeded"] == ["tail"]
    text = failure_text(report, "relevance-baseline.json")
    assert text[0] == (
        "relevance churn beyond relevance_max_churn 0.4 against relevance-baseline.json (1 - mean RBO@10, p=0.9)"
    )
    assert "  tail: churn 0.4500 (RBO 0.5500, overlap 0.5000, 2 queries)" in text
    assert "  q2 'beta' [tail]: RBO 0.5500, 1 new in the top 10, 1 of them unjudged" in text
    assert _report(judgments, before, after, max_churn=0.5)["status"] == "passed"


def test_an_entry_without_rankings_says_once_how_to_add_them() -> None:
    from pytest_relevance.reports.terminal import failure_text

    judgments, before = _small()
    strip = lambda entry: {k: v for k, v in entry.items() if k not in ("rankings", "rankings_depth")}  # noqa: E731
    report = _report(judgments, before, {**before, "q1": ["c", "b", "a"]}, strip)
    assert report["churn"] is None
    notes = [w for w in report["warnings"] if "has no rankings" in w]
    assert len(notes) == 1 and "--relevance-update" in notes[0]
    text = failure_text(report, "relevance-baseline.json")
    assert "      top 3: c (0), b (2), a (3)" in text


def test_missing_queries_warn_with_count_and_ids() -> None:
    judgments, before = _small()
    report = _report(judgments, before, {"q1": before["q1"]})
    assert "2 judged queries are not in the run and score 0: q2, q3" in report["warnings"]


def test_set_answers_show_missing_and_extra_labels() -> None:
    from pytest_relevance.config.settings import Tolerance
    from pytest_relevance.evaluation.set_answers import evaluate_sets
    from pytest_relevance.gate.entry import make_entry
    from pytest_relevance.reports.terminal import failure_text

    judgments = Judgments((Query("t1", "ticket", None, {}, {"repo-a": 1, "repo-b": 1}),), "v", "j")
    old = evaluate_sets({"t1": {"repo-a", "repo-b"}}, judgments)
    entry = make_entry(old, "v", "custom", Tolerance(), "")
    assert entry["rankings"] == {"t1": ["repo-a", "repo-b"]} and entry["rankings_depth"] is None
    new = evaluate_sets({"t1": {"repo-a", "repo-c"}}, judgments)
    report = report_of("t", new, judgments, entry)
    (lost,) = report["movers"]["lost"]
    assert lost["change"] == {"missing": ["repo-b"], "extra": ["repo-c"]}
    assert report["churn"] is None
    text = failure_text(report, "b.json")
    assert "      missing: repo-b" in text and "      extra: repo-c" in text


def test_a_first_run_shows_the_scores_then_the_create_hint() -> None:
    from pytest_relevance.reports.terminal import no_baseline_text

    judgments, before = _small()
    evaluation = evaluate(before, judgments, parse_metrics("ndcg@10 mrr"))
    report = report_of("t.py::test", evaluation, judgments)
    assert report["churn"] is None and not any("has no rankings" in w for w in report["warnings"])
    lines = no_baseline_text(report, "t.py::test", "relevance-baseline.json")
    assert (
        lines[0] == "relevance: no baseline entry for t.py::test in relevance-baseline.json; measured (judgments v1):"
    )
    assert lines[1].split() == ["stratum", "n", "ndcg@10", "mrr"]
    assert lines[2].split() == ["all", "3", "1.0000", "1.0000"]
    assert lines[-1] == (
        "create it with: pytest --relevance-update 't.py::test' --relevance-reason 'first baseline' "
        "(then commit relevance-baseline.json)"
    )


# ---------------------------------------------------------------- headline, order, statuses


def _statuses() -> list[dict]:
    """One report per status the plugin produces, passing first, to see the renderers reorder them."""
    judgments, before = _small()
    passed = _report(judgments, before, before)
    regressed = _report(judgments, before, {**before, "q1": ["c", "b", "a"]})
    regressed["test"] = "t.py::test_regressed"
    passed["test"] = "t.py::test_passed"

    evaluation = evaluate(before, judgments, parse_metrics("ndcg@10 mrr"))
    new = report_of("t.py::test_new", evaluation, judgments)
    new["status"] = "no baseline"
    odd = report_of("t.py::test_odd", evaluation, judgments)
    odd["status"] = "cannot compare"
    odd["problems"] = ["the judgments changed: baseline version 'v0', now 'v1'"]
    return [passed, new, odd, regressed]


def test_every_report_starts_with_the_counts_and_puts_failing_tests_first() -> None:
    from pytest_relevance.reports import html, markdown

    reports = _statuses()
    md = markdown.render(reports)
    assert md.splitlines()[0] == "## 4 relevance tests, 1 regressed, 1 need a baseline, 1 could not compare"
    order = [md.index(f"### `t.py::test_{name}`") for name in ("regressed", "odd", "new", "passed")]
    assert order == sorted(order)
    assert md.index("<details>") < order[-1]  # the passing test is collapsed, the failing ones are not
    assert md.index("<details>") > order[-2]
    assert "### `t.py::test_odd`: cannot compare" in md
    assert "- the judgments changed: baseline version 'v0', now 'v1'" in md
    assert "### `t.py::test_new`: no baseline" in md
    assert "create it with `pytest --relevance-update 't.py::test_new' --relevance-reason 'first baseline'`" in md
    page = html.render(reports)
    assert "<h1>4 relevance tests, 1 regressed, 1 need a baseline, 1 could not compare</h1>" in page
    sections = [page.index(f"<h2>t.py::test_{name} ") for name in ("regressed", "odd", "new", "passed")]
    assert sections == sorted(sections)
    assert "<li>the judgments changed: baseline version &#x27;v0&#x27;, now &#x27;v1&#x27;</li>" in page
    assert page.index("<details") < sections[-1]


def test_the_step_summary_keeps_a_green_run_small() -> None:
    from pytest_relevance.reports import markdown

    passed = _statuses()[0]
    full = markdown.render([passed])
    compact = markdown.render([passed], compact=True)
    assert "| stratum |" in full and "| stratum |" not in compact
    assert compact == (
        "## 1 relevance test, 0 regressed, 0 need a baseline, 0 could not compare\n\n<details>\n"
        "<summary>1 passed test</summary>\n\n- `t.py::test_passed`: passed, ndcg@10 1.0000 (+0.0000)\n\n"
        "</details>\n\n"
    )
    reports = _statuses()
    compact = markdown.render(reports, compact=True)
    assert "### `t.py::test_regressed`: regressed" in compact  # failing tests stay in full
    assert "### `t.py::test_passed`" not in compact
    assert "- `t.py::test_passed`: passed, ndcg@10 1.0000 (+0.0000)" in compact


def test_the_step_summary_is_appended(tmp_path: Path) -> None:
    from pytest_relevance.reports.sinks import write_step_summary

    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    write_step_summary(str(summary), _statuses()[:1])
    write_step_summary(str(summary), _statuses()[:1])
    text = summary.read_text()
    assert text.startswith("earlier step\n## 1 relevance test,")
    assert text.count("## 1 relevance test, 0 regressed") == 2


def test_html_bars_have_an_axis_value_labels_and_deltas() -> None:
    import re

    from pytest_relevance.reports import html

    judgments, before = _small()
    report = _report(judgments, before, {**before, "q1": ["b", "a", "c"]})
    page = html.render([report])
    chart = page[page.index('<svg class="stratum-chart"') : page.index("</svg>")]
    assert [t for t in re.findall(r'class="tick"[^>]*>([^<]*)<', chart)] == ["0", "0.25", "0.5", "0.75", "1"]
    labels = re.findall(r'class="value"[^>]*>([^<]*)<', chart)
    # all: q1 [b, a, c] has linear-gain NDCG (2 + 3/log2 3) / (3 + 2/log2 3) = 0.9134; q2, q3 stay 1.0
    assert labels == ["1.0000", "0.9711", "1.0000", "1.0000"]  # ndcg@10 then mrr, baseline then current
    assert re.findall(r'class="delta"[^>]*>([^<]*)<', chart) == ["-0.0289", "+0.0000"]
    # a 0.03 drop: the current bar is 0.0289 of the 150 px plot shorter, and the labels say by how much
    heights = [float(h) for h in re.findall(r'<rect [^>]*height="([0-9.]+)"', chart)]
    assert heights[:2] == [150.0, pytest.approx(150 * 0.9711, abs=0.1)]


def test_html_per_query_chart_names_the_queries_and_lists_them() -> None:
    from pytest_relevance.reports import html

    judgments, before = _small()
    report = _report(judgments, before, {**before, "q1": ["b", "a", "c"]})
    page = html.render([report])
    assert '<svg class="delta-chart"' in page
    assert "<title>q1 &#x27;alpha&#x27;: 1.0000 -&gt; 0.9134 (-0.0866)</title>" in page
    assert '<tr class="regression"><td>q1</td><td>1.0000</td><td>0.9134</td><td>-0.0866</td></tr>' in page
    assert "Per-query change on ndcg@10: 1 of 3 queries" in page
    ticks = page[page.index('<svg class="delta-chart"') :]
    assert ">-0.1<" in ticks and ">+0.1<" in ticks  # the axis fits the largest change, not always +-1


def test_html_per_query_chart_spreads_a_few_bars_over_its_width_and_labels_each() -> None:
    import re

    from pytest_relevance.reports import html

    changed = [(-0.2, "q1", 0.9, 0.7), (-0.1, "q2", 0.8, 0.7), (0.05, "q3", 0.5, 0.55), (0.1, "q4", 0.4, 0.5)]
    chart = html._deltas(changed, {})
    xs = [float(x) for x in re.findall(r'<rect x="([0-9.]+)"', chart)]
    widths = [float(w) for w in re.findall(r'<rect [^>]*width="([0-9.]+)"', chart)]
    # four bars over the 848 px plot: the last one ends past half of the 900 px chart, not in its first tenth
    assert xs[-1] + widths[-1] > 450 and min(widths) >= 24
    assert re.findall(r'class="bar-label"[^>]*>([^<]*)<', chart) == ["q1", "q2", "q3", "q4"]
    many = [(-0.01 * (i + 1), f"q{i}", 0.5, 0.4) for i in range(html._LABELLED + 1)]
    assert 'class="bar-label"' not in html._deltas(many, {})  # too many to label without overlap: the table names them


def test_html_for_a_passing_test_has_no_empty_chart_or_table_and_the_notes_lines() -> None:
    from pytest_relevance.reports import html

    judgments, before = _small()
    report = _report(judgments, before, before)
    page = html.render([report])
    assert 'class="delta-chart"' not in page and 'class="movers"' not in page
    # q1's three results are judged, q2's and q3's one of two: (1 + 0.5 + 0.5) / 3
    assert '<p class="notes">judged@10: all 0.67, head 1.00, tail 0.50</p>' in page
    improved = _report(judgments, {**before, "q1": ["c", "b", "a"]}, before)
    page = html.render([improved])
    assert "stale baseline: improved beyond tolerance (all.ndcg@10 +" in page
    assert 'class="movers"' in page  # a gain is shown too


def test_a_json_report_read_back_keeps_the_strata_order() -> None:
    from pytest_relevance.gate.report import from_file, stratum_key
    from pytest_relevance.reports.sinks import to_json

    judgments, before = _small()
    report = _report(judgments, before, before)
    report["judged"]["per_stratum"] = {"all": 1.0, "torso": 0.5, "head": 1.0, "tail": 0.5, "beta": 1.0}
    (back,) = json.loads(to_json([report]))["tests"]
    assert list(back["judged"]["per_stratum"]) == ["all", "beta", "head", "tail", "torso"]  # sorted on writing
    assert list(from_file(back)["judged"]["per_stratum"]) == ["all", "head", "torso", "tail", "beta"]
    assert sorted(["zeta", "tail", "all", "torso", "head", "beta"], key=stratum_key) == [
        "all",
        "head",
        "torso",
        "tail",
        "beta",
        "zeta",
    ]


# ---------------------------------------------------------------- floors, small strata, p-values


def _floor_report(grades: dict[str, int], ranking: list[str], n: int, stratum: str = "head") -> dict:

    judgments = Judgments(tuple(Query(f"q{i}", "t", stratum, {}, dict(grades)) for i in range(n)), "v", "j")
    evaluation = evaluate({f"q{i}": ranking for i in range(n)}, judgments, parse_metrics("mrr"))
    return report_of("t", evaluation, judgments)


def test_a_value_under_its_floor_is_below_the_floor() -> None:
    # every query's only relevant document is "common": answering [common] to all scores MRR 1.0; we rank it third
    report = _floor_report({"common": 1}, ["x", "y", "common"], 10)
    assert report["rows"][0]["floor"] == 1.0 and report["rows"][0]["current"] == 0.3333
    assert (
        "all.mrr 0.3333 is below the constant-answer floor (at least 1.0000): one fixed list for every query scores "
        "better" in (report["warnings"])
    )
    assert not any("within" in w for w in report["warnings"])


def test_a_floor_of_zero_never_warns() -> None:
    report = _floor_report({"a": 0}, ["a"], 10)  # nothing relevant: value 0, floor 0
    assert (report["rows"][0]["current"], report["rows"][0]["floor"]) == (0.0, 0.0)
    assert not any("floor" in w for w in report["warnings"])


def test_small_strata_are_flagged_once_instead_of_floor_checked() -> None:
    report = _floor_report({"common": 1}, ["x", "y", "common"], 9)
    small = [w for w in report["warnings"] if "too few" in w]
    assert small == [
        "under 10 queries (all 9, head 9): too few for the floor check, and p-values are coarse; judge more queries"
    ]
    assert not any("constant-answer floor" in w for w in report["warnings"])


def test_a_tiny_p_prints_as_below_a_thousandth_everywhere() -> None:
    from pytest_relevance.reports import html, markdown
    from pytest_relevance.reports.formatting import p_text
    from pytest_relevance.reports.terminal import regression_line

    assert (p_text(0.0), p_text(0.0004), p_text(0.0005), p_text(0.0123)) == ("p<0.001", "p<0.001", "p=0.001", "p=0.012")
    judgments, before = _small()
    report = _report(judgments, before, {**before, "q1": ["c", "b", "a"]})
    row = next(r for r in report["rows"] if r["status"] == "regression")
    row["p"] = 0.0001
    assert ", p<0.001, 95% CI [" in regression_line(row)
    assert "(p<0.001)" in markdown.render([report])
    assert "<td>p&lt;0.001</td>" in html.render([report])


def test_a_p_value_is_rounded_once_from_the_exact_value_to_the_printed_digits() -> None:
    """Nine queries: five drop by 0.3691, three by 0.1309, one rises by 0.1309. The sign-flip test enumerates the
    512 sign patterns: 10 are at least as extreme, p = 10/512 = 0.01953125, which prints 0.020 (rounded to 4
    decimals first it was 0.0195, then 0.019). The report keeps the exact p; every rendering prints it once."""
    from pytest_relevance.config.settings import Tolerance
    from pytest_relevance.gate.entry import make_entry
    from pytest_relevance.metrics.ranking import parse_metrics
    from pytest_relevance.reports import html, markdown
    from pytest_relevance.reports.formatting import p_text
    from pytest_relevance.reports.terminal import regression_line

    assert (p_text(0.85546875), p_text(0.01953125), p_text(0.0195)) == ("p=0.855", "p=0.020", "p=0.019")
    top, second, third = ["a"], ["b", "a"], ["b", "c", "a"]  # ndcg@10 1, 0.6309, 0.5 (a is the one relevant)
    moves = [(top, second)] * 5 + [(second, third)] * 3 + [(third, second)]
    queries = tuple(Query(f"q{i}", f"text {i}", "s", {}, {"a": 1, "b": 0}) for i in range(len(moves)))
    judgments = Judgments(queries, "v1", "j.yaml")
    metrics = parse_metrics("ndcg@10")
    before = evaluate({q.id: old for q, (old, _) in zip(queries, moves, strict=True)}, judgments, metrics)
    after = evaluate({q.id: new for q, (_, new) in zip(queries, moves, strict=True)}, judgments, metrics)
    report = report_of("t", after, judgments, make_entry(before, "v1", "custom", Tolerance(), ""))
    row = next(r for r in report["rows"] if r["stratum"] == "all")
    assert row["status"] == "regression" and row["p"] == 10 / 512
    assert ", p=0.020, 95% CI [" in regression_line(row)
    assert "(p=0.020)" in markdown.render([report])
    assert "<td>p=0.020</td>" in html.render([report])


# ---------------------------------------------------------------- the failure text


def test_the_failure_hint_re_baselines_the_failing_test_only() -> None:
    from pytest_relevance.gate.verdict import update_command
    from pytest_relevance.reports.terminal import failure_text

    judgments, before = _small()
    report = _report(judgments, before, {**before, "q1": ["c", "b", "a"]})
    text = failure_text(report, "relevance-baseline.json")
    assert text[-1] == (
        "if the change is intended: pytest --relevance-update 't::test' --relevance-reason '<why>', then commit "
        "relevance-baseline.json in a commit of its own"
    )
    # a parametrized id keeps its brackets and spaces away from the shell, a quote in it stays a quote
    command = update_command("t.py::test[it's a b]", "why")
    assert command == "pytest --relevance-update 't.py::test[it'\\''s a b]' --relevance-reason 'why'"
    import shlex

    assert shlex.split(command)[2] == "t.py::test[it's a b]"


def test_long_query_texts_are_cut_to_one_line_in_the_failure_text() -> None:
    from pytest_relevance.reports.terminal import mover_lines

    mover = {"query": "q1", "text": "a " * 20 + "\n" + "b " * 40, "stratum": None, "baseline": 1.0, "current": 0.5}
    (head, _) = mover_lines(mover)
    shown = head.split("'")[1]
    assert "\n" not in head and len(shown) == 60 and shown.endswith("…")
    assert shown.startswith("a a a") and "  " not in shown


# ---------------------------------------------------------------- terminal lines the plugin prints


def test_one_line_per_test_and_a_count_line() -> None:
    from pytest_relevance.reports.terminal import count_line, test_line

    passed, new, odd, regressed = _statuses()
    result = {"engine": "custom", "judgments": "v1"}
    lines = [test_line(r["test"], {**result, "report": r}) for r in (passed, new, odd, regressed)]
    assert lines == [
        "relevance: t.py::test_passed passed, ndcg@10 1.0000 (+0.0000)",
        "relevance: t.py::test_new no baseline, ndcg@10 1.0000 (no baseline yet)",
        "relevance: t.py::test_odd cannot compare, ndcg@10 1.0000 (not compared)",
        # q1 [c, b, a]: (0 + 2/log2 3 + 3/2) / (3 + 2/log2 3) = 0.6480, all (0.6480 + 1 + 1) / 3; MRR 0.5: ndcg and
        # mrr regress in all and head
        "relevance: t.py::test_regressed regressed in 4 values, ndcg@10 0.8827 (-0.1173)",
    ]
    updated = {**passed, "status": "updated"}
    assert test_line("t", {**result, "report": updated}) == "relevance: t updated, ndcg@10 1.0000 (+0.0000)"
    # an update with no entry to compare with (new, or new judgments) is measured against itself: no delta to show
    fresh = {**updated, "against": "new entry"}
    assert test_line("t", {**result, "report": fresh}) == "relevance: t updated, ndcg@10 1.0000 (new entry)"
    refreshed = {**updated, "against": "not compared"}
    assert test_line("t", {**result, "report": refreshed}) == "relevance: t updated, ndcg@10 1.0000 (not compared)"
    assert test_line("t", result) == "relevance: t not scored (see its failure)"
    results = [{**result, "report": r} for r in (passed, passed, new, odd, regressed)] + [result]
    assert count_line(results) == (
        "relevance: 6 tests: 2 passed, 1 regressed, 1 no baseline, 1 cannot compare, 1 not scored"
    )
    assert count_line([{**result, "report": passed}]) == "relevance: 1 test: 1 passed"


def test_the_summary_table_keeps_hints_churn_and_the_warnings_in_full() -> None:
    from pytest_relevance.reports.terminal import cannot_compare_text, summary_lines

    passed, _, odd, _ = _statuses()
    assert passed["warnings"]  # the small strata, at least
    result = {"engine": "custom", "judgments": "v1"}
    lines = summary_lines("t", {**result, "report": passed})
    # in full here: the RelevanceWarning only counts them
    assert [line for line in lines if line.startswith("  warning: ")] == [f"  warning: {w}" for w in passed["warnings"]]
    assert any(line.startswith("  rankings vs baseline, RBO") for line in lines)
    assert "  judged@10: all 0.67, head 1.00, tail 0.50" in lines
    lines = summary_lines("t", {**result, "report": odd})
    assert lines[1] == "  cannot compare: the judgments changed: baseline version 'v0', now 'v1'"
    text = cannot_compare_text(odd, "t.py::test_odd", "b.json")
    assert text[:3] == [
        "relevance: cannot compare with b.json for t.py::test_odd",
        "  the judgments changed: baseline version 'v0', now 'v1'",
        "measured now (judgments v1):",
    ]
    assert text[4].split() == ["all", "3", "1.0000", "1.0000"]


def test_markdown_shows_html_and_pipes_in_ids_strata_and_text_as_text() -> None:
    """The Markdown goes to $GITHUB_STEP_SUMMARY, which renders inline HTML: an id `<b>x</b>` came out bold and a
    `|` in a stratum split its table row. Code spans (the test id) keep their text as is, with a longer fence."""
    from pytest_relevance.reports import markdown

    judgments = Judgments(
        (
            Query("<b>q1</b>", "a & <i>b</i> | c", "<s>head|x", {}, {"<img src=x>": 3, "b": 1}),
            Query("q2", "beta", "tail", {}, {"d": 1}),
        ),
        "v1",
        "judgments.yaml",
    )
    report = _report(judgments, {"<b>q1</b>": ["<img src=x>", "b"], "q2": ["d"]}, {"<b>q1</b>": ["b"], "q2": ["d"]})
    report["test"] = "t.py::test[`x`]"
    md = markdown.render([report])
    assert "<b>" not in md and "<i>" not in md and "<s>" not in md and "<img" not in md
    assert "| &lt;s>head\\|x | 1 | ndcg@10 |" in md
    assert "| &lt;b>q1&lt;/b> | a &amp; &lt;i>b&lt;/i> \\| c | &lt;s>head\\|x |" in md
    assert "fell: &lt;img src=x> (3) 1 -> out" in md
    assert "### `` t.py::test[`x`] ``: regressed" in md


def test_a_trec_report_is_the_run_trec_eval_and_the_trec_reader_read_as_the_gate_did(demo: pytest.Pytester) -> None:
    """`--relevance-report run.trec` writes the gate's run for trec_eval: read back by the project's TREC run reader
    it is the same rankings, and pytrec_eval's ndcg_cut_10 over it is the gate's ndcg@10, query by query."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from pytest_relevance.judgments.model import load_judgments
    from pytest_relevance.judgments.trec import read_run
    from pytest_relevance.metrics.ranking import rank_scored

    assert run(demo, "--relevance-update").ret == 0
    assert run(demo, "--relevance-report", "out/run.trec", "--relevance-report", "out/r.json").ret == 0
    (test,) = json.loads((demo.path / "out" / "r.json").read_text())["tests"]
    text = (demo.path / "out" / "run.trec").read_text()
    first = test["rankings"]["q001"]
    assert text.splitlines()[0].split() == ["q001", "Q0", first[0], "1", str(len(first)), test["test"]]
    scored, warnings = read_run(demo.path / "out" / "run.trec")
    assert warnings == []
    assert {qid: rank_scored(docs) for qid, docs in scored.items()} == {q: d for q, d in test["rankings"].items() if d}
    judgments = load_judgments(demo.path / "fixtures" / "judgments.yaml")
    qrels = {q.id: {doc: int(grade) for doc, grade in q.grades.items()} for q in judgments.queries}
    measured = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(scored)
    assert len(measured) == len(scored) > 100
    for qid, values in measured.items():
        assert round(values["ndcg_cut_10"], 4) == test["per_query"][qid]["ndcg@10"]["current"], qid


def test_a_trec_run_keeps_a_repeated_document_at_its_rank_under_a_marked_id() -> None:
    from pytest_relevance.judgments.trec import format_run

    assert format_run({"q1": ["b", "a", "b", "c"], "q2": []}, "t.py::test[a b]") == (
        "q1 Q0 b 1 4 t.py::test[a_b]\nq1 Q0 a 2 3 t.py::test[a_b]\nq1 Q0 b#repeat-3 3 2 t.py::test[a_b]\n"
        "q1 Q0 c 4 1 t.py::test[a_b]\n"
    )
    # a marked id that a document of the list already has gets another mark
    assert format_run({"q": ["a", "a#repeat-2", "a", "a"]}, "t").split("\n")[2:4] == [
        "q Q0 a#repeat-3 3 2 t",
        "q Q0 a#repeat-4 4 1 t",
    ]
    assert format_run({"q": ["a", "a", "a#repeat-2"]}, "t").split("\n")[1] == "q Q0 a#repeat-2# 2 2 t"


def test_trec_eval_scores_the_exported_run_as_the_gate_does_repeats_included(tmp_path) -> None:
    """[a, a, b] with b relevant is NDCG@3 0.5 for the gate (the repeat holds rank 2, gaining nothing); pytrec_eval
    on the export must say the same, not 0.6309 (b moved up to rank 2). Then random rankings full of repeats,
    metric by metric."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    import random

    from pytest_relevance.judgments.trec import format_run
    from pytest_relevance.metrics.ranking import parse_metrics, score_query

    def measured(qrels: dict, rankings: dict, measures: set[str]) -> dict:
        path = tmp_path / "run.trec"
        path.write_text(format_run(rankings, "t"))
        with path.open() as handle:
            run = pytrec_eval.parse_run(handle)
        return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)

    qrels = {"q": {"a": 0, "b": 1}}
    assert measured(qrels, {"q": ["a", "a", "b"]}, {"ndcg_cut_3"})["q"]["ndcg_cut_3"] == 0.5
    assert score_query(qrels["q"], ["a", "a", "b"], parse_metrics("ndcg@3")).values["ndcg@3"] == 0.5
    rnd = random.Random(5)
    docs = [f"d{i}" for i in range(8)]
    qrels = {f"q{i}": {d: rnd.choice([0, 1, 2]) for d in rnd.sample(docs, 5)} for i in range(60)}
    rankings = {q: [rnd.choice(docs) for _ in range(rnd.randint(1, 12))] for q in qrels}
    names = {"ndcg@5": "ndcg_cut_5", "ndcg@10": "ndcg_cut_10", "map": "map", "p@5": "P_5", "mrr": "recip_rank"}
    theirs = measured(qrels, rankings, set(names.values()))
    assert sum(len(set(r)) < len(r) for r in rankings.values()) > 40  # most lists repeat a document
    for qid, ranking in rankings.items():
        ours = score_query(qrels[qid], ranking, parse_metrics(list(names))).values
        assert ours == pytest.approx({spec: theirs[qid][name] for spec, name in names.items()}), qid
