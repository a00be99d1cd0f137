"""The embedded engine's query DSL against Elasticsearch's documented formulas, computed by hand here."""

from __future__ import annotations

import gzip
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.engines.embedded.queries import Invalid, minimum_should_match
from pytest_relevance.engines.embedded.queries.multi_term import edits_for
from pytest_relevance.engines.embedded.queries.values import time_value_millis
from pytest_relevance.errors import RelevanceInputError

DOCS = [
    {"id": "1", "t": "wireless headphones black", "tag": ["audio", "sale"], "n": 4, "d": "2026-01-10"},
    {"id": "2", "t": "wired headphone", "tag": "audio", "n": 9, "d": "2025-01-10"},
    {"id": "3", "t": "headset stand", "tag": "home", "n": 1, "d": "2020-01-10"},
    {"id": "4", "t": "head phones and more head phones", "tag": "audio", "n": [2, 30]},
    {"id": "5", "t": "", "tag": "home"},
]
MAPPING = {
    "mappings": {
        "properties": {
            "t": {"type": "text", "analyzer": "standard"},
            "tag": {"type": "keyword"},
            "n": {"type": "integer"},
            "d": {"type": "date"},
        }
    }
}
LENGTHS = {"1": 3, "2": 2, "3": 2, "4": 6}  # standard analyzer tokens; document 5 has none
AVGDL = sum(LENGTHS.values()) / 4  # docCount counts documents with at least one token


@pytest.fixture(scope="module")
def index() -> EmbeddedIndex:
    return EmbeddedEngine().open(DOCS, MAPPING, "id")


def hits(index: EmbeddedIndex, query: dict) -> dict[str, float]:
    return dict(index.search_many({"q": {"query": query}}, 10, "query.yaml")["q"])


def bm25(doc: str, freq: float, doc_freq: int, boost: float = 1.0, doc_count: int = 4, avgdl: float = AVGDL) -> float:
    """Elasticsearch's documented BM25: boost x (k1 + 1) x idf x tf-norm (lengths this short are stored exactly)."""
    idf = math.log(1 + (doc_count - doc_freq + 0.5) / (doc_freq + 0.5))
    return boost * 2.2 * idf * freq / (freq + 1.2 * (1 - 0.75 + 0.75 * LENGTHS.get(doc, 1) / avgdl))


def test_fuzzy_expansions_are_boosted_by_similarity_and_blend_the_doc_freq(index: EmbeddedIndex) -> None:
    # "headphnes" (9 letters, AUTO -> 2 edits): "headphones" 1 edit (boost 1 - 1/9), "headphone" 2 edits
    # (1 - 2/9); both scored with the larger document frequency of the two (1 each here)
    got = hits(index, {"fuzzy": {"t": "headphnes"}})
    assert set(got) == {"1", "2"}
    assert got["1"] == pytest.approx(bm25("1", 1, 1, 1 - 1 / 9), rel=1e-6)
    assert got["2"] == pytest.approx(bm25("2", 1, 1, 1 - 2 / 9), rel=1e-6)
    # "phone" (5 letters, 1 edit): "phones" is within one edit, appears in one document, twice
    assert hits(index, {"match": {"t": {"query": "phone", "fuzziness": "AUTO"}}}) == pytest.approx(
        {"4": bm25("4", 2, 1, 1 - 1 / 5)}, rel=1e-6
    )
    # prefix_length keeps the first letters exact; transpositions count as one edit unless turned off
    assert hits(index, {"fuzzy": {"t": {"value": "haedset", "fuzziness": 1}}}) != {}
    assert hits(index, {"fuzzy": {"t": {"value": "haedset", "fuzziness": 1, "transpositions": False}}}) == {}
    assert hits(index, {"fuzzy": {"t": {"value": "haedset", "fuzziness": 1, "prefix_length": 2}}}) == {}


def test_fuzziness_auto_follows_the_term_length() -> None:
    assert [edits_for("AUTO", "x" * n, "p") for n in (1, 2, 3, 5, 6, 12)] == [0, 0, 1, 1, 2, 2]
    assert [edits_for("AUTO:4,7", "x" * n, "p") for n in (3, 4, 6, 7)] == [0, 1, 1, 2]
    assert edits_for(1, "abcdef", "p") == 1


def test_prefix_wildcard_regexp_score_the_constant_boost(index: EmbeddedIndex) -> None:
    assert hits(index, {"prefix": {"t": {"value": "head", "boost": 2}}}) == {"1": 2.0, "2": 2.0, "3": 2.0, "4": 2.0}
    assert hits(index, {"wildcard": {"t": "w*d"}}) == {"2": 1.0}
    assert hits(index, {"wildcard": {"t": {"value": "HEAD?ET", "case_insensitive": True}}}) == {"3": 1.0}
    assert hits(index, {"regexp": {"t": "head(set|phone)"}}) == {"2": 1.0, "3": 1.0}
    assert hits(index, {"prefix": {"tag": "sa"}}) == {"1": 1.0}


def test_regexp_reads_lucenes_syntax_not_pythons(index: EmbeddedIndex) -> None:
    """Lucene's RegExp (Elasticsearch's default flags ALL): @ any string, & intersection, # the empty language,
    quoted literals, <min-max> decimal intervals; ^ and $ are plain characters."""
    assert hits(index, {"regexp": {"t": "@phone@"}}) == {"1": 1.0, "2": 1.0, "4": 1.0}
    assert hits(index, {"regexp": {"t": "head.*&.*s"}}) == {"1": 1.0}
    assert hits(index, {"regexp": {"t": "wired|#"}}) == {"2": 1.0}
    assert hits(index, {"regexp": {"t": '"head"'}}) == {"4": 1.0}
    assert hits(index, {"regexp": {"t": "^head"}}) == {}
    # \W keeps meaning a non-word character (none here) when the match ignores case
    assert hits(index, {"regexp": {"t": {"value": "HEAD\\W*", "case_insensitive": True}}}) == {"4": 1.0}
    # flags turn the optional operators on one by one; off, their characters are plain characters
    assert hits(index, {"regexp": {"t": {"value": "@phone@", "flags": "NONE"}}}) == {}
    assert hits(index, {"regexp": {"t": {"value": "head.*&.*s", "flags": "INTERSECTION|EMPTY"}}}) == {"1": 1.0}
    with pytest.raises(RelevanceInputError, match="'FOO' is not one of ALL, NONE, INTERSECTION"):
        hits(index, {"regexp": {"t": {"value": "x", "flags": "foo"}}})
    numbers = EmbeddedEngine().open(
        [{"id": str(i), "t": n} for i, n in enumerate(["7", "07", "12", "120"])],
        {"mappings": {"properties": {"t": {"type": "text", "analyzer": "standard"}}}},
        "id",
    )
    # bounds of different widths: any number of leading zeros; of the same width: zero-padded to it
    assert set(hits(numbers, {"regexp": {"t": "<7-12>"}})) == {"0", "1", "2"}
    assert set(hits(numbers, {"regexp": {"t": "<07-12>"}})) == {"1", "2"}
    with pytest.raises(RelevanceInputError, match=r"regexp complement \(~\) at query\.regexp\.value is not supported"):
        hits(index, {"regexp": {"t": "~head"}})
    with pytest.raises(RelevanceInputError, match="'<' starts a numeric interval"):
        hits(index, {"regexp": {"t": "<a-b>"}})


def test_match_phrase_prefix_and_match_bool_prefix(index: EmbeddedIndex) -> None:
    # a phrase whose last term is any term starting with "hea"; as Lucene's MultiPhraseQuery, its idf sums the idf
    # of every term, expansions included (wireless, head, headphone, headphones, headset: each in one document)
    got = hits(index, {"match_phrase_prefix": {"t": "wireless hea"}})
    assert list(got) == ["1"]
    idf_sum = 5 * math.log(1 + (4 - 1 + 0.5) / 1.5)
    assert got["1"] == pytest.approx(2.2 * idf_sum * 1 / (1 + 1.2 * (0.25 + 0.75 * 3 / AVGDL)), rel=1e-6)
    # alone, the prefix is a disjunction of its expansions
    assert set(hits(index, {"match_phrase_prefix": {"t": "phon"}})) == {"4"}
    # bool_prefix: "wired" is a scored term, "hea*" a constant 1.0 clause
    got = hits(index, {"match_bool_prefix": {"t": {"query": "wired hea", "operator": "and"}}})
    assert got == pytest.approx({"2": bm25("2", 1, 1) + 1.0}, rel=1e-6)


