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

import numpy as np
import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from tests.test_lucene_bm25 import CRANFIELD, cranfield_docs

REFERENCE = Path(__file__).resolve().parent / "data" / "lucene_extra" / "w_search_as_you_type.json.gz"
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
