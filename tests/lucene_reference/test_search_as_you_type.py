"""search_as_you_type against real Lucene 9.9.1: the subfields Elasticsearch 8 indexes and the queries it builds.

tests/lucene_extra/search_as_you_type.py indexed Cranfield's first 400 titles into two search_as_you_type fields as
SearchAsYouTypeFieldMapper does (`title`: standard, max_shingle_size 3; `stop4`: the stop analyzer, whose stop words
leave gaps, max_shingle_size 4): the root, `._2gram` .. `._4gram` (FixedShingleFilter, with norms) and
`._index_prefix` (trailing shingles and edge n-grams of 1 to 20 characters, without norms), and ran the Lucene
queries Elasticsearch builds for bool_prefix, match_phrase_prefix, match_phrase, match and prefix on them, keeping
every hit. The embedded engine must make the same tokens and find the same documents with the same float32
scores.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_lucene_bm25 import CRANFIELD, cranfield_docs

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.errors import RelevanceInputError

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "lucene_extra" / "w_search_as_you_type.json.gz"
RUNS = json.loads(gzip.decompress(REFERENCE.read_bytes()))
MAPPING = {"mappings": {"properties": {"title": {"type": "search_as_you_type"},
                                       "stop4": {"type": "search_as_you_type", "analyzer": "stop",
                                                 "max_shingle_size": 4}}}}  # fmt: skip

needs_cranfield = pytest.mark.skipif(
    not (CRANFIELD / "cran.all.1400").is_file(), reason="../shared/data/cranfield absent"
)


@pytest.fixture(scope="module")
def titles() -> dict[str, str]:
    by_id = {doc["id"]: doc["title"] for doc in cranfield_docs()}
    return {doc_id: by_id[doc_id] for doc_id in RUNS["ids"]}


@pytest.fixture(scope="module")
def sayt_index(titles: dict[str, str]) -> EmbeddedIndex:
    docs = [{"id": doc_id, "title": title, "stop4": title} for doc_id, title in titles.items()]
    return EmbeddedEngine().open(docs, MAPPING, "id")


@needs_cranfield
def test_subfields_make_lucenes_tokens(sayt_index: EmbeddedIndex, titles: dict[str, str]) -> None:
    texts = list(titles.values())
    for field, expected in RUNS["tokens"].items():
        analyzer = sayt_index.fields[field].analyzer
        assert analyzer is not None
        for text, lucene in zip(texts, expected, strict=False):
            ours = [[t.term, t.position] for t in analyzer.analyze(text)]
            assert ours == lucene, f"{field}: {text!r}"


@needs_cranfield
def test_queries_score_as_lucenes(sayt_index: EmbeddedIndex) -> None:
    cases = {str(i): case for i, case in enumerate(RUNS["cases"])}
    ours = sayt_index.search_many({qid: {"query": c["query"]} for qid, c in cases.items()}, sayt_index.n, "sayt")
    for qid, case in cases.items():
        expected = {doc: np.float32(score) for doc, score in case["hits"]}
        found = {doc: np.float32(score) for doc, score in ours[qid]}
        assert found == expected, f"{json.dumps(case['query'])} (Lucene: {case['lucene']})"
    assert sum(len(case["hits"]) for case in cases.values()) > 10_000  # the reference is not empty


@needs_cranfield
def test_query_string_bool_prefix_is_the_multi_match_of_each_part(sayt_index: EmbeddedIndex) -> None:
    """QueryStringQueryParser.getFieldQuery hands each unquoted part to MultiMatchQueryParser with the query's
    type: for bool_prefix, Lucene's scores of the multi_match bool_prefix of that text."""
    fields = ["title", "title._2gram", "title._3gram"]
    syntax = set('+-!():^[]"{}~*?|&/\\')
    cases = [
        c
        for c in RUNS["cases"]
        if c["query"].get("multi_match", {}).get("fields") == fields
        and not set(c["query"]["multi_match"]["query"]) & syntax
    ]
    bodies = {str(i): {"query": {"query_string": {**c["query"]["multi_match"]}}} for i, c in enumerate(cases)}
    ours = sayt_index.search_many(bodies, sayt_index.n, "query_string")
    for qid, case in zip(bodies, cases, strict=True):
        expected = {doc: np.float32(score) for doc, score in case["hits"]}
        assert {doc: np.float32(score) for doc, score in ours[qid]} == expected, case["query"]
    assert len(cases) > 20


DOCS = [
    {"id": "1", "t": "the quick brown fox"},
    {"id": "2", "t": "quick brown dogs jump"},
    {"id": "3", "t": "brown fox jumps over the lazy dog"},
    {"id": "4", "t": "supercalifragilisticexpialidocious words here"},
    {"id": "5", "u": "quick brownies"},
]


def small(properties: dict[str, Any]) -> EmbeddedIndex:
    return EmbeddedEngine().open(DOCS, {"mappings": {"properties": properties}}, "id")