def test_a_term_on_a_keyword_is_bm25_without_norms(index: EmbeddedIndex) -> None:
    # keyword fields keep no norms (length 1) and no frequencies: sumTotalTermFreq = sumDocFreq = 6 over 5 docs
    got = hits(index, {"term": {"tag": "audio"}})
    idf = math.log(1 + (5 - 3 + 0.5) / 3.5)
    expected = 2.2 * idf / (1 + 1.2 * (0.25 + 0.75 * 1 / (6 / 5)))
    assert got == pytest.approx(dict.fromkeys(["1", "2", "4"], expected), rel=1e-6)
    assert hits(index, {"terms": {"tag": ["home", "sale"], "boost": 3}}) == {"1": 3.0, "3": 3.0, "5": 3.0}


@pytest.mark.parametrize(
    ("spec", "clauses", "expected"),
    [
        ("2", 4, 2), ("-1", 4, 3), ("75%", 3, 2), ("-25%", 4, 3), ("3<90%", 3, 3), ("3<90%", 4, 3),
        ("2<-25% 9<-3", 2, 2), ("2<-25% 9<-3", 5, 4), ("2<-25% 9<-3", 10, 7), ("100%", 7, 7), ("5", 3, 5),
    ],
)  # fmt: skip
def test_minimum_should_match_in_every_documented_form(spec: str, clauses: int, expected: int) -> None:
    assert minimum_should_match(spec, clauses, "p") == expected


def test_minimum_should_match_above_the_clause_count_matches_nothing(index: EmbeddedIndex) -> None:
    query = {"bool": {"should": [{"term": {"tag": "audio"}}], "minimum_should_match": 2}}
    assert hits(index, query) == {}
    match = {"match": {"t": {"query": "wireless headphones stand", "minimum_should_match": "67%"}}}
    assert set(hits(index, match)) == {"1"}  # 3 x 0.67 -> 2 clauses


def test_function_score_modes_follow_elasticsearch(index: EmbeddedIndex) -> None:
    functions = [
        {"filter": {"term": {"tag": "audio"}}, "weight": 3},
        {"filter": {"term": {"tag": "sale"}}, "weight": 4},
    ]
    base = {"query": {"match_all": {}}, "functions": functions, "boost_mode": "replace"}
    # avg is weighted by the functions' weights: (3 + 4) / (3 + 4) for document 1, 3 / 3 for 2
    assert hits(index, {"function_score": {**base, "score_mode": "avg"}}) == {
        "1": 1.0,
        "2": 1.0,
        "4": 1.0,
        "3": 1.0,
        "5": 1.0,
    }
    assert hits(index, {"function_score": {**base, "score_mode": "sum"}})["1"] == 7.0
    assert hits(index, {"function_score": {**base, "score_mode": "first"}})["1"] == 3.0
    assert hits(index, {"function_score": {**base, "score_mode": "max", "max_boost": 3.5}})["1"] == 3.5
    # a multi-valued field: field_value_factor reads the smallest value, a decay the closest one
    fvf = {"field_value_factor": {"field": "n", "modifier": "sqrt", "missing": 16}, "boost_mode": "replace"}
    assert hits(index, {"function_score": fvf}) == pytest.approx(
        {"5": 4.0, "2": 3.0, "1": 2.0, "4": math.sqrt(2), "3": 1.0}
    )
    decay = {"linear": {"n": {"origin": 31, "scale": 10}}, "boost_mode": "replace"}
    assert hits(index, {"function_score": decay})["4"] == pytest.approx(1 - 1 / 20)  # |30 - 31| on a scale of 20


def body_hits(index: EmbeddedIndex, body: dict) -> list[tuple[str, float]]:
    return index.search_many({"q": body}, 10, "query.yaml")["q"]


def test_script_score_runs_the_painless_subset(index: EmbeddedIndex) -> None:
    script = {
        "source": "doc['n'].size() == 0 ? params.none : Math.log10(doc['n'].value + 2) * params.w + _score",
        "params": {"w": 2, "none": 0.5},
    }
    got = hits(index, {"script_score": {"query": {"match_all": {"boost": 3}}, "script": script}})
    assert got == pytest.approx({"2": 2 * math.log10(11) + 3, "1": 2 * math.log10(6) + 3, "4": 2 * math.log10(4) + 3,
                                 "3": 2 * math.log10(3) + 3, "5": 0.5}, rel=1e-6)  # fmt: skip
    helpers = "saturation(doc['n'].value, 10) + sigmoid(doc['n'].value, 5, 2)"
    helpers += " + decayNumericLinear(10, 20, 0, 0.5, doc['n'].value)"
    got = hits(index, {"script_score": {"query": {"term": {"tag": "audio"}}, "script": helpers}})
    n = 9  # document 2
    assert got["2"] == pytest.approx(n / (10 + n) + n**2 / (25 + n**2) + (40 - 1) / 40, rel=1e-6)
    date = "decayDateGauss('2026-01-10', '10d', '0d', 0.5, doc['d'].value)"
    got = hits(index, {"script_score": {"query": {"ids": {"values": ["1", "2"]}}, "script": date}})
    assert got["1"] == 1.0 and got["2"] == pytest.approx(0.5 ** ((365 / 10) ** 2))
    function = {"function_score": {"query": {"match": {"t": "stand"}}, "script_score": {"script": "_score * 2"},
                                   "boost_mode": "replace"}}  # fmt: skip
    assert hits(index, function)["3"] == pytest.approx(2 * hits(index, {"match": {"t": "stand"}})["3"])


def test_a_script_reading_a_missing_value_fails_only_where_it_is_read(index: EmbeddedIndex) -> None:
    guarded = "doc['d'].size() == 0 ? 0 : 1"
    assert hits(index, {"script_score": {"query": {"match_all": {}}, "script": guarded}})["4"] == 0.0
    with pytest.raises(RelevanceInputError, match=r"document '4' has no value for a doc\['...'\]\.value"):
        hits(index, {"script_score": {"query": {"match_all": {}}, "script": "doc['d'].value.millis > 0 ? 1 : 0"}})
    with pytest.raises(RelevanceInputError, match=r"line 1:6: Unknown call \[foo\] on type \[Math\]"):
        hits(index, {"script_score": {"query": {"match_all": {}}, "script": "Math.foo(1)"}})


def test_rescore_combines_the_window_as_elasticsearch_does(index: EmbeddedIndex) -> None:
    query = {"match": {"t": "headphones phones"}}
    first = dict(body_hits(index, {"query": query}))
    assert list(first) == ["4", "1"]
    rescore = {"window_size": 1, "query": {"rescore_query": {"term": {"tag": "sale"}}, "query_weight": 0.5,
                                           "rescore_query_weight": 2}}  # fmt: skip
    # document 4 is the window but does not match: 0.5 x score; document 1 is past the window: 0.5 x score
    got = body_hits(index, {"query": query, "rescore": rescore})
    assert got == [("4", pytest.approx(first["4"] / 2)), ("1", pytest.approx(first["1"] / 2))]
    rescore["window_size"] = 2
    sale = hits(index, {"term": {"tag": "sale"}})["1"]
    got = body_hits(index, {"query": query, "rescore": rescore})
    assert got == [("1", pytest.approx(first["1"] / 2 + 2 * sale, rel=1e-6)), ("4", pytest.approx(first["4"] / 2))]


def test_collapse_sort_min_score_and_post_filter(index: EmbeddedIndex) -> None:
    everything = {"query": {"match_all": {}}}
    assert [d for d, _ in body_hits(index, {**everything, "collapse": {"field": "tag"}})] == ["1", "3"]
    by_n = [d for d, _ in body_hits(index, {**everything, "sort": [{"n": {"order": "desc", "missing": "_first"}}]})]
    assert by_n == ["5", "4", "2", "1", "3"]  # desc sorts a multi-valued field by its largest value (4: [2, 30])
    by_tag = [d for d, _ in body_hits(index, {**everything, "sort": ["tag", {"n": "desc"}]})]
    assert by_tag == ["4", "2", "1", "3", "5"]  # audio (n 30, 9, 4), then home (n 1, then 5 without n: last)
    filtered = body_hits(
        index, {"query": {"match": {"t": "headphones stand"}}, "post_filter": {"term": {"tag": "home"}}}
    )
    assert [d for d, _ in filtered] == ["3"]
    assert body_hits(index, {"query": {"match": {"t": "headphones"}}, "min_score": 100}) == []


