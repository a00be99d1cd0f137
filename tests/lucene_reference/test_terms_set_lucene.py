"""terms_set against real Lucene 9.9.1's CoveringQuery (tests/lucene_extra/terms_set.py, y_terms_set.json.gz).

Cranfield documents carry `tags` (a keyword field: the distinct english terms of the title), the title (text) and
`required` (a long, absent on every seventh document). Each shape runs 60 seeded term lists with the number of
terms to match from the field, from a Painless script reading `params.num_terms` and doc values, or from
`minimum_should_match`; the top 30 must be Lucene's, to the float32 bit, and the number of matches the same.
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

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "lucene_extra" / "y_terms_set.json.gz"
RUNS = json.loads(gzip.decompress(REFERENCE.read_bytes()))

pytestmark = pytest.mark.skipif(not (CRANFIELD / "cran.all.1400").is_file(), reason="../shared/data/cranfield absent")


@pytest.fixture(scope="module")
def tagged() -> EmbeddedIndex:
    mapping = {"mappings": {"properties": {"title": {"type": "text", "analyzer": "english"},
                                           "tags": {"type": "keyword"}, "required": {"type": "long"}}}}  # fmt: skip
    index = EmbeddedEngine().open([{"id": d["id"], "title": d["title"]} for d in cranfield_docs()], mapping, "id")
    docs = []
    for doc in cranfield_docs():
        number = int(doc["id"])
        extra: dict[str, Any] = {} if number % 7 == 0 else {"required": number % 4}
        tags = list(dict.fromkeys(index.search_terms("title", doc["title"])))
        docs.append({"id": doc["id"], "title": doc["title"], "tags": tags, **extra})
    return EmbeddedEngine().open(docs, mapping, "id")


@pytest.mark.parametrize("shape", sorted(RUNS["shapes"]))
def test_terms_set_scores_as_lucenes_covering_query(tagged: EmbeddedIndex, shape: str) -> None:
    spec = RUNS["shapes"][shape]
    bodies = {}
    for i, terms in enumerate(RUNS["terms"]):
        options = {"terms": terms, **spec["options"]}
        if spec["boost"] != 1.0:
            options["boost"] = spec["boost"]
        bodies[str(i)] = {"query": {"terms_set": {spec["field"]: options}}}
    ours = tagged.search_many(bodies, tagged.n, shape)
    for qid, run in zip(bodies, spec["hits"], strict=True):
        terms = RUNS["terms"][int(qid)]
        assert len(ours[qid]) == run["total"], f"{terms}: number of matches"
        score_of = dict(ours[qid])
        for doc, lucene in run["hits"]:
            assert np.float32(score_of[doc]) == np.float32(lucene), f"{terms}, document {doc}"
        if run["hits"]:
            assert {d for d, s in ours[qid] if s > run["hits"][-1][1]} <= {d for d, _ in run["hits"]}, terms


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"terms": ["a"]}, "No minimum should match has been specified"),
        ({"terms": ["a"], "minimum_should_match_field": "nope"}, r"failed to find minimum_should_match field \[nope\]"),
        ({"terms": ["a"], "minimum_should_match_field": "tags"}, "numeric field"),
        ({"terms": ["a"], "minimum_should_match": 1, "minimum_should_match_field": "required"}, "takes one of"),
        ({"terms": "a", "minimum_should_match": 1}, "needs a list of values"),
        ({"terms": ["a"], "minimum_should_match": 1, "slop": 1}, r"\[terms_set\] query does not support \[slop\]"),
    ],
)
def test_terms_set_refuses_as_elasticsearch(tagged: EmbeddedIndex, options: dict[str, Any], message: str) -> None:
    with pytest.raises(RelevanceInputError, match=message):
        tagged.search_many({"q": {"query": {"terms_set": {"tags": options}}}}, 10, "refusal")


def test_terms_set_without_terms_or_on_an_unmapped_field_matches_nothing(tagged: EmbeddedIndex) -> None:
    bodies = {
        "empty": {"query": {"terms_set": {"tags": {"terms": [], "minimum_should_match": 1}}}},
        "unmapped": {"query": {"terms_set": {"nope": {"terms": ["flow"], "minimum_should_match": 1}}}},
    }
    assert tagged.search_many(bodies, 10, "none") == {"empty": [], "unmapped": []}
