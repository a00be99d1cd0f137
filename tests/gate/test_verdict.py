"""The gate's decision table, without pytest in the way: `gate.decide` from (entry or none, evaluation, settings,
check or update) to a verdict. The pytester tests in test_plugin.py and test_update_safety.py cover the same cases
through a real session; these pin the rules themselves."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from report_model import default_settings

from pytest_relevance.config.settings import Tolerance
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation.evaluation import evaluate
from pytest_relevance.gate.entry import make_entry
from pytest_relevance.gate.verdict import STATUSES, decide
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import parse_metrics

METRICS = "ndcg@10 mrr@10"
# 12 queries in two strata, each with one relevant document `rN`: ranked first, the values are all 1
JUDGMENTS = Judgments(
    tuple(Query(f"q{i}", f"text {i}", "head" if i < 6 else "tail", {}, {f"r{i}": 1}) for i in range(12)),
    "v1",
    "judgments.yaml",
)
GOOD = {f"q{i}": [f"r{i}", f"x{i}"] for i in range(12)}
WORSE = {**GOOD, **{f"q{i}": [f"x{i}", f"r{i}"] for i in range(6, 12)}}  # the tail's relevant documents fall to 2
ONE_WORSE = {**GOOD, "q11": ["x11", "r11"]}  # one tail query falls: beyond tolerance, but could be chance


def _evaluation(run: dict[str, list[str]], metrics: str = METRICS) -> Any:
    return evaluate(run, JUDGMENTS, parse_metrics(metrics))


def _entry(run: dict[str, list[str]] = GOOD, **edits: Any) -> dict[str, Any]:
    entry = make_entry(_evaluation(run), "v1", "custom", Tolerance(), "first")
    entry.update(edits)
    return entry


def _without_value(entry: dict[str, Any]) -> dict[str, Any]:
    del entry["strata"]["tail"]["mrr@10"]
    return entry


def _without_queries(entry: dict[str, Any]) -> dict[str, Any]:
    entry["queries"] = {}
    return entry


def _with_extra_metric(entry: dict[str, Any]) -> dict[str, Any]:
    entry["metrics"]["recall@100"] = {"name": "recall", "k": 100}
    return entry


Edit = Callable[[dict[str, Any]], dict[str, Any]] | None

CASES: list[tuple[str, Edit, dict[str, list[str]], dict[str, Any], dict[str, Any], str]] = [
    # (case, entry edit (None: no entry), run, settings, decide() keywords, status)
    ("no entry, check", None, GOOD, {}, {}, "no baseline"),
    ("no entry, update", None, GOOD, {}, {"update": True}, "updated"),
    ("same values, check", lambda e: e, GOOD, {}, {}, "passed"),
    ("same values, update", lambda e: e, GOOD, {}, {"update": True}, "unchanged"),
    ("other values, update", lambda e: e, WORSE, {}, {"update": True}, "updated"),
    ("judgments changed", lambda e: {**e, "judgments": "v0"}, GOOD, {}, {}, "cannot compare"),
    ("judgments changed, update", lambda e: {**e, "judgments": "v0"}, GOOD, {}, {"update": True}, "updated"),
    ("engine changed", lambda e: {**e, "engine": "elasticsearch 8.13.4"}, GOOD, {}, {}, "cannot compare"),
    ("engine version changed", lambda e: {**e, "engine": "custom 2"}, GOOD, {}, {}, "passed"),
    (
        "metric defined differently",
        lambda e: {**e, "metrics": {**e["metrics"], "ndcg@10": {"name": "ndcg", "k": 10, "gain": "exponential"}}},
        GOOD,
        {},
        {},
        "cannot compare",
    ),
    ("value missing, update", _without_value, GOOD, {}, {"update": True}, "updated"),
    ("regressed", lambda e: e, WORSE, {}, {}, "regressed"),
    ("regressed, significant", lambda e: e, WORSE, {"alpha": 0.05}, {}, "regressed"),
    ("drop, not significant", lambda e: e, ONE_WORSE, {"alpha": 0.05}, {}, "passed"),
    ("drop without alpha", lambda e: e, ONE_WORSE, {}, {}, "regressed"),
    ("churn beyond max", lambda e: e, {**GOOD, "q0": ["r0", "y0"]}, {"max_churn": 0.01}, {}, "regressed"),
    ("churn within max", lambda e: e, {**GOOD, "q0": ["r0", "y0"]}, {"max_churn": 0.5}, {}, "passed"),
    ("ungated metric, unused=warn", _with_extra_metric, GOOD, {}, {}, "passed"),
    ("ungated metric, unused=fail", _with_extra_metric, GOOD, {"unused": "fail"}, {}, "cannot compare"),
    (
        "ungated metric, unused=fail, narrowed",
        _with_extra_metric,
        GOOD,
        {"unused": "fail"},
        {"narrowed": True},
        "passed",
    ),
    ("ungated metric, unused=fail, update", _with_extra_metric, GOOD, {"unused": "fail"}, {"update": True}, "updated"),
]


@pytest.mark.parametrize(
    ("edit", "run", "settings", "keywords", "status"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_decision_table(
    edit: Edit, run: dict[str, list[str]], settings: dict[str, Any], keywords: dict[str, Any], status: str
) -> None:
    entry = None if edit is None else edit(copy.deepcopy(_entry()))
    verdict = decide(
        "t.py::test", entry, _evaluation(run), JUDGMENTS, "custom", default_settings(**settings), **keywords
    )
    assert verdict.status == status and status in STATUSES
    if keywords.get("update"):
        assert verdict.entry is not None
        assert (verdict.entry is entry) == (status == "unchanged")  # nothing changed: the old entry, its reason
    else:
        assert verdict.entry is None
    assert bool(verdict.problems) == (status == "cannot compare")


def test_a_metric_the_entry_lacks_cannot_be_compared() -> None:
    verdict = decide("t", _entry(), _evaluation(GOOD, "ndcg@10 mrr@10 p@1"), JUDGMENTS, "custom", default_settings())
    assert verdict.status == "cannot compare"
    assert verdict.problems == ["metric p@1 is not in the baseline; add it with --relevance-update"]


def test_an_update_without_a_comparable_entry_is_measured_against_itself() -> None:
    verdict = decide("t", None, _evaluation(WORSE), JUDGMENTS, "custom", default_settings(), update=True)
    assert verdict.against == "new entry" and {c.row.delta for c in verdict.rows} == {0}
    old = _entry(judgments="v0")
    verdict = decide("t", old, _evaluation(WORSE), JUDGMENTS, "custom", default_settings(), update=True)
    assert verdict.against == "not compared" and verdict.entry is not old
    verdict = decide("t", _entry(), _evaluation(WORSE), JUDGMENTS, "custom", default_settings(), update=True)
    assert verdict.against is None and any(c.status == "regression" for c in verdict.rows)


def test_a_hand_edited_entry_is_bad_input_on_a_check() -> None:
    with pytest.raises(RelevanceInputError, match=r"entry 't' has no strata\.tail\.mrr@10: the file was edited"):
        decide("t", _without_value(_entry()), _evaluation(GOOD), JUDGMENTS, "custom", default_settings())
    with pytest.raises(RelevanceInputError, match=r"has no per-query values for .*, which relevance_alpha tests"):
        decide("t", _without_queries(_entry()), _evaluation(GOOD), JUDGMENTS, "custom", default_settings(alpha=0.05))
    # without alpha the per-query values are not needed to gate: compared by the strata alone
    verdict = decide("t", _without_queries(_entry()), _evaluation(GOOD), JUDGMENTS, "custom", default_settings())
    assert verdict.status == "passed"


def test_notes_say_a_new_engine_version_and_a_metric_that_left_the_gate() -> None:
    verdict = decide(
        "t", _with_extra_metric(_entry(engine="custom 2")), _evaluation(GOOD), JUDGMENTS, "custom", default_settings()
    )
    assert verdict.engine_note is not None and verdict.engine_note.startswith("the engine version changed")
    assert verdict.notes[0] == verdict.engine_note
    assert verdict.notes[1].startswith("metric recall@100 in the baseline but not gated by this run")


@pytest.mark.parametrize(("scope", "p"), [("comparison", 1.0), ("test", 0.5)])
def test_a_drop_forgiven_by_alpha_is_marked_not_significant_with_its_p_value(scope: str, p: float) -> None:
    settings = default_settings(alpha=0.05, alpha_scope=scope)
    verdict = decide("t", _entry(), _evaluation(ONE_WORSE), JUDGMENTS, "custom", settings)
    forgiven = [c for c in verdict.rows if c.status == "not significant"]
    # one query of six changed: two-sided p = 2/2 for one sign; one-sided (a drop, over the test) 1/2
    assert forgiven and all(c.p == p for c in forgiven)
    # nothing regressed, so the movers are every query on the first metric
    assert verdict.movers["stratum"] == "all" and [m["query"] for m in verdict.movers["lost"]] == ["q11"]