def test_query_string_follows_the_classic_parser(index: EmbeddedIndex) -> None:
    def qs(text: str, **options: object) -> dict[str, float]:
        return hits(index, {"query_string": {"query": text, "fields": ["t"], **options}})

    assert set(qs("wireless OR stand")) == {"1", "3"}
    assert set(qs("headphones AND NOT wired")) == {"1"}
    assert set(qs("wireless stand", default_operator="and")) == set()
    assert set(qs("head* -wir?d")) == {"1", "3", "4"}  # prefix and wildcard terms, a prohibited clause
    assert qs("stand^3") == pytest.approx({"3": 3 * qs("stand")["3"]})
    assert set(qs('"head phones"~1 +tag:audio')) == {"1", "2", "4"}  # field:term, a required clause
    assert qs('"wireless black"') == {} and set(qs('"wireless black"', phrase_slop=1)) == {"1"}
    assert set(qs("_exists_:d AND (stand OR wired)")) == {"2", "3"}
    # each bare term searches every field as a best_fields multi_match
    both = hits(index, {"query_string": {"query": "audio", "fields": ["t", "tag^2"]}})
    assert both == pytest.approx(hits(index, {"term": {"tag": {"value": "audio", "boost": 2}}}))
    assert set(qs("wireless stand", minimum_should_match=2)) == set()
    # ranges: [inclusive], {exclusive}, * open, and comparisons; a multi-valued field matches on any value
    assert set(qs("n:[2 TO 5]")) == {"1", "4"}
    assert set(qs("n:{2 TO 9]")) == {"1", "2"}
    assert set(qs("n:>=9")) == {"2", "4"}
    assert set(qs("headphones AND n:[* TO 5]")) == {"1"}


def test_simple_query_string_follows_the_simple_parser(index: EmbeddedIndex) -> None:
    def sqs(text: str, **options: object) -> dict[str, float]:
        return hits(index, {"simple_query_string": {"query": text, "fields": ["t"], **options}})

    # "-x" is everything but x: with the OR default it matches every document without "wired"
    assert set(sqs("headphones -wired")) == {"1", "3", "4", "5"}
    assert set(sqs("headphones -wired", default_operator="and")) == {"1"}
    assert set(sqs('"wired headphone" | stand')) == {"2", "3"}
    assert set(sqs("hea*")) == {"1", "2", "3", "4"}
    assert set(sqs("hea*", flags="AND|OR")) == set()  # PREFIX off: "hea" is a plain term
    assert set(sqs("headphnes~2")) == {"1", "2"}


VECTOR_DOCS = [
    {"id": "a", "v": [1, 0], "pr": 8, "d": "2026-01-01", "t": "red shoe"},
    {"id": "b", "v": [0, 1], "pr": 2, "d": "2025-01-01", "t": "blue shoe"},
    {"id": "c", "v": [1, 1], "t": "red hat"},
]
VECTOR_MAPPING = {
    "mappings": {
        "properties": {
            "v": {"type": "dense_vector", "dims": 2, "similarity": "cosine"},
            "pr": {"type": "rank_feature"},
            "d": {"type": "date"},
            "t": {"type": "text"},
        }
    }
}


def test_knn_hybrid_and_rrf_follow_elasticsearch_formulas() -> None:
    index = EmbeddedEngine().open(VECTOR_DOCS, VECTOR_MAPPING, "id")
    # cosine similarity, scored (1 + cos) / 2: exact nearest neighbours, the best k kept
    knn = {"field": "v", "query_vector": [1, 0], "k": 2, "num_candidates": 10}
    assert body_hits(index, {"knn": knn}) == [("a", 1.0), ("c", pytest.approx((1 + math.sqrt(0.5)) / 2))]
    # hybrid: a document's query and knn scores add up
    red = hits(index, {"match": {"t": "red"}})
    hybrid = dict(body_hits(index, {"query": {"match": {"t": "red"}}, "knn": {**knn, "query_vector": [0, 1], "k": 1}}))
    assert hybrid == pytest.approx({"b": 1.0, **red})
    # reciprocal rank fusion: 1 / (rank_constant + rank) summed over the retrievers
    retrievers = [{"standard": {"query": {"match": {"t": "red"}}}}, {"knn": {**knn, "query_vector": [0, 1], "k": 3}}]
    fused = body_hits(index, {"retriever": {"rrf": {"retrievers": retrievers, "rank_constant": 1}}})
    assert fused == [("a", 0.5 + 0.25), ("c", pytest.approx(1 / 3 + 1 / 3)), ("b", 0.5)]


def test_rank_feature_distance_feature_and_pinned() -> None:
    index = EmbeddedEngine().open(VECTOR_DOCS, VECTOR_MAPPING, "id")
    # saturation with the default pivot: the mean of the stored values (8 and 2 are stored exactly) -> 4 here
    assert hits(index, {"rank_feature": {"field": "pr"}}) == pytest.approx({"a": 8 / 12, "b": 2 / 6})
    assert hits(index, {"rank_feature": {"field": "pr", "log": {"scaling_factor": 1}}}) == pytest.approx(
        {"a": math.log(9), "b": math.log(3)}
    )
    # DateFieldType.distanceFeatureQuery reads the origin rounded up: 2026-01-11 is its last millisecond
    near = hits(index, {"distance_feature": {"field": "d", "origin": "2026-01-11", "pivot": "10d"}})
    day = 86_400_000
    assert near == pytest.approx({"a": 10 * day / (21 * day - 1), "b": 10 * day / (386 * day - 1)})
    pinned = body_hits(index, {"query": {"pinned": {"ids": ["c", "b"], "organic": {"match": {"t": "shoe"}}}}})
    assert [d for d, _ in pinned] == ["c", "b", "a"]


def test_cross_fields_blends_term_statistics_across_fields() -> None:
    people = [
        {"id": "1", "first": "will", "last": "smith"},
        {"id": "2", "first": "smith", "last": "jones"},
        {"id": "3", "first": "will", "last": "smith"},
        {"id": "4", "first": "john", "last": "smith"},
    ]
    mapping = {"mappings": {"properties": {"first": {"type": "text"}, "last": {"type": "text"}}}}
    index = EmbeddedEngine().open(people, mapping, "id")
    query = {"query": "will smith", "fields": ["first", "last"], "operator": "and"}
    assert hits(index, {"multi_match": query}) == {}  # best_fields: no single field holds both terms
    got = hits(index, {"multi_match": {**query, "type": "cross_fields"}})

    # "smith": 3 documents in last, 1 in first -> blended, first counts it in 3 - 1 = 2 documents; "will" is only
    # in first (2 documents); every field here is one token long, its average length 1, so tf-norm = 1 / 2.2
    def idf(n: int) -> float:
        return math.log(1 + (4 - n + 0.5) / (n + 0.5))

    expected = 2.2 * (idf(2) + idf(3)) / 2.2
    assert got == pytest.approx({"1": expected, "3": expected})
    only_smith = hits(index, {"multi_match": {**query, "query": "smith", "type": "cross_fields"}})
    assert only_smith["2"] == pytest.approx(idf(2))  # first's own document frequency (1) is raised to 2


