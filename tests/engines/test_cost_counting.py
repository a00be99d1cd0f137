"""The embedded engine's cost counters, counted by hand on a five-document index: what each counter counts, which
clause each count goes to, and that the counts describe the query rather than the run (identical on repeats, on
a loaded index, with the engine's caches warm or cold)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine
from pytest_relevance.inputs.corpus import CorpusFile

DOCS = [
    {"id": "d1", "title": "red apple", "body": "a red apple a day", "n": 1},
    {"id": "d2", "title": "green apple", "body": "green apples and pears", "n": 2},
    {"id": "d3", "title": "red pear", "body": "a ripe red pear", "n": 3},
    {"id": "d4", "title": "banana", "body": "yellow banana bread", "n": 4},
    {"id": "d5", "title": "apple pie", "body": "apple pie with cream", "n": 5},
]
CONFIG: dict[str, Any] = {
    "mappings": {"properties": {"title": {"type": "text"}, "body": {"type": "text"}, "n": {"type": "integer"}}}
}


@pytest.fixture(scope="module")
def index() -> Any:
    return EmbeddedEngine().open(DOCS, CONFIG, "id", "index.yaml")


def _counted(index: Any, query: dict[str, Any], **body: Any) -> Any:
    return index.profile({"q": {"query": query, **body}}, 10, "query.yaml", 1)["q"]


def test_a_term_clause_reads_its_postings_and_scores_each_of_them(index: Any) -> None:
    # "apple" is in the titles of d1, d2, d5 (document frequency 3)
    cost = _counted(index, {"match": {"title": "apple"}})
    assert cost.counters == {"docs_matched": 3, "docs_scored": 3, "postings_read": 3, "expansions": 0, "rescored": 0}
    assert cost.clauses == {"query.match": {"postings_read": 3, "docs_scored": 3}}


def test_each_term_of_a_disjunction_counts_its_own_postings(index: Any) -> None:
    # red: d1, d3 (2); apple: d1, d2, d5 (3); the union matches 4 documents
    cost = _counted(index, {"match": {"title": "red apple"}})
    assert (cost.counters["docs_matched"], cost.counters["docs_scored"], cost.counters["postings_read"]) == (4, 5, 5)


def test_a_filter_reads_postings_without_scoring_and_counts_go_to_the_innermost_clause(index: Any) -> None:
    query = {"bool": {"must": [{"match": {"body": "apple"}}], "filter": [{"match": {"title": "red"}}]}}
    cost = _counted(index, query)
    # body "apple": d1, d5 (apples is another term); title "red": d1, d3; both: d1
    assert cost.counters["docs_matched"] == 1
    assert cost.counters["postings_read"] == 4
    assert cost.clauses["query.bool.must[0].match"] == {"postings_read": 2, "docs_scored": 2}
    # Lucene builds a filter's weight without scores: its postings are read, nothing is scored
    assert cost.clauses["query.bool.filter[0].match"] == {"postings_read": 2}
    assert cost.counters["docs_scored"] == 2
    assert "query.bool" not in cost.clauses  # bool itself reads nothing
    inside = _counted(index, {"constant_score": {"filter": {"bool": {"should": [{"match": {"title": "red"}}]}}}})
    assert (inside.counters["postings_read"], inside.counters["docs_scored"]) == (2, 0)


def test_a_fuzzy_clause_counts_the_terms_it_expands_to_on_every_repeat(index: Any) -> None:
    # "aple" within 1 edit of the title terms: apple; within 2: apple, pear? no: a-p-l-e -> pear is 3 edits
    query = {"match": {"title": {"query": "aple", "fuzziness": 1}}}
    first = _counted(index, query)  # the expansion is computed here, and cached by the index
    again = _counted(index, query)  # and read from the cache here: the count is the query's, the same
    assert first.counters["expansions"] == again.counters["expansions"] == 1
    assert first.counters == again.counters


def test_a_prefix_clause_counts_its_expansions(index: Any) -> None:
    cost = _counted(index, {"prefix": {"body": "app"}})  # apple, apples
    assert cost.counters["expansions"] == 2
    assert cost.counters["postings_read"] == 3  # apple: d1, d5; apples: d2
    assert cost.counters["docs_scored"] == 0  # a prefix query is constant-score: no similarity runs


def test_a_rescore_counts_its_window_and_a_script_the_documents_it_scores(index: Any) -> None:
    rescore = {"window_size": 2, "query": {"rescore_query": {"match": {"body": "red"}}}}
    cost = _counted(index, {"match": {"title": "apple"}}, rescore=rescore)
    assert cost.counters["rescored"] == 2
    scripted = {"script_score": {"query": {"match": {"title": "apple"}}, "script": {"source": "doc['n'].value"}}}
    cost = _counted(index, scripted)
    assert cost.counters["docs_scored"] == 3 + 3  # the similarity's three, then the script's three
    assert cost.clauses["query.script_score"] == {"docs_scored": 3}


def test_counts_are_identical_over_ten_repeats_and_on_a_loaded_index(index: Any, tmp_path: Path) -> None:
    bodies = {
        "q1": {"query": {"multi_match": {"query": "red apple pie", "fields": ["title^3", "body"]}}},
        "q2": {"query": {"match": {"body": {"query": "banan bred", "fuzziness": "AUTO"}}}},
        "q3": {"query": {"bool": {"should": [{"prefix": {"title": "ap"}}, {"match": {"body": "cream"}}]}}},
    }
    first = index.profile(bodies, 10, "query.yaml", 10)
    assert all(len(cost.seconds) == 10 for cost in first.values())
    corpus = tmp_path / "corpus.ndjson"
    corpus.write_text("".join(json.dumps(doc) + "\n" for doc in DOCS))
    built = EmbeddedEngine(tmp_path / "cache").open(CorpusFile(corpus), CONFIG, "id", "index.yaml")
    loaded = EmbeddedEngine(tmp_path / "cache").open(CorpusFile(corpus), CONFIG, "id", "index.yaml")
    assert "built" in (built.cache_note or "") and "loaded" in (loaded.cache_note or "")
    for other in (built, loaded):
        again = other.profile(bodies, 10, "query.yaml", 1)
        assert {q: (c.counters, c.clauses) for q, c in again.items()} == {
            q: (c.counters, c.clauses) for q, c in first.items()
        }


def test_profile_does_not_change_what_search_ranks(index: Any) -> None:
    body = {"query": {"multi_match": {"query": "red apple pie", "fields": ["title^3", "body"]}}}
    before = index.search_many({"q": body}, 10, "query.yaml")
    index.profile({"q": body}, 10, "query.yaml", 2)
    assert index.search_many({"q": body}, 10, "query.yaml") == before
