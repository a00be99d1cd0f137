"""Rankings in the baseline, before/after diffs and churn (RBO, top-k overlap), as pure functions."""

from __future__ import annotations

import json

import pytest

from pytest_relevance.config.settings import Tolerance
from pytest_relevance.evaluation.diagnostics import missing_queries
from pytest_relevance.evaluation.evaluation import evaluate
from pytest_relevance.gate import churn
from pytest_relevance.gate.baseline_file import dumps, load_baseline
from pytest_relevance.gate.compare import compare
from pytest_relevance.gate.entry import make_entry
from pytest_relevance.gate.ranking_diff import diff, render, set_diff, snapshot_depth
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import parse_metrics

JUDGMENTS = Judgments(
    (
        Query("q1", "alpha", "head", {}, {"a": 3, "b": 2, "c": 0}),
        Query("q2", "beta", "tail", {}, {"d": 1}),
        Query("q3", "gamma", "tail", {}, {"e": 2}),
    ),
    "v1",
    "judgments.yaml",
)
METRICS = parse_metrics("ndcg@10 mrr")


# ---------------------------------------------------------------- depth and the baseline file


def test_snapshot_depth_defaults_to_10_or_the_deepest_cut_off_when_smaller() -> None:
    assert snapshot_depth(parse_metrics("ndcg@10 recall@100")) == 10
    assert snapshot_depth(parse_metrics("ndcg@5 p@3")) == 5
    assert snapshot_depth(parse_metrics("map rprec")) == 10  # no cut-off at all
    assert snapshot_depth(parse_metrics("ndcg@10 recall@100"), 20) == 20
    with pytest.raises(ValueError, match="must be >= 1"):
        snapshot_depth(METRICS, 0)


def test_the_entry_keeps_one_compact_line_per_query_and_its_summary_first() -> None:
    run = {"q1": [f"d{i:02d}" for i in range(30)], "q2": ["d", "x"]}
    entry = make_entry(evaluate(run, JUDGMENTS, METRICS), "v1", "custom", Tolerance(), "why")
    assert entry["rankings"]["q1"] == [f"d{i:02d}" for i in range(10)]
    assert entry["rankings"]["q3"] == []  # judged, absent from the run
    assert entry["rankings_depth"] == 10
    text = dumps({"t::test": entry})
    lines = text.splitlines()
    assert '        "q1": ["d00", "d01", "d02", "d03", "d04", "d05", "d06", "d07", "d08", "d09"],' in lines
    assert '        "q2": ["d", "x"],' in lines
    assert json.loads(text)["entries"]["t::test"] == json.loads(json.dumps(entry))
    orders: list[list[str]] = []
    json.loads(text, object_pairs_hook=lambda pairs: orders.append([k for k, _ in pairs]) or dict(pairs))
    (entry_keys,) = [keys for keys in orders if "rankings_depth" in keys]
    summary = sorted(set(entry_keys) - {"queries", "rankings"})
    assert entry_keys == [*summary, "queries", "rankings"]  # the entry's summary first, then per query
    assert all(keys == sorted(keys) for keys in orders if keys is not entry_keys)  # sorted in every other object


def test_ids_with_quotes_commas_and_escapes_survive_the_one_line_writer() -> None:
    odd = ['a"b', "c,\n  d", "e\\", "[f]", "ü"]
    text = dumps({"t": {"rankings": {"q1": odd, "q2": []}, "strata": {"all": {"n": 1}}}})
    assert json.loads(text)["entries"]["t"]["rankings"] == {"q1": odd, "q2": []}
    assert '"q1": ["a\\"b", "c,\\n  d", "e\\\\", "[f]", "\\u00fc"],' in text
    assert '"q2": []\n' in text


def test_a_changed_ranking_changes_exactly_its_line() -> None:
    run = {"q1": ["a", "b"], "q2": ["d"], "q3": ["e"]}
    before = dumps({"t": make_entry(evaluate(run, JUDGMENTS, METRICS), "v1", "custom", Tolerance(), "")})
    run["q2"] = ["x", "d"]
    after = dumps({"t": make_entry(evaluate(run, JUDGMENTS, METRICS), "v1", "custom", Tolerance(), "")})
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    ranking_lines = [pair for pair in changed if "[" in pair[0]]
    assert ranking_lines == [('        "q2": ["d"],', '        "q2": ["x", "d"],')]