def test_cross_fields_over_keyword_fields_blends_them_as_one_group() -> None:
    # MultiMatchQuery's CrossFieldsQueryBuilder groups fields by search analyzer: keyword fields without a normalizer
    # share the keyword analyzer, so their term is one BlendedTermQuery; their sumTotalTermFreq is the sum of
    # document frequencies (no frequencies indexed), 4 each here, and every norm is 1 (average length 1)
    docs = [
        {"id": "1", "a": "x", "b": "y", "t": "q"},
        {"id": "2", "a": "x", "b": "x", "t": "q"},
        {"id": "3", "a": "x", "b": "z", "t": "x x"},
        {"id": "4", "a": "z", "b": "z", "t": "q"},
    ]
    mapping = {"mappings": {"properties": {"a": {"type": "keyword"}, "b": {"type": "keyword"}, "t": {"type": "text"}}}}
    index = EmbeddedEngine().open(docs, mapping, "id")

    def idf(n: int) -> float:
        return math.log(1 + (4 - n + 0.5) / (n + 0.5))

    # "x": 3 documents in a, 1 in b -> blended, b counts it in 3 - 1 = 2 documents; a dis_max per term; each
    # score (k1 + 1) x idf x tf-norm, tf-norm 1 / 2.2
    got = hits(index, {"multi_match": {"query": "x", "fields": ["a", "b"], "type": "cross_fields"}})
    assert got == pytest.approx({"1": idf(3), "2": idf(2), "3": idf(3)}, rel=1e-6)
    # with a text field: its own group, the groups a dis_max (tie_breaker 0: the best group)
    text_x = hits(index, {"match": {"t": "x"}})["3"]
    mixed = hits(index, {"multi_match": {"query": "x", "fields": ["a", "b", "t"], "type": "cross_fields"}})
    assert mixed == pytest.approx({"1": idf(3), "2": idf(2), "3": max(text_x, idf(3))}, rel=1e-6)


def test_nested_matches_within_one_object_and_aggregates_scores() -> None:
    posts = [
        {
            "id": "a",
            "comments": [{"author": "ann", "text": "great red shoe", "stars": 5}, {"author": "bob", "text": "bad"}],
        },
        {
            "id": "b",
            "comments": [{"author": "ann", "text": "bad shoe", "stars": 1}, {"author": "bob", "text": "great"}],
        },
        {"id": "c", "comments": {"author": "cy", "text": "shoe shoe", "stars": 3}},
        {"id": "d"},
    ]
    properties = {"author": {"type": "keyword"}, "text": {"type": "text"}, "stars": {"type": "integer"}}
    index = EmbeddedEngine().open(
        posts, {"mappings": {"properties": {"comments": {"type": "nested", "properties": properties}}}}, "id"
    )
    both = {"bool": {"must": [{"match": {"comments.text": "great"}}, {"term": {"comments.author": "ann"}}]}}
    assert set(hits(index, {"nested": {"path": "comments", "query": both}})) == {"a"}  # not b: two different comments
    assert hits(index, {"match": {"comments.text": "shoe"}}) == {}  # outside a nested query the objects are not seen
    stars = {"path": "comments", "query": {"range": {"comments.stars": {"gte": 1}}}}
    assert hits(index, {"nested": {**stars, "score_mode": "sum"}}) == {"a": 1.0, "b": 1.0, "c": 1.0}
    shoe = {"path": "comments", "query": {"match": {"comments.text": "shoe"}}}
    # the same comments as documents of their own: the nested field statistics count comments, not posts
    texts = {"a0": "great red shoe", "a1": "bad", "b0": "bad shoe", "b1": "great", "c0": "shoe shoe"}
    comments = [{"id": k, "t": v} for k, v in texts.items()]
    child = EmbeddedEngine().open(comments, {"mappings": {"properties": {"t": {"type": "text"}}}}, "id")
    per_comment = hits(child, {"match": {"t": "shoe"}})
    assert hits(index, {"nested": {**shoe, "score_mode": "max"}}) == pytest.approx(
        {"a": per_comment["a0"], "b": per_comment["b0"], "c": per_comment["c0"]}
    )


def test_geo_distance_bounding_box_and_random_score() -> None:
    cities = [
        {"id": "paris", "loc": {"lat": 48.8566, "lon": 2.3522}},
        {"id": "london", "loc": "51.5074,-0.1278"},
        {"id": "berlin", "loc": [13.405, 52.52]},
        {"id": "nowhere"},
    ]
    index = EmbeddedEngine().open(cities, {"mappings": {"properties": {"loc": {"type": "geo_point"}}}}, "id")
    # Paris is 43 km from (49, 2), London 330 km, Berlin 820 km (haversine on the mean earth radius)
    assert set(hits(index, {"geo_distance": {"distance": "400km", "loc": {"lat": 49.0, "lon": 2.0}}})) == {
        "paris", "london"
    }  # fmt: skip
    assert set(hits(index, {"geo_distance": {"distance": "50km", "loc": "POINT (2 49)"}})) == {"paris"}
    box = {"top_left": {"lat": 53, "lon": -1}, "bottom_right": {"lat": 48, "lon": 3}}
    assert set(hits(index, {"geo_bounding_box": {"loc": box}})) == {"paris", "london"}
    shuffled = {"function_score": {"random_score": {"seed": 42, "field": "_seq_no"}}}
    first = hits(index, shuffled)
    assert first == hits(index, shuffled) and all(0 <= v < 1 for v in first.values())
    assert first != hits(index, {"function_score": {"random_score": {"seed": 7, "field": "_seq_no"}}})


def test_synonyms_at_one_position_score_as_one_synonym_query() -> None:
    texts = ["cheap tv stand", "new television", "tv tv television", "radio"]
    docs = [{"id": str(i), "t": t} for i, t in enumerate(texts, 1)]
    analysis = {"filter": {"syn": {"type": "synonym_graph", "synonyms": ["tv, television"]}},
                "analyzer": {"q": {"tokenizer": "standard", "filter": ["lowercase", "syn"]}}}  # fmt: skip
    mapping = {
        "settings": {"analysis": analysis},
        "mappings": {"properties": {"t": {"type": "text", "search_analyzer": "q"}}},
    }
    index = EmbeddedEngine().open(docs, mapping, "id")

    # Lucene's SynonymQuery: frequency = the sum over the synonyms (3 in document 3), document frequency = the larger
    # of theirs (2); lengths 3, 2, 3, 1 -> average 2.25
    def expected(freq: float, length: int) -> float:
        return 2.2 * math.log(2) * freq / (freq + 1.2 * (0.25 + 0.75 * length / 2.25))

    assert hits(index, {"match": {"t": "tv"}}) == pytest.approx(
        {"3": expected(3, 3), "2": expected(1, 2), "1": expected(1, 3)}
    )
    assert set(hits(index, {"match": {"t": {"query": "tv stand", "operator": "and"}}})) == {"1"}


def test_multi_word_synonyms_become_one_query_per_path() -> None:
    texts = ["boundary layer flow", "bl flow", "layer near the boundary", "flow"]
    docs = [{"id": str(i), "t": t} for i, t in enumerate(texts, 1)]
    analysis = {"filter": {"syn": {"type": "synonym_graph", "synonyms": ["boundary layer, bl"]}},
                "analyzer": {"q": {"tokenizer": "standard", "filter": ["lowercase", "syn"]}}}  # fmt: skip
    mapping = {
        "settings": {"analysis": analysis},
        "mappings": {"properties": {"t": {"type": "text", "search_analyzer": "q"}}},
    }
    index = EmbeddedEngine().open(docs, mapping, "id")
    lengths = {"1": 3, "2": 2, "3": 4, "4": 1}
    doc_freq = {"boundary": 2, "layer": 2, "bl": 1, "flow": 3}

    def score(doc: str, *terms: str) -> float:  # one term, or a phrase / span matching once: the sum of the idfs
        idf = sum(math.log(1 + (4 - doc_freq[t] + 0.5) / (doc_freq[t] + 0.5)) for t in terms)
        return 2.2 * idf / (1 + 1.2 * (0.25 + 0.75 * lengths[doc] / 2.5))

    # match: (bl OR "boundary layer"): document 3 holds both words, but not as the phrase
    assert hits(index, {"match": {"t": "boundary layer"}}) == pytest.approx(
        {"1": score("1", "boundary", "layer"), "2": score("2", "bl")}
    )
    # auto_generate_synonyms_phrase_query false: (bl OR (+boundary +layer))
    bag = hits(index, {"match": {"t": {"query": "boundary layer", "auto_generate_synonyms_phrase_query": False}}})
    assert bag == pytest.approx({"1": score("1", "boundary") + score("1", "layer"), "2": score("2", "bl"),
                                 "3": score("3", "boundary") + score("3", "layer")})  # fmt: skip
    # operator and: +(bl OR "boundary layer") +flow; the synonym group counts as one clause
    assert set(hits(index, {"match": {"t": {"query": "boundary layer flow", "operator": "and"}}})) == {"1", "2"}
    # match_phrase: spanNear([spanOr([bl, spanNear([boundary, layer])]), flow]), idf over its distinct terms
    all_terms = ("bl", "boundary", "flow", "layer")
    assert hits(index, {"match_phrase": {"t": "boundary layer flow"}}) == pytest.approx(
        {"1": score("1", *all_terms), "2": score("2", *all_terms)}
    )
    with pytest.raises(
        RelevanceInputError,
        match=r"fuzziness on a query with multi-word synonyms .* the elasticsearch engine supports it",
    ):
        hits(index, {"match": {"t": {"query": "bl flow", "fuzziness": 1}}})


