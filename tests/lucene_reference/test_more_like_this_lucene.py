"""more_like_this against real Lucene 9.9.1's MoreLikeThis (tests/lucene_extra/more_like_this.py,
z_more_like_this.json.gz), where Elasticsearch 8's fork selects the same terms: one field, Cranfield bodies (the two
documents without a body left out, so the field's docCount is the reader's numDocs), like texts and liked documents
by `_id`, the frequency, length and stop-word filters, `boost_terms`, `unlike`, `include`, `minimum_should_match`.
Scores must be Lucene's float32 bits, in Lucene's order. The multi-field choices (a like text's term on the field
where it is most frequent; liked documents chosen per field) are Elasticsearch's own and are checked by hand.
"""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_lucene_bm25 import CRANFIELD, cranfield_docs

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.errors import RelevanceInputError

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "lucene_extra" / "z_more_like_this.json.gz"
RUNS = json.loads(gzip.decompress(REFERENCE.read_bytes()))

pytestmark = pytest.mark.skipif(not (CRANFIELD / "cran.all.1400").is_file(), reason="../shared/data/cranfield absent")


@pytest.fixture(scope="module")
def bodies() -> EmbeddedIndex:
    mapping = {"mappings": {"properties": {"body": {"type": "text", "analyzer": "english"}}}}
    docs = [{"id": d["id"], "body": d["body"]} for d in cranfield_docs() if d["body"]]
    return EmbeddedEngine().open(docs, mapping, "id")


@pytest.mark.parametrize("shape", sorted(RUNS["shapes"]))
def test_more_like_this_scores_as_lucenes(bodies: EmbeddedIndex, shape: str) -> None:
    spec = RUNS["shapes"][shape]
    queries = {}
    for i, case in enumerate(spec["cases"]):
        options: dict[str, Any] = {"fields": ["body"], "like": case["like"], **spec["options"]}
        if "unlike" in case:
            options["unlike"] = case["unlike"]
        queries[str(i)] = {"query": {"more_like_this": options}}
    ours = bodies.search_many(queries, bodies.n, shape)
    compared = 0
    for qid, case in zip(queries, spec["cases"], strict=True):
        score_of = dict(ours[qid])
        rank_of = {doc: rank for rank, (doc, _) in enumerate(ours[qid])}
        for doc, lucene in case["hits"]:
            assert doc in score_of, f"case {qid} ({case['lucene'][:300]}): document {doc} missing"
            assert np.float32(score_of[doc]) == np.float32(lucene), f"case {qid} ({case['lucene'][:300]}), {doc}"
            compared += 1
        hits = case["hits"]
        for (a, sa), (b, sb) in itertools.pairwise(hits):
            if sa != sb:
                assert rank_of[a] < rank_of[b], f"case {qid}: order"
        if hits:
            assert {d for d, s in ours[qid] if s > hits[-1][1]} <= {d for d, _ in hits}, f"case {qid}: extra"
    assert compared > 50


# Elasticsearch's own choices, checked by hand on a small corpus: the expected queries are written out as the
# BooleanQuery of term clauses XMoreLikeThis builds (compared with the engine's term queries, themselves checked
# against Lucene elsewhere).
SMALL = [
    {"id": "1", "title": "shock wave wave", "body": "shock shock wave tunnel", "n": 1, "t": "flows"},
    {"id": "2", "title": "wave drag", "body": "wave wave drag", "n": 2, "t": "flows flow"},
    {"id": "3", "title": "tunnel", "body": "tunnel shock", "n": 3},
    {"id": "4", "title": "shock", "body": "drag", "n": 4},
]
LOOSE = {"min_term_freq": 1, "min_doc_freq": 1, "minimum_should_match": 1}


@pytest.fixture(scope="module")
def small() -> EmbeddedIndex:
    mapping = {"mappings": {"properties": {"title": {"type": "text", "analyzer": "standard"},
                                           "body": {"type": "text", "analyzer": "standard"},
                                           "n": {"type": "integer"},
                                           "t": {"type": "text", "analyzer": "standard",
                                                 "search_analyzer": "english"}}}}  # fmt: skip
    return EmbeddedEngine().open(SMALL, mapping, "id")


def _terms(*pairs: tuple[str, str]) -> dict[str, Any]:
    return {"bool": {"should": [{"term": {field: value}} for field, value in pairs]}}