def test_an_entry_without_rankings_still_compares_on_scores(tmp_path) -> None:
    run = {"q1": ["a", "b"], "q2": ["d"], "q3": ["e"]}
    entry = make_entry(evaluate(run, JUDGMENTS, METRICS), "v1", "custom", Tolerance(), "")
    old = {k: v for k, v in entry.items() if k not in ("rankings", "rankings_depth")}
    path = tmp_path / "relevance-baseline.json"
    path.write_text(dumps({"t": old}))
    comparison = compare(load_baseline(path)["t"], evaluate({**run, "q1": ["b", "a"]}, JUDGMENTS, METRICS), Tolerance())
    assert comparison.rankings is None and comparison.depth is None
    assert [m.query for m in comparison.movers] == ["q1"]
    assert any(r.status == "regression" for r in comparison.rows)


# ---------------------------------------------------------------- diffs


def test_diff_names_relevant_documents_that_fell_and_what_came_in() -> None:
    before = ["a", "b", "c", "x"]
    after = ["n", "c", "x", "m", "b"] + [f"f{i}" for i in range(6)] + ["y"]
    grades = {"a": 3, "b": 2, "c": 0, "m": 1}
    change = diff(before, after, grades, k=4)
    assert [(m.doc, m.before, m.after) for m in change.fell] == [("a", 1, None), ("b", 2, 5)]
    assert change.rose == []  # c rose, but it is judged irrelevant
    assert [(m.doc, m.grade, m.after) for m in change.came] == [("n", None, 1), ("m", 1, 4)]
    assert render(change.as_dict()) == ["fell: a (3) 1 -> out, b (2) 2 -> 5", "in: n (?) at 1, m (1) at 4"]


def test_a_document_beyond_k_keeps_its_position_and_a_rise_is_shown() -> None:
    before = ["x", "y", "a"]
    change = diff(before, ["a", "x", "y"], {"a": 2}, k=3)
    assert render(change.as_dict()) == ["rose: a (2) 3 -> 1"]
    change = diff(["a"] + [f"o{i}" for i in range(9)], [f"o{i}" for i in range(9)] + ["z", "q", "a"], {"a": 3}, k=10)
    assert render(change.as_dict())[0] == "fell: a (3) 1 -> 12"
    assert render(diff(["a", "b"], ["a", "b"], {"a": 1}, k=2).as_dict()) == ["same top documents"]


def test_long_lists_are_cut_and_counted() -> None:
    change = diff([], [f"d{i}" for i in range(10)], {}, k=10)
    assert render(change.as_dict()) == ["in: d0 (?) at 1, d1 (?) at 2, d2 (?) at 3, d3 (?) at 4, +6 more"]


def test_set_answers_show_missing_and_extra_labels() -> None:
    assert set_diff({"repo-a", "repo-b"}, {"repo-b", "repo-c"}) == {"missing": ["repo-a"], "extra": ["repo-c"]}
    assert render(set_diff({"repo-a"}, {"repo-c"})) == ["missing: repo-a", "extra: repo-c"]


def test_missing_queries_are_counted_and_a_few_named() -> None:
    assert missing_queries({"q1", "q2", "q3"}, JUDGMENTS) is None
    assert missing_queries({"q1"}, JUDGMENTS) == "2 judged queries are not in the run and score 0: q2, q3"
    assert missing_queries({"q1", "q2"}, JUDGMENTS) == "1 judged query is not in the run and score 0: q3"
    assert missing_queries(set(), JUDGMENTS, shown=1) == (
        "3 judged queries are not in the run and score 0: q1 and 2 more"
    )


# ---------------------------------------------------------------- RBO, by hand from Webber et al. 2010


def test_rbo_identical_and_disjoint() -> None:
    assert churn.rbo(list("abcdefghij"), list("abcdefghij")) == pytest.approx(1.0)
    assert churn.rbo(list("abc"), list("xyz")) == 0.0
    assert churn.rbo([], []) == 1.0
    assert churn.rbo(["a"], []) == 0.0


def test_rbo_ext_even_lengths_by_hand() -> None:
    # S = abc, T = bad, p = 0.9: A_1 = 0, A_2 = 2/2, A_3 = 2/3 (eq. 30)
    # (1-p)/p * (0 * 0.9 + 1 * 0.81 + 2/3 * 0.729) + 2/3 * 0.729 = 0.1/0.9 * 1.296 + 0.486 = 0.144 + 0.486
    assert churn.rbo(list("abc"), list("bad")) == pytest.approx(0.63)
    # the top two swapped in ten: A_1 = 0, A_d = 1 after: (1-p)/p * (sum_{d=2..10} p^d) + p^10 = 1 - (1 - p)
    assert churn.rbo(list("abcdefghij"), list("bacdefghij")) == pytest.approx(0.9)
    # p = 0.5, S = ab, T = ac: A_1 = 1, A_2 = 1/2: (1 * 0.5 + 0.5 * 0.25) + 0.5 * 0.25 = 0.75
    assert churn.rbo(list("ab"), list("ac"), p=0.5) == pytest.approx(0.75)


