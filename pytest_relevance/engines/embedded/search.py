"""One search body end to end: the query, then what Elasticsearch does to its hits (min_score, post_filter, rescore,
collapse, sort), then the ranked slice. Ties are broken by document id, ascending, as the Elasticsearch engine's
sort does, so both engines rank identically.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.cost import tally
from pytest_relevance.engines.embedded.java import F32
from pytest_relevance.engines.embedded.mapping import flag
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unsupported
from pytest_relevance.engines.embedded.queries.options import allowed, number
from pytest_relevance.engines.embedded.queries.registry import IGNORED_BODY_KEYS, evaluate
from pytest_relevance.engines.embedded.queries.scripts import compile_script, run_script, script_strings
from pytest_relevance.engines.embedded.queries.vectors import nearest
from pytest_relevance.engines.embedded.recorder import RECORDING, Recorder
from pytest_relevance.engines.embedded.scores import Scores

if TYPE_CHECKING:
    from pytest_relevance.engines.base import Hits
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex
    from pytest_relevance.explain.tree import Node

_BODY_KEYS = IGNORED_BODY_KEYS | {
    "query",
    "min_score",
    "post_filter",
    "rescore",
    "collapse",
    "sort",
    "knn",
    "retriever",
}
# The other keys Elasticsearch 8's SearchSourceBuilder reads: the Elasticsearch engine runs them, the embedded one
# does not. Any key in neither set is refused by Elasticsearch itself.
_ELASTICSEARCH_BODY_KEYS = frozenset(
    {"terminate_after", "rank", "indices_boost", "search_after", "slice", "pit", "runtime_mappings", "script_fields",
     "stats", "sub_searches", "ext"}
)  # fmt: skip
_RESCORE_MODES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "total": lambda a, b: a + b,
    "multiply": lambda a, b: a * b,
    "avg": lambda a, b: (a + b) / F32(2),
    "max": np.maximum,
    "min": np.minimum,
}


def _coerced_int(value: Any, key: str) -> int:
    """An int of the search body as XContentParser.intValue reads it, coercing: a number (a fraction truncated) or
    a string holding one ("10", "2.5"); a boolean or anything else is refused."""
    number = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if isinstance(number, bool) or not isinstance(number, int | float) or not math.isfinite(number):
        raise Invalid(key, f"{value!r} is not a whole number (Elasticsearch reads a number or a numeric string)")
    if not -(2**31) <= number < 2**31:
        raise Invalid(key, f"Value [{value}] is out of range for an integer, as Elasticsearch 8 refuses it")
    return int(number)


def search(index: EmbeddedIndex, body: dict[str, Any], size: int) -> Hits:
    refuse_body_keys(body)
    for key in ("aggs", "aggregations"):
        _refuse_text_aggregations(index, body.get(key), key)
    _refuse_fast_vector_highlighting(index, body.get("highlight"))
    _refuse_unmapped_suggestions(index, body.get("suggest"))
    start = _coerced_int(body.get("from", 0), "from")
    if start < 0:
        raise Invalid("from", f"[from] parameter cannot be negative, found [{start}], as Elasticsearch 8 refuses it")
    window = index.mapping.max_result_window
    if start + size > window:  # Elasticsearch's own refusal, before it searches
        raise Invalid(
            "from",
            f"Result window is too large, from + size must be less than or equal to: [{window}] but was "
            f"[{start + size}]; raise the index.max_result_window index setting",
        )
    if body.get("retriever") is not None:
        if body.get("query") is not None or body.get("knn") is not None:
            raise Invalid("retriever", "a body with a retriever has no query or knn of its own")
        scores = retrieve(index, body["retriever"], "retriever", max(size, 10))
    else:
        scores = _query_and_knn(index, body, max(size, 10))
    docs, values = scores.docs, scores.values
    tally("docs_matched", docs.size)
    if body.get("min_score") is not None:
        keep = values >= number(body, "min_score", "the search body")
        docs, values = docs[keep], values[keep]
    if body.get("post_filter") is not None:
        keep = evaluate(index, body["post_filter"], "post_filter").matched[docs]
        docs, values = docs[keep], values[keep]
    recorder = RECORDING.get()
    if recorder is not None:
        recorder.settle(docs, values, "min_score")
    if body.get("collapse") is not None and body.get("rescore"):
        raise Invalid("collapse", "Elasticsearch refuses it: cannot use `collapse` in conjunction with `rescore`")
    if body.get("sort") is not None:
        if body.get("rescore") is not None:
            raise Invalid("sort", "Elasticsearch refuses rescore together with sort")
        order = _sort_order(index, body["sort"], docs, values)
        docs, values = docs[order], values[order]
    elif body.get("rescore") is not None:
        docs, values = _rescore(index, body["rescore"], docs, values, start + size)
        if recorder is not None:
            recorder.settle(docs, values, "rescore")
    else:
        docs, values = ranked(index, docs, values, None if body.get("collapse") else start + size)
    if body.get("collapse") is not None:
        docs, values = _collapse(index, body["collapse"], docs, values)
        if recorder is not None:
            recorder.settle(docs, values, "collapse")
    docs, values = docs[start : start + size], values[start : start + size]
    return list(zip(index.id_array[docs].tolist(), values.tolist(), strict=True))


def refuse_body_keys(body: dict[str, Any]) -> None:
    """A key Elasticsearch 8 does not read is its parsing error (`filter` beside `query` was Elasticsearch 1.x's
    form), never "the elasticsearch engine supports it"; a key it reads and the embedded engine does not is that."""
    for key in sorted(set(body) - _BODY_KEYS):
        if key == "ext":
            names = ", ".join(body["ext"]) if isinstance(body["ext"], dict) else repr(body["ext"])
            raise Invalid(
                "ext",
                f"[{names}] is a search extension, which only a server plugin registers (Elasticsearch has none of "
                "its own); needs the plugin that provides it; the Elasticsearch engine with that plugin runs it",
            )
        if key in _ELASTICSEARCH_BODY_KEYS:
            raise Unsupported(key, "the search body", sorted(_BODY_KEYS))
        value = body[key]
        token = "START_OBJECT" if isinstance(value, dict) else "START_ARRAY" if isinstance(value, list) else "VALUE"
        hint = " (Elasticsearch 1.x's top-level filter: put it in query.bool.filter)" if key == "filter" else ""
        raise Invalid(key, f'Elasticsearch 8 refuses the key: "Unknown key for a {token} in [{key}]."{hint}')


def _refuse_text_aggregations(index: EmbeddedIndex, aggs: Any, path: str) -> None:
    """Aggregations do not change the ranking, so the embedded engine skips them; but Elasticsearch refuses the whole
    request when one reads a text field without fielddata, and a gate that passes here would fail there."""
    if not isinstance(aggs, dict):
        return
    for name, spec in aggs.items():
        if not isinstance(spec, dict):
            continue
        for kind, options in spec.items():
            at = f"{path}.{name}.{kind}"
            if kind in ("aggs", "aggregations"):
                _refuse_text_aggregations(index, options, at)
            elif isinstance(options, dict) and isinstance(options.get("field"), str):
                field = index.fields.get(options["field"])
                if field is not None and field.kind == "text" and not flag(field.params.get("fielddata", False)):
                    raise Invalid(
                        f"{at}.field",
                        "Elasticsearch 8 refuses the request: Text fields are not optimised for operations that "
                        "require per-document field data like aggregations and sorting, so these operations are "
                        "disabled by default. Please use a keyword field instead. Alternatively, set "
                        f"fielddata=true on [{options['field']}] in order to load field data by uninverting the "
                        "inverted index. Note that this can use significant memory.",
                    )


def _refuse_fast_vector_highlighting(index: EmbeddedIndex, highlight: Any) -> None:
    """The fvh highlighter needs term vectors with positions and offsets; Elasticsearch refuses the request without
    them (the embedded engine does not highlight, which would otherwise hide that)."""
    if not isinstance(highlight, dict) or not isinstance(highlight.get("fields"), dict):
        return
    for name, options in highlight["fields"].items():
        kind = options.get("type", highlight.get("type")) if isinstance(options, dict) else highlight.get("type")
        field = index.fields.get(name)
        vectors = str(field.params.get("term_vector", "no")) if field is not None else ""
        if kind == "fvh" and field is not None and not vectors.startswith("with_positions_offsets"):
            raise Invalid(
                f"highlight.fields.{name}",
                f"Elasticsearch 8 refuses the request: the field [{name}] should be indexed with term vector "
                "with position offsets to be used with fast vector highlighter (term_vector: "
                "with_positions_offsets in its mapping)",
            )


def _refuse_unmapped_suggestions(index: EmbeddedIndex, suggest: Any) -> None:
    """Suggesters do not rank, so the embedded engine skips them; Elasticsearch refuses the request when one names a
    field the mappings lack (SuggestionBuilder.build) or, for completion, a field of another type."""
    if not isinstance(suggest, dict):
        return
    for name, spec in suggest.items():
        if not isinstance(spec, dict):
            continue  # the global `text`
        for kind in ("term", "phrase", "completion"):
            options = spec.get(kind)
            if not isinstance(options, dict) or not isinstance(options.get("field"), str):
                continue
            field, at = options["field"], f"suggest.{name}.{kind}.field"
            if field not in index.fields:
                raise Invalid(at, f"Elasticsearch 8 refuses the request: no mapping found for field [{field}]")
            if kind == "completion" and index.fields[field].type != "completion":
                raise Invalid(
                    at, f"Elasticsearch 8 refuses the request: Field [{field}] is not a completion suggest field"
                )


def _query_and_knn(index: EmbeddedIndex, body: dict[str, Any], size: int) -> Scores:
    """The query, the knn section, or both: a hybrid search sums a document's query and knn scores."""
    if body.get("knn") is None:
        return evaluate(index, body.get("query") or {"match_all": {}}, "query")
    sections = body["knn"] if isinstance(body["knn"], list) else [body["knn"]]
    recorder = RECORDING.get()
    parts = []
    for i, section in enumerate(sections):
        path = f"knn[{i}]" if len(sections) > 1 else "knn"
        if recorder is not None:
            recorder.open()
        parts.append(nearest(index, section, path, 1.0, size))
        if recorder is not None:
            recorder.close(path, "knn", parts[-1], field=str(section.get("field")))
    if body.get("query") is not None:
        parts.append(evaluate(index, body["query"], "query"))
    matched = np.logical_or.reduce([p.matched for p in parts])
    total = np.sum([p.score.astype(np.float64) for p in parts], axis=0)
    return Scores(matched, np.where(matched, total, 0.0).astype(F32))


