"""Multi-term rewrite methods (`rewrite`, `fuzzy_rewrite`) against real Lucene 9.9.1's MultiTermQuery rewrites.

tests/lucene_extra/rewrites.py ran prefix, wildcard, regexp and fuzzy queries, match with fuzziness and query_string
on Cranfield with each rewrite Elasticsearch's QueryParsers.parseRewriteMethod maps a name to (constant_score,
constant_score_boolean, scoring_boolean, top_terms_N, top_terms_boost_N, top_terms_blended_freqs_N, and the
query's default), keeping the top 20 with scores in Elasticsearch's scale. The embedded engine must give every one
of those documents Lucene's float32 score, bit for bit, in Lucene's order.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from test_lucene_bm25 import CRANFIELD, assert_equals_lucene, cranfield_index  # noqa: F401 - the fixture

from pytest_relevance.engines.embedded import EmbeddedIndex
from pytest_relevance.errors import RelevanceInputError

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "lucene_extra" / "x_rewrites.json.gz"
CASES = json.loads(gzip.decompress(REFERENCE.read_bytes()))

pytestmark = pytest.mark.skipif(not (CRANFIELD / "cran.all.1400").is_file(), reason="../shared/data/cranfield absent")


def test_rewrites_score_as_lucenes(cranfield_index: EmbeddedIndex) -> None:  # noqa: F811 - the fixture
    bodies = {str(i): {"query": case["query"]} for i, case in enumerate(CASES)}
    ours = cranfield_index.search_many(bodies, cranfield_index.n, "rewrites")
    for qid, case in zip(bodies, CASES, strict=True):
        expected = [(doc, score) for doc, score in case["hits"]]
        try:
            assert_equals_lucene(expected, ours, qid)
        except AssertionError as error:
            raise AssertionError(f"{json.dumps(case['query'])} (Lucene: {case['lucene'][:300]}): {error}") from None
    assert sum(len(case["hits"]) for case in CASES) > 500  # the reference is not empty


@pytest.mark.parametrize("name", ["scoring", "top_terms_", "top_terms_x", "top_terms_boost", "Constant_score"])
def test_an_unknown_rewrite_is_elasticsearchs_error(cranfield_index: EmbeddedIndex, name: str) -> None:  # noqa: F811
    for query in ({"wildcard": {"body": {"value": "aero*", "rewrite": name}}},
                  {"match": {"body": {"query": "aero", "fuzziness": 1, "fuzzy_rewrite": name}}},
                  {"query_string": {"query": "aero~1", "default_field": "body", "fuzzy_rewrite": name}}):  # fmt: skip
        with pytest.raises(RelevanceInputError, match=rf"Failed to parse rewrite_method \[{name}\]"):
            cranfield_index.search_many({"q": {"query": query}}, 10, "rewrite")
