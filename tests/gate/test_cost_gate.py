"""The cost gate without pytest: which rows exceed their rule, which queries rose most and the clause that did it,
and the checks of an entry's record (derived from its own per-query counts)."""

from __future__ import annotations

from typing import Any

from pytest_relevance.evaluation.cost import CostLimit, QueryCost
from pytest_relevance.gate.cost import check_cost, cost_record, inconsistency, quoted

GROUPS = {"all": ["q1", "q2", "q3"], "head": ["q1", "q2"], "tail": ["q3"]}
TEXTS = {"q1": "red apple", "q2": "pear", "q3": "banana bread"}
TEMPLATE: dict[str, Any] = {
    "query": {
        "bool": {
            "should": [
                {"multi_match": {"query": "{{query}}", "fields": ["title^3", "body"]}},
                {"match": {"body": {"query": "{{query}}", "fuzziness": 2}}},
            ]
        }
    }
}
MULTI = "query.bool.should[0].multi_match"
FUZZY = "query.bool.should[1].match"


def _cost(scored: int, clauses: dict[str, int]) -> QueryCost:
    return QueryCost(
        {"docs_matched": scored, "docs_scored": scored, "postings_read": scored},
        {path: {"docs_scored": n} for path, n in clauses.items()},
    )


BEFORE = {"q1": _cost(10, {MULTI: 10}), "q2": _cost(20, {MULTI: 20}), "q3": _cost(40, {MULTI: 40})}
AFTER = {
    "q1": _cost(12, {MULTI: 10, FUZZY: 2}),
    "q2": _cost(80, {MULTI: 20, FUZZY: 60}),
    "q3": _cost(45, {MULTI: 40, FUZZY: 5}),
}
LIMITS = (CostLimit("docs_scored", 1.5, "p95"),)


def test_a_rule_compares_each_stratums_statistic_with_the_baselines() -> None:
    recorded = cost_record(BEFORE, GROUPS, LIMITS, TEMPLATE)
    checked = check_cost(LIMITS, AFTER, recorded, GROUPS, TEXTS, TEMPLATE)
    rows = {row["stratum"]: (row["baseline"], row["current"], row["exceeded"]) for row in checked.rows}
    # p95 nearest rank: all 40 -> 80 (2x), head 20 -> 80 (4x), tail 40 -> 45 (1.125x)
    assert rows == {"all": (40, 80, True), "head": (20, 80, True), "tail": (40, 45, False)}
    assert [row["stratum"] for row in checked.exceeded] == ["all", "head"]


def test_the_risers_name_the_clause_whose_count_rose_even_where_another_does_more_work() -> None:
    recorded = cost_record(BEFORE, GROUPS, LIMITS, TEMPLATE)
    checked = check_cost(LIMITS, AFTER, recorded, GROUPS, TEXTS, TEMPLATE)
    first, *rest = checked.risers
    assert (first["query"], first["baseline"], first["current"]) == ("q2", 20, 80)
    assert first["clause"] == 'match {"body":{"fuzziness":2,"query":"{{query}}"}}'
    assert (first["clause_baseline"], first["clause_current"]) == (0, 60)
    # q3: the multi_match does 40 of 45 today, but the 5 that are new are the fuzzy clause's
    q3 = next(riser for riser in rest if riser["query"] == "q3")
    assert q3["clause"].startswith("match ") and (q3["clause_baseline"], q3["clause_current"]) == (0, 5)


def test_a_clause_keeps_its_key_when_the_template_wraps_it() -> None:
    plain = {"query": {"multi_match": {"query": "{{query}}", "fields": ["title^3", "body"]}}}
    assert quoted(plain, "query.multi_match") == quoted(TEMPLATE, MULTI)
    assert quoted(TEMPLATE, "query.bool.should[7].match") is None
    assert quoted(None, MULTI) is None


def test_without_counts_per_clause_the_largest_today_is_named() -> None:
    recorded = cost_record(BEFORE, GROUPS)  # no rule: no counts per clause
    assert "clauses" not in recorded
    (riser, *_) = check_cost(LIMITS, AFTER, recorded, GROUPS, TEXTS, TEMPLATE).risers
    assert riser["clause"] == 'match {"body":{"fuzziness":2,"query":"{{query}}"}}'
    assert riser["clause_baseline"] is None and riser["clause_current"] == 60


def test_a_zero_baseline_allows_no_rise_and_an_unchanged_cost_passes() -> None:
    nothing = {q: _cost(0, {}) for q in BEFORE}
    rows = check_cost(LIMITS, BEFORE, cost_record(nothing, GROUPS), GROUPS, TEXTS).rows
    assert all(row["exceeded"] and row["ratio"] is None for row in rows)
    same = check_cost(LIMITS, BEFORE, cost_record(BEFORE, GROUPS), GROUPS, TEXTS)
    assert not same.exceeded and not same.risers


def test_a_run_without_counts_is_said_and_gates_nothing() -> None:
    checked = check_cost(LIMITS, None, cost_record(BEFORE, GROUPS), GROUPS, TEXTS)
    assert checked.rows == () and "no cost counters" in (checked.note or "")


def test_an_edited_record_is_refused_by_what_its_own_counts_give() -> None:
    recorded = cost_record(BEFORE, GROUPS)
    assert inconsistency(recorded, GROUPS) is None
    edited = {**recorded, "strata": {**recorded["strata"], "all": {"docs_scored": {"median": 1, "p95": 1}}}}
    assert "not the median and p95 of its per-query counts" in (inconsistency(edited, GROUPS) or "")
    assert "no per-query counts" in (inconsistency({"strata": {}}, GROUPS) or "")
    bad = {**recorded, "queries": {**recorded["queries"], "q1": {"docs_scored": -3}}}
    assert "query 'q1'" in (inconsistency(bad, GROUPS) or "")
