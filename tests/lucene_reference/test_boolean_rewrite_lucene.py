"""multi_match most_fields, bool and dis_max sums against real Lucene 9.9.1, to the float32 bit.

tests/lucene_extra/boolean_rewrite.py ran the shapes of x_boolean_rewrite.json.gz on Cranfield (title and body with
`english`, body_std the body with `standard`). Lucene's BooleanQuery.rewrite takes the clauses of an unboosted pure
disjunction (a match with operator or, a should-only bool, a tie-1 dis_max or most_fields) into the enclosing
BooleanQuery when that one needs at most one should clause, so the term scores are summed once in double: rounding
each sub-query to float32 first, as the nesting of the DSL suggests, is 1 ulp off for some documents, enough to
swap tied documents. Scores must be equal, not close.
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

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "lucene_extra" / "x_boolean_rewrite.json.gz"
RUNS = json.loads(gzip.decompress(REFERENCE.read_bytes()))

pytestmark = pytest.mark.skipif(not (CRANFIELD / "cran.all.1400").is_file(), reason="../shared/data/cranfield absent")


@pytest.fixture(scope="module")
def cranfield_index() -> EmbeddedIndex:
    mapping = {"mappings": {"properties": {"title": {"type": "text", "analyzer": "english"},
                                           "body": {"type": "text", "analyzer": "english"},
                                           "body_std": {"type": "text", "analyzer": "standard"}}}}  # fmt: skip
    docs = [{**doc, "body_std": doc["body"]} for doc in cranfield_docs()]
    return EmbeddedEngine().open(docs, mapping, "id")


def fill(node: Any, text: str) -> Any:
    """The shape's query with `{text}` replaced."""
    if isinstance(node, dict):
        return {k: fill(v, text) for k, v in node.items()}
    if isinstance(node, list):
        return [fill(v, text) for v in node]
    return text if node == "{text}" else node


@pytest.mark.parametrize("shape", sorted(RUNS["shapes"]))
def test_nested_disjunctions_sum_as_lucenes_rewrite(cranfield_index: EmbeddedIndex, shape: str) -> None:
    spec = RUNS["shapes"][shape]
    bodies = {str(i): {"query": fill(spec["query"], text)} for i, text in enumerate(RUNS["texts"])}
    ours = cranfield_index.search_many(bodies, 20, shape)
    compared = 0
    for qid, hits in zip(bodies, spec["hits"], strict=True):
        score_of = dict(ours[qid])
        for doc, lucene in hits:
            assert doc in score_of, f"{RUNS['texts'][int(qid)]!r}: document {doc} missing"
            assert np.float32(score_of[doc]) == np.float32(lucene), f"{RUNS['texts'][int(qid)]!r}, document {doc}"
            compared += 1
        if hits:  # the same top documents: nothing of ours outside Lucene's top scores above its last
            assert {d for d, s in ours[qid] if s > hits[-1][1]} <= {d for d, _ in hits}, RUNS["texts"][int(qid)]
    assert compared > 300


def test_query_parser_references_are_exact(cranfield_index: EmbeddedIndex) -> None:
    """The query_string / simple_query_string references (v_query_parsers.json.gz) to the bit as well: their
    nested groups and multi-field terms are the same nested disjunctions, and a must with shoulds adds the two sums
    in float32 (ReqOptSumScorer)."""
    from test_query_parsers_lucene import RUNS as PARSED
    from test_query_parsers_lucene import build

    compared = 0
    for variant, spec in PARSED.items():
        cases = {str(i): case for i, case in enumerate(spec["cases"]) if not case["error"]}
        bodies = {qid: {"query": build(variant, case["text"])} for qid, case in cases.items()}
        ours = cranfield_index.search_many(bodies, cranfield_index.n, variant)
        for qid, case in cases.items():
            score_of = dict(ours[qid])
            for doc, lucene in case["hits"]:
                assert np.float32(score_of[doc]) == np.float32(lucene), f"{variant} {case['text']!r}, document {doc}"
                compared += 1
    assert compared > 3000
