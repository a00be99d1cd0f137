"""The registry of query types: `@query(name)` registers a handler, `evaluate` dispatches one clause to it (or
refuses the name as Elasticsearch 8 does) and records it for explain."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pytest_relevance.engines.embedded.cost import COUNTING
from pytest_relevance.engines.embedded.plugins import plugin_query
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unmapped, Unsupported
from pytest_relevance.engines.embedded.recorder import RECORDING
from pytest_relevance.engines.embedded.scores import Scores

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex

Handler = Callable[["EmbeddedIndex", Any, str, float], Scores]
HANDLERS: dict[str, Handler] = {}


# keys of a search body that do not change which documents rank where (accepted and ignored)
IGNORED_BODY_KEYS = frozenset(
    {"highlight", "aggs", "aggregations", "suggest", "_source", "stored_fields", "fields", "docvalue_fields",
     "explain", "track_total_hits", "track_scores", "timeout", "profile", "version", "seq_no_primary_term",
     "from", "size", "stats"}
)  # fmt: skip


def query(name: str) -> Callable[[Handler], Handler]:
    """Register a handler for the query type `name`."""

    def register(handler: Handler) -> Handler:
        HANDLERS[name] = handler
        return handler

    return register


# Elasticsearch rewrites these to match_none when their field is unmapped (a `must_not` on one then excludes nothing)
MATCH_NONE_WHEN_UNMAPPED = frozenset(
    ("term", "terms", "range", "exists", "prefix", "wildcard", "regexp", "fuzzy", "match", "match_phrase",
     "match_phrase_prefix", "match_bool_prefix", "rank_feature", "terms_set")
)  # fmt: skip


# Query names Elasticsearch 8's parser does not know ("unknown query [name]"), which older templates still use: its
# refusal, with what to write instead, not a construct the Elasticsearch engine would run
UNKNOWN_TO_ELASTICSEARCH = {
    "query": "a clause is the query itself, {match: ...}, not the 1.x wrapper {query: {match: ...}}",
    "common": "Common Terms Query usage is not supported. Use [match] query which can efficiently skip blocks of "
    "documents if the total number of hits is not tracked.",
    "filtered": "removed in 5.0; write bool with must (the query) and filter",
}


# The query types Elasticsearch 8 parses (its server, modules and default x-pack plugins), whether or not the
# embedded engine runs them: any other name is Elasticsearch's refusal, not a gap of the embedded engine
ELASTICSEARCH_QUERIES = frozenset(
    ("bool", "boosting", "combined_fields", "constant_score", "dis_max", "distance_feature", "exists",
     "field_masking_span", "function_score", "fuzzy", "geo_bounding_box", "geo_distance", "geo_grid", "geo_polygon",
     "geo_shape", "has_child", "has_parent", "ids", "intervals", "knn", "match", "match_all", "match_bool_prefix",
     "match_none", "match_phrase", "match_phrase_prefix", "more_like_this", "multi_match", "nested", "parent_id",
     "percolate", "pinned", "prefix", "query_string", "range", "rank_feature", "regexp", "rule", "script",
     "script_score", "semantic", "shape", "simple_query_string", "span_containing", "span_field_masking",
     "span_first", "span_multi", "span_near", "span_not", "span_or", "span_term", "span_within", "sparse_vector",
     "term", "terms", "terms_set", "text_expansion", "weighted_tokens", "wildcard", "wrapper")
)  # fmt: skip


def evaluate(index: EmbeddedIndex, node: Any, path: str, boost: float = 1.0) -> Scores:
    """Score one query clause `{type: spec}` at `path` over the whole corpus."""
    if not isinstance(node, dict) or len(node) != 1:
        raise Invalid(path, f"a query is a mapping with one query type, e.g. {{match: {{...}}}}; got {node!r}"[:200])
    ((name, spec),) = node.items()
    handler = HANDLERS.get(name)
    if handler is None:
        if name in UNKNOWN_TO_ELASTICSEARCH:
            raise Invalid(
                path, f"unknown query [{name}], as Elasticsearch 8 refuses it: {UNKNOWN_TO_ELASTICSEARCH[name]}"
            )
        if plugin_query(name) is not None:
            raise Invalid(path, str(plugin_query(name)))
        if name not in ELASTICSEARCH_QUERIES:  # a typo, or a plugin's query: Elasticsearch's parser refuses it
            close = difflib.get_close_matches(name, sorted(ELASTICSEARCH_QUERIES), n=1)
            hint = f" did you mean [{close[0]}]?" if close else ""
            raise Invalid(
                path, f"unknown query [{name}]{hint}, as Elasticsearch 8 refuses it (unless a plugin adds it)"
            )
        raise Unsupported(name, path)
    recorder = RECORDING.get()
    if recorder is None:
        return _run(handler, index, spec, path, name, boost)
    recorder.open()
    scores = _run(handler, index, spec, path, name, boost)
    recorder.clause(name, path, scores)
    return scores


def _run(handler: Handler, index: EmbeddedIndex, spec: Any, path: str, name: str, boost: float) -> Scores:
    counting = COUNTING.get()
    if counting is not None:  # the counts made below are this clause's, unless an inner clause takes them
        counting.enter(path, f"{path}.{name}")
    try:
        return handler(index, spec, f"{path}.{name}", boost)
    except Unmapped:
        if name in MATCH_NONE_WHEN_UNMAPPED:
            return Scores.none(index.n)
        raise
    finally:
        if counting is not None:
            counting.stack.pop()
