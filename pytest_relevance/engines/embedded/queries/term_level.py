"""Term-level queries: exact values, ranges, existence. `term` on a text or keyword field is BM25-scored (a Lucene
TermQuery); on numbers and dates it is a point query. `terms`, `range`, `exists`, `ids` and `match_all` score the
constant boost, as Elasticsearch's constant-score queries do."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.dates import DateFormatError, time_zone
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unsupported
from pytest_relevance.engines.embedded.queries.full_text import term_disjunction
from pytest_relevance.engines.embedded.queries.options import (
    ASCII_LOWER,
    allowed,
    boost_of,
    field_spec,
    last_of,
    value_tokens,
)
from pytest_relevance.engines.embedded.queries.registry import query
from pytest_relevance.engines.embedded.scores import Scores

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex


@query("term")
def term(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    if isinstance(spec, dict) and any(isinstance(value, list) for value in spec.values()):
        raise Invalid(path, "[term] query does not support array of values, as Elasticsearch 8 refuses it (terms "
                            "takes a list)")  # fmt: skip
    field, options = field_spec(index, spec, path, "value")
    allowed(options, {"value", "term", "boost", "case_insensitive"}, path, every="term")
    options = last_of(options, "value", ("term", "value"))
    if "value" not in options or isinstance(options["value"], dict | list):
        raise Invalid(path, "needs one 'value'")
    boost = boost_of(options, path, boost)
    kind = index.kinds[field]
    if options.get("case_insensitive") and kind not in ("text", "keyword", "boolean"):
        field_type = index.fields[field].type
        raise Invalid(
            path, f"[{field}] field which is of type [{field_type}], does not support case insensitive term queries"
        )
    if kind in ("text", "keyword"):
        value = _as_term(options["value"])
        if kind == "keyword":
            value = index.normalize(field, value)
        if options.get("case_insensitive"):
            return _case_insensitive_term(index, field, value, boost, path)
        return term_disjunction(index, field, [value], boost, None, path)
    return index.equal(field, [options["value"]], boost, path)


def _case_insensitive_term(index: EmbeddedIndex, field: str, value: str, boost: float, path: str) -> Scores:
    """Elasticsearch turns a case-insensitive term into an AutomatonQuery (CaseInsensitiveTermQuery) whose letters
    match either case only in ASCII (AutomatonQueries.toCaseInsensitiveChar leaves code points above 128 alone);
    Lucene's default constant-score rewrite then scores the boost, not BM25."""
    wanted = value.translate(ASCII_LOWER)
    target = index.postings_field(field, path)
    matched = np.zeros(index.n, dtype=bool)
    for candidate in target.sorted_terms:
        if len(candidate) == len(wanted) and candidate.translate(ASCII_LOWER) == wanted:
            postings = target.postings(candidate)
            if postings is not None:
                matched[postings.docs] = True
    return Scores.constant(matched, boost)


