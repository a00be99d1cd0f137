"""Every query type's options as its Elasticsearch 8 parser reads them. A key the parser does not read (a misspelt
option) is that parser's refusal in its words: `[range] query does not support [gte_]` from the hand-written
fromXContent loops, `[ids] unknown field [valuez] did you mean [values]?` from ObjectParser (with
SuggestingErrorOnUnknown's suggestions), `[prefix] query doesn't support multiple fields, found [a] and [b]` for a
second key beside a field-keyed query's field. An option the parser does read is either run or refused as one the
embedded engine does not run (the Elasticsearch engine would), never as unknown. The option lists are read from
each QueryBuilder.fromXContent (and its PARSER declarations) in elastic/elasticsearch 8."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.engines.embedded.queries import unknown_field
from pytest_relevance.errors import RelevanceInputError

DOCS = [
    {"id": "a", "t": "red fox jumps", "k": "red", "n": 3, "d": "2024-01-10", "loc": {"lat": 48.85, "lon": 2.35},
     "pr": 4.0, "v": [1.0, 0.0], "items": [{"name": "red shoe"}]},
    {"id": "b", "t": "blue fox sleeps", "k": "blue", "n": 7, "d": "2024-03-01", "loc": {"lat": 51.5, "lon": -0.12},
     "pr": 1.0, "v": [0.0, 1.0], "items": [{"name": "blue hat"}]},
]  # fmt: skip
MAPPING = {
    "mappings": {
        "properties": {
            "t": {"type": "text"}, "k": {"type": "keyword"}, "n": {"type": "long"}, "d": {"type": "date"},
            "loc": {"type": "geo_point"}, "pr": {"type": "rank_feature"},
            "v": {"type": "dense_vector", "dims": 2, "similarity": "cosine"},
            "items": {"type": "nested", "properties": {"name": {"type": "text"}}},
        }
    }
}  # fmt: skip
REFUSED = ", as Elasticsearch 8 refuses it"
NOT_HERE = "is not supported by the embedded engine"


@pytest.fixture(scope="module")
def index() -> EmbeddedIndex:
    return EmbeddedEngine().open(DOCS, MAPPING, "id")


def search(index: EmbeddedIndex, clause: dict[str, Any]) -> dict[str, float]:
    return dict(index.search_many({"q": {"query": clause}}, 10, "q.yaml")["q"])


MATCH_ALL: dict[str, Any] = {"match_all": {}}
SPAN = {"span_term": {"t": "fox"}}

# (query type, clause with one misspelt or unknown key, Elasticsearch's refusal after "query 'q': ")
MISSPELT = [
    ("term", {"term": {"k": {"valeu": "red"}}}, "query.term: [term] query does not support [valeu]"),
    ("term", {"term": {"k": ["red", "blue"]}}, "query.term: [term] query does not support array of values"),
    ("terms", {"terms": {"k": ["red"], "boots": 2}}, "query.terms: [terms] query does not support [boots]"),
    ("terms", {"terms": {"k": ["red"], "t": ["fox"]}}, "query.terms: [terms] query does not support multiple fields"),
    ("range", {"range": {"n": {"gte_": 3}}}, "query.range: [range] query does not support [gte_]"),
    ("range", {"range": {"n": {"gte": 3}, "boost": 2}}, "query.range: [range] query does not support [boost]"),
    ("range", {"range": {"n": {"gte": 3}, "d": {"gte": "2024"}}},
     "query.range: [range] query doesn't support multiple fields, found [n] and [d]"),
    ("exists", {"exists": {"feild": "k"}}, "query.exists: [exists] query does not support [feild]"),
    ("exists", {"exists": {"field": {"name": "k"}}},
     "query.exists: [exists] unknown token [START_OBJECT] after [field]"),
    ("ids", {"ids": {"valuez": ["a"]}}, "query.ids: [ids] unknown field [valuez] did you mean [values]?"),
    ("match_all", {"match_all": {"bost": 2}},
     "query.match_all: [match_all] unknown field [bost] did you mean [boost]?"),
    ("match_none", {"match_none": {"bost": 2}}, "query.match_none: [match_none] query does not support [bost]"),
    ("prefix", {"prefix": {"k": {"value": "r", "case_insensitve": True}}},
     "query.prefix: [prefix] query does not support [case_insensitve]"),
    ("prefix", {"prefix": {"k": "r", "boost": 2}},
     "query.prefix: [prefix] query doesn't support multiple fields, found [k] and [boost]"),
    ("wildcard", {"wildcard": {"k": {"value": "r*", "rewite": "constant_score"}}},
     "query.wildcard: [wildcard] query does not support [rewite]"),
    ("regexp", {"regexp": {"k": {"value": "r.*", "flag": "ALL"}}},
     "query.regexp: [regexp] query does not support [flag]"),
    ("fuzzy", {"fuzzy": {"k": {"value": "rad", "fuzzyness": 1}}},
     "query.fuzzy: [fuzzy] query does not support [fuzzyness]"),
    ("rank_feature", {"rank_feature": {"field": "pr", "saturaton": {}}},
     "query.rank_feature: [feature] unknown field [saturaton] did you mean [saturation]?"),
    ("rank_feature", {"rank_feature": {"field": "pr", "saturation": {"pivots": 2}}},
     "query.rank_feature.saturation: [feature] failed to parse field [saturation]: [saturation] unknown field "
     "[pivots] did you mean [pivot]?"),
    ("distance_feature", {"distance_feature": {"field": "d", "origin": "2024-01-01", "pivot": "7d", "pivott": 1}},
     "query.distance_feature: [distance_feature] unknown field [pivott] did you mean [pivot]?"),
    ("pinned", {"pinned": {"ids": ["b"], "organc": MATCH_ALL}},
     "query.pinned: [pinned] unknown field [organc] did you mean [organic]?"),
    ("pinned", {"pinned": {"docs": [{"id": "b"}], "organic": MATCH_ALL}},
     "query.pinned.docs[0]: [pinned] failed to parse field [docs]: [specified_document] unknown field [id] did you "
     "mean [_id]?"),
    ("geo_distance", {"geo_distance": {"distance": "10km", "loc": {"lat": 48, "lon": 2}, "distanse_type": "arc"}},
     "query.geo_distance: failed to parse [geo_distance] query. unexpected field [distanse_type]"),
    ("geo_distance", {"geo_distance": {"distance": "10km", "loc": {"lat": 48, "lng": 2}}},
     "query.geo_distance: [geo_distance] query does not support [loc]"),
    ("geo_bounding_box", {"geo_bounding_box": {"loc": {"top": 52, "left": -1, "bottom": 48, "right": 3},
                                               "type": "indexed"}},
     "query.geo_bounding_box: failed to parse [geo_bounding_box] query. unexpected field [type]"),
    ("knn", {"knn": {"field": "v", "query_vector": [1, 0], "k": 1, "num_candidate": 5}},
     "query.knn: [knn] unknown field [num_candidate] did you mean [num_candidates]?"),
    ("nested", {"nested": {"path": "items", "query": MATCH_ALL, "scoremode": "max"}},
     "query.nested: [nested] query does not support [scoremode]"),
    ("function_score", {"function_score": {"functions": [{"field_value_factor": {"field": "n", "factr": 2}}]}},
     "query.function_score.functions[0].field_value_factor: field_value_factor query does not support [factr]"),
    ("function_score", {"function_score": {"functions": [{"weight": 2, "wieght": 1}]}},
     "query.function_score.functions[0].wieght: failed to parse [function_score] query. field [wieght] is not "
     "supported"),
    ("function_score", {"function_score": {"gauss": {"n": {"origin": 0, "scale": 5, "offest": 1}}}},
     "query.function_score.gauss.n: parameter [offest] not supported!"),
    ("function_score", {"function_score": {"random_score": {"sed": 1}}},
     "query.function_score.random_score: random_score query does not support [sed]"),
    ("script_score", {"script_score": {"query": MATCH_ALL, "script": {"source": "1"}, "min_scor": 1}},
     "query.script_score: [script_score] unknown field [min_scor] did you mean [min_score]?"),
    ("script", {"script": {"script": {"source": "true"}, "bost": 2}},
     "query.script: [script] query does not support [bost]"),
    ("query_string", {"query_string": {"query": "fox", "default_feild": "t"}},
     "query.query_string: [query_string] query does not support [default_feild]"),
    ("query_string", {"query_string": {"query": "fox", "fields": ["t"], "highlight": {}}},
     "query.query_string: [query_string] unknown token [START_OBJECT] after [highlight]"),
    ("simple_query_string", {"simple_query_string": {"query": "fox", "fields": ["t"], "quote_analyzer": "standard"}},
     "query.simple_query_string: [simple_query_string] unsupported field [quote_analyzer]"),
    ("simple_query_string", {"simple_query_string": {"query": "fox", "feilds": ["t"]}},
     "query.simple_query_string: [simple_query_string] query does not support [feilds]"),
    ("combined_fields", {"combined_fields": {"query": "fox", "fields": ["t"], "operater": "and"}},
     "query.combined_fields: [combined_fields] unknown field [operater] did you mean [operator]?"),
    ("span_term", {"span_term": {"t": {"vlaue": "fox"}}},
     "query.span_term.t: [span_term] query does not support [vlaue]"),
    ("span_or", {"span_or": {"clause": [SPAN]}}, "query.span_or: [span_or] query does not support [clause]"),
    ("span_near", {"span_near": {"clauses": [SPAN], "in_ordr": True}},
     "query.span_near: [span_near] query does not support [in_ordr]"),
    ("span_first", {"span_first": {"match": SPAN, "ends": 2}},
     "query.span_first: [span_first] query does not support [ends]"),
    ("span_not", {"span_not": {"include": SPAN, "exclud": SPAN}},
     "query.span_not: [span_not] query does not support [exclud]"),
    ("span_containing", {"span_containing": {"big": SPAN, "small": SPAN}},
     "query.span_containing: [span_containing] query does not support [small]"),
    ("span_within", {"span_within": {"big": SPAN, "little": SPAN, "boots": 1}},
     "query.span_within: [span_within] query does not support [boots]"),
    ("span_multi", {"span_multi": {"matches": {"prefix": {"t": "fo"}}}},
     "query.span_multi: [span_multi] query does not support [matches]"),
    # FieldMaskingSpanQueryBuilder names itself by its preferred name, span_field_masking, under either name
    ("field_masking_span", {"field_masking_span": {"query": SPAN, "feild": "t"}},
     "query.field_masking_span: [span_field_masking] query does not support [feild]"),
    ("span_field_masking", {"span_field_masking": {"query": SPAN, "field": "t", "bost": 1}},
     "query.span_field_masking: [span_field_masking] query does not support [bost]"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "clause", "message"), MISSPELT, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(MISSPELT)]
)
def test_a_key_the_parser_does_not_read_is_elasticsearchs_refusal(
    index: EmbeddedIndex, kind: str, clause: dict[str, Any], message: str
) -> None:
    with pytest.raises(RelevanceInputError) as caught:
        search(index, clause)
    assert str(caught.value).split("query 'q': ", 1)[1].startswith(message + REFUSED)


PHRASE = {"span_near": {"clauses": [SPAN, {"span_term": {"t": "jumps"}}], "slop": 1, "in_order": True}}

# (query type, the clause before the option, where the option goes, {option Elasticsearch reads: a valid value})
KNOWN: list[tuple[str, dict[str, Any], tuple[str, ...], dict[str, Any]]] = [
    ("term", {"term": {"k": {"value": "red"}}}, ("term", "k"),
     {"term": "red", "boost": 2, "case_insensitive": True, "_name": "x"}),
    ("terms", {"terms": {"k": ["red"]}}, ("terms",), {"boost": 2, "_name": "x"}),
    ("range", {"range": {"n": {}}}, ("range", "n"),
     {"gte": 1, "gt": 1, "lte": 9, "lt": 9, "from": 1, "to": 9, "include_lower": False, "include_upper": False,
      "boost": 2, "format": "yyyy", "relation": "intersects", "time_zone": "+01:00", "_name": "x"}),
    ("exists", {"exists": {"field": "k"}}, ("exists",), {"boost": 2, "_name": "x"}),
    ("ids", {"ids": {"values": ["a"]}}, ("ids",), {"boost": 2, "_name": "x"}),
    ("match_all", {"match_all": {}}, ("match_all",), {"boost": 2, "_name": "x"}),
    ("match_none", {"match_none": {}}, ("match_none",), {"boost": 2, "_name": "x"}),
    ("prefix", {"prefix": {"k": {"value": "r"}}}, ("prefix", "k"),
     {"boost": 2, "rewrite": "constant_score", "case_insensitive": True, "_name": "x"}),
    ("wildcard", {"wildcard": {"k": {"value": "r*"}}}, ("wildcard", "k"),
     {"wildcard": "b*", "boost": 2, "rewrite": "constant_score", "case_insensitive": True, "_name": "x"}),
    ("regexp", {"regexp": {"k": {"value": "r.*"}}}, ("regexp", "k"),
     {"boost": 2, "rewrite": "constant_score", "flags": "ALL", "max_determinized_states": 10000, "flags_value": 255,
      "case_insensitive": True, "_name": "x"}),
    ("fuzzy", {"fuzzy": {"k": {"value": "rad"}}}, ("fuzzy", "k"),
     {"term": "rad", "boost": 2, "fuzziness": 1, "prefix_length": 0, "max_expansions": 10, "transpositions": False,
      "rewrite": "constant_score", "_name": "x"}),
    ("rank_feature", {"rank_feature": {"field": "pr"}}, ("rank_feature",),
     {"boost": 2, "_name": "x", "saturation": {"pivot": 2}, "log": {"scaling_factor": 1},
      "sigmoid": {"pivot": 2, "exponent": 1}, "linear": {}}),
    ("distance_feature", {"distance_feature": {"field": "d", "origin": "2024-01-01", "pivot": "7d"}},
     ("distance_feature",), {"boost": 2, "_name": "x"}),
    ("pinned", {"pinned": {"organic": MATCH_ALL, "ids": ["a"]}}, ("pinned",),
     {"ids": ["b"], "docs": [{"_id": "b", "_index": "i"}], "boost": 2, "_name": "x"}),
    ("geo_distance", {"geo_distance": {"distance": "1000km", "loc": {"lat": 48, "lon": 2}}}, ("geo_distance",),
     {"distance": 2000, "unit": "km", "distance_type": "plane", "validation_method": "STRICT", "ignore_unmapped": True,
      "boost": 2, "_name": "x", "loc.lat": 48}),
    ("geo_bounding_box", {"geo_bounding_box": {"loc": {"top": 52, "left": -1, "bottom": 48, "right": 3}}},
     ("geo_bounding_box",), {"validation_method": "STRICT", "ignore_unmapped": True, "boost": 2, "_name": "x"}),
    ("knn", {"knn": {"field": "v", "query_vector": [1, 0]}}, ("knn",),
     {"k": 1, "num_candidates": 5, "similarity": 0.1, "filter": [MATCH_ALL], "boost": 2, "_name": "x"}),
    ("nested", {"nested": {"path": "items", "query": {"match": {"items.name": "shoe"}}}}, ("nested",),
     {"score_mode": "max", "ignore_unmapped": True, "inner_hits": {}, "boost": 2, "_name": "x"}),
    ("function_score", {"function_score": {"query": MATCH_ALL}}, ("function_score",),
     {"boost": 2, "_name": "x", "score_mode": "sum", "boost_mode": "sum", "max_boost": 9, "min_score": 0,
      "functions": [{"filter": MATCH_ALL, "weight": 2, "_name": "f"}], "weight": 2,
      "field_value_factor": {"field": "n", "factor": 2, "modifier": "log1p", "missing": 1},
      "random_score": {"seed": 1, "field": "_seq_no"}, "script_score": {"script": {"source": "1"}},
      "gauss": {"n": {"origin": 0, "scale": 5}}}),
    ("script_score", {"script_score": {"query": MATCH_ALL, "script": {"source": "1"}}}, ("script_score",),
     {"min_score": 0, "boost": 2, "_name": "x"}),
    ("script", {"script": {"script": {"source": "true"}}}, ("script",), {"boost": 2, "_name": "x"}),
    ("query_string", {"query_string": {"query": "fox"}}, ("query_string",),
     {"fields": ["t"], "default_field": "t", "default_operator": "and", "analyzer": "standard",
      "quote_analyzer": "standard", "allow_leading_wildcard": True, "max_determinized_states": 10000,
      "enable_position_increments": True, "escape": True, "fuzzy_prefix_length": 0, "fuzzy_max_expansions": 10,
      "fuzzy_rewrite": "constant_score", "phrase_slop": 1, "fuzziness": 1, "boost": 2, "type": "most_fields",
      "tie_breaker": 0.3, "analyze_wildcard": True, "rewrite": "constant_score", "minimum_should_match": 1,
      "quote_field_suffix": ".exact", "lenient": True, "time_zone": "+01:00", "_name": "x",
      "auto_generate_synonyms_phrase_query": False, "fuzzy_transpositions": False}),
    ("simple_query_string", {"simple_query_string": {"query": "fox"}}, ("simple_query_string",),
     {"fields": ["t"], "boost": 2, "analyzer": "standard", "default_operator": "and", "flags": "ALL", "lenient": True,
      "analyze_wildcard": True, "_name": "x", "minimum_should_match": 1, "quote_field_suffix": ".exact",
      "auto_generate_synonyms_phrase_query": False, "fuzzy_prefix_length": 0, "fuzzy_max_expansions": 10,
      "fuzzy_transpositions": False}),
    ("combined_fields", {"combined_fields": {"query": "fox", "fields": ["t"]}}, ("combined_fields",),
     {"fields": ["t"], "operator": "and", "minimum_should_match": 1, "auto_generate_synonyms_phrase_query": False,
      "zero_terms_query": "all", "boost": 2, "_name": "x"}),
    ("span_term", {"span_term": {"t": {"value": "fox"}}}, ("span_term", "t"),
     {"term": "fox", "boost": 2, "_name": "x"}),
    ("span_or", {"span_or": {"clauses": [SPAN]}}, ("span_or",), {"boost": 2, "_name": "x"}),
    ("span_near", PHRASE, ("span_near",), {"slop": 2, "in_order": False, "boost": 2, "_name": "x"}),
    ("span_first", {"span_first": {"match": SPAN, "end": 3}}, ("span_first",), {"boost": 2, "_name": "x"}),
    ("span_not", {"span_not": {"include": SPAN, "exclude": {"span_term": {"t": "red"}}}}, ("span_not",),
     {"pre": 1, "post": 1, "boost": 2, "_name": "x"}),
    ("span_containing", {"span_containing": {"big": PHRASE, "little": SPAN}}, ("span_containing",),
     {"boost": 2, "_name": "x"}),
    ("span_within", {"span_within": {"big": PHRASE, "little": SPAN}}, ("span_within",), {"boost": 2, "_name": "x"}),
    ("span_multi", {"span_multi": {"match": {"prefix": {"t": "fo"}}}}, ("span_multi",), {"boost": 2, "_name": "x"}),
    ("span_field_masking", {"span_field_masking": {"query": SPAN, "field": "t"}}, ("span_field_masking",),
     {"boost": 2, "_name": "x"}),
]  # fmt: skip


# options the parser refuses together with those already in the clause
EXCLUSIVE = {"docs": ("ids",), **{f: ("functions",) for f in ("weight", "field_value_factor", "random_score",
                                                                 "script_score", "gauss")}}  # fmt: skip


def with_option(clause: dict[str, Any], where: tuple[str, ...], key: str, value: Any) -> dict[str, Any]:
    """A copy of the clause with one option set at `where` (the keys down to the options' mapping)."""
    out = {name: dict(spec) if isinstance(spec, dict) else spec for name, spec in clause.items()}
    target = out
    for step in where:
        target[step] = dict(target[step])
        target = target[step]
    for exclusive in EXCLUSIVE.get(key, ()):  # one of them at a time, as the parser allows
        target.pop(exclusive, None)
    target[key] = value
    return out


@pytest.mark.parametrize(("kind", "clause", "where", "options"), KNOWN, ids=[k for k, *_ in KNOWN])
def test_every_option_elasticsearch_reads_is_run_or_refused_as_not_run_here(
    index: EmbeddedIndex, kind: str, clause: dict[str, Any], where: tuple[str, ...], options: dict[str, Any]
) -> None:
    search(index, clause)  # the clause itself runs
    for key, value in options.items():
        try:
            search(index, with_option(clause, where, key, value))
        except RelevanceInputError as exc:
            assert NOT_HERE in str(exc), f"{kind}.{key}: {exc}"


def test_options_elasticsearch_reads_under_other_names_are_honoured(index: EmbeddedIndex) -> None:
    # TermQueryBuilder and FuzzyQueryBuilder read `term` as `value`; WildcardQueryBuilder reads `wildcard` too
    assert search(index, {"term": {"k": {"term": "red"}}}) == search(index, {"term": {"k": "red"}})
    assert set(search(index, {"fuzzy": {"k": {"term": "rad", "fuzziness": 1}}})) == {"a"}
    # RangeQueryBuilder's from/to with include_lower/include_upper, and the last bound written wins
    assert set(search(index, {"range": {"n": {"from": 3, "to": 7, "include_lower": False}}})) == {"b"}
    assert set(search(index, {"range": {"n": {"gt": 3, "include_lower": True, "lte": 7}}})) == {"a", "b"}
    assert set(search(index, {"range": {"n": {"from": 3, "lt": 7}}})) == {"a"}
    # GeoDistanceQueryBuilder's `unit` for a distance without one (Paris to London is about 344 km)
    near = {"geo_distance": {"distance": 400, "unit": "km", "loc": {"lat": 48.85, "lon": 2.35}}}
    assert set(search(index, near)) == {"a", "b"}
    assert set(search(index, {"geo_distance": {**near["geo_distance"], "distance": "300km"}})) == {"a"}


@pytest.mark.parametrize(
    ("key", "candidates", "message"),
    [
        # Lucene's LevenshteinDistance: 1 - edits / the longer length, kept above 0.5, the closest first
        ("valuez", ["values", "boost", "_name"], "[ids] unknown field [valuez] did you mean [values]?"),
        ("bost", ["boost", "_name", "host"], "[ids] unknown field [bost] did you mean any of [boost, host]?"),
        ("zzz", ["values", "boost", "_name"], "[ids] unknown field [zzz]"),
        ("piv", ["pivot", "field"], "[ids] unknown field [piv] did you mean [pivot]?"),  # 1 - 2/5 = 0.6
        ("pi", ["pivot"], "[ids] unknown field [pi]"),  # 1 - 3/5 = 0.4
    ],
)
def test_suggestions_are_suggesting_error_on_unknowns(key: str, candidates: list[str], message: str) -> None:
    assert unknown_field("ids", key, candidates) == message
