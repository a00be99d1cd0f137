"""Span queries' input errors and small hand cases; their scores against Lucene are in test_lucene_bm25.py
(`test_span_queries_score_as_lucenes_spans`, tests/lucene_extra/spans.py)."""

from __future__ import annotations

import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.errors import RelevanceInputError

DOCS = [{"id": "1", "body": "a b c d e", "tag": "x"}, {"id": "2", "body": "c b a x x b"}, {"id": "3", "body": "a x b"}]
MAPPING = {"mappings": {"properties": {"body": {"type": "text"}, "tag": {"type": "keyword"}}}}


@pytest.fixture(scope="module")
def index() -> EmbeddedIndex:
    return EmbeddedEngine().open(DOCS, MAPPING, "id")


def term(word: str, field: str = "body") -> dict:
    return {"span_term": {field: word}}


def ids(index: EmbeddedIndex, query: dict) -> list[str]:
    return sorted(doc for doc, _ in index.search_many({"q": {"query": query}}, 10, "q.yaml")["q"])


def test_the_span_shapes_match_the_hand_derived_documents(index: EmbeddedIndex) -> None:
    a_b = [term("a"), term("b")]
    assert ids(index, {"span_near": {"clauses": a_b, "slop": 0}}) == ["1"]
    assert ids(index, {"span_near": {"clauses": a_b, "slop": 1}}) == ["1", "3"]
    assert ids(index, {"span_near": {"clauses": a_b, "slop": 0, "in_order": False}}) == ["1", "2"]
    assert ids(index, {"span_first": {"match": term("b"), "end": 2}}) == ["1", "2"]
    # b with no a within one position: only document 2's last b
    assert ids(index, {"span_not": {"include": term("b"), "exclude": term("a"), "dist": 1}}) == ["2", "3"]
    big = {"span_near": {"clauses": [term("a"), term("e")], "slop": 5}}
    assert ids(index, {"span_containing": {"big": big, "little": term("c")}}) == ["1"]
    assert ids(index, {"span_within": {"big": big, "little": term("d")}}) == ["1"]
    assert ids(index, {"span_or": {"clauses": [term("d"), term("x")]}}) == ["1", "2", "3"]
    assert ids(index, {"span_term": {"body": {"value": "e", "boost": 2}}}) == ["1"]


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ({"span_near": {"clauses": [term("a")]}}, "[span_near] must include [slop]"),
        ({"span_near": {"clauses": [term("a"), term("b", "title")], "slop": 1}}, "Clauses must have same field"),
        ({"span_or": {"clauses": [{"span_term": {"body": {"value": "a", "boost": 2}}}]}}, "can't have non-default"),
        ({"span_first": {"match": term("a")}}, "span_first must have [end] set for it"),
        ({"span_not": {"include": term("a"), "exclude": term("b"), "dist": 1, "pre": 2}}, "either use [dist]"),
        ({"span_containing": {"big": term("a")}}, "span_containing must include [little]"),
        ({"span_or": {"clauses": [{"match": {"body": "a"}}]}}, "[match] is not a span query"),
        ({"span_term": {"tag": "x"}}, "requires a field of type text"),
        ({"span_near": {"clauses": [term("a")], "slop": 1, "window": 3}}, "[span_near] query does not support"),
    ],
)
def test_span_queries_elasticsearch_refuses_are_errors(index: EmbeddedIndex, query: dict, problem: str) -> None:
    with pytest.raises(RelevanceInputError, match=None) as caught:
        ids(index, query)
    assert problem in str(caught.value)


def test_span_multi_is_the_span_or_of_the_expansions(index: EmbeddedIndex) -> None:
    expanded = {"span_multi": {"match": {"wildcard": {"body": "[ab]"}}}}
    assert ids(index, {"span_near": {"clauses": [{"span_multi": {"match": {"prefix": {"body": "c"}}}}, term("d")],
                                     "slop": 0}}) == ["1"]  # fmt: skip
    assert ids(index, expanded) == []  # wildcard brackets are literal
    assert ids(index, {"span_multi": {"match": {"regexp": {"body": "[ab]"}}}}) == ["1", "2", "3"]


@pytest.mark.parametrize(
    "query",
    [
        {"span_multi": {"match": {"fuzzy": {"body": "a"}}}},
        {"span_multi": {"match": {"prefix": {"body": {"value": "a", "boost": 2}}}}},
        {"span_near": {"clauses": [term("a"), {"span_gap": {"body": 1}}], "slop": 1}},
    ],
)
def test_what_stays_with_the_elasticsearch_engine(index: EmbeddedIndex, query: dict) -> None:
    with pytest.raises(RelevanceInputError, match="elasticsearch engine"):
        ids(index, query)


def test_a_span_query_explains_its_score(index: EmbeddedIndex) -> None:
    body = {"query": {"span_near": {"clauses": [term("a"), term("b")], "slop": 1}}}
    score = dict(index.search_many({"q": body}, 10, "q.yaml")["q"])["3"]
    tree = index.explain(body, ["3"], 10, "q.yaml", "q")["3"]
    assert tree.value == pytest.approx(score)
