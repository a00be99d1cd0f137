"""Runs handed to the gate: ids are strings and scores finite numbers, or one message naming the query."""

from __future__ import annotations

import pytest

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation.evaluation import evaluate
from pytest_relevance.evaluation.set_answers import evaluate_sets
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import parse_metrics

JUDGMENTS = Judgments((Query("q1", "usb", None, {}, {"d1": 2, "d2": 1}), Query("q2", "hdmi", None, {}, {})), "v", "j")
METRICS = parse_metrics("ndcg@10 mrr")


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ({"q1": {"d1": float("nan"), "d2": 1.0}}, "query 'q1': document 'd1' has score nan; scores are finite numbers"),
        ({"q1": {"d1": float("inf")}}, "query 'q1': document 'd1' has score inf; scores are finite numbers"),
        ({"q1": {"d1": None}}, "query 'q1': document 'd1' has score None; scores are finite numbers"),
        ({"q1": {"d1": "high"}}, "query 'q1': document 'd1' has score 'high'; scores are finite numbers"),
        ({"q1": {"d1": True}}, "query 'q1': document 'd1' has score True; scores are finite numbers"),
        (
            {"q1": ["d1", None]},
            "query 'q1': document id None is not a string; doc ids are strings, as in the judgments",
        ),
        ({"q1": {7: 1.0}}, "query 'q1': document id 7 is not a string; doc ids are strings, as in the judgments"),
        ({1: ["d1"]}, "query 1: query ids are strings, got int (use str(...) if meant)"),
    ],
    ids=["nan", "inf", "none-score", "text-score", "bool-score", "none-doc", "int-doc", "int-query"],
)
def test_bad_run_values_are_one_message_naming_the_query(run: dict, message: str) -> None:
    with pytest.raises(RelevanceInputError) as error:
        evaluate(run, JUDGMENTS, METRICS)
    assert str(error.value) == f"the run: {message}"


def test_good_runs_still_score_as_before() -> None:
    scored = evaluate({"q1": {"d2": 3, "d1": 2.5}}, JUDGMENTS, METRICS)
    ranked = evaluate({"q1": ["d2", "d1"]}, JUDGMENTS, METRICS)
    assert scored.per_query == ranked.per_query
    assert scored.per_query["q1"]["mrr"] == 1.0
    assert scored.per_query["q2"]["mrr"] == 0.0  # judged, absent from the run


@pytest.mark.parametrize(
    ("run", "message"),
    [
        (
            {"q1": {"d1", None}},
            "query 'q1': document id None is not a string; doc ids are strings, as in the judgments",
        ),
        ({2: {"d1"}}, "query 2: query ids are strings, got int"),
    ],
)
def test_bad_set_answers_are_one_message(run: dict, message: str) -> None:
    with pytest.raises(RelevanceInputError) as error:
        evaluate_sets(run, JUDGMENTS)
    assert str(error.value) == f"the run: {message}"


def test_a_none_score_fails_the_test_with_one_line(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", judgments="queries:\n  - {id: q1, text: usb, grades: {d1: 2}}\n")
    pytester.makeini("[pytest]\nrelevance_judgments = judgments.yaml\n")
    pytester.makepyfile(
        test_run="def test_scores(relevance_snapshot):\n    assert relevance_snapshot == {'q1': {'d1': None}}\n"
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*relevance: the run: query 'q1': document 'd1' has score None; scores are finite*"])
    assert "Traceback" not in result.stdout.str()
    assert "TypeError" not in result.stdout.str()
