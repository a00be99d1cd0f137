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
from test_lucene_bm25 import CRANFIELD, assert_like_lucene, cranfield_docs

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.errors import RelevanceInputError

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "lucene_extra" / "v_query_parsers.json.gz"
RUNS = json.loads(gzip.decompress(REFERENCE.read_bytes()))
PARSER = {"simple": "simple_query_string", "classic": "query_string"}


def build(variant: str, text: str) -> dict[str, Any]:
    """The Elasticsearch query for one reference case: the variant's fields and default operator."""
    spec = RUNS[variant]
    options = {"query": text, "fields": spec["fields"], "default_operator": "and" if spec["and"] else "or"}
    if spec["msm"] is not None:
        options["minimum_should_match"] = f"{spec['msm']}%"
    return {PARSER[variant.partition("_")[0]]: options}


pytestmark = pytest.mark.skipif(not (CRANFIELD / "cran.all.1400").is_file(), reason="../shared/data/cranfield absent")


@pytest.fixture(scope="module")
def cranfield_index() -> EmbeddedIndex:
    mapping = {"mappings": {"properties": {"title": {"type": "text", "analyzer": "english"},
                                           "body": {"type": "text", "analyzer": "english"}}}}  # fmt: skip
    return EmbeddedEngine().open(cranfield_docs(), mapping, "id")


@pytest.mark.parametrize("variant", sorted(RUNS))
def test_query_string_parsers_score_as_lucenes(cranfield_index: EmbeddedIndex, variant: str) -> None:
    cases = {str(i): case for i, case in enumerate(RUNS[variant]["cases"]) if not case["error"]}
    bodies = {qid: {"query": build(variant, case["text"])} for qid, case in cases.items()}
    ours = cranfield_index.search_many(bodies, cranfield_index.n, f"{variant} parser")
    for qid, case in cases.items():
        try:
            assert_like_lucene({qid: [(doc, score) for doc, score in case["hits"]]}, ours, [qid], 1.0)
        except AssertionError as error:
            raise AssertionError(f"{case['text']!r} (Lucene: {case['lucene']}): {error}") from None
    assert sum(len(case["hits"]) for case in cases.values()) > 100  # the reference is not empty


ERRORS = [(v, c["text"]) for v in sorted(RUNS) if v.startswith("classic") for c in RUNS[v]["cases"] if c["error"]]


@pytest.mark.parametrize(("variant", "text"), ERRORS)
def test_query_string_refuses_what_lucene_cannot_parse(cranfield_index: EmbeddedIndex, variant: str, text: str) -> None:
    with pytest.raises(RelevanceInputError, match="cannot parse the query string"):
        cranfield_index.search_many({"q": {"query": build(variant, text)}}, 10, "refusal")


def test_simple_query_string_refuses_nothing() -> None:
    assert not [c["text"] for v in RUNS if v.startswith("simple") for c in RUNS[v]["cases"] if c["error"]]


def test_query_string_reads_a_fuzzy_distance_as_elasticsearchs_fuzziness(cranfield_index: EmbeddedIndex) -> None:
    """`term~2.0` is Fuzziness.fromString's 2 edits, scored as Lucene's `term~2`; a fraction (`roam~0.8`, which
    Lucene's own parser turns into edits with FuzzyQuery.floatToEdits) and a distance above 2 are Elasticsearch's
    refusals, with its messages."""
    (case,) = [c for c in RUNS["classic"]["cases"] if c["text"] == "supersnic~2 flow"]
    ours = cranfield_index.search_many({"q": {"query": build("classic", "supersnic~2.0 flow")}}, 2000, "fuzzy")
    assert_like_lucene({"q": [(doc, score) for doc, score in case["hits"]]}, ours, ["q"], 1.0)
    refused = {"roam~0.8": r"fuzziness needs to be one of 0.0, 1.0 or 2.0 but was 0.8", "heat~1.5 flow": "was 1.5",
               "heat~3": r"Valid edit distances are \[0, 1, 2\] but was \[3\]"}  # fmt: skip
    for text, message in refused.items():
        with pytest.raises(RelevanceInputError, match=message):
            cranfield_index.search_many({"q": {"query": build("classic", text)}}, 10, "fuzzy")
