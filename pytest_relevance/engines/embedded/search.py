"""One search body end to end: the query, then what Elasticsearch does to its hits (min_score, post_filter, rescore,
collapse, sort), then the ranked slice. Ties are broken by document id, ascending, as the Elasticsearch engine's
sort does, so both engines rank identically.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.queries import (
    F32,
    IGNORED_BODY_KEYS,
    Invalid,
    Unsupported,
    allowed,
    evaluate,
    number,
)

if TYPE_CHECKING:
    from pytest_relevance.engines.base import Hits
    from pytest_relevance.engines.embedded import EmbeddedIndex

_BODY_KEYS = IGNORED_BODY_KEYS | {"query", "min_score", "post_filter", "rescore", "collapse", "sort"}
_RESCORE_MODES = {
    "total": lambda a, b: a + b,
    "multiply": lambda a, b: a * b,
    "avg": lambda a, b: (a + b) / F32(2),
    "max": np.maximum,
    "min": np.minimum,
}


def search(index: EmbeddedIndex, body: dict[str, Any], size: int) -> Hits:
    unknown = sorted(set(body) - _BODY_KEYS)
    if unknown:
        raise Unsupported(unknown[0], "the search body")
    start = body.get("from", 0)
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise Invalid("from", f"{start!r} is not a whole number >= 0")
    scores = evaluate(index, body.get("query") or {"match_all": {}}, "query")
    docs, values = scores.docs, scores.values
    if body.get("min_score") is not None:
        keep = values >= number(body, "min_score", "the search body")
        docs, values = docs[keep], values[keep]
    if body.get("post_filter") is not None:
        keep = evaluate(index, body["post_filter"], "post_filter").matched[docs]
        docs, values = docs[keep], values[keep]
    if body.get("sort") is not None:
        if body.get("rescore") is not None:
            raise Invalid("sort", "Elasticsearch refuses rescore together with sort")
        order = _sort_order(index, body["sort"], docs, values)
        docs, values = docs[order], values[order]
    elif body.get("rescore") is not None:
        docs, values = _rescore(index, body["rescore"], docs, values, start + size)
    else:
        docs, values = ranked(index, docs, values, None if body.get("collapse") else start + size)
    if body.get("collapse") is not None:
        docs, values = _collapse(index, body["collapse"], docs, values)
    docs, values = docs[start : start + size], values[start : start + size]
    return list(zip(index.id_array[docs].tolist(), values.tolist(), strict=True))


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
    docs, values = ranked(index, docs, values, max([want, *windows]))
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
        second = evaluate(index, inner["rescore_query"], f"{path}.query.rescore_query")
        window = min(windows[i], docs.size)
        primary = (values * query_weight).astype(F32)
        hit = second.matched[docs[:window]]
        combined = _RESCORE_MODES[mode](primary[:window], (second.score[docs[:window]] * rescore_weight).astype(F32))
        primary[:window] = np.where(hit, combined, primary[:window]).astype(F32)
        docs, values = ranked(index, docs, primary, None)
    return docs, values


def _collapse(index: EmbeddedIndex, spec: Any, docs: np.ndarray, values: np.ndarray) -> tuple[Any, Any]:
    """The best hit per value of a keyword (or numeric) field; documents without a value form one group."""
    options = allowed(spec, {"field", "inner_hits", "max_concurrent_group_searches"}, "collapse")
    field = options.get("field")
    index.check_field(field, "collapse")
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
    for i, item in enumerate(spec if isinstance(spec, list) else [spec]):
        path = f"sort[{i}]"
        field, options = (item, {}) if isinstance(item, str) else next(iter(item.items()), (None, {}))
        options = {"order": options} if isinstance(options, str) else options
        allowed(options, {"order", "missing", "mode", "unmapped_type", "numeric_type", "format"}, path)
        descending = str(options.get("order", "desc" if field == "_score" else "asc")).lower() == "desc"
        if field == "_score":
            keys.append(-values.astype(np.float64) if descending else values.astype(np.float64))
            continue
        if field == "_doc":
            keys.append(-docs if descending else docs)
            continue
        index.check_field(field, path)
        column = index.doc_values(field)
        if column is None or index.kinds[field] == "keyword":
            raise Unsupported(f"sort on the {index.kinds[field]} field {field!r}", path)
        key = column[docs].astype(np.float64)
        missing = options.get("missing", "_last")
        absent = np.isnan(key)
        if missing in ("_last", "_first"):
            fill = np.inf if (missing == "_last") != descending else -np.inf
        else:
            fill = index.convert_query_value(field, missing, f"{path}.missing")
        key = np.where(absent, fill, key)
        keys.append(-key if descending else key)
    return np.lexsort((index.id_rank[docs], *reversed(keys)))
