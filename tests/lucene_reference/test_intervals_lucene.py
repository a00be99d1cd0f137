"""intervals against real Lucene 9.9.1's IntervalQuery (tests/lucene_extra/intervals.py, zz_intervals.json.gz) on
Cranfield bodies (the `standard` analyzer): match sources (one term, phrase, ordered and unordered, with and without
max_gaps), prefix, wildcard, fuzzy, all_of match rules and any_of; scores must be Lucene's float32 bits, in Lucene's
order.
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

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "lucene_extra" / "zz_intervals.json.gz"
RUNS = json.loads(gzip.decompress(REFERENCE.read_bytes()))
KEY = {
    "match": "query",
    "prefix": "prefix",
    "wildcard": "pattern",
    "fuzzy": "term",
    "any_of": "intervals",
    "all_of": "intervals",
}

pytestmark = pytest.mark.skipif(not (CRANFIELD / "cran.all.1400").is_file(), reason="../shared/data/cranfield absent")


@pytest.fixture(scope="module")
def bodies() -> EmbeddedIndex:
    mapping = {"mappings": {"properties": {"body": {"type": "text", "analyzer": "standard"}}}}
    return EmbeddedEngine().open([{"id": d["id"], "body": d["body"]} for d in cranfield_docs()], mapping, "id")


@pytest.mark.parametrize("shape", sorted(RUNS["shapes"]))
def test_intervals_score_as_lucenes_interval_query(bodies: EmbeddedIndex, shape: str) -> None:
    spec = RUNS["shapes"][shape]
    ((rule, options),) = spec["source"].items()
    queries = {str(i): {"query": {"intervals": {"body": {rule: {KEY[rule]: value, **options}}}}}
               for i, value in enumerate(spec["values"])}  # fmt: skip
    ours = bodies.search_many(queries, bodies.n, shape)
    for qid, hits in zip(queries, spec["hits"], strict=True):
        value = spec["values"][int(qid)]
        score_of = dict(ours[qid])
        rank_of = {doc: rank for rank, (doc, _) in enumerate(ours[qid])}
        for doc, lucene in hits:
            assert doc in score_of, f"{value!r}: document {doc} missing"
            assert np.float32(score_of[doc]) == np.float32(lucene), f"{value!r}, document {doc}"
        for (a, sa), (b, sb) in itertools.pairwise(hits):
            if sa != sb:
                assert rank_of[a] < rank_of[b], f"{value!r}: order"
        if len(hits) < 50:
            assert len(ours[qid]) == len(hits), f"{value!r}: number of matches"
        elif hits:
            assert {d for d, s in ours[qid] if s > hits[-1][1]} <= {d for d, _ in hits}, f"{value!r}: extra"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ({"match": {"query": "flow", "use_field": "x"}}, "intervals match.use_field"),
        ({"any_of": {"intervals": [{"any_of": {"intervals": []}}]}}, "an intervals any_of inside another rule"),
        ({"all_of": {"intervals": [{"prefix": {"prefix": "flow"}}, {"match": {"query": "a"}}]}}, "all_of over any_of"),
        ({"match": {"query": "flow", "filter": {}}}, "intervals match.filter"),
        ({"match": {"query": "flow flow"}}, "repeat a term"),
        ({"prefix": {"prefix": "a"}}, "more than 128 terms"),
    ],
)
def test_intervals_refuses_what_it_does_not_run(bodies: EmbeddedIndex, source: dict[str, Any], message: str) -> None:
    with pytest.raises(RelevanceInputError, match=message):
        bodies.search_many({"q": {"query": {"intervals": {"body": source}}}}, 10, "refusal")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            {"match": {"query": "flow", "max_gapss": 1}},
            r"\[match\] unknown field \[max_gapss\] did you mean \[max_gaps\]",
        ),
        ({"fuzzy": {"term": "flow", "fuzzyness": 1}}, r"\[fuzzy\] unknown field \[fuzzyness\]"),
        ({"matchh": {"query": "flow"}}, r"Unknown interval type \[matchh\], expecting one of \[match, any_of"),
    ],
)
def test_intervals_refuses_what_elasticsearchs_parser_refuses(
    bodies: EmbeddedIndex, source: dict[str, Any], message: str
) -> None:
    """A key no rule's parser declares, or a rule no parser has, is Elasticsearch's refusal, not "not run here"."""
    with pytest.raises(RelevanceInputError, match=message + ".*as Elasticsearch 8 refuses it"):
        bodies.search_many({"q": {"query": {"intervals": {"body": source}}}}, 10, "refusal")