def test_shingles_of_several_sizes_disable_graph_queries() -> None:
    # Elasticsearch's shingle filter with unigrams sets DisableGraphAttribute: "new york" is then
    # +SynonymQuery(new, "new york") +york, not a phrase per path, and "york new" matches
    analysis = {"analyzer": {"sh": {"tokenizer": "standard", "filter": ["lowercase", "shingle"]}}}
    mapping = {
        "settings": {"analysis": analysis},
        "mappings": {"properties": {"t": {"type": "text", "analyzer": "sh"}}},
    }
    docs = [{"id": "1", "t": "york new"}, {"id": "2", "t": "new york"}, {"id": "3", "t": "york"}]
    index = EmbeddedEngine().open(docs, mapping, "id")
    assert set(hits(index, {"match": {"t": {"query": "new york", "operator": "and"}}})) == {"1", "2"}


def test_auto_generate_synonyms_phrase_query_must_be_a_boolean() -> None:
    analysis = {"filter": {"syn": {"type": "synonym_graph", "synonyms": ["boundary layer, bl"]}},
                "analyzer": {"q": {"tokenizer": "standard", "filter": ["lowercase", "syn"]}}}  # fmt: skip
    mapping = {
        "settings": {"analysis": analysis},
        "mappings": {"properties": {"t": {"type": "text", "search_analyzer": "q"}}},
    }
    index = EmbeddedEngine().open([{"id": "1", "t": "bl"}], mapping, "id")
    with pytest.raises(RelevanceInputError, match=r"auto_generate_synonyms_phrase_query.*'no' is not true or false"):
        hits(index, {"match": {"t": {"query": "boundary layer", "auto_generate_synonyms_phrase_query": "no"}}})


def test_a_case_insensitive_term_is_an_ascii_constant_score_automaton() -> None:
    # Elasticsearch's CaseInsensitiveTermQuery folds ASCII letters only and rewrites to a constant score
    docs = [{"id": "1", "b": "Sony", "t": "Sony TV"}, {"id": "2", "b": "SONY"}, {"id": "3", "b": "sonyx"},
            {"id": "4", "b": "Éclair"}, {"id": "5", "b": "éclair", "n": 3}]  # fmt: skip
    mapping = {"mappings": {"properties": {"b": {"type": "keyword"}, "t": {"type": "text"}, "n": {"type": "long"}}}}
    index = EmbeddedEngine().open(docs, mapping, "id")
    got = hits(index, {"term": {"b": {"value": "sony", "case_insensitive": True, "boost": 2}}})
    assert got == {"1": 2.0, "2": 2.0}
    assert hits(index, {"term": {"b": {"value": "éclair", "case_insensitive": True}}}) == {"5": 1.0}
    assert hits(index, {"term": {"t": {"value": "TV", "case_insensitive": True}}}) == {"1": 1.0}
    assert hits(index, {"term": {"b": {"value": "sony", "case_insensitive": False}}}) == {}
    with pytest.raises(RelevanceInputError, match=r"\[n\] field which is of type \[long\], does not support case"):
        hits(index, {"term": {"n": {"value": 3, "case_insensitive": True}}})


def test_case_insensitive_prefix_and_wildcard_fold_ascii_letters_only() -> None:
    docs = [{"id": str(i), "b": b} for i, b in enumerate(["Éclair", "éclair", "ECLAIR", "eclair"], 1)]
    index = EmbeddedEngine().open(docs, {"mappings": {"properties": {"b": {"type": "keyword"}}}}, "id")
    for query in ({"prefix": {"b": {"value": "écl", "case_insensitive": True}}},
                  {"wildcard": {"b": {"value": "éC*", "case_insensitive": True}}}):  # fmt: skip
        assert hits(index, query) == {"2": 1.0}
    assert hits(index, {"prefix": {"b": {"value": "ecl", "case_insensitive": True}}}) == {"3": 1.0, "4": 1.0}
    assert hits(index, {"wildcard": {"b": {"value": "Ec?AIR", "case_insensitive": True}}}) == {"3": 1.0, "4": 1.0}


def test_lenient_makes_a_field_the_text_does_not_fit_match_nothing(index: EmbeddedIndex) -> None:
    # Elasticsearch builds a MatchNoDocsQuery for that field (MatchQueryParser.termQuery): the other fields still
    # match, and a required clause on it matches nothing; without lenient the search fails
    alone = hits(index, {"match": {"t": "headphones"}})
    multi = {"multi_match": {"query": "headphones", "fields": ["t", "n"], "lenient": True}}
    assert hits(index, multi) == alone
    assert hits(index, {**multi, "multi_match": {**multi["multi_match"], "type": "cross_fields"}}) == alone
    assert hits(index, {"match": {"n": {"query": "headphones", "lenient": True}}}) == {}
    assert hits(index, {"match": {"d": {"query": "headphones", "lenient": True}}}) == {}
    qs = {"query": "n:abc AND headphones", "fields": ["t"], "lenient": True}
    assert hits(index, {"query_string": qs}) == {}
    assert hits(index, {"query_string": {**qs, "query": "n:abc OR headphones"}}) == alone
    with pytest.raises(RelevanceInputError, match="does not fit the number field 'n'"):
        hits(index, {"multi_match": {"query": "headphones", "fields": ["t", "n"]}})


@pytest.mark.parametrize("kind", ["query_string", "simple_query_string"])
def test_quoted_parts_search_the_quote_field_suffix_field_where_it_is_mapped(kind: str) -> None:
    # QueryStringQueryParser.extractMultiFields / SimpleQueryStringQueryParser.newPhraseQuery: a quoted part goes to
    # `field + quote_field_suffix` when that field is mapped (keeping the field's weight), else to the field itself
    docs = [{"id": "a", "t": "runs fast", "u": "running"}, {"id": "b", "t": "running fast"}]
    exact = {"type": "text", "analyzer": "standard"}
    mapping = {"mappings": {"properties": {"t": {"type": "text", "analyzer": "english", "fields": {"exact": exact}},
                                           "u": {"type": "text", "analyzer": "english"}}}}  # fmt: skip
    index = EmbeddedEngine().open(docs, mapping, "id")
    on_exact = hits(index, {"match_phrase": {"t.exact": "running"}})
    assert set(on_exact) == {"b"}
    body = {"query": '"running"', "fields": ["t^2"], "quote_field_suffix": ".exact"}
    assert hits(index, {kind: body}) == pytest.approx({"b": 2 * on_exact["b"]})
    assert set(hits(index, {kind: {**body, "fields": ["u"]}})) == {"a"}  # no u.exact: u itself
    assert set(hits(index, {kind: {**body, "query": "running"}})) == {"a", "b"}  # unquoted: the stemmed field


@pytest.mark.parametrize(
    ("text", "millis"),
    [("0", 0), ("000", 0), ("-1", -1), ("-01", -1), ("0d", 0), (" 12h ", 43_200_000), ("5 m", 300_000),
     ("2S", 2000), ("7ms", 7), ("2500micros", 2), ("1d", 86_400_000), ("-1d", -86_400_000)],
)  # fmt: skip
def test_durations_read_as_elasticsearchs_time_value(text: str, millis: int) -> None:
    assert time_value_millis(text, "p") == millis


@pytest.mark.parametrize("text", ["10", "2w", "1.5d", "5M", "-2d", "d", "", "1_0d", "0.0"])
def test_durations_time_value_refuses_are_errors(text: str) -> None:
    # TimeValue.parseTimeValue: no weeks, no fractions, `M` is not minutes, only 0 and -1 without a unit
    with pytest.raises(Invalid):
        time_value_millis(text, "p")


