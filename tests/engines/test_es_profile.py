"""Counts from Elasticsearch's search profile: summed over the leaves of every shard, per clause by the profile's
own names, with hits.total as the documents matched; checked on a response shaped as Elasticsearch 8 writes it
(two shards, a BooleanQuery with two TermQuery children) and counted by hand."""

from __future__ import annotations

from typing import Any

from pytest_relevance.engines.elasticsearch.profile import counted


def _term(field: str, term: str, scored: int, next_doc: int, advance: int) -> dict[str, Any]:
    return {
        "type": "TermQuery",
        "description": f"{field}:{term}",
        "time_in_nanos": 1000,
        "breakdown": {"score_count": scored, "next_doc_count": next_doc, "advance_count": advance, "match_count": 0},
    }


def _shard(red: tuple[int, int, int], shoe: tuple[int, int, int]) -> dict[str, Any]:
    root = {
        "type": "BooleanQuery",
        "description": "title:red title:shoe",
        "time_in_nanos": 250_000,
        "breakdown": {"score_count": 9, "next_doc_count": 9, "advance_count": 0},
        "children": [_term("title", "red", *red), _term("title", "shoe", *shoe)],
    }
    return {"id": "[n][i][0]", "searches": [{"query": [root], "rewrite_time": 0, "collector": []}]}


ANSWER = {
    "hits": {"total": {"value": 14, "relation": "eq"}, "hits": []},
    "profile": {"shards": [_shard((3, 3, 1), (5, 6, 0)), _shard((2, 2, 0), (4, 4, 2))]},
}


def test_leaves_are_summed_over_shards_and_named_as_the_profile_names_them() -> None:
    counters, clauses, seconds = counted(ANSWER)
    # scored: 3 + 5 + 2 + 4; read: (3 + 1) + 6 + 2 + (4 + 2); the BooleanQuery's own counts are its leaves' again
    assert counters == {"docs_matched": 14, "docs_scored": 14, "postings_read": 18}
    assert clauses == {
        "TermQuery title:red": {"docs_scored": 5, "postings_read": 6},
        "TermQuery title:shoe": {"docs_scored": 9, "postings_read": 12},
    }
    assert seconds == 500_000 / 1e9  # the roots' time, both shards


def test_a_response_without_a_profile_counts_its_total_alone() -> None:
    counters, clauses, seconds = counted({"hits": {"total": 3, "hits": []}})
    assert (counters, clauses, seconds) == ({"docs_matched": 3, "docs_scored": 0, "postings_read": 0}, {}, 0.0)