def test_queries_elasticsearch_keeps_on_the_root_score_as_a_text_fields() -> None:
    """A match, a sloppy phrase, a phrase of one position and a phrase prefix of one word stay on the root field
    (SearchAsYouTypeFieldType only routes phrases of several positions without slop)."""
    sayt, text = small({"t": {"type": "search_as_you_type"}}), small({"t": {"type": "text"}})
    queries = {
        "match": {"match": {"t": "quick fox"}},
        "sloppy": {"match_phrase": {"t": {"query": "quick fox", "slop": 2}}},
        "one": {"match_phrase": {"t": "brown"}},
        "prefix_one": {"match_phrase_prefix": {"t": "bro"}},
        "prefix_sloppy": {"match_phrase_prefix": {"t": {"query": "quick fo", "slop": 1}}},
        "term": {"term": {"t": "quick"}},
    }
    bodies = {name: {"query": q} for name, q in queries.items()}
    assert sayt.search_many(bodies, 10, "sayt") == text.search_many(bodies, 10, "text")


def test_phrases_of_several_positions_go_to_the_shingle_fields() -> None:
    index = small({"t": {"type": "search_as_you_type"}})
    hits = index.search_many({
        "phrase": {"query": {"match_phrase": {"t": "quick brown"}}},  # a term of t._2gram
        "shingle_phrase": {"query": {"match_phrase": {"t._2gram": "the quick brown"}}},
        "prefix": {"query": {"match_phrase_prefix": {"t": "quick brown f"}}},  # t._index_prefix:"quick brown f"
        "span": {"query": {"match_phrase_prefix": {"t": "brown fox jumps o"}}},  # a span near on t._3gram
        "long": {"query": {"match_phrase_prefix": {"t": "supercalifragilisticexpialidocious wor"}}},  # > 20 chars
        "prefix_query": {"query": {"prefix": {"t": "quick brown f"}}},  # a term of t._index_prefix
        "long_prefix_query": {"query": {"prefix": {"t": "supercalifragilisticex"}}},  # stays on t
        "case": {"query": {"prefix": {"t._2gram": {"value": "QUICK B", "case_insensitive": True}}}},
        "nothing": {"query": {"match": {"t._3gram": "quick brown"}}},  # no 3-shingle in the query
    }, 10, "sayt")  # fmt: skip
    docs = {name: [doc for doc, _ in found] for name, found in hits.items()}
    assert docs == {"phrase": ["1", "2"], "shingle_phrase": ["1"], "prefix": ["1"], "span": ["3"], "long": ["4"],
                    "prefix_query": ["1"], "long_prefix_query": ["4"], "case": ["1", "2"], "nothing": []}  # fmt: skip


def test_copy_to_reaches_the_subfields() -> None:
    index = small({"u": {"type": "text", "copy_to": "t"}, "t": {"type": "search_as_you_type"}})
    hits = index.search_many({"q": {"query": {"match_phrase_prefix": {"t": "quick brownie"}}}}, 10, "copy_to")
    assert [doc for doc, _ in hits["q"]] == ["5"]


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ({"max_shingle_size": 5}, "[max_shingle_size] must be at least [2] and at most [4], got [5]"),
        ({"max_shingle_size": 1}, "[max_shingle_size] must be at least [2] and at most [4], got [1]"),
        ({"doc_values": True}, "Cannot set [doc_values] on field of type [search_as_you_type]"),
        ({"position_increment_gap": 10}, "unknown parameter [position_increment_gap] on mapper [t] of type"),
        ({"fields": {"_2gram": {"type": "text"}}}, "Field [t._2gram] is defined more than once"),
        ({"fields": {"_index_prefix": {"type": "keyword"}}}, "Field [t._index_prefix] is defined more than once"),
    ],
)
def test_mappings_elasticsearch_refuses(spec: dict[str, Any], problem: str) -> None:
    with pytest.raises(RelevanceInputError) as error:
        small({"t": {"type": "search_as_you_type", **spec}})
    assert problem in str(error.value) and "mappings.properties.t" in str(error.value)


def test_a_field_named_as_a_subfield_is_refused() -> None:
    with pytest.raises(RelevanceInputError, match=r"makes the subfield 't\._3gram' itself"):
        small({"t": {"type": "search_as_you_type"}, "t._3gram": {"type": "keyword"}})
    assert "t._4gram" in small({"t": {"type": "search_as_you_type", "fields": {"_4gram": {"type": "text"}}}}).fields


def test_an_analyzer_that_stacks_tokens_is_refused() -> None:
    synonyms = {"syn": {"type": "synonym", "synonyms": ["quick, fast"]}}
    analyzer = {"syn": {"tokenizer": "standard", "filter": ["lowercase", "syn"]}}
    field = {"type": "search_as_you_type", "analyzer": "syn"}
    config = {
        "settings": {"analysis": {"filter": synonyms, "analyzer": analyzer}},
        "mappings": {"properties": {"t": field}},
    }
    with pytest.raises(RelevanceInputError, match="stacks tokens at one position"):
        EmbeddedEngine().open(DOCS, config, "id")


def test_the_indexing_path_makes_the_tokens_of_the_token_path() -> None:
    """The shingle and edge n-gram filters' list forms (batched indexing) give the terms and positions `_analyze`
    gives, stop-word gaps and the trailing shingles included."""
    index = small({"t": {"type": "search_as_you_type", "analyzer": "stop", "max_shingle_size": 4}})
    texts = ["the quick brown fox of the", "a", "", "of flow of heat", "supercalifragilisticexpialidocious a words"]
    for name in ("t._2gram", "t._4gram", "t._index_prefix"):
        analyzer = index.fields[name].analyzer
        assert analyzer is not None and analyzer.index_plan is not None
        for text in texts:
            terms, positions = analyzer.term_lists(text)
            assert list(zip(terms, positions, strict=True)) == [(t.term, t.position) for t in analyzer.analyze(text)]