def test_date_decays_take_a_bare_zero_offset(index: EmbeddedIndex) -> None:
    def script(offset: str) -> dict[str, float]:
        source = f"decayDateGauss('2026-01-10', '10d', '{offset}', 0.5, doc['d'].value)"
        return hits(index, {"script_score": {"query": {"ids": {"values": ["1", "2"]}}, "script": source}})

    assert script("0") == script("0d") and script("0")["2"] == pytest.approx(0.5 ** ((365 / 10) ** 2))

    def gauss(offset: object) -> dict[str, float]:
        decay = {"d": {"origin": "2026-01-10", "scale": "10d", "offset": offset}}
        return hits(index, {"function_score": {"query": {"exists": {"field": "d"}}, "gauss": decay}})

    assert gauss("0") == gauss(0) == gauss("0d")
    with pytest.raises(RelevanceInputError, match="unit is missing"):
        gauss(86_400_000)  # Elasticsearch reads the number's text as a duration: no unit


def test_sort_on_a_multi_valued_field_picks_a_value_per_mode(index: EmbeddedIndex) -> None:
    # FieldSortBuilder: asc sorts by the smallest value, desc by the largest, unless `mode` says otherwise;
    # MultiValueMode's sum/avg/median exist for numbers only
    def ranked(target: EmbeddedIndex, sort: object) -> list[str]:
        found = target.search_many({"q": {"query": {"match_all": {}}, "sort": sort}}, 10, "query.yaml")["q"]
        return [doc for doc, _ in found]

    assert ranked(index, [{"n": "desc"}]) == ["4", "2", "1", "3", "5"]  # 4 holds [2, 30]
    assert ranked(index, [{"n": "asc"}]) == ["3", "4", "1", "2", "5"]
    assert ranked(index, [{"n": {"order": "asc", "mode": "max"}}]) == ["3", "1", "2", "4", "5"]
    assert ranked(index, [{"n": {"order": "asc", "mode": "AVG"}}]) == ["3", "1", "2", "4", "5"]  # 4: 16
    assert ranked(index, [{"n": {"order": "desc", "mode": "min"}}]) == ["2", "1", "4", "3", "5"]
    assert ranked(index, [{"tag": "desc"}, "_doc"]) == ["1", "3", "5", "2", "4"]  # 1 holds audio and sale
    with pytest.raises(RelevanceInputError, match="we only support AVG, MEDIAN and SUM on number based fields"):
        ranked(index, [{"tag": {"mode": "sum"}}])
    with pytest.raises(RelevanceInputError, match="Illegal sort mode: middle"):
        ranked(index, [{"n": {"mode": "middle"}}])
    # whole-number fields average and take an even median on the long path (Math.round), floats keep the fraction
    docs = [{"id": "a", "i": [1, 2], "f": [1, 2], "w": [1, 2, 3, 10]}, {"id": "b", "i": 2, "f": 2, "w": [3, 3]}]
    types = {"i": {"type": "integer"}, "f": {"type": "float"}, "w": {"type": "long"}}
    small = EmbeddedEngine().open(docs, {"mappings": {"properties": types}}, "id")
    assert ranked(small, [{"i": {"order": "desc", "mode": "avg"}}]) == ["a", "b"]  # 1.5 rounds to 2: a tie
    assert ranked(small, [{"f": {"order": "desc", "mode": "avg"}}]) == ["b", "a"]
    assert ranked(small, [{"i": {"order": "desc", "mode": "median"}}]) == ["a", "b"]
    assert ranked(small, [{"w": {"order": "desc", "mode": "median"}}]) == ["a", "b"]  # (2 + 3) / 2 rounds to 3
    assert ranked(small, [{"w": {"order": "desc", "mode": "sum"}}]) == ["a", "b"]  # 16 > 6


@pytest.mark.parametrize("kind", ["match_phrase", "match_phrase_prefix"])
def test_a_phrase_without_tokens_follows_zero_terms_query(index: EmbeddedIndex, kind: str) -> None:
    # Elasticsearch's MatchQueryParser: text analyzing to no token is a match_all with `zero_terms_query: all`
    assert hits(index, {kind: {"t": {"query": "!!", "zero_terms_query": "all", "boost": 2}}}) == dict.fromkeys(
        "12345", 2.0
    )
    assert hits(index, {kind: {"t": {"query": "!!"}}}) == {}
    phrase_type = kind.removeprefix("match_")
    multi = {"multi_match": {"query": "!!", "fields": ["t"], "type": phrase_type, "zero_terms_query": "all"}}
    assert hits(index, multi) == dict.fromkeys("12345", 1.0)
    with pytest.raises(RelevanceInputError, match=r"Unsupported zero_terms_query value \[some\]"):
        hits(index, {kind: {"t": {"query": "!!", "zero_terms_query": "some"}}})


def test_a_rewrite_picks_lucenes_rewrite_method(index: EmbeddedIndex) -> None:
    # "head*" expands to head (4, twice), headphone (2), headphones (1), headset (3), in term order
    assert hits(index, {"prefix": {"t": {"value": "head", "rewrite": "constant_score_boolean"}}}) == dict.fromkeys(
        "1234", 1.0
    )
    scoring = hits(index, {"prefix": {"t": {"value": "head", "rewrite": "scoring_boolean"}}})
    assert scoring == pytest.approx({"4": bm25("4", 2, 1), "1": bm25("1", 1, 1), "2": bm25("2", 1, 1),
                                     "3": bm25("3", 1, 1)}, rel=1e-6)  # fmt: skip
    top = hits(index, {"wildcard": {"t": {"value": "head*", "rewrite": "top_terms_1"}}})
    assert top == pytest.approx({"4": bm25("4", 2, 1)}, rel=1e-6)
    assert hits(index, {"regexp": {"t": {"value": "head.*", "rewrite": "top_terms_boost_2", "boost": 3}}}) == {
        "4": 3.0, "2": 3.0
    }  # fmt: skip
    # a fuzzy query with a rewrite other than its default is no longer bounded by max_expansions
    fuzzy = {"value": "headphnes", "max_expansions": 1}
    assert set(hits(index, {"fuzzy": {"t": fuzzy}})) == {"1"}
    assert hits(index, {"fuzzy": {"t": {**fuzzy, "rewrite": "constant_score"}}}) == {"1": 1.0, "2": 1.0}
    with pytest.raises(RelevanceInputError, match=r"Failed to parse rewrite_method \[scoring\]"):
        hits(index, {"wildcard": {"t": {"value": "head*", "rewrite": "scoring"}}})


def test_multi_match_refuses_the_option_pairs_elasticsearch_refuses(index: EmbeddedIndex) -> None:
    for kind in ("cross_fields", "phrase", "phrase_prefix"):
        multi = {"multi_match": {"query": "headphnes", "fields": ["t", "tag"], "type": kind, "fuzziness": 1}}
        with pytest.raises(RelevanceInputError, match=rf"Fuzziness not allowed for type \[{kind}\]"):
            hits(index, multi)
    with pytest.raises(RelevanceInputError, match=r"\[slop\] not allowed for type \[bool_prefix\]"):
        hits(index, {"multi_match": {"query": "head", "fields": ["t"], "type": "bool_prefix", "slop": 2}})
    # cutoff_frequency is gone from Elasticsearch 8: its refusal, not a gap of the embedded engine
    for query in (
        {"match": {"t": {"query": "head", "cutoff_frequency": 0.01}}},
        {"multi_match": {"query": "head", "fields": ["t"], "cutoff_frequency": 0.01}},
    ):
        with pytest.raises(RelevanceInputError, match=r"does not support \[cutoff_frequency\]") as error:
            hits(index, query)
        assert "elasticsearch engine supports it" not in str(error.value)


def test_a_pure_negative_bool_without_adjust_pure_negative_matches_nothing(index: EmbeddedIndex) -> None:
    # BoolQueryBuilder adds a match_all filter only when adjust_pure_negative is true (the default); Lucene matches
    # nothing for a boolean query of must_not clauses alone
    negative = {"must_not": [{"term": {"tag": "audio"}}]}
    assert hits(index, {"bool": negative}) == {"3": 0.0, "5": 0.0}
    assert hits(index, {"bool": {**negative, "adjust_pure_negative": False}}) == {}
    nested = {"bool": {"should": [{"bool": {**negative, "adjust_pure_negative": False}}, {"term": {"n": 1}}]}}
    assert set(hits(index, nested)) == {"3"}


def test_collapse_with_rescore_is_refused_as_elasticsearch_refuses_it(index: EmbeddedIndex) -> None:
    body = {"query": {"match": {"t": "headphones"}}, "collapse": {"field": "tag"},
            "rescore": {"query": {"rescore_query": {"match_all": {}}}}}  # fmt: skip
    with pytest.raises(RelevanceInputError, match="cannot use `collapse` in conjunction with `rescore`"):
        body_hits(index, body)


