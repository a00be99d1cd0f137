"""The constant-answer floor against brute force: exact where the metric regroups by document, a feasible lower bound
(a list that scores it) where it does not."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from report_model import report_of

from pytest_relevance.evaluation.floors import constant_floor, floor_is_exact
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import mean, parse_metrics, score_query

DOCS = ["a", "b", "c", "d", "e", "f"]
SPECS = (
    "ndcg@{k} ndcg@{k}(gain=exp) ndcg p@{k} p@{k}(rel=2) recall@{k} judged@{k} hit@{k} mrr@{k} mrr map@{k} map rprec "
    "err@{k}"
)

grades = st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), max_size=6)


def _judgments(per_query: list[dict[str, int]]) -> Judgments:
    return Judgments(tuple(Query(f"q{i}", "t", "s", {}, g) for i, g in enumerate(per_query)), "v", "j")


def _every_list_scores(judgments: Judgments, metrics: list, length: int) -> dict[str, list[float]]:
    """Per metric, the mean score of every list of `length` distinct documents: judged ones and unjudged ones."""
    pool = sorted({d for q in judgments.queries for d in q.grades}) + [f"unjudged{i}" for i in range(length)]
    scores: dict[str, list[float]] = {m.spec: [] for m in metrics}
    for answer in itertools.permutations(pool, length):
        values = [score_query(q.grades, answer, metrics).values for q in judgments.queries]
        for spec, found in scores.items():
            found.append(mean(v[spec] for v in values))
    return scores


@settings(max_examples=50, deadline=None)
@given(st.lists(grades, min_size=1, max_size=4), st.integers(1, 3), st.integers(1, 3))
def test_the_floor_is_the_best_list_or_a_list_that_the_best_matches(
    per_query: list[dict[str, int]], k: int, size: int
) -> None:
    judgments = _judgments(per_query)
    metrics = parse_metrics(SPECS.format(k=k))
    floors = constant_floor(judgments, metrics, size)["all"]
    scores = _every_list_scores(judgments, [m for m in metrics if m.k], k)
    scores.update(_every_list_scores(judgments, [m for m in metrics if not m.k], size))
    for metric in metrics:
        best, floor = max(scores[metric.spec]), floors[metric.spec]
        if floor_is_exact(metric):
            assert floor == pytest.approx(best, abs=1e-12), metric.spec
        else:
            assert floor <= best + 1e-12, metric.spec
            assert any(abs(floor - s) < 1e-12 for s in scores[metric.spec]), f"{metric.spec}: no list scores {floor}"


def test_ndcg_ranks_documents_by_normalized_gain_not_by_raw_grade() -> None:
    # a is worth 3 to one query whose ideal is 3 high grades; b is the whole ideal of two queries
    judgments = _judgments([{"a": 3, "x": 3, "y": 3}, {"b": 1}, {"b": 1}])
    assert constant_floor(judgments, parse_metrics("ndcg@1"), 10)["all"]["ndcg@1"] == pytest.approx(2 / 3)


def test_recall_counts_a_document_per_query_by_its_share_of_the_relevant_ones() -> None:
    # a: one of four relevant to q0 and q1 (0.5 summed); b: all of q2 (1.0)
    judgments = _judgments([{"a": 1, "p": 1, "q": 1, "r": 1}, {"a": 1, "s": 1, "t": 1, "u": 1}, {"b": 1}])
    assert constant_floor(judgments, parse_metrics("recall@1"), 10)["all"]["recall@1"] == pytest.approx(1 / 3)


def test_a_metric_without_cut_off_is_floored_on_a_list_as_deep_as_the_run() -> None:
    judgments = _judgments([{d: 1} for d in DOCS])  # each query its own document: 1 query per position
    floors = constant_floor(judgments, parse_metrics("mrr map hit@6"), 6)["all"]
    assert floors["hit@6"] == 1.0
    assert floors["mrr"] == pytest.approx(mean(1 / r for r in range(1, 7)))
    assert not floor_is_exact(parse_metrics("mrr")[0]) and floor_is_exact(parse_metrics("ndcg@10")[0])


def test_every_report_says_at_least_where_the_floor_is_a_bound() -> None:
    from pytest_relevance.evaluation.evaluation import evaluate
    from pytest_relevance.reports import html, markdown, terminal

    judgments = _judgments([{"a": 1, "b": 2}, {"b": 1}])
    evaluation = evaluate({"q0": ["a", "b"], "q1": ["b"]}, judgments, parse_metrics("ndcg@10 mrr"))
    report = report_of("t", evaluation, judgments)
    flags = {row["metric"]: row["floor_exact"] for row in report["rows"]}
    assert flags == {"ndcg@10": True, "mrr": False}
    table = "\n".join(terminal.summary_lines("t", {"engine": "custom", "judgments": "v", "report": report}))
    assert "floor 1.0000" in table and "floor ≥1.0000" in table
    assert "| ndcg@10 | — | 0.9299 | — | 1.0000 |" in markdown.render([report])
    assert "| mrr | — | 1.0000 | — | ≥1.0000 |" in markdown.render([report])
    page = html.render([report])
    assert "<td>ndcg@10</td><td>—</td><td>0.9299</td><td>—</td><td>1.0000</td>" in page
    assert "<td>mrr</td><td>—</td><td>1.0000</td><td>—</td><td>≥1.0000</td>" in page
