"""simple_query_string and query_string against real Lucene 9.9.1's SimpleQueryParser and classic QueryParser.

tests/lucene_extra/query_parsers.py parsed adversarial texts (operators, unbalanced quotes and parentheses, escapes,
wildcards, field groups, boosts, fuzzy, slop) on Cranfield's body field and kept the top 20 of each, or Lucene's
refusal, with scores in Elasticsearch's scale (its BM25 leaves boosted by the (k1 + 1) = 2.2 Elasticsearch's
similarity keeps). The embedded engine must find the same documents with the same scores, in Lucene's order, and
refuse what Lucene cannot parse.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.errors import RelevanceInputError
from tests.test_lucene_bm25 import CRANFIELD, assert_like_lucene, cranfield_docs

REFERENCE = Path(__file__).resolve().parent / "data" / "lucene_extra" / "v_query_parsers.json.gz"
RUNS = json.loads(gzip.decompress(REFERENCE.read_bytes()))
BUILD = {
    "simple": lambda text: {"simple_query_string": {"query": text, "fields": ["body"]}},
    "classic": lambda text: {"query_string": {"query": text, "default_field": "body"}},
}

pytestmark = pytest.mark.skipif(not (CRANFIELD / "cran.all.1400").is_file(), reason="../shared/data/cranfield absent")


@pytest.fixture(scope="module")
def cranfield_index() -> EmbeddedIndex:
    mapping = {"mappings": {"properties": {"title": {"type": "text", "analyzer": "english"},
                                           "body": {"type": "text", "analyzer": "english"}}}}  # fmt: skip
    return EmbeddedEngine().open(cranfield_docs(), mapping, "id")


@pytest.mark.parametrize("parser", sorted(RUNS))
def test_query_string_parsers_score_as_lucenes(cranfield_index: EmbeddedIndex, parser: str) -> None:
    cases = {str(i): case for i, case in enumerate(RUNS[parser]) if case["kind"] != "error"}
    bodies = {qid: {"query": BUILD[parser](case["text"])} for qid, case in cases.items()}
    ours = cranfield_index.search_many(bodies, cranfield_index.n, f"{parser} parser")
    for qid, case in cases.items():
        try:
            assert_like_lucene({qid: [(doc, score) for doc, score in case["hits"]]}, ours, [qid], 1.0)
        except AssertionError as error:
            raise AssertionError(f"{case['text']!r} (Lucene: {case['lucene']}): {error}") from None
    assert sum(len(case["hits"]) for case in cases.values()) > 500  # the reference is not empty


@pytest.mark.parametrize("case", [c for c in RUNS["classic"] if c["kind"] == "error"], ids=lambda c: c["text"])
def test_query_string_refuses_what_lucene_cannot_parse(cranfield_index: EmbeddedIndex, case: dict[str, Any]) -> None:
    body = {"query": BUILD["classic"](case["text"])}
    with pytest.raises(RelevanceInputError, match="cannot parse the query string"):
        cranfield_index.search_many({"q": body}, 10, "refusal")