def test_function_score_without_functions_keeps_the_query_score_whatever_the_boost_mode(index: EmbeddedIndex) -> None:
    # FunctionScoreQueryBuilder makes FunctionScoreQuery(query, minScore, maxBoost), whose scorer returns the
    # query's score when there is no function: boost_mode replace does not turn every score into 1
    plain = hits(index, {"match": {"t": "headphones"}})
    for functions in ({}, {"functions": []}):
        query = {"function_score": {"query": {"match": {"t": "headphones"}}, "boost_mode": "replace", **functions}}
        assert hits(index, query) == plain


def test_a_date_range_reads_its_bounds_with_its_own_format_and_time_zone(index: EmbeddedIndex) -> None:
    utc = {"range": {"d": {"gte": "2025-01-10", "time_zone": "UTC", "format": "strict_date_optional_time"}}}
    assert set(hits(index, utc)) == {"1", "2"}
    assert set(hits(index, {"range": {"d": {"gte": "10/01/2025", "format": "dd/MM/yyyy"}}})) == {"1", "2"}
    with pytest.raises(RelevanceInputError, match=r"query\.range\.d\.gte|query\.range\.gte"):
        hits(index, {"range": {"d": {"gte": "2025-01-10", "format": "dd/MM/yyyy"}}})  # that format cannot read it
    # on a number they change nothing in Elasticsearch either
    assert set(hits(index, {"range": {"n": {"gte": 9, "time_zone": "+05:00"}}})) == {"2", "4"}


def test_multi_term_queries_on_a_keyword_apply_its_normalizer() -> None:
    # KeywordFieldType.indexedValueForSearch normalizes the prefix, fuzzy and regexp value and the range bounds;
    # a wildcard pattern has its text normalized around the wildcards (normalizeWildcardPattern)
    mapping = {
        "settings": {"analysis": {"normalizer": {"lower": {"type": "custom", "filter": ["lowercase"]}}}},
        "mappings": {"properties": {"k": {"type": "keyword", "normalizer": "lower"}}},
    }
    docs = [{"id": "1", "k": "Alpha"}, {"id": "2", "k": "alphabet"}, {"id": "3", "k": "Beta"}]
    lowered = EmbeddedEngine().open(docs, mapping, "id")
    assert set(hits(lowered, {"prefix": {"k": "ALP"}})) == {"1", "2"}
    assert set(hits(lowered, {"wildcard": {"k": {"value": "AL?HA*"}}})) == {"1", "2"}
    assert set(hits(lowered, {"regexp": {"k": "ALPHA"}})) == {"1"}
    assert set(hits(lowered, {"fuzzy": {"k": {"value": "ALPHX", "fuzziness": 1}}})) == {"1"}
    assert set(hits(lowered, {"range": {"k": {"gte": "B"}}})) == {"3"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        # Elasticsearch 1.x's top-level filter beside the query: SearchSourceBuilder's parsing error
        ({"query": {"match_all": {}}, "filter": {"term": {"tag": "audio"}}},
         'filter: Elasticsearch 8 refuses the key: "Unknown key for a START_OBJECT in [filter]." (Elasticsearch '
         "1.x's top-level filter: put it in query.bool.filter)"),
        ({"query2": {}}, 'query2: Elasticsearch 8 refuses the key: "Unknown key for a START_OBJECT in [query2]."'),
        # the 1.x function filter wrapper {query: {...}}: the inner query parser knows no query named `query`
        ({"query": {"function_score": {"functions": [{"filter": {"query": {"term": {"tag": "audio"}}}, "weight": 2}]}}},
         "query.function_score.functions[0].filter: unknown query [query], as Elasticsearch 8 refuses it: a clause "
         "is the query itself, {match: ...}, not the 1.x wrapper {query: {match: ...}}"),
        # a key the query's parser does not read (a misspelt option): its ParsingException
        ({"query": {"match": {"t": {"query": "head", "fuzzyness": 1}}}},
         "query.match: [match] query does not support [fuzzyness], as Elasticsearch 8 refuses it"),
        ({"query": {"multi_match": {"query": "head", "fields": ["t"], "tiebreaker": 0.3}}},
         "query.multi_match: [multi_match] query does not support [tiebreaker], as Elasticsearch 8 refuses it"),
        ({"query": {"bool": {"must": [{"match_all": {}}], "shuold": []}}},
         "query.bool: [bool] query does not support [shuold], as Elasticsearch 8 refuses it"),
        ({"query": {"term": {"tag": {"value": "audio", "boots": 2}}}},
         "query.term: [term] query does not support [boots], as Elasticsearch 8 refuses it"),
        ({"query": {"dis_max": {"queries": [{"match_all": {}}], "tie": 0.3}}},
         "query.dis_max: [dis_max] query does not support [tie], as Elasticsearch 8 refuses it"),
        ({"query": {"boosting": {"positive": {"match_all": {}}, "negative": {"match_all": {}}, "boost_neg": 1}}},
         "query.boosting: [boosting] query does not support [boost_neg], as Elasticsearch 8 refuses it"),
        ({"query": {"constant_score": {"filter": {"match_all": {}}, "score": 2}}},
         "query.constant_score: [constant_score] query does not support [score], as Elasticsearch 8 refuses it"),
        # the OpenSearch k-NN plugin's knn form
        ({"query": {"knn": {"v": {"vector": [1, 2], "k": 2}}}},
         "query.knn.v: [knn] unknown field [v], as Elasticsearch 8 refuses it: {field: {vector: ..., k: ...}} is the "
         "OpenSearch k-NN plugin's form; Elasticsearch's knn takes field, query_vector and k (the embedded engine "
         "runs that)"),
        # function_score keys FunctionScoreQueryBuilder.fromXContent refuses, in its words
        ({"query": {"function_score": {"query": {"match_all": {}}, "filter": {"query": {"term": {"tag": "audio"}}}}}},
         "query.function_score.filter: unknown field [filter]: no score function has that name, as Elasticsearch 8 "
         "refuses it (a filter goes in `functions: [{filter: ..., weight: ...}]`)"),
        ({"query": {"function_score": {"gauss": {"n": {"origin": 0, "scale": 1}}, "weight": 2}}},
         "query.function_score: failed to parse [function_score] query. already found function [gauss], now "
         "encountering [weight]. use [functions] array if you want to define several functions, as Elasticsearch 8 "
         "refuses it"),
        ({"query": {"function_score": {"functions": [{"weight": 2}], "weight": 3}}},
         "query.function_score: failed to parse [function_score] query. [you can either define [functions] array or "
         "a single function, not both. already found [functions] array, now encountering [weight].], as "
         "Elasticsearch 8 refuses it"),
        ({"query": {"function_score": {"query": {"match_all": {}}, "boost_factor": 2}}},
         "query.function_score.boost_factor: failed to parse [function_score] query. field [boost_factor] is not "
         "supported, as Elasticsearch 8 refuses it"),
        ({"query": {"constant_score": {"query": {"term": {"tag": "audio"}}}}},
         "query.constant_score.query: [constant_score] query does not support [query], as Elasticsearch 8 refuses "
         "it: its clause is `filter`"),
        ({"query": {"constant_score": {"boost": 2}}},
         "query.constant_score: [constant_score] requires a 'filter' element"),
        ({"query": {"common": {"t": {"query": "head phones", "cutoff_frequency": 0.001}}}},
         "query: unknown query [common], as Elasticsearch 8 refuses it: Common Terms Query usage is not supported. "
         "Use [match] query which can efficiently skip blocks of documents if the total number of hits is not "
         "tracked."),
        ({"query": {"filtered": {"query": {"match_all": {}}, "filter": {"term": {"tag": "audio"}}}}},
         "query: unknown query [filtered], as Elasticsearch 8 refuses it: removed in 5.0; write bool with must (the "
         "query) and filter"),
        # a query name Elasticsearch 8 does not know: a typo, with its suggestion, or a plugin's query
        ({"query": {"mtach": {"t": "head"}}},
         "query: unknown query [mtach] did you mean [match]?, as Elasticsearch 8 refuses it (unless a plugin adds it)"),
        ({"query": {"sltr": {"model": "m"}}},
         "query: the query [sltr] needs the ltr (o19s's Learning to Rank) plugin; the Elasticsearch engine with that "
         "plugin runs it"),
        ({"query": {"neural": {"v": {"query_text": "head", "k": 5}}}},
         "query: unknown query [neural]: it is the OpenSearch neural-search plugin's query, which Elasticsearch does "
         "not have"),
        ({"query": {"mlt": {"like": "head"}}},
         "query: unknown query [mlt], as Elasticsearch 8 refuses it (unless a plugin adds it)"),
        # one it knows and the embedded engine does not run
        ({"query": {"percolate": {"field": "q"}}},
         "'percolate' at query is not supported by the embedded engine (supported: *); the elasticsearch engine "
         "supports it"),
        # keys the embedded engine skips (they do not change the ranking) but Elasticsearch refuses the request for
        ({"aggs": {"words": {"terms": {"field": "t"}}}},
         "aggs.words.terms.field: Elasticsearch 8 refuses the request: Text fields are not optimised for operations "
         "that require per-document field data like aggregations and sorting, so these operations are disabled by "
         "default. Please use a keyword field instead. Alternatively, set fielddata=true on [t] in order to load "
         "field data by uninverting the inverted index. Note that this can use significant memory."),
        ({"aggregations": {"tags": {"terms": {"field": "tag"}, "aggs": {"w": {"significant_terms": {"field": "t"}}}}}},
         "aggregations.tags.aggs.w.significant_terms.field: Elasticsearch 8 refuses the request: Text fields *"),
        ({"highlight": {"type": "fvh", "fields": {"t": {}}}},
         "highlight.fields.t: Elasticsearch 8 refuses the request: the field [t] should be indexed with term vector "
         "with position offsets to be used with fast vector highlighter (term_vector: with_positions_offsets in its "
         "mapping)"),
        ({"suggest": {"text": "hedphones", "fix": {"term": {"field": "title"}}}},
         "suggest.fix.term.field: Elasticsearch 8 refuses the request: no mapping found for field [title]"),
        ({"suggest": {"auto": {"prefix": "hea", "completion": {"field": "tag"}}}},
         "suggest.auto.completion.field: Elasticsearch 8 refuses the request: Field [tag] is not a completion "
         "suggest field"),
        # a key Elasticsearch reads: the body keys the embedded engine runs are listed, not the query types
        ({"search_after": [1]},
         "'search_after' at the search body is not supported by the embedded engine (supported: _source, "
         "aggregations, aggs, collapse, docvalue_fields, explain, fields, from, highlight, knn, min_score, "
         "post_filter, profile, query, rescore, retriever, seq_no_primary_term, size, sort, stats, stored_fields, "
         "suggest, timeout, track_scores, track_total_hits, version); the elasticsearch engine supports it"),
        ({"ext": {"ltr_log": {}}},
         "ext: [ltr_log] is a search extension, which only a server plugin registers (Elasticsearch has none of its "
         "own); needs the plugin that provides it; the Elasticsearch engine with that plugin runs it"),
    ],
)  # fmt: skip
def test_bodies_elasticsearch_8_refuses_are_refused_with_its_reason(
    index: EmbeddedIndex, body: dict, message: str
) -> None:
    with pytest.raises(RelevanceInputError) as error:
        body_hits(index, body)
    expected = ".*".join(re.escape(part) for part in f"query.yaml: query 'q': {message}".split("*"))
    assert re.fullmatch(expected, str(error.value)), str(error.value)