def retrieve(index: EmbeddedIndex, spec: Any, path: str, size: int) -> Scores:
    """Elasticsearch's retrievers: standard (a query), knn, and rrf (reciprocal rank fusion of retrievers)."""
    if not isinstance(spec, dict) or len(spec) != 1:
        raise Invalid(path, "a retriever is one of standard, knn, rrf")
    ((kind, options),) = spec.items()
    at = f"{path}.{kind}"
    if kind == "standard":
        options = allowed(options, {"query", "filter", "min_score"}, at)
        scores = evaluate(index, options.get("query") or {"match_all": {}}, f"{at}.query")
        if options.get("filter") is None and options.get("min_score") is None:
            return scores
        keep = np.ones(scores.docs.size, dtype=bool)
        if options.get("filter") is not None:
            keep &= evaluate(index, options["filter"], f"{at}.filter").matched[scores.docs]
        if options.get("min_score") is not None:
            keep &= scores.values >= number(options, "min_score", at)
        return Scores.of(index.n, scores.docs[keep], scores.values[keep])
    if kind == "knn":
        return nearest(index, options, at, 1.0, size)
    if kind != "rrf":
        raise Unsupported(f"retriever {kind}", path)
    options = allowed(options, {"retrievers", "rank_constant", "rank_window_size", "filter"}, at)
    constant = number(options, "rank_constant", at, 60)
    window = int(number(options, "rank_window_size", at, size))
    children = options.get("retrievers")
    if not isinstance(children, list) or not children:
        raise Invalid(f"{at}.retrievers", "needs a list of retrievers")
    total = np.zeros(index.n)
    matched = np.zeros(index.n, dtype=bool)
    for i, child in enumerate(children):
        result = retrieve(index, child, f"{at}.retrievers[{i}]", window)
        docs, _ = ranked(index, result.docs, result.values, window)
        total[docs] += 1.0 / (constant + np.arange(1, docs.size + 1))
        matched[docs] = True
    if options.get("filter") is not None:
        matched &= evaluate(index, options["filter"], f"{at}.filter").matched
    return Scores(matched, np.where(matched, total, 0.0).astype(F32))