@pytest.mark.parametrize(
    ("mlt", "expected"),
    [
        # a like text's term goes to the field where it is most frequent, the first field on a tie
        ({"fields": ["title", "body"], "like": "tunnel drag shock", **LOOSE},
         _terms(("title", "shock"), ("body", "tunnel"), ("body", "drag"))),
        ({"fields": ["body", "title"], "like": "shock wave wave", **LOOSE},
         _terms(("body", "shock"), ("body", "wave"))),
        # a like text is analyzed with the first field's index analyzer, not its search analyzer
        ({"fields": ["t"], "like": "flows", **LOOSE}, _terms(("t", "flows"))),
        # a liked document's terms are chosen per field: max_query_terms 1 keeps one term in each field
        ({"fields": ["title", "body"], "like": [{"_id": "1"}], "max_query_terms": 1, "include": True, **LOOSE},
         _terms(("title", "wave"), ("body", "shock"))),
        # an artificial document is analyzed as indexing would, and is not excluded
        ({"fields": ["body"], "like": [{"doc": {"body": "drag drag tunnel"}}], "max_query_terms": 1, **LOOSE},
         _terms(("body", "drag"))),
        # unlike removes the terms of its documents (per field) and texts (first field)
        ({"fields": ["body"], "like": "shock wave tunnel", "unlike": [{"_id": "3"}], **LOOSE},
         _terms(("body", "wave"))),
        ({"fields": ["title", "body"], "like": "shock wave", "unlike": "wave", **LOOSE}, _terms(("title", "shock"))),
    ],
)  # fmt: skip
def test_more_like_this_chooses_terms_as_elasticsearch(
    small: EmbeddedIndex, mlt: dict[str, Any], expected: Any
) -> None:
    ours = small.search_many({"q": {"query": {"more_like_this": mlt}}}, 10, "mlt")["q"]
    assert ours == small.search_many({"q": {"query": expected}}, 10, "expected")["q"]


def test_more_like_this_excludes_the_liked_documents(small: EmbeddedIndex) -> None:
    like = {"fields": ["body"], "like": [{"_id": "1"}, {"_id": "404"}], **LOOSE}
    bodies = {"excluded": {"query": {"more_like_this": like}},
              "included": {"query": {"more_like_this": {**like, "include": True}}},
              "missing": {"query": {"more_like_this": {**like, "like": [{"_id": "404"}]}}}}  # fmt: skip
    found = small.search_many(bodies, 10, "mlt")
    assert "1" not in dict(found["excluded"]) and "1" in dict(found["included"])
    assert {d for d, _ in found["included"]} - {"1"} == {d for d, _ in found["excluded"]}
    assert found["missing"] == []


@pytest.mark.parametrize(
    ("mlt", "message"),
    [
        ({"fields": ["title"]}, "more_like_this requires 'like' to be specified"),
        ({"fields": ["title"], "like": []}, "more_like_this requires 'like' to be specified"),
        ({"fields": [], "like": "x"}, "more_like_this requires 'fields' to be non-empty"),
        ({"like": "x"}, r"cannot infer the field to analyze the free text"),
        ({"fields": ["title"], "like": [{"_id": "1", "_type": "_doc"}]}, r"unknown field \[_type\]"),
        ({"fields": ["title"], "like": [["x"]]}, "should either be a string or an object"),
        ({"fields": ["n"], "like": "x"}, r"more_like_this only supports text/keyword fields: \[n\]"),
        ({"fields": ["title"], "like": "x", "like_text": "y"}, r"\[more_like_this\] query does not support"),
        ({"fields": ["title"], "like": [{"_id": "1", "doc": {}}]}, "either _id or doc"),
        ({"fields": ["title"], "like": "x", "min_term_freq": "often"}, "not a whole number"),
    ],
)
def test_more_like_this_refuses_as_elasticsearch(small: EmbeddedIndex, mlt: dict[str, Any], message: str) -> None:
    with pytest.raises(RelevanceInputError, match=message):
        small.search_many({"q": {"query": {"more_like_this": mlt}}}, 10, "refusal")


def test_more_like_this_drops_unsupported_fields_when_asked(small: EmbeddedIndex) -> None:
    mlt = {"fields": ["n", "body"], "like": "drag", "fail_on_unsupported_field": False, **LOOSE}
    ours = small.search_many({"q": {"query": {"more_like_this": mlt}}}, 10, "mlt")["q"]
    assert ours == small.search_many({"q": {"query": {"term": {"body": "drag"}}}}, 10, "term")["q"]
