"""combined_fields against real Lucene 9.9.1's CombinedFieldQuery (BM25F), and Elasticsearch's refusals.

tests/lucene_extra/combined_fields.py indexed Cranfield's title and body with the english and the standard analyzer,
built each query as Elasticsearch's CombinedFieldsQueryBuilder does (one CombinedFieldQuery per position, the
field weights, operator, minimum_should_match, the query boost, stacked synonyms) and kept the top 20 with scores in
Elasticsearch's scale. The embedded engine must give every one of those documents Lucene's float32 score, bit for
bit, in Lucene's order.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_lucene_bm25 import CRANFIELD, assert_equals_lucene, cranfield_docs

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.errors import RelevanceInputError

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "lucene_extra" / "w_combined_fields.json.gz"
RUNS = json.loads(gzip.decompress(REFERENCE.read_bytes()))

pytestmark = pytest.mark.skipif(not (CRANFIELD / "cran.all.1400").is_file(), reason="../shared/data/cranfield absent")


def _text(analyzer: str, search: str | None = None) -> dict[str, Any]:
    spec = {"type": "text", "analyzer": analyzer}
    return {**spec, "search_analyzer": search} if search else spec


@pytest.fixture(scope="module")
def cranfield_index() -> EmbeddedIndex:
    docs = [{**d, "title_std": d["title"], "body_std": d["body"]} for d in cranfield_docs()]
    synonyms = [f"{word}, {other}" for word, other in RUNS["synonyms"]["pairs"].items()]
    settings = {"analysis": {
        "filter": {"pairs": {"type": "synonym", "synonyms": synonyms},
                   "graph": {"type": "synonym_graph", "synonyms": [RUNS["graph"]["rule"]]},
                   "stops": {"type": "stop", "stopwords": "_english_"},
                   "possessive": {"type": "stemmer", "language": "possessive_english"}},
        "analyzer": {"english_pairs": {"tokenizer": "standard", "filter": [
            "possessive", "lowercase", "stops", "porter_stem", "pairs"]},
                     "english_graph": {"tokenizer": "standard", "filter": [
            "possessive", "lowercase", "stops", "porter_stem", "graph"]}},
    }}  # fmt: skip
    properties = {"title": _text("english"), "body": _text("english"), "title_std": _text("standard"),
                  "body_std": _text("standard"), "title_syn": _text("english", "english_pairs"),
                  "body_syn": _text("english", "english_pairs"), "title_graph": _text("english", "english_graph"),
                  "body_graph": _text("english", "english_graph"), "tag": {"type": "keyword"}}  # fmt: skip
    docs = [{**d, "title_syn": d["title"], "body_syn": d["body"], "title_graph": d["title"], "body_graph": d["body"],
             "tag": "x"} for d in docs]  # fmt: skip
    return EmbeddedEngine().open(docs, {"settings": settings, "mappings": {"properties": properties}}, "id")


def _body(variant: str, text: str) -> dict[str, Any]:
    spec = RUNS[variant]
    fields = spec["fields"]
    if variant == "synonyms" or variant.startswith("graph"):
        suffix = "_syn^" if variant == "synonyms" else "_graph^"
        fields = [f.replace("^", suffix, 1) for f in fields]
    options: dict[str, Any] = {"query": text, "fields": fields}
    if spec.get("phrases") is False:
        options["auto_generate_synonyms_phrase_query"] = False
    if spec["and"]:
        options["operator"] = "and"
    if spec["msm"] is not None:
        options["minimum_should_match"] = spec["msm"]
    if spec["boost"] != 1.0:
        options["boost"] = spec["boost"]
    return {"query": {"combined_fields": options}}


@pytest.mark.parametrize("variant", sorted(RUNS))
def test_combined_fields_scores_as_lucenes_combined_field_query(cranfield_index: EmbeddedIndex, variant: str) -> None:
    cases = {str(i): case for i, case in enumerate(RUNS[variant]["cases"])}
    bodies = {qid: _body(variant, case["text"]) for qid, case in cases.items()}
    ours = cranfield_index.search_many(bodies, cranfield_index.n, f"{variant} combined_fields")
    for qid, case in cases.items():
        expected = [(doc, score) for doc, score in case["hits"]]
        try:
            assert_equals_lucene(expected, ours, qid)
        except AssertionError as error:
            raise AssertionError(f"{case['text']!r} (Lucene: {case['lucene']}): {error}") from None
    assert sum(len(case["hits"]) for case in cases.values()) > 50  # the reference is not empty


def test_combined_fields_explains_the_hit_score(cranfield_index: EmbeddedIndex) -> None:
    body = _body("english_title3", "supersonic flow over a flat plate")
    hits = cranfield_index.search_many({"q": body}, 5, "explain")["q"]
    trees = cranfield_index.explain(body, [doc for doc, _ in hits], 5, "explain", "q")
    for doc, score in hits:
        root = trees[doc]
        assert root.value == pytest.approx(score, rel=0, abs=0)
        assert root.kind == "sum" and all(child.kind == "bm25" for child in root.children)
        assert root.children[0].details["field"] == "body+title"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"fields": ["title^0.5", "body"]}, r"requires field boosts to be >= 1.0"),
        ({"fields": ["title", "body_std"]}, r"must have the same search analyzer"),
        ({"fields": ["title", "tag"]}, r"Field \[tag\] of type \[keyword\] does not support \[combined_fields\]"),
        ({"fields": ["title*"]}, r"must have the same search analyzer"),
        ({"fields": []}, r"at least one field must be provided"),
        ({"fields": ["title^"]}, r"the boost after \^ is not a number"),
        ({"fields": ["title"], "zero_terms_query": "some"}, r"Unsupported \[zero_terms_query\] value \[some\]"),
        # its ConstructingObjectParser's refusal of a key it does not declare
        ({"fields": ["title"], "slop": 1}, r"\[combined_fields\] unknown field \[slop\]"),
    ],
)
def test_combined_fields_refuses_as_elasticsearch(
    cranfield_index: EmbeddedIndex, options: dict[str, Any], message: str
) -> None:
    body = {"query": {"combined_fields": {"query": "heat transfer", **options}}}
    with pytest.raises(RelevanceInputError, match=message):
        cranfield_index.search_many({"q": body}, 10, "refusal")


def test_combined_fields_zero_terms_and_unmapped_fields(cranfield_index: EmbeddedIndex) -> None:
    def hits(**options: Any) -> list[tuple[str, float]]:
        body = {"query": {"combined_fields": options}}
        return cranfield_index.search_many({"q": body}, 2000, "zero terms")["q"]

    assert hits(query="the a", fields=["title", "body"]) == []
    every = hits(query="the a", fields=["title", "body"], zero_terms_query="all", boost=2)
    assert len(every) == cranfield_index.n and {s for _, s in every} == {2.0}
    assert hits(query="heat", fields=["nope", "other*"]) == []
    assert hits(query="heat", fields=["nope", "title"]) == hits(query="heat", fields=["title"])


def test_combined_fields_multiplies_the_boosts_of_a_field_named_twice(cranfield_index: EmbeddedIndex) -> None:
    # title^2 and the pattern ti*le^1.5 (title alone; `?` is no wildcard in Elasticsearch's simpleMatch, so titl?
    # names no field) make title^3, Lucene's english_title3 reference
    def hits(fields: list[str]) -> list[tuple[str, float]]:
        body = {"query": {"combined_fields": {"query": "supersonic flow over a flat plate", "fields": fields}}}
        return cranfield_index.search_many({"q": body}, 20, "patterns")["q"]

    expected = [(d, s) for d, s in RUNS["english_title3"]["cases"][2]["hits"]]
    assert RUNS["english_title3"]["cases"][2]["text"] == "supersonic flow over a flat plate"
    assert [(d, np.float32(s)) for d, s in hits(["title^2", "ti*le^1.5", "titl?^9", "body"])] == [
        (d, np.float32(s)) for d, s in expected
    ]
