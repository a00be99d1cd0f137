"""Mapping parameters of Elasticsearch 8 create-index bodies in the embedded engine, each against what Elasticsearch
documents for it: the value it indexes, what a query then matches, and one clear error for what is not supported."""

from __future__ import annotations

from typing import Any

import pytest

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
    assert "field 'title': null_value is not a parameter of the text type" in open_error(
        {"title": {"type": "text", "null_value": "x"}}, NULLS
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