def ranked(index: EmbeddedIndex, docs: np.ndarray, values: np.ndarray, limit: int | None) -> tuple[Any, Any]:
    """Documents by score descending, then id ascending; only the first `limit` when given (exact: a partition
    keeps every document scoring at least the limit-th score, ties included, before the sort)."""
    if limit is not None and docs.size > limit:
        threshold = np.partition(values, docs.size - limit)[docs.size - limit]
        keep = values >= threshold
        docs, values = docs[keep], values[keep]
    order = np.lexsort((index.id_rank[docs], -values))
    if limit is not None:
        order = order[:limit]
    return docs[order], values[order]


def _rescore(index: EmbeddedIndex, spec: Any, docs: np.ndarray, values: np.ndarray, want: int) -> tuple[Any, Any]:
    """Elasticsearch's QueryRescorer, one rescorer after the other: the top `window_size` hits get
    score_mode(query_weight x score, rescore_query_weight x rescore score) when the rescore query matches them,
    query_weight x score otherwise, as do the hits past the window; then all are sorted again."""
    rescorers = spec if isinstance(spec, list) else [spec]
    windows = []
    for i, rescorer in enumerate(rescorers):
        path = f"rescore[{i}]" if isinstance(spec, list) else "rescore"
        options = allowed(rescorer, {"window_size", "query"}, path)
        windows.append(int(number(options, "window_size", path, 10)))
    recorder = RECORDING.get()
    # explaining keeps every hit: a document past the first `want` gets query_weight x its score, as in Elasticsearch
    docs, values = ranked(index, docs, values, max([want, *windows]) if recorder is None else None)
    for i, rescorer in enumerate(rescorers):
        path = f"rescore[{i}]" if isinstance(spec, list) else "rescore"
        inner = allowed(rescorer.get("query"), {"rescore_query", "query_weight", "rescore_query_weight", "score_mode"},
                        f"{path}.query")  # fmt: skip
        if inner.get("rescore_query") is None:
            raise Invalid(f"{path}.query", "needs 'rescore_query'")
        mode = str(inner.get("score_mode", "total"))
        if mode not in _RESCORE_MODES:
            raise Invalid(f"{path}.query.score_mode", f"{mode!r} is not one of {', '.join(_RESCORE_MODES)}")
        query_weight = F32(number(inner, "query_weight", f"{path}.query", 1.0))
        rescore_weight = F32(number(inner, "rescore_query_weight", f"{path}.query", 1.0))
        if recorder is not None:
            recorder.open()
        second = evaluate(index, inner["rescore_query"], f"{path}.query.rescore_query")
        window = min(windows[i], docs.size)
        tally("rescored", window)
        primary = (values * query_weight).astype(F32)
        hit = second.matched[docs[:window]]
        combined = _RESCORE_MODES[mode](primary[:window], (second.score[docs[:window]] * rescore_weight).astype(F32))
        primary[:window] = np.where(hit, combined, primary[:window]).astype(F32)
        if recorder is not None:
            in_window = recorder.gather(docs[:window], np.ones(window, dtype=bool), False)
            order = np.argsort(docs)
            recorder.close(path, "rescore", Scores.of(index.n, docs[order], primary[order]), score_mode=mode,
                           query_weight=float(query_weight), rescore_query_weight=float(rescore_weight),
                           window_size=windows[i], in_window=in_window)  # fmt: skip
        docs, values = ranked(index, docs, primary, None)
    return docs, values


