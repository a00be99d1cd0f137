"""`dynamic_templates` and per-object `dynamic` in the embedded engine, each rule against Elasticsearch 8's
documented behaviour (the dynamic templates page's examples, DynamicTemplate and DynamicFieldsBuilder): which
template maps a new field, what its mapping becomes, and one clear error for what Elasticsearch refuses or the
engine does not have."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.errors import RelevanceInputError


def open_index(docs: list[dict[str, Any]], templates: Any, **mappings: Any) -> EmbeddedIndex:
    properties = {"id": {"type": "keyword"}, **mappings.pop("properties", {})}
    body = {"mappings": {"dynamic_templates": templates, **mappings, "properties": properties}}
    return EmbeddedEngine().open([{"id": str(i), **d} for i, d in enumerate(docs)], body, "id", "index.yaml")


def types(index: EmbeddedIndex) -> dict[str, str]:
    return {name: field.type for name, field in index.fields.items() if name.split(".")[0] != "id"}


def error(docs: list[dict[str, Any]], templates: Any, **mappings: Any) -> str:
    with pytest.raises(RelevanceInputError) as caught:
        open_index(docs, templates, **mappings)
    return str(caught.value)


def hits(index: EmbeddedIndex, query: dict[str, Any]) -> list[tuple[str, float]]:
    return index.search_many({"q": {"query": query}}, 10, "query.yaml")["q"]


# which template matches -------------------------------------------------------------------------------------------


def test_match_mapping_type_maps_by_the_json_type_and_the_rest_keeps_the_defaults() -> None:
    # the docs' example: integers as integer, strings as text with a `raw` keyword; a float keeps the default
    index = open_index(
        [{"my_integer": 5, "my_string": "Some string", "my_float": 1.5, "my_bool": True}],
        [
            {"integers": {"match_mapping_type": "long", "mapping": {"type": "integer"}}},
            {"strings": {"match_mapping_type": "string",
                         "mapping": {"type": "text", "fields": {"raw": {"type": "keyword", "ignore_above": 256}}}}},
        ],
    )  # fmt: skip
    assert types(index) == {
        "my_integer": "integer", "my_string": "text", "my_string.raw": "keyword", "my_float": "float",
        "my_bool": "boolean",
    }  # fmt: skip
    assert [d for d, _ in hits(index, {"term": {"my_string.raw": "Some string"}})] == ["0"]


def test_match_and_unmatch_read_the_leaf_name() -> None:
    # the docs' longs_as_strings: a string field named long_* (but not *_text) mapped as long
    index = open_index(
        [{"long_num": "5", "long_text": "foo", "obj": {"long_inner": "7"}}],
        [{"longs_as_strings": {"match_mapping_type": "string", "match": "long_*", "unmatch": "*_text",
                               "mapping": {"type": "long"}}}],
    )  # fmt: skip
    assert types(index) == {"long_num": "long", "long_text": "text", "long_text.keyword": "keyword",
                            "obj.long_inner": "long"}  # fmt: skip
    assert [d for d, _ in hits(index, {"range": {"long_num": {"gte": 5}}})] == ["0"]


def test_pattern_lists_match_when_any_pattern_does() -> None:
    index = open_index(
        [{"a_kw": "x", "b_kw": "y", "c_kw": "z", "a_skip": "w"}],
        [{"kw": {"match": ["a_*", "b_*"], "unmatch": ["*_skip", "c_*"], "mapping": {"type": "keyword"}}}],
    )
    assert types(index)["a_kw"] == types(index)["b_kw"] == "keyword"
    assert types(index)["c_kw"] == types(index)["a_skip"] == "text"


def test_path_match_and_path_unmatch_read_the_full_dotted_path() -> None:
    # the docs' example: every name.* but *.middle copied into full_name
    index = open_index(
        [{"name": {"first": "John", "middle": "Winston", "last": "Lennon"}}],
        [{"full_name": {"path_match": "name.*", "path_unmatch": "*.middle",
                        "mapping": {"type": "text", "copy_to": "full_name"}}}],
        properties={"full_name": {"type": "text"}},
    )  # fmt: skip
    assert index.fields["name.first"].copy_to == ("full_name",)
    assert index.fields["name.middle"].copy_to == ()
    assert [d for d, _ in hits(index, {"match": {"full_name": "john lennon"}})] == ["0"]
    assert hits(index, {"match": {"full_name": "winston"}}) == []


def test_match_pattern_regex_matches_the_whole_name() -> None:
    index = open_index(
        [{"profit_10": "1", "profit_10x": "2", "xprofit_1": "3"}],
        [{"profits": {"match_mapping_type": "string", "match_pattern": "regex", "match": r"^profit_\d+$",
                      "mapping": {"type": "double"}}}],
    )  # fmt: skip
    assert types(index)["profit_10"] == "double"
    assert types(index)["profit_10x"] == types(index)["xprofit_1"] == "text"


def test_a_simple_pattern_is_not_a_regex() -> None:
    index = open_index([{"a.b": "x", "axb": "y"}], [{"dots": {"match": "a.b", "mapping": {"type": "keyword"}}}])
    assert types(index)["axb"] == "text"  # `.` is itself, not any character


def test_the_first_matching_template_wins() -> None:
    index = open_index(
        [{"title_text": "x", "other": "y"}],
        [
            {"texts": {"match": "*_text", "mapping": {"type": "text"}}},
            {"strings": {"match_mapping_type": "string", "mapping": {"type": "keyword"}}},
        ],
    )
    assert types(index) == {"title_text": "text", "other": "keyword"}


def test_a_template_with_only_unmatch_patterns_matches_no_field() -> None:
    # DynamicTemplate.parse: only match, path_match and unmatch_mapping_type imply `match_mapping_type: *`
    index = open_index([{"title": "x"}], [{"odd": {"unmatch": "zzz", "mapping": {"type": "keyword"}}}])
    assert types(index)["title"] == "text"


def test_unmatch_mapping_type_leaves_those_types_to_the_defaults() -> None:
    index = open_index(
        [{"n": 5, "s": "x"}], [{"all_but_strings": {"unmatch_mapping_type": "string", "mapping": {"type": "keyword"}}}]
    )
    assert types(index) == {"n": "keyword", "s": "text", "s.keyword": "keyword"}


def test_a_detected_date_is_of_type_date_not_string_and_keeps_the_format_that_read_it() -> None:
    index = open_index(
        [{"when": "2024/01/02", "label": "plain"}],
        [
            {"dates": {"match_mapping_type": "date", "mapping": {"type": "date", "meta": {"from": "template"}}}},
            {"strings": {"match_mapping_type": "string", "mapping": {"type": "keyword"}}},
        ],
        dynamic_date_formats=["yyyy/MM/dd"],
    )
    assert types(index) == {"when": "date", "label": "keyword"}
    assert index.fields["when"].params["format"] == "yyyy/MM/dd"
    assert [d for d, _ in hits(index, {"range": {"when": {"gte": "2024/01/01", "format": "yyyy/MM/dd"}}})] == ["0"]


# the template's mapping -------------------------------------------------------------------------------------------


def test_name_and_dynamic_type_are_replaced_in_the_mapping() -> None:
    # the docs' named_analyzers example, and one like their no_doc_values with a parameter every type reads (text
    # has no doc_values: see below); a string's dynamic type is text, a fraction's float
    index = open_index(
        [{"english": "Running dogs", "count": 3, "ratio": 0.5, "note": "Running dogs"}],
        [
            {"named_analyzers": {"match_mapping_type": "string", "match": "english",
                                 "mapping": {"type": "text", "analyzer": "{name}"}}},
            {"not_stored": {"match_mapping_type": "*", "mapping": {"type": "{dynamic_type}", "store": False}}},
        ],
    )  # fmt: skip
    assert types(index) == {"english": "text", "count": "long", "ratio": "float", "note": "text"}
    assert index.fields["english"].analyzer.name == "english"
    assert index.fields["note"].multi_fields == ()  # the template's text, not the default's text + keyword
    assert [d for d, _ in hits(index, {"match": {"english": "run"}})] == ["0"]
    assert hits(index, {"match": {"note": "run"}}) == []  # standard analyzer: no stemming


def test_a_template_parameter_the_dynamic_type_lacks_refuses_the_document_as_elasticsearch_8_does() -> None:
    # the docs' no_doc_values: valid for a number (so the index is created), but a string's text has no doc_values:
    # FieldMapper.Builder.parse refuses it in an index created by 8.x (7.x only warned)
    mapping = {"type": "{dynamic_type}", "doc_values": False}
    template = {"no_doc_values": {"match_mapping_type": "*", "mapping": mapping}}
    assert types(open_index([{"count": 3}], [template])) == {"count": "long"}
    with pytest.raises(RelevanceInputError) as caught:
        open_index([{"note": "Running dogs"}], [template])
    assert (
        "mappings.dynamic_templates.no_doc_values.mapping (for field 'note').doc_values: unknown parameter "
        "[doc_values] on mapper [note] of type [text], as Elasticsearch 8 refuses it"
    ) in str(caught.value)


def test_a_template_mapping_without_a_type_takes_the_dynamic_type() -> None:
    index = open_index([{"n": 5, "s": "x"}], [{"any": {"match": "*", "mapping": {"index": False}}}])
    assert types(index) == {"n": "long", "s": "text"}
    assert not index.fields["s"].index


# templates alone, ranking as the explicit mapping would ------------------------------------------------------------

DOCS = [
    {"title_text": "Running shoes for trail runners", "body_text": "Light shoes that grip wet rock", "sku": "A-1"},
    {"title_text": "Road running guide", "body_text": "How runners choose shoes for the road", "sku": "B-2"},
    {"title_text": "Hiking boots", "body_text": "Boots for long walks, not running", "sku": "C-3"},
]


def test_fields_from_templates_alone_score_as_the_same_fields_mapped_explicitly() -> None:
    templated = open_index(
        DOCS,
        [
            {"texts": {"match": "*_text", "mapping": {"type": "text", "analyzer": "english"}}},
            {"strings": {"match_mapping_type": "string", "mapping": {"type": "keyword"}}},
        ],
    )
    explicit = EmbeddedEngine().open(
        [{"id": str(i), **d} for i, d in enumerate(DOCS)],
        {"mappings": {"properties": {
            "id": {"type": "keyword"}, "title_text": {"type": "text", "analyzer": "english"},
            "body_text": {"type": "text", "analyzer": "english"}, "sku": {"type": "keyword"},
        }}},
        "id", "index.yaml",
    )  # fmt: skip
    query = {"multi_match": {"query": "running shoes", "fields": ["title_text^2", "body_text"]}}
    expected = hits(explicit, query)
    assert len(expected) == 3
    assert hits(templated, query) == expected
    assert hits(templated, {"term": {"sku": "B-2"}}) == hits(explicit, {"term": {"sku": "B-2"}})


def test_an_index_config_of_settings_alone_maps_every_field_dynamically() -> None:
    body = {"settings": {"analysis": {"analyzer": {"default": {"type": "english"}}}}}
    index = EmbeddedEngine().open([{"id": "1", "title": "Running shoes"}], body, "id", "index.yaml")
    assert types(index) == {"title": "text", "title.keyword": "keyword"}
    assert [d for d, _ in hits(index, {"match": {"title": "run"}})] == ["1"]


# dynamic, per object ----------------------------------------------------------------------------------------------


def test_dynamic_strict_refuses_the_document_and_names_the_field() -> None:
    message = error([{"title": "x"}, {"title": "y", "extra": 1}], [], dynamic="strict",
                    properties={"title": {"type": "text"}})  # fmt: skip
    assert "extra" in message and "mapping set to strict, dynamic introduction of [extra] within [_doc]" in message
    assert "'1'" in message  # the document's id
    # a null maps nothing, yet strict refuses it too (DocumentParser.parseNullValue)
    assert "dynamic introduction of [gone] within [_doc]" in error([{"gone": None}], [], dynamic="strict")
    assert types(open_index([{"gone": None}], [])) == {}


def test_dynamic_is_inherited_and_overridden_per_object() -> None:
    properties = {
        "title": {"type": "text"},
        "meta": {"dynamic": False, "properties": {"kept": {"type": "keyword"}}},
        "loose": {"dynamic": True, "properties": {}},
    }
    index = open_index(
        [{"title": "x", "meta": {"kept": "a", "other": "b"}, "loose": {"new": "c"}}], [],
        dynamic="strict", properties=properties,
    )  # fmt: skip
    assert "meta.other" not in index.fields  # dynamic false: kept in _source, not indexed
    assert hits(index, {"match": {"meta.other": "b"}}) == []
    assert types(index)["loose.new"] == "text"
    message = error([{"meta": {"deep": {"x": 1}}, "loose": {}, "stray": {"y": 1}}], [], dynamic="strict",
                    properties=properties)  # fmt: skip
    assert "dynamic introduction of [stray] within [_doc]" in message


def test_dynamic_strict_in_an_object_names_the_object() -> None:
    message = error([{"user": {"name": "a", "age": 3}}], [], properties={
        "user": {"dynamic": "strict", "properties": {"name": {"type": "keyword"}}}})  # fmt: skip
    assert "dynamic introduction of [age] within [user]" in message


def test_dynamic_runtime_is_refused_naming_the_field() -> None:
    message = error([{"title": "x", "extra": "y"}], [], dynamic="runtime", properties={"title": {"type": "text"}})
    assert "field 'extra'" in message and "dynamic: runtime" in message and "runtime field" in message


def test_an_object_template_can_disable_or_set_dynamic_on_new_objects() -> None:
    index = open_index(
        [{"raw": {"blob": "x", "n": 1}, "strict_obj": {"a": "y"}}],
        [
            {"raw": {"match": "raw", "match_mapping_type": "object", "mapping": {"type": "object", "enabled": False}}},
            {"objects": {"match_mapping_type": "object", "mapping": {"dynamic": False}}},
        ],
    )
    assert types(index) == {}
    assert hits(index, {"match": {"raw.blob": "x"}}) == []


# refusals ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("templates", "expected"),
    [
        ([{"r": {"match": "*_r", "runtime": {"type": "keyword"}}}],
         "mappings.dynamic_templates[0].r.runtime: dynamic template [r] maps fields as runtime fields"),
        ([{"t": {"match_mapping_type": "str", "mapping": {"type": "keyword"}}}],
         "mappings.dynamic_templates[0].t.match_mapping_type: No field type matched on [str], possible values are "
         "[object, string, long, double, boolean, date, binary]"),
        ([{"t": {"match_mapping_type": ["*", "long"], "mapping": {}}}],
         "mappings.dynamic_templates[0].t.match_mapping_type: No field type matched on [*]"),
        ([{"t": {"match_pattern": "regex", "match": "(a", "mapping": {}}}],
         "mappings.dynamic_templates[0].t.match: Pattern [(a] of type [regex] is invalid. Cannot create dynamic "
         "template [t]."),
        ([{"t": {"match": "a", "mapping": {}, "path": "x"}}],
         "mappings.dynamic_templates[0].t: Illegal dynamic template parameter: [path]"),
        ([{"t": {"match": "a", "mapping": {}, "runtime": {}}}],
         "mappings.dynamic_templates[0].t: mapping and runtime cannot be both specified in the same dynamic "
         "template [t]"),
        ([{"t": {"match": "a"}}], "mappings.dynamic_templates[0].t: template [t] must have either mapping or runtime"),
        ([{"t": {"match": ["a", 1], "mapping": {}}}],
         "mappings.dynamic_templates[0].t.match: [match] values must either be a string or list of strings"),
        ([{"t": {"match": "a", "match_pattern": "glob", "mapping": {}}}],
         "mappings.dynamic_templates[0].t.match_pattern: No matching pattern matched on [glob]"),
        ({"t": {"match": "a", "mapping": {}}},
         "mappings.dynamic_templates: Dynamic template syntax error. An array of named objects is expected"),
        ([{"a": {"match": "x", "mapping": {}}, "b": {"match": "y", "mapping": {}}}],
         "mappings.dynamic_templates[0]: A dynamic template must be defined with a name"),
    ],
)  # fmt: skip
def test_a_template_elasticsearch_refuses_is_one_error_naming_it(templates: Any, expected: str) -> None:
    assert error([{"a": "x"}], templates).startswith(f"index.yaml: {expected}")


def test_a_bad_mapping_in_a_template_names_the_template_and_the_field() -> None:
    # with {name}, Elasticsearch checks the mapping only when a field meets it
    message = error([{"title": "x"}], [{"named": {"match": "*", "mapping": {"type": "text", "analyzer": "{name}"}}}])
    assert message.startswith("index.yaml: mappings.dynamic_templates.named.mapping (for field 'title').analyzer: ")
    assert "'title'" in message


def test_an_object_template_with_a_type_the_engine_does_not_map_from_templates_is_refused() -> None:
    message = error([{"tags": {"a": "x"}}], [{"flat": {"match_mapping_type": "object",
                                                        "mapping": {"type": "flattened"}}}])  # fmt: skip
    assert "dynamic template [flat] maps the object 'tags'" in message and "mappings.properties" in message


def test_a_template_copy_to_an_unmapped_field_is_refused_as_an_explicit_one_is() -> None:
    message = error([{"a": "hello"}], [{"t": {"match": "a", "mapping": {"type": "text", "copy_to": "all"}}}])
    assert message.startswith("index.yaml: a: copy_to 'all': Elasticsearch maps 'all' dynamically")


def test_a_template_mapping_a_value_as_an_object_is_refused() -> None:
    message = error([{"a": "hello"}], [{"t": {"match": "a", "mapping": {"type": "nested"}}}])
    assert message.startswith("index.yaml: mappings.dynamic_templates.t.mapping: maps the field 'a' as type 'nested'")


def test_a_template_valid_for_none_of_its_types_is_refused_at_index_creation() -> None:
    # RootObjectMapper.validateDynamicTemplate, an error since 8.0, before any document has the field
    message = error([], [{"strings": {"match_mapping_type": "string", "mapping": {"type": "strin"}}}])
    assert message.startswith(
        "index.yaml: mappings.dynamic_templates.strings: dynamic template [strings] has invalid content, attempted "
        "to validate it with the following match_mapping_type: [string]"
    )
    assert "unknown field type 'strin'" in message
    # valid for one of its types is enough, and a mapping with {name} is checked only when applied
    assert open_index([], [{"any": {"match": "*", "mapping": {"type": "{dynamic_type}", "analyzer": "english"}}}])
    assert open_index([], [{"named": {"match": "*", "mapping": {"analyzer": "{name}"}}}])


def test_an_object_template_with_properties_maps_them_and_the_rest_dynamically() -> None:
    # ObjectMapper.TypeParser reads a template's object mapping as any other: its properties are mapped as declared
    template = {
        "addresses": {
            "match_mapping_type": "object",
            "match": "*_address",
            "mapping": {
                "type": "object",
                "properties": {"city": {"type": "keyword"}, "geo": {"properties": {"zip": {"type": "keyword"}}}},
            },
        }
    }
    docs = [{"home_address": {"city": "New York", "street": "Main St", "geo": {"zip": "10001"}}},
            {"home_address": {"city": "york", "street": "New Road", "geo": {"zip": "2"}}}]  # fmt: skip
    index = open_index(docs, [template])
    assert types(index) == {"home_address.city": "keyword", "home_address.geo.zip": "keyword",
                            "home_address.street": "text", "home_address.street.keyword": "keyword"}  # fmt: skip
    assert [d for d, _ in hits(index, {"term": {"home_address.city": "New York"}})] == ["0"]
    assert [d for d, _ in hits(index, {"match": {"home_address.street": "new"}})] == ["1"]
    # the properties are checked when the index is created, as Elasticsearch validates the template
    bad = {"t": {"match_mapping_type": "object", "mapping": {"properties": {"n": {"type": "keyword", "boost": 2}}}}}
    assert "Unknown parameter [boost] on mapper [n]" in error([], [bad])


def test_a_catch_all_template_mapping_a_new_object_as_a_value_type_refuses_the_document() -> None:
    # `match: *` implies every JSON type, objects too: Elasticsearch maps the object as keyword and fails to parse it
    message = error([{"meta": {"a": "x"}}], [{"all": {"match": "*", "mapping": {"type": "keyword"}}}])
    assert "dynamic template [all] maps the object 'meta' as type 'keyword', so Elasticsearch refuses" in message
    index = open_index([{"meta": {"a": "x"}}], [{"all": {"match_mapping_type": "string", "match": "*",
                                                         "mapping": {"type": "keyword"}}}])  # fmt: skip
    assert types(index) == {"meta.a": "keyword"}