def _as_term(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@query("terms")
def terms(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    """TermsQueryBuilder.fromXContent: one field with a list of values (or a terms lookup object, which this
    engine does not run), `boost` and `_name` beside it, and its refusals of anything else in its words."""
    if not isinstance(spec, dict):
        raise Invalid(path, "expected {field: [values]}")
    field = None
    for key, value in spec.items():
        if isinstance(value, list | dict) and field is not None:
            more = "multiple fields" if isinstance(value, list) else (
                f"more than one field. Already got: [{field}] but also found [{key}]")  # fmt: skip
            raise Invalid(path, f"[terms] query does not support {more}, as Elasticsearch 8 refuses it")
        if isinstance(value, list | dict):
            field = key
        elif key not in ("boost", "_name"):
            raise Invalid(path, f"[terms] query does not support [{key}], as Elasticsearch 8 refuses it")
    if field is None:
        raise Invalid(path, "[terms] query requires a field name, followed by array of terms or a document lookup "
                            "specification, as Elasticsearch 8 refuses it")  # fmt: skip
    index.check_field(field, path)
    if not isinstance(spec[field], list):
        raise Unsupported("terms without a list of values (terms lookup)", path, ["{field: [values]}"])
    return index.equal(field, spec[field], boost_of(spec, path, boost), path)


_RANGE_KEYS = {"gte", "gt", "lte", "lt", "from", "to", "include_lower", "include_upper", "boost", "format",
               "relation", "time_zone"}  # fmt: skip


@query("range")
def range_(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    for key, value in spec.items() if isinstance(spec, dict) else ():
        if not isinstance(value, dict):  # RangeQueryBuilder reads only field objects at the top level
            raise Invalid(path, f"[range] query does not support [{key}], as Elasticsearch 8 refuses it")
    field, options = field_spec(index, spec, path, "gte")
    options = _bounds(allowed(options, _RANGE_KEYS, path, every="range"))
    boost = boost_of(options, path, boost)
    kind = index.kinds[field]
    if kind == "text":
        raise Unsupported(f"range on the text field {field!r}", path)
    zone = _range_zone(options, kind, path)
    bounds = {k: options[k] for k in ("gte", "gt", "lte", "lt") if options.get(k) is not None}
    if kind == "keyword":
        keyword = index.keyword[field]
        vocab = list(keyword.vocab)
        ok = np.ones(len(vocab), dtype=bool)
        for key, bound in bounds.items():
            normalized = index.normalize(field, str(bound))  # KeywordFieldType.indexedValueForSearch
            ok &= np.array([_compare(key, v, normalized) for v in vocab], dtype=bool)
        matched = np.zeros(index.n, dtype=bool)
        for tid in np.flatnonzero(ok):
            matched[keyword.doc_of[keyword.offsets[tid] : keyword.offsets[tid + 1]]] = True
        return Scores.constant(matched, boost)
    column = index.numeric[field]
    condition = np.ones(column.values.size, dtype=bool)
    factor = index.scaling.get(field)
    values = column.values if factor is None else np.rint(column.values * factor)  # the stored longs
    for key, bound in bounds.items():
        if kind == "date":
            # DateFieldType.dateRangeQuery: gt and lte read with the round-up parser (`2020-01` as its last
            # millisecond of the day the parser fills in, `||/M` as the month's last millisecond)
            value = index.date_query_value(
                field, bound, f"{path}.{key}", key in ("gt", "lte"), options.get("format"), zone
            )
            condition &= _compare(key, values, value)
            continue
        value = index.convert_query_value(field, bound, f"{path}.{key}")
        if factor is not None:
            key, value = _scaled_bound(key, value * factor)
        condition &= _compare(key, values, value)
    return Scores.constant(column.any(condition), boost)


def _bounds(options: dict[str, Any]) -> dict[str, Any]:
    """The bounds as RangeQueryBuilder.fromXContent keeps them, reading the keys in order: `from`/`to` with
    `include_lower`/`include_upper` (true by default) and `gt`/`gte`/`lt`/`lte`, which set a bound and its
    inclusion at once; the last one written wins."""
    lower, upper = None, None
    include = {"include_lower": True, "include_upper": True}
    for key, value in options.items():
        if key in ("from", "gt", "gte"):
            lower = value
            if key != "from":
                include["include_lower"] = key == "gte"
        elif key in ("to", "lt", "lte"):
            upper = value
            if key != "to":
                include["include_upper"] = key == "lte"
        elif key in include:
            include[key] = bool(value)
    kept = {k: v for k, v in options.items() if k not in _RANGE_KEYS - {"boost", "format", "relation", "time_zone"}}
    if lower is not None:
        kept["gte" if include["include_lower"] else "gt"] = lower
    if upper is not None:
        kept["lte" if include["include_upper"] else "lt"] = upper
    return kept


def _range_zone(options: dict[str, Any], kind: str, path: str) -> Any:
    """RangeQueryBuilder's `time_zone` (ZoneId.of), which only a date field's rangeQuery reads."""
    if options.get("time_zone") is None or kind != "date":
        return None
    try:
        return time_zone(str(options["time_zone"]))
    except DateFormatError as exc:
        raise Invalid(f"{path}.time_zone", str(exc)) from None


def _scaled_bound(key: str, scaled: float) -> tuple[str, float]:
    """A bound on a scaled_float as Elasticsearch turns it into an inclusive bound on the stored longs: a lower one
    rounded up (after a step up when exclusive), an upper one rounded down (after a step down when exclusive)."""
    if key in ("gte", "gt"):
        return "gte", math.ceil(math.nextafter(scaled, math.inf) if key == "gt" else scaled)
    return "lte", math.floor(math.nextafter(scaled, -math.inf) if key == "lt" else scaled)


def _compare(key: str, left: Any, right: Any) -> Any:
    if key == "gte":
        return left >= right
    if key == "gt":
        return left > right
    if key == "lte":
        return left <= right
    return left < right


@query("exists")
def exists(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    """ExistsQueryBuilder: the field names the pattern matches (`*` wildcards), else, for an object, its subfields
    (`field.*`); a document with a value in any of them matches; no such field matches nothing."""
    value_tokens(spec, "exists", path)
    options = allowed(spec, {"field", "boost"}, path, every="exists")
    field = options.get("field")
    if not isinstance(field, str):
        raise Invalid(path, f"field {field!r} is not a field name")
    names = _matching_fields(index, field) or _matching_fields(index, f"{field}.*")
    matched = np.zeros(index.n, dtype=bool)
    for name in names:
        index.check_field(name, path)
        matched |= index.has_value(name)
    return Scores.constant(matched, boost_of(options, path, boost))


def _matching_fields(index: EmbeddedIndex, pattern: str) -> list[str]:
    """Regex.simpleMatch over the mapped field names: `*` matches any run of characters, nothing else is special."""
    if "*" not in pattern:
        return [pattern] if pattern in index.kinds else []
    compiled = re.compile(".*".join(map(re.escape, pattern.split("*"))))
    return [name for name in index.kinds if compiled.fullmatch(name)]


@query("ids")
def ids(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    options = allowed(spec, {"values", "boost"}, path, parser="ids")
    values = options.get("values")
    if not isinstance(values, list):
        raise Invalid(path, "needs 'values', a list of document ids")
    matched = np.zeros(index.n, dtype=bool)
    wanted = [index.ordinal[str(v)] for v in values if str(v) in index.ordinal]
    matched[wanted] = True
    return Scores.constant(matched, boost_of(options, path, boost))


@query("match_all")
def match_all(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    options = allowed(spec or {}, {"boost"}, path, parser="match_all")
    return Scores.constant(np.ones(index.n, dtype=bool), boost_of(options, path, boost))


@query("match_none")
def match_none(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    value_tokens(spec, "match_none", path)
    allowed(spec or {}, {"boost"}, path, every="match_none")
    return Scores.none(index.n)