def explain(index: EmbeddedIndex, body: dict[str, Any], ordinals: np.ndarray, size: int) -> list[Node]:
    """The score trees of these documents for one search body (see `recorder`): `search` runs once with a
    recorder set, so every value is the one the ranking computed, the root's being the hit's score."""
    recorder = Recorder(ordinals)
    token = RECORDING.set(recorder)
    try:
        search(index, body, size)
    finally:
        RECORDING.reset(token)
    return recorder.trees(rescored=body.get("rescore") is not None and body.get("sort") is None)


def _collapse(index: EmbeddedIndex, spec: Any, docs: np.ndarray, values: np.ndarray) -> tuple[Any, Any]:
    """The best hit per value of a keyword (or numeric) field; documents without a value form one group."""
    options = allowed(spec, {"field", "inner_hits", "max_concurrent_group_searches"}, "collapse")
    field = index.check_field(options.get("field"), "collapse")
    keys = index.doc_values(field)
    if keys is None or index.kinds[field] == "text":
        raise Invalid("collapse.field", f"{field!r} is a text field; collapse needs a keyword or numeric field")
    group = keys[docs]
    if group.dtype == object:
        group = np.array(["\0none" if g is None else g for g in group], dtype=object)
    else:
        group = np.where(np.isnan(group), np.inf, group)
    _, first = np.unique(group, return_index=True)
    first.sort()
    return docs[first], values[first]


