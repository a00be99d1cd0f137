"""relevance_max_cost's rules, and the per-stratum summary of counts: nearest-rank percentiles checked against
numpy's `inverted_cdf` percentile (the same definition, computed independently) and by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_relevance.config.keys import SETTINGS
from pytest_relevance.config.settings import SettingError, read
from pytest_relevance.evaluation.cost import CostLimit, QueryCost, nearest_rank, parse_limits, summarise, wall_clock


def test_rules_parse_with_p95_as_the_default_statistic() -> None:
    assert parse_limits("docs_scored=1.5x p95") == (CostLimit("docs_scored", 1.5, "p95"),)
    assert parse_limits("docs_scored = 2x, postings_read=3x median\nexpansions=1x") == (
        CostLimit("docs_scored", 2.0, "p95"),
        CostLimit("postings_read", 3.0, "median"),
        CostLimit("expansions", 1.0, "p95"),
    )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("docs_scored", "is not COUNTER=FACTORx"),
        ("docs_scored=1.5", "is not COUNTER=FACTORx"),
        ("docs_score=1.5x", "no counter 'docs_score' (the counters: docs_matched, docs_scored"),
        ("docs_scored=1.5x p99", "'p99' is not median or p95"),
        ("docs_scored=0.5x", "the factor must be at least 1"),
        ("docs_scored=1.2.3x", "'1.2.3' is not a number"),
        ("docs_scored=2x, docs_scored=3x p95", "docs_scored p95 is limited twice"),
    ],
)
def test_a_bad_rule_is_one_message_naming_the_key(text: str, said: str) -> None:
    values = {key: default for key, (_, default) in SETTINGS.items()}
    values["relevance_max_cost"] = text
    with pytest.raises(SettingError) as caught:
        read(values.__getitem__)
    assert str(caught.value).startswith("relevance_max_cost: ") and said in str(caught.value)


def test_unset_means_nothing_is_counted() -> None:
    values = {key: default for key, (_, default) in SETTINGS.items()}
    assert read(values.__getitem__).max_cost == ()


def test_nearest_rank_by_hand() -> None:
    assert nearest_rank([5, 1, 3, 2, 4], 0.5) == 3
    assert nearest_rank([1, 2, 3, 4], 0.5) == 2  # the lower middle: a count some query had
    assert nearest_rank(list(range(1, 21)), 0.95) == 19
    assert nearest_rank(list(range(1, 101)), 0.95) == 95
    assert nearest_rank([7], 0.95) == 7
    assert nearest_rank([], 0.5) == 0


@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=300), st.sampled_from([0.5, 0.95]))
def test_nearest_rank_is_numpys_inverted_cdf_percentile(values: list[int], share: float) -> None:
    assert nearest_rank(values, share) == int(np.percentile(values, share * 100, method="inverted_cdf"))


def test_the_summary_is_per_stratum_and_leaves_out_queries_without_counts() -> None:
    per_query = {
        "q1": {"docs_scored": 10, "postings_read": 12},
        "q2": {"docs_scored": 30, "postings_read": 31},
        "q3": {"docs_scored": 20, "postings_read": 20},
    }
    groups = {"all": ["q1", "q2", "q3", "q4"], "head": ["q1"], "tail": ["q4"]}
    assert summarise(per_query, groups) == {
        "all": {"docs_scored": {"median": 20, "p95": 30}, "postings_read": {"median": 20, "p95": 31}},
        "head": {"docs_scored": {"median": 10, "p95": 10}, "postings_read": {"median": 12, "p95": 12}},
    }


def test_the_wall_clock_sums_each_querys_median_and_spans_the_repeats_totals() -> None:
    costs = {"a": QueryCost({}, {}, (0.003, 0.001, 0.002)), "b": QueryCost({}, {}, (0.010, 0.030, 0.020))}
    timed = wall_clock(costs)
    assert timed is not None
    assert timed["median"] == pytest.approx(0.002 + 0.020)
    assert (timed["low"], timed["high"]) == (pytest.approx(0.013), pytest.approx(0.031))
    assert (timed["repeats"], timed["queries"]) == (3, 2)
    assert wall_clock({"a": QueryCost({})}) is None