def test_rbo_ext_uneven_lengths_by_hand() -> None:
    # L = ab, S = a (eq. 32): l = 2, s = 1, X_1 = 1, X_2 = 1
    # (1-p)/p * (X_1/1 p + X_2/2 p^2 + X_s (2-1)/(1*2) p^2) + ((X_2 - X_1)/2 + X_1/1) p^2
    # = 0.1/0.9 * (0.9 + 0.405 + 0.405) + 0.81 = 0.19 + 0.81: a one-item list that agrees is extrapolated to agree
    assert churn.rbo(list("ab"), list("a")) == pytest.approx(1.0)
    # L = abc, S = b: s = 1, l = 3, X_1 = X_s = 0, X_2 = X_3 = 1 (X_d = |L:d & S| beyond s)
    # first sum = 0 + 1/2 * 0.81 + 1/3 * 0.729 = 0.648; second sum = 0 (X_s = 0)
    # 0.1/0.9 * 0.648 + ((1 - 0)/3 + 0/1) * 0.729 = 0.072 + 0.243
    assert churn.rbo(list("abc"), list("b")) == pytest.approx(0.315)
    # L = abc, S = ab: s = 2, l = 3, X_1 = 1, X_2 = X_s = 2, X_3 = 2
    # first sum = 0.9 + 2/2 * 0.81 + 2/3 * 0.729 = 2.196; second sum = 2 * 1/(2 * 3) * 0.729 = 0.243
    # 0.1/0.9 * 2.439 + ((2 - 2)/3 + 2/2) * 0.729 = 0.271 + 0.729 = 1.0: a prefix agrees
    assert churn.rbo(list("abc"), list("ab")) == pytest.approx(1.0)
    assert churn.rbo(list("b"), list("abc")) == churn.rbo(list("abc"), list("b"))


def test_rbo_ext_matches_an_independent_implementation_on_random_rankings() -> None:
    import random

    oracle = pytest.importorskip("rbo", reason="the rbo package (dev extra) is the independent oracle")
    rnd = random.Random(20260115)
    items = [f"d{i}" for i in range(30)]
    for _ in range(100):
        a, b = rnd.sample(items, rnd.randint(1, 15)), rnd.sample(items, rnd.randint(1, 15))
        for p in (0.5, 0.9):
            assert churn.rbo(a, b, p) == pytest.approx(oracle.RankingSimilarity(a, b).rbo_ext(p=p), abs=1e-12)


def test_overlap_and_per_stratum_churn() -> None:
    assert churn.overlap(list("abcd"), list("badx")) == 0.75
    assert churn.overlap([], []) == 1.0
    before = {"q1": ["a", "b"], "q2": ["d"], "q3": ["e"]}
    after = {"q1": ["b", "a"], "q2": ["d"], "q3": ["z"]}
    per_query = churn.per_query(before, after, 10)
    strata = churn.per_stratum(per_query, JUDGMENTS.groups)
    # q1 swapped: (1-p)/p * (0 + 0.81) + 0.81 = 0.9; q2 identical; q3 disjoint
    assert strata["head"] == {"rbo": 0.9, "overlap": 1.0, "n": 1}
    assert strata["tail"] == {"rbo": 0.5, "overlap": 0.5, "n": 2}
    assert strata["all"]["rbo"] == pytest.approx((0.9 + 1 + 0) / 3, abs=1e-4)
    worst = churn.most_changed(per_query, JUDGMENTS)
    assert [(w["query"], w["new"], w["unjudged"]) for w in worst] == [("q3", 1, 1), ("q1", 0, 0)]


def test_max_churn_is_off_by_default_and_names_the_strata_beyond_it() -> None:
    strata = {"all": {"rbo": 0.8, "overlap": 0.7, "n": 3}, "head": {"rbo": 0.95, "overlap": 1.0, "n": 1}}
    assert churn.exceeded(strata, None) == []
    assert churn.exceeded(strata, 0.2) == []  # exactly at the limit passes
    assert churn.exceeded(strata, 0.1) == ["all"]
    report = {
        "p": 0.9,
        "k": 10,
        "max": 0.1,
        "per_stratum": strata,
        "exceeded": ["all"],
        "most_changed": [
            {"query": "q3", "text": "gamma", "stratum": "tail", "rbo": 0.0, "overlap": 0.0, "new": 4, "unjudged": 3}
        ],
    }
    lines = churn.failure_lines(report, "relevance-baseline.json")
    assert lines[0] == (
        "relevance churn beyond relevance_max_churn 0.1 against relevance-baseline.json (1 - mean RBO@10, p=0.9)"
    )
    assert lines[1] == "  all: churn 0.2000 (RBO 0.8000, overlap 0.7000, 3 queries)"
    assert "  q3 'gamma' [tail]: RBO 0.0000, 4 new in the top 10, 3 of them unjudged" in lines