def _sort_order(index: EmbeddedIndex, spec: Any, docs: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Elasticsearch's sort: a list of `_score`, field names or {field: {order, missing, mode}}; ties by id."""
    keys: list[np.ndarray] = []
    field: Any  # as written: a name, or anything else, which check_field refuses
    for i, item in enumerate(spec if isinstance(spec, list) else [spec]):
        path = f"sort[{i}]"
        field, options = (item, {}) if isinstance(item, str) else next(iter(item.items()), (None, {}))
        options = {"order": options} if isinstance(options, str) else options
        if field == "_script":
            keys.append(_script_sort_key(index, options, docs, values, path))
            continue
        allowed(options, {"order", "missing", "mode", "unmapped_type", "numeric_type", "format"}, path)
        descending = str(options.get("order", "desc" if field == "_score" else "asc")).lower() == "desc"
        if field == "_score":
            if set(options) - {"order"}:  # ScoreSortBuilder's parser knows `order` alone
                raise Invalid(f"{path}.{sorted(set(options) - {'order'})[0]}", "[_score] sorts take only 'order'")
            keys.append(-values.astype(np.float64) if descending else values.astype(np.float64))
            continue
        if field not in index.kinds and options.get("unmapped_type"):
            continue  # no document has a value: every one sorts as missing, which changes no order
        if field == "_doc":
            keys.append(-docs if descending else docs)
            continue
        if index.kinds.get(field) == "text":  # before check_field, which would refuse a text field with index: false
            raise Invalid(
                path,
                f"Elasticsearch refuses to sort on the text field {field!r} (it has no doc values); sort on a "
                "keyword field or multi-field",
            )
        index.check_field(field, path)
        if field not in index.keyword and field not in index.numeric:
            raise Unsupported(f"sort on the {index.kinds[field]} field {field!r}", path)
        # Elasticsearch's FieldSortBuilder: without a mode, asc sorts by each document's smallest value, desc by its
        # largest; MultiValueMode.fromString reads the mode in any case
        mode = str(options.get("mode", "max" if descending else "min")).lower()
        if mode not in ("min", "max", "sum", "avg", "median"):
            raise Invalid(f"{path}.mode", f"Illegal sort mode: {options['mode']}")
        missing = options.get("missing", "_last")
        if index.kinds[field] == "keyword":  # by term order: a keyword's rank in the sorted term dictionary
            if mode not in ("min", "max"):
                raise Invalid(f"{path}.mode", "we only support AVG, MEDIAN and SUM on number based fields")
            key = _keyword_ranks(index, field, mode)[docs]
            if missing not in ("_last", "_first"):
                raise Unsupported("sort missing with a value on a keyword field", f"{path}.missing")
        else:
            key = _numeric_sort_values(index, field, mode)[docs]
        absent = np.isnan(key)
        if missing in ("_last", "_first"):
            fill = np.inf if (missing == "_last") != descending else -np.inf
        else:
            fill = index.convert_query_value(field, missing, f"{path}.missing")
        key = np.where(absent, fill, key)
        keys.append(-key if descending else key)
    return np.lexsort((index.id_rank[docs], *reversed(keys)))


def _script_sort_key(index: EmbeddedIndex, spec: Any, docs: np.ndarray, values: np.ndarray, path: str) -> np.ndarray:
    """ScriptSortBuilder: the script's number or string per document (`_score`, `doc` and `params` in scope);
    strings by their order (UTF-8 bytes, which code points follow)."""
    path = f"{path}._script"
    options = allowed(spec, {"script", "type", "order", "mode"}, path)
    kind = options.get("type")
    if kind not in ("number", "string"):
        raise Invalid(f"{path}.type", "a _script sort needs 'type': number or string")
    if "script" not in options:
        raise Invalid(path, "needs 'script'")
    script = compile_script(options["script"], f"{path}.script")
    descending = str(options.get("order", "asc")).lower() == "desc"
    if kind == "number":
        key = run_script(index, script, docs, values.astype(np.float64))
    else:
        texts = script_strings(index, script, docs, values.astype(np.float64))
        key = np.unique(np.array(texts, dtype=object), return_inverse=True)[1].astype(np.float64)
    return -key if descending else key


_DOUBLE_TYPES = frozenset(["double", "float", "half_float", "scaled_float"])


def _keyword_ranks(index: EmbeddedIndex, field: str, mode: str) -> np.ndarray:
    """Per document, the rank in the term dictionary of its smallest (min) or largest (max) keyword; NaN if none."""
    keyword = index.keyword[field]
    rank = np.empty(len(keyword.vocab), dtype=np.float64)
    rank[[keyword.vocab[t] for t in keyword.sorted_terms]] = np.arange(len(keyword.vocab))
    out = np.full(index.n, np.inf if mode == "min" else -np.inf)
    (np.minimum if mode == "min" else np.maximum).at(out, keyword.doc_of, rank[keyword.ids])
    out[~keyword.has_value] = np.nan
    return out


def _numeric_sort_values(index: EmbeddedIndex, field: str, mode: str) -> np.ndarray:
    """Per document, the value Elasticsearch's MultiValueMode picks from its sorted values; NaN if none. Whole-number
    fields (integers, dates, booleans) take the long path, which rounds avg and an even median half up
    (Math.round); float and double fields keep the fraction."""
    column = index.numeric[field]
    counts = np.bincount(column.doc_of, minlength=index.n)
    has = counts > 0
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))[has]
    count, values = counts[has], column.values
    if mode == "min":
        picked = values[starts]
    elif mode == "max":
        picked = values[starts + count - 1]
    elif mode == "median":
        low, high = values[starts + (count - 1) // 2], values[starts + count // 2]
        picked = np.where(count % 2 == 1, low, (low + high) / 2)
    else:
        picked = np.add.reduceat(values, starts) if values.size else values
        if mode == "avg":
            picked = picked / count
    if mode in ("avg", "median") and index.fields[field].type not in _DOUBLE_TYPES:
        picked = np.where(count > 1, np.floor(picked + 0.5), picked)
    out = np.full(index.n, np.nan)
    out[has] = picked
    return out