def test_aggregations_highlighting_and_suggesters_elasticsearch_runs_are_still_skipped(index: EmbeddedIndex) -> None:
    plain = body_hits(index, {"query": {"match": {"t": "headphones"}}})
    body = {"query": {"match": {"t": "headphones"}}, "aggs": {"tags": {"terms": {"field": "tag"}}},
            "highlight": {"fields": {"t": {}, "tag": {"type": "unified"}, "unmapped": {"type": "fvh"}}},
            "suggest": {"text": "hedphones", "fix": {"term": {"field": "t"}}}}  # fmt: skip
    assert body_hits(index, body) == plain
    vectors = EmbeddedEngine().open(DOCS, {"mappings": {"properties": {
        "t": {"type": "text", "term_vector": "with_positions_offsets", "fielddata": True}}}}, "id")  # fmt: skip
    fvh = {"query": {"match": {"t": "headphones"}}, "highlight": {"type": "fvh", "fields": {"t": {}}},
           "aggs": {"words": {"terms": {"field": "t"}}}}  # fmt: skip
    assert [doc for doc, _ in body_hits(vectors, fvh)] == [doc for doc, _ in plain]


RANDOM_REPEATS = Path(__file__).resolve().parent.parent / "data" / "lucene_extra" / "u_sloppy_repeats_random.json.gz"


def test_random_phrases_repeating_terms_score_as_lucenes_sloppy_phrase_matcher() -> None:
    """Every hit and score of real Lucene 9.9.1 (tests/lucene_extra/sloppy_repeats.py) for random phrases of 2 to 4
    words with repeats adjacent, apart, through a synonym and across stopword holes, slop 0..3: the cases nobody
    wrote by hand. A phrase left with one position of synonyms (`c c tv`) is Lucene's SynonymQuery, not a sum of
    its terms."""
    data = json.loads(gzip.decompress(RANDOM_REPEATS.read_bytes()))
    stop = {"type": "stop", "stopwords": data["stopwords"]}
    analysis = {"filter": {"tv": {"type": "synonym_graph", "synonyms": data["synonyms"]}, "c": stop},
                "analyzer": {"tv": {"tokenizer": "standard", "filter": ["lowercase", "c", "tv"]},
                             "std": {"type": "standard", "stopwords": data["stopwords"]}}}  # fmt: skip
    field = {"type": "text", "analyzer": "std", "search_analyzer": "tv"}
    config = {"settings": {"analysis": analysis}, "mappings": {"properties": {"body": field}}}
    index = EmbeddedEngine().open([{"id": str(i), "body": t} for i, t in enumerate(data["docs"], 1)], config, "id")
    bodies = {}
    for key in data["runs"]:
        text, slop = key.rsplit("~", 1)
        bodies[key] = {"query": {"match_phrase": {"body": {"query": text, "slop": int(slop)}}}}
    ours = index.search_many(bodies, index.n, "random repeats")
    for key, reference in data["runs"].items():
        assert dict(ours[key]) == pytest.approx(dict(reference), rel=1e-6), key
    assert sum(map(len, data["runs"].values())) > 10_000  # the reference is not empty
    synonyms = index.search_many({"m": {"query": {"match": {"body": "tv"}}}}, index.n, "match")["m"]
    assert dict(ours["c c tv~0"]) == pytest.approx(dict(synonyms))  # one position: the match query's SynonymQuery


def test_rank_features_each_key_a_feature_and_an_unmapped_feature_matches_nothing(tmp_path: Path) -> None:
    """RankFeaturesFieldMapper: `f.pop` is a feature of the rank_features field `f`, scored as a rank_feature field
    (the saturation pivot the mean of its stored values, FeatureField's encoding); RankFeatureQueryBuilder rewrites
    a feature no document has, or an unmapped field, to match_none. The same from the index cache."""
    docs = [{"id": "a", "f": {"pop": 3.0, "new": 1.5}}, {"id": "b", "f": {"pop": 1.0}}, {"id": "c"}]
    mapping = {"mappings": {"properties": {"f": {"type": "rank_features"}}}}
    for engine in (EmbeddedEngine(), EmbeddedEngine(tmp_path), EmbeddedEngine(tmp_path)):
        index = engine.open(docs, mapping, "id")
        pivot = 1.75  # the stored frequencies of 3.0 and 1.0 (0x8080, 0x7f00) average to 0x7fc0: 1.75
        assert hits(index, {"rank_feature": {"field": "f.pop"}}) == {
            "a": float(np.float32(1) - np.float32(pivot) / np.float32(3.0 + pivot)),
            "b": float(np.float32(1) - np.float32(pivot) / np.float32(1.0 + pivot)),
        }
        assert set(hits(index, {"rank_feature": {"field": "f.new", "log": {"scaling_factor": 1}}})) == {"a"}
        assert hits(index, {"rank_feature": {"field": "f.none"}}) == {}
        assert hits(index, {"rank_feature": {"field": "nope"}}) == {}
