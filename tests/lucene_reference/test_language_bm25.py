"""The embedded engine against real Lucene 9.9.1 on French and German text: the same order, the same float32 scores.

tests/lucene_extra/language_bm25.py indexed a corpus per language (faker's and wordfreq's real words, French elided
articles, German umlauts and ß, capitals and punctuation) with Lucene's FrenchAnalyzer / GermanAnalyzer as
Elasticsearch's `french` / `german` analyzers build them, and searched it as Elasticsearch's match and multi_match
best_fields build their queries, in Elasticsearch's scale (BM25 with its (k1 + 1) factor). Stemming, stop words and
elision all move scores here: a term the embedded engine stems differently changes a document frequency, a field
length, an IDF. Every score is Lucene's float32 exactly; between equal scores the engine breaks ties by doc id, as
the README says, where Lucene keeps insertion order.
"""

from __future__ import annotations

import json
import lzma
import struct
from pathlib import Path
from typing import Any

import pytest
from test_lucene_bm25 import assert_like_lucene

from pytest_relevance.engines.embedded import EmbeddedEngine

REFERENCE = json.loads(
    lzma.decompress(
        (Path(__file__).resolve().parent.parent / "data" / "lucene_extra" / "language_bm25.json.xz").read_bytes()
    )
)
SHAPES = {
    "match_or": lambda t: {"match": {"body": t}},
    "best_fields_tb03": lambda t: {"multi_match": {"query": t, "fields": ["title^2", "body"], "tie_breaker": 0.3}},
}


@pytest.mark.parametrize("language", sorted(REFERENCE["corpus"]))
def test_language_analyzers_score_as_lucene(language: str) -> None:
    docs = [{"id": i, "title": title, "body": body} for i, title, body in REFERENCE["corpus"][language]]
    field: dict[str, Any] = {"type": "text", "analyzer": language}
    index = EmbeddedEngine().open(docs, {"mappings": {"properties": {"title": field, "body": field}}}, "id")
    texts = REFERENCE["queries"][language]
    for shape, build in SHAPES.items():
        runs = REFERENCE["runs"][language][shape]
        expected = {qid: [(doc, score) for doc, score in run] for qid, run in runs.items()}
        bodies = {qid: {"query": build(text)} for qid, text in texts.items()}
        ours = index.search_many(bodies, index.n, f"{language} {shape}")
        assert_like_lucene(expected, ours, texts, 1.0)
        for qid, reference in expected.items():
            assert [float32(s) for _, s in ours[qid][: len(reference)]] == [float32(s) for _, s in reference], qid
        assert sum(map(len, expected.values())) > 10_000


def float32(score: float) -> float:
    """The score rounded to Lucene's float, as the reference's shortest decimals read back."""
    return struct.unpack("f", struct.pack("f", score))[0]
