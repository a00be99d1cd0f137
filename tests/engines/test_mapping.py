"""Mapping parameters of Elasticsearch 8 create-index bodies in the embedded engine, each against what Elasticsearch
documents for it: the value it indexes, what a query then matches, and one clear error for what is not supported."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
import time_machine

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.errors import RelevanceInputError


def open_index(properties: dict[str, Any], docs: list[dict[str, Any]], **mappings: Any) -> EmbeddedIndex:
    return EmbeddedEngine().open(docs, {"mappings": {**mappings, "properties": properties}}, "id", "index.yaml")


def hits(index: EmbeddedIndex, query: dict[str, Any], **body: Any) -> list[tuple[str, float]]:
    found = index.search_many({"q": {"query": query, **body}}, 10, "query.yaml")["q"]
    return [(doc, round(score, 4)) for doc, score in found]


def ids(index: EmbeddedIndex, query: dict[str, Any], **body: Any) -> list[str]:
    return sorted(doc for doc, _ in hits(index, query, **body))


def open_error(properties: dict[str, Any], docs: list[dict[str, Any]], **mappings: Any) -> str:
    with pytest.raises(RelevanceInputError) as caught:
        open_index(properties, docs, **mappings)
    return str(caught.value)


# null_value ---------------------------------------------------------------------------------------------------------

NULLS = [
    {"id": "1", "brand": "sony", "stock": 3, "sale": True, "released": "2024-01-01"},
    {"id": "2", "brand": None, "stock": None, "sale": None, "released": None},
    {"id": "3", "brand": [None, "jbl"], "stock": [None, 5]},
    {"id": "4"},
]


@pytest.fixture(scope="module")
def nulls() -> EmbeddedIndex:
    return open_index(
        {
            "brand": {"type": "keyword", "null_value": "NULL"},
            "stock": {"type": "integer", "null_value": 0},
            "sale": {"type": "boolean", "null_value": False},
            "released": {"type": "date", "null_value": "1970-01-02"},
        },
        NULLS,
    )


def test_an_explicit_null_is_indexed_as_the_null_value(nulls: EmbeddedIndex) -> None:
    # Elasticsearch: "replaces explicit null values with the specified value"; a missing field is not null
    assert ids(nulls, {"term": {"brand": "NULL"}}) == ["2", "3"]
    assert ids(nulls, {"range": {"stock": {"lte": 0}}}) == ["2", "3"]
    assert ids(nulls, {"term": {"sale": False}}) == ["2"]
    assert ids(nulls, {"range": {"released": {"lt": "1971-01-01"}}}) == ["2"]
    assert ids(nulls, {"exists": {"field": "brand"}}) == ["1", "2", "3"]


def test_a_null_value_that_does_not_fit_the_type_is_a_mapping_error() -> None:
    message = open_error({"stock": {"type": "integer", "null_value": "none"}}, NULLS)
    assert message.startswith("index.yaml: field 'stock': null_value 'none' is not a number")


def test_null_value_on_a_text_field_is_a_mapping_error_as_in_elasticsearch() -> None:
    assert open_error({"title": {"type": "text", "null_value": "x"}}, NULLS).startswith(
        "index.yaml: mappings.properties.title.null_value: unknown parameter [null_value] on mapper [title] of type "
        "[text], as Elasticsearch 8 refuses it; its parameters: analyzer, copy_to, eager_global_ordinals, "
    )


# enabled: false -----------------------------------------------------------------------------------------------------

DISABLED = [
    {"id": "1", "title": "laptop stand", "meta": {"notes": "headphones", "deep": {"x": [1, "two", {"y": None}]}}},
    {"id": "2", "title": "headphones", "meta": {"notes": {"a": 1}}},
    {"id": "3", "title": "charger", "meta.notes": "headphones", "meta": "just a string"},
]


@pytest.mark.parametrize(
    "meta", [{"type": "object", "enabled": False}, {"enabled": False}, {"enabled": "false", "properties": {}}]
)
def test_a_disabled_object_is_neither_indexed_nor_mapped(meta: dict[str, Any]) -> None:
    index = open_index({"title": {"type": "text"}, "meta": meta}, DISABLED)
    assert [name for name in index.fields if name.startswith("meta")] == []
    assert ids(index, {"query_string": {"query": "headphones"}}) == ["2"]


def test_a_disabled_object_inside_another_is_skipped_at_its_depth() -> None:
    docs = [{"id": "1", "a": {"b": {"c": "headphones"}, "d": "kept"}}]
    index = open_index({"a": {"properties": {"b": {"type": "object", "enabled": False}}}}, docs)
    assert sorted(index.fields) == ["a.d", "a.d.keyword", "id", "id.keyword"]


def test_a_disabled_root_maps_nothing() -> None:
    assert open_index({}, DISABLED, enabled=False).fields == {}


# field types --------------------------------------------------------------------------------------------------------

PRODUCTS = [
    {"id": "1", "title": "Wireless Noise-Cancelling Headphones", "sku": "WH-1", "price": 1.234, "kind": "product"},
    {"id": "2", "title": "the wired headphones", "sku": "AT-2", "price": 1.235},
    {"id": "3", "title": "Bluetooth Speaker", "sku": "JBL-3", "price": 1.2449, "kind": None},
]


def test_token_count_indexes_the_count_of_its_analyzers_positions() -> None:
    # Elasticsearch's docs example: a token_count multi-field of a text field; the `stop` analyzer drops "the",
    # whose position still counts (enable_position_increments defaults to true)
    index = open_index(
        {
            "title": {
                "type": "text",
                "fields": {
                    "length": {"type": "token_count", "analyzer": "standard"},
                    "words": {"type": "token_count", "analyzer": "stop"},
                    "advancing": {"type": "token_count", "analyzer": "stop", "enable_position_increments": False},
                },
            }
        },
        PRODUCTS,
    )
    assert ids(index, {"range": {"title.length": {"lte": 2}}}) == ["3"]
    assert ids(index, {"term": {"title.length": 4}}) == ["1"]
    assert ids(index, {"term": {"title.words": 3}}) == ["2"]
    assert ids(index, {"term": {"title.advancing": 2}}) == ["2", "3"]


def test_token_count_without_an_analyzer_is_a_mapping_error() -> None:
    message = open_error({"title": {"type": "text", "fields": {"length": {"type": "token_count"}}}}, PRODUCTS)
    assert "mappings.properties.title.fields.length.analyzer: a token_count field needs an analyzer" in message


@pytest.mark.parametrize(("spec", "expected"), [({"value": "product"}, ["1", "2", "3"]), ({}, ["1", "2", "3"])])
def test_constant_keyword_gives_every_document_its_value(spec: dict[str, Any], expected: list[str]) -> None:
    # the mapping's value, or the first document's: Elasticsearch's term query is then a MatchAllDocsQuery (score 1)
    index = open_index({"kind": {"type": "constant_keyword", **spec}}, PRODUCTS)
    assert hits(index, {"term": {"kind": {"value": "product", "boost": 2}}}) == [(i, 2.0) for i in expected]
    assert hits(index, {"term": {"kind": "service"}}) == []
    assert ids(index, {"exists": {"field": "kind"}}) == expected


def test_constant_keyword_refuses_a_document_with_another_value() -> None:
    message = open_error({"kind": {"type": "constant_keyword", "value": "service"}}, PRODUCTS)
    assert "document '1': field 'kind' is a constant_keyword of value 'service' but holds 'product'" in message


def test_a_keyword_searched_through_doc_values_scores_a_constant() -> None:
    # Elasticsearch 8 KeywordFieldType.termQuery on a field with index: false is SortedSetDocValuesField's
    # newSlowExactQuery, a constant-score query: the boost, not BM25 (match builds the same term query)
    index = open_index({"sku": {"type": "keyword", "index": False}}, PRODUCTS)
    assert hits(index, {"term": {"sku": "JBL-3"}}) == [("3", 1.0)]
    assert hits(index, {"match": {"sku": {"query": "AT-2", "boost": 3}}}) == [("2", 3.0)]
    indexed = open_index({"sku": {"type": "keyword"}}, PRODUCTS)
    assert hits(indexed, {"term": {"sku": "JBL-3"}}) == [("3", 0.9808)]


def test_a_field_neither_indexed_nor_with_doc_values_cannot_be_searched() -> None:
    index = open_index({"sku": {"type": "keyword", "index": False, "doc_values": False}}, PRODUCTS)
    with pytest.raises(RelevanceInputError, match="has index: false and doc_values: false"):
        hits(index, {"term": {"sku": "JBL-3"}})


def test_scaled_float_keeps_the_value_rounded_to_its_scaling_factor() -> None:
    # stored as Math.round(value x 100): 1.234 -> 123, 1.235 -> 124 (half up), 1.2449 -> 124
    index = open_index({"price": {"type": "scaled_float", "scaling_factor": 100}}, PRODUCTS)
    assert ids(index, {"range": {"price": {"gte": 1.235}}}) == ["2", "3"]
    assert ids(index, {"range": {"price": {"gt": 1.23}}}) == ["2", "3"]
    assert ids(index, {"range": {"price": {"lt": 1.24}}}) == ["1"]
    assert ids(index, {"range": {"price": {"lte": 1.2399}}}) == ["1"]
    assert ids(index, {"term": {"price": 1.2351}}) == ["2", "3"]
    # 2 and 3 both hold 1.24 after rounding: tied, they sort by id
    assert [d for d, _ in hits(index, {"match_all": {}}, sort=[{"price": "desc"}])] == ["2", "3", "1"]


def test_scaled_float_needs_a_positive_scaling_factor() -> None:
    message = open_error({"price": {"type": "scaled_float"}}, PRODUCTS)
    assert "mappings.properties.price.scaling_factor: a scaled_float needs a positive number scaling_factor" in message


# what the engine does not read: one error, never a silently different mapping ------------------------------------


@pytest.mark.parametrize("fmt", ["yyyy-MM-dd{", "strict_date||", "yyyy-MM-dd G"])
def test_a_date_format_elasticsearch_or_the_engine_cannot_read_is_one_error(fmt: str) -> None:
    message = open_error({"released": {"type": "date", "format": fmt}}, [{"id": "1", "released": 1700000000}])
    assert message.startswith("index.yaml: mappings.properties.released.format: ")


def test_the_iso_and_epoch_millis_formats_read_as_the_default() -> None:
    docs = [{"id": "1", "released": "2024-03-01"}, {"id": "2", "released": 1709251200000}]
    for fmt in (
        "strict_date_optional_time||epoch_millis",
        "date_optional_time||epoch_millis",
        "strict_date||epoch_millis",
    ):
        index = open_index({"released": {"type": "date", "format": fmt}}, docs)
        assert ids(index, {"range": {"released": {"gte": "2024-03-01", "lte": "2024-03-01"}}}) == ["1", "2"]
    # without epoch_millis in the list, a number is read by the pattern alone: Elasticsearch refuses it too
    message = open_error({"released": {"type": "date", "format": "date_optional_time"}}, docs)
    assert "document '2': field 'released' is mapped as date" in message
    assert "failed to parse date field [1709251200000] with format [date_optional_time]" in message


def test_what_elasticsearch_refuses_too_is_not_blamed_on_the_engine() -> None:
    index = open_index({"title": {"type": "text"}, "notes": {"type": "text", "index": False}}, [{"id": "1"}])
    for body, said in [
        ({"query": {"match": {"notes": "x"}}}, "field 'notes' has index: false, so Elasticsearch cannot search it"),
        ({"query": {"match_all": {}}, "sort": ["title"]}, "Elasticsearch refuses to sort on the text field 'title'"),
    ]:
        with pytest.raises(RelevanceInputError) as caught:
            index.search_many({"q": body}, 10, "query.yaml")
        assert said in str(caught.value) and "engine supports it" not in str(caught.value)


def test_an_updateable_synonym_filter_is_refused_at_index_time_as_elasticsearch_refuses_it() -> None:
    analysis = {
        "filter": {"syn": {"type": "synonym_graph", "synonyms": ["tv, television"], "updateable": True}},
        "analyzer": {"with_syn": {"tokenizer": "standard", "filter": ["lowercase", "syn"]}},
    }
    docs = [{"id": "1", "title": "a tv"}]
    indexed = {"mappings": {"properties": {"title": {"type": "text", "analyzer": "with_syn"}}}}
    with pytest.raises(RelevanceInputError) as caught:
        EmbeddedEngine().open(docs, {"settings": {"analysis": analysis}, **indexed}, "id", "index.yaml")
    assert (
        "mappings.properties.title.analyzer: analyzer 'with_syn' contains filters ['syn'] that are not allowed to "
        "run in index time mode" in str(caught.value)
    )
    searched = {"mappings": {"properties": {"title": {"type": "text", "search_analyzer": "with_syn"}}}}
    index = EmbeddedEngine().open(docs, {"settings": {"analysis": analysis}, **searched}, "id", "index.yaml")
    assert ids(index, {"match": {"title": "television"}}) == ["1"]


# a field the mappings lack ------------------------------------------------------------------------------------------


def test_a_leaf_query_on_an_unmapped_field_matches_nothing_as_elasticsearch_rewrites_it() -> None:
    index = open_index({"title": {"type": "text"}}, [{"id": "1", "title": "red shoe"}, {"id": "2", "title": "shoe"}])
    for leaf in (
        {"term": {"deleted": True}},
        {"exists": {"field": "deleted_at"}},
        {"match": {"colour": "red"}},
        {"range": {"stock": {"gt": 0}}},
        {"prefix": {"sku": "ab"}},
    ):
        assert ids(index, leaf) == []
        assert ids(index, {"bool": {"must": {"match": {"title": "shoe"}}, "must_not": leaf}}) == ["1", "2"]
    both = hits(index, {"multi_match": {"query": "red", "fields": ["title^2", "colour"]}})
    assert both == hits(index, {"multi_match": {"query": "red", "fields": ["title^2"]}})
    assert ids(index, {"multi_match": {"query": "red", "fields": ["colour"]}}) == []
    assert ids(index, {"query_string": {"query": "colour:red AND title:shoe"}}) == []
    assert ids(index, {"query_string": {"query": "colour:red OR title:red"}}) == ["1"]
    assert ids(index, {"query_string": {"query": "_exists_:colour"}}) == []


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"query": {"match_all": {}}, "sort": [{"colour": "asc"}]}, "sort[0]: field 'colour' is not in the index"),
        (
            {"query": {"function_score": {"field_value_factor": {"field": "stock"}}}},
            "field_value_factor.field: Unable to find a field mapper for field [stock]. No 'missing' value defined., "
            "as Elasticsearch 8 refuses it",
        ),
    ],
)
def test_elsewhere_an_unmapped_field_is_refused_as_elasticsearch_refuses_it(body: dict[str, Any], said: str) -> None:
    index = open_index({"title": {"type": "text"}}, [{"id": "1", "title": "red shoe"}])
    with pytest.raises(RelevanceInputError) as caught:
        index.search_many({"q": body}, 10, "query.yaml")
    assert said in str(caught.value)


def test_field_value_factor_on_an_unmapped_field_with_missing_scores_every_document_by_missing() -> None:
    # FieldValueFactorFunctionBuilder throws only when `missing` is null; without field data every value is missing
    index = open_index({"title": {"type": "text"}}, [{"id": "1", "title": "red shoe"}, {"id": "2", "title": "red"}])
    match = {"match": {"title": "red"}}
    plain = dict(hits(index, match))
    for modifier, expected in (("none", 3.0), ("sqrt", 3.0**0.5), ("log1p", math.log10(4.0))):
        function = {"field": "stock", "missing": 1.5, "factor": 2, "modifier": modifier}
        scored = dict(hits(index, {"function_score": {"query": match, "field_value_factor": function}}))
        assert scored == pytest.approx({doc: score * expected for doc, score in plain.items()}, abs=2e-4)
    bad = {
        "function_score": {"query": match, "field_value_factor": {"field": "stock", "missing": 0, "modifier": "log"}}
    }
    with pytest.raises(RelevanceInputError, match=r"Result of field modification \[log\(0\.0\)\] must be a number"):
        hits(index, bad)


def test_a_date_decay_without_origin_decays_from_now_the_frozen_clock() -> None:
    # DecayFunctionBuilder.parseDateVariable: origin defaults to now; a numeric decay needs both
    docs = [
        {"id": "1", "title": "red", "released": "2024-01-10"},
        {"id": "2", "title": "red", "released": "2023-01-01"},
    ]
    index = open_index({"title": {"type": "text"}, "released": {"type": "date"}, "stock": {"type": "integer"}}, docs)
    with time_machine.travel("2024-01-15T00:00:00Z", tick=False):
        without = hits(index, {"function_score": {"gauss": {"released": {"scale": "10d"}}}})
        with_now = hits(index, {"function_score": {"gauss": {"released": {"origin": "2024-01-15", "scale": "10d"}}}})
    assert without == with_now and [doc for doc, _ in without] == ["1", "2"]
    with pytest.raises(RelevanceInputError, match=r"both \[scale\] and \[origin\] must be set for numeric fields"):
        hits(index, {"function_score": {"gauss": {"stock": {"scale": 10}}}})


@pytest.mark.parametrize(("start", "expected"), [("0", ["1", "2"]), ("1", ["2"]), (1.0, ["2"]), ("1.7", ["2"])])
def test_from_is_coerced_as_elasticsearch_reads_an_int(start: Any, expected: list[str]) -> None:
    index = open_index({"title": {"type": "text"}}, [{"id": "1", "title": "red red"}, {"id": "2", "title": "red"}])
    assert [doc for doc, _ in hits(index, {"match": {"title": "red"}}, **{"from": start})] == expected


@pytest.mark.parametrize("start", ["one", True, -1, [1]])
def test_a_from_that_is_no_number_or_negative_is_refused(start: Any) -> None:
    index = open_index({"title": {"type": "text"}}, [{"id": "1", "title": "red"}])
    with pytest.raises(RelevanceInputError, match="from"):
        hits(index, {"match": {"title": "red"}}, **{"from": start})


def test_exists_on_an_object_or_a_pattern_matches_any_of_its_fields() -> None:
    properties = {"user": {"properties": {"name": {"type": "keyword"}, "age": {"type": "integer"}}}}
    docs = [{"id": "1", "user": {"name": "a"}}, {"id": "2", "user": {"age": 3}}, {"id": "3"}, {"id": "4", "user": {}}]
    index = open_index(properties, docs)
    assert ids(index, {"exists": {"field": "user"}}) == ["1", "2"]
    assert ids(index, {"exists": {"field": "user.*"}}) == ["1", "2"]
    assert ids(index, {"exists": {"field": "*.age"}}) == ["2"]
    assert ids(index, {"exists": {"field": "user.name"}}) == ["1"]
    assert ids(index, {"exists": {"field": "account"}}) == []


def test_from_and_size_beyond_the_result_window_are_refused_as_elasticsearch_refuses_them() -> None:
    docs = [{"id": "1", "title": "red"}]
    index = open_index({"title": {"type": "text"}}, docs)
    with pytest.raises(RelevanceInputError) as caught:
        index.search_many({"q": {"query": {"match_all": {}}, "from": 9995}}, 10, "query.yaml")
    assert "from + size must be less than or equal to: [10000] but was [10005]" in str(caught.value)
    wider = EmbeddedEngine().open(docs, {"settings": {"index": {"max_result_window": "20000"}}}, "id", "index.yaml")
    assert wider.search_many({"q": {"query": {"match_all": {}}, "from": 9995}}, 10, "query.yaml")["q"] == []
    with pytest.raises(RelevanceInputError, match="max_result_window: 'lots' is not a whole number >= 1"):
        EmbeddedEngine().open(docs, {"settings": {"index.max_result_window": "lots"}}, "id", "index.yaml")


def test_a_sort_on_an_unmapped_field_with_unmapped_type_changes_no_order_and_score_takes_order_alone() -> None:
    index = open_index({"title": {"type": "text"}}, [{"id": "1", "title": "red red"}, {"id": "2", "title": "red"}])
    query = {"match": {"title": "red"}}
    ranked = [doc for doc, _ in hits(index, query)]
    sort = [{"price": {"order": "asc", "unmapped_type": "long"}}, "_score"]
    assert [doc for doc, _ in hits(index, query, sort=sort)] == ranked
    with pytest.raises(RelevanceInputError, match=r"sort\[0\]\.mode: \[_score\] sorts take only 'order'"):
        hits(index, query, sort=[{"_score": {"order": "desc", "mode": "max"}}])


# what Elasticsearch 8 refuses, and what needs a server plugin ---------------------------------------------------------


@pytest.mark.parametrize(
    ("properties", "mappings", "message"),
    [
        ({"t": {"type": "text"}}, {"_all": {"enabled": True}},
         "mappings._all: Root mapping definition has unsupported parameters:  [_all : {enabled=true}], as "
         "Elasticsearch 8 refuses it (the _all field was removed in 7.0): copy_to a text field of your own and "
         "search that field"),
        ({"t": {"type": "text", "include_in_all": False}}, {},
         "mappings.properties.t.include_in_all: unknown parameter [include_in_all] on mapper [t] of type [text], as "
         "Elasticsearch 8 refuses it (the _all field was removed in 7.0): use copy_to"),
        ({"o": {"properties": {"t": {"type": "string"}}}}, {},
         "mappings.properties.o.properties.t.type: No handler for type [string] declared on field [t], as "
         "Elasticsearch 8 refuses it (removed in 5.0): map it as text (searched by words) or keyword (exact values)"),
        ({"v": {"type": "knn_vector", "dimension": 3}}, {},
         "mappings.properties.v.type: the field type 'knn_vector' is the OpenSearch k-NN plugin's, which "
         "Elasticsearch does not have; map the field as Elasticsearch's dense_vector (with dims), which the "
         "embedded engine runs"),
        ({"k": {"type": "icu_collation_keyword"}}, {},
         "mappings.properties.k.type: the field type 'icu_collation_keyword' needs the analysis-icu plugin; the "
         "Elasticsearch engine with that plugin runs it"),
        # a copy_to target the mappings lack: what Elasticsearch does with it depends on `dynamic`
        ({"t": {"type": "text", "copy_to": "all"}}, {"dynamic": "strict"},
         "t: copy_to 'all': mapping set to strict, dynamic introduction of [all] within [_doc] is not allowed, as "
         "Elasticsearch 8 refuses it at the first document: add 'all' to mappings.properties"),
        ({"t": {"type": "text", "copy_to": "all"}}, {"dynamic": False},
         "t: copy_to 'all': with dynamic: false, Elasticsearch indexes nothing under 'all', so a query on it matches "
         "nothing; add it to mappings.properties"),
        ({"k": {"type": "keywrd"}}, {},
         "mappings.properties.k.type: unknown field type 'keywrd'; check the spelling (Elasticsearch types)"),
        # copy_to into a nested document from outside it
        ({"t": {"type": "text", "copy_to": "o.t"}, "o": {"type": "nested", "properties": {"t": {"type": "text"}}}},
         {},
         "t: copy_to 'o.t': Illegal combination of [copy_to] and [nested] mappings: [copy_to] may only copy data to "
         "the current nested document or any of its parents, however one [copy_to] directive is trying to copy "
         "data from nested object [null] to [o], as Elasticsearch 8 refuses it"),
    ],
)  # fmt: skip
def test_mappings_elasticsearch_8_refuses_or_a_plugin_maps_are_named_so(
    properties: dict[str, Any], mappings: dict[str, Any], message: str
) -> None:
    assert open_error(properties, [{"id": "1"}], **mappings) == f"index.yaml: {message}"


@pytest.mark.parametrize(
    ("properties", "message"),
    [
        # FieldMapper.Builder.parse: boost was removed from mappings in 8.0, on every field type
        ({"title": {"type": "text", "boost": 2}},
         "mappings.properties.title.boost: Unknown parameter [boost] on mapper [title], as Elasticsearch 8 refuses "
         "it (index-time boosts were removed in 8.0): boost the field in the query instead (`title^2` in fields)"),
        ({"o": {"properties": {"loc": {"type": "geo_point", "boost": 2}}}},
         "mappings.properties.o.properties.loc.boost: Unknown parameter [boost] on mapper [loc], as "),
        # any key the type's mapper does not read: a parameter of another type, a misspelling, on a multi-field too
        ({"sku": {"type": "keyword", "analyzer": "english"}},
         "mappings.properties.sku.analyzer: unknown parameter [analyzer] on mapper [sku] of type [keyword], as "
         "Elasticsearch 8 refuses it; its parameters: copy_to, doc_values, eager_global_ordinals, fields, "
         "ignore_above, index, index_options, meta, normalizer, norms, null_value, on_script_error, script, "
         "similarity, split_queries_on_whitespace, store, synthetic_source_keep, time_series_dimension"),
        ({"title": {"type": "text", "fields": {"raw": {"type": "keyword", "ignore_abov": 256}}}},
         "mappings.properties.title.fields.raw.ignore_abov: unknown parameter [ignore_abov] on mapper [raw] of type "
         "[keyword], as Elasticsearch 8 refuses it"),
        ({"n": {"type": "integer", "scaling_factor": 10}},
         "mappings.properties.n.scaling_factor: unknown parameter [scaling_factor] on mapper [n] of type [integer]"),
        ({"d": {"type": "date", "normalizer": "lower"}},
         "mappings.properties.d.normalizer: unknown parameter [normalizer] on mapper [d] of type [date]"),
        ({"b": {"type": "boolean", "coerce": True}},
         "mappings.properties.b.coerce: unknown parameter [coerce] on mapper [b] of type [boolean]"),
        ({"t": {"type": "match_only_text", "analyzer": "english"}},
         "mappings.properties.t.analyzer: unknown parameter [analyzer] on mapper [t] of type [match_only_text]"),
        # ObjectMapper: the keys it does not read are checkNoRemainingFields' unsupported parameters
        ({"author": {"properties": {"name": {"type": "text"}}, "boost": 2}},
         "mappings.properties.author.boost: Mapping definition for [author] has unsupported parameters:  "
         "[boost : 2], as Elasticsearch 8 refuses it"),
        ({"meta": {"enabled": False, "boost": 2}},
         "mappings.properties.meta.boost: Mapping definition for [meta] has unsupported parameters:  [boost : 2]"),
        ({"o": {"type": "object", "include_in_root": True, "properties": {}}},
         "mappings.properties.o.include_in_root: Mapping definition for [o] has unsupported parameters:  "
         "[include_in_root : true], as Elasticsearch 8 refuses it; its parameters: dynamic, enabled, properties, "
         "subobjects, synthetic_source_keep"),
    ],
)  # fmt: skip
def test_a_parameter_the_mapper_does_not_read_is_refused_as_elasticsearch_8_refuses_it(
    properties: dict[str, Any], message: str
) -> None:
    assert open_error(properties, [{"id": "1"}]).startswith(f"index.yaml: {message}")


def test_every_parameter_elasticsearch_8_reads_is_accepted() -> None:
    properties = {
        "title": {"type": "text", "store": True, "index": True, "norms": True, "similarity": "BM25",
                  "index_options": "offsets", "term_vector": "with_positions_offsets", "eager_global_ordinals": False,
                  "fielddata": False, "fielddata_frequency_filter": {"min": 0.001}, "position_increment_gap": 50,
                  "index_phrases": False, "index_prefixes": None, "analyzer": "english", "search_analyzer": "english",
                  "search_quote_analyzer": "english", "meta": {"unit": "words"}, "copy_to": "all",
                  "synthetic_source_keep": "none",
                  "fields": {"raw": {"type": "keyword", "ignore_above": 256, "null_value": "-", "doc_values": True,
                                     "split_queries_on_whitespace": False, "time_series_dimension": False,
                                     "index_options": "docs", "norms": False, "eager_global_ordinals": True}}},
        "all": {"type": "text"},
        "price": {"type": "scaled_float", "scaling_factor": 100, "coerce": True, "ignore_malformed": True,
                  "null_value": 0, "time_series_metric": "gauge"},
        "stock": {"type": "integer", "coerce": False, "doc_values": True, "store": False, "on_script_error": "fail"},
        "words": {"type": "token_count", "analyzer": "standard", "enable_position_increments": True},
        "when": {"type": "date", "format": "yyyy-MM-dd", "locale": "en", "ignore_malformed": True, "null_value": None},
        "sale": {"type": "boolean", "null_value": False, "doc_values": True, "index": True},
        "tag": {"type": "constant_keyword", "value": "x"},
        "loc": {"type": "geo_point", "ignore_malformed": True, "ignore_z_value": True, "null_value": "0,0"},
        "parts": {"type": "nested", "include_in_parent": True, "include_in_root": False, "dynamic": "strict",
                  "properties": {"name": {"type": "keyword"}}},
        "meta_obj": {"type": "object", "dynamic": True, "enabled": True, "subobjects": True, "properties": {}},
    }  # fmt: skip
    index = open_index(properties, [{"id": "1", "title": "Running dogs", "price": 1.5, "sale": None}])
    assert index.fields["title.raw"].type == "keyword"


def test_copy_to_from_a_nested_object_into_a_root_field() -> None:
    """Each nested object's value goes into the root document's field (its parent, as DocumentParser copies it);
    the nested query still reaches the objects themselves."""
    properties = {
        "title": {"type": "text", "copy_to": "all"},
        "all": {"type": "text"},
        "parts": {"type": "nested", "properties": {"name": {"type": "text", "copy_to": "all"}}},
    }
    docs = [
        {"id": "1", "title": "boots", "parts": [{"name": "red laces"}, {"name": "green sole"}]},
        {"id": "2", "title": "shoes", "parts": [{"name": "blue laces"}]},
    ]
    index = open_index(properties, docs)
    assert [doc for doc, _ in hits(index, {"match": {"all": "green"}})] == ["1"]
    assert [doc for doc, _ in hits(index, {"match": {"all": "laces shoes"}})] == ["2", "1"]
    nested = {"nested": {"path": "parts", "query": {"match": {"parts.name": "blue"}}}}
    assert [doc for doc, _ in hits(index, nested)] == ["2"]


def test_a_query_on_a_plugins_field_type_names_the_plugin() -> None:
    index = open_index({"body": {"type": "annotated_text"}}, [{"id": "1", "body": "x"}])
    with pytest.raises(RelevanceInputError) as caught:
        hits(index, {"match": {"body": "x"}})
    assert str(caught.value) == (
        "query.yaml: query 'q': query.match: a query on the annotated_text field 'body' needs the "
        "mapper-annotated-text plugin; the Elasticsearch engine with that plugin runs it"
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"prefix": {"n": "3"}},
         "query.prefix: field 'n' is of type [integer]; Elasticsearch runs this query on keyword and text fields "
         "only"),
    ],
)  # fmt: skip
def test_a_field_a_query_cannot_read_is_named_by_its_type(query: dict[str, Any], message: str) -> None:
    index = open_index({"path": {"type": "text", "index": False}, "n": {"type": "integer"}}, [{"id": "1", "n": 3}])
    with pytest.raises(RelevanceInputError) as caught:
        hits(index, query)
    assert str(caught.value) == f"query.yaml: query 'q': {message}"


def test_a_field_pattern_leaves_out_a_text_field_that_is_not_indexed() -> None:
    # QueryParserHelper expands `*` over the searchable fields; the embedded engine said "field 'path' is a text
    # field, not text or keyword"
    index = open_index({"path": {"type": "text", "index": False}, "t": {"type": "text"}}, [{"id": "1", "t": "a"}])
    assert ids(index, {"multi_match": {"query": "a", "fields": ["*"]}}) == ["1"]


@pytest.mark.parametrize(
    ("analysis", "fragment"),
    [
        ({"analyzer": {"unused": {"tokenizer": "icu_tokenizer"}}}, "analyzer.unused.tokenizer: the tokenizer "
         "'icu_tokenizer' needs the analysis-icu plugin"),
        ({"analyzer": {"unused": {"tokenizer": "standard", "filter": ["nosuch"]}}}, "unused.filter[0]"),
        ({"filter": {"f": {"type": "polish_stem"}}}, "settings.analysis.filter.f: the token filter 'polish_stem' needs "
         "the analysis-stempel plugin"),
        ({"tokenizer": {"t": {"type": "nosuch"}}}, "settings.analysis.tokenizer.t"),
        ({"normalizer": {"n": {"type": "custom", "filter": ["porter_stem"]}}}, "cannot be used in a normalizer"),
    ],
)  # fmt: skip
def test_an_analysis_component_no_field_uses_is_still_refused_when_elasticsearch_refuses_it(
    analysis: dict, fragment: str
) -> None:
    """Elasticsearch builds every component an index defines when it creates the index, used or not."""
    config = {"settings": {"analysis": analysis}, "mappings": {"properties": {"title": {"type": "text"}}}}
    with pytest.raises(RelevanceInputError, match=re.escape(fragment)):
        EmbeddedEngine().open([{"id": "1", "title": "x"}], config, "id")
