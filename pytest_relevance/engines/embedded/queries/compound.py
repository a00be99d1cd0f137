"""Compound queries: bool, dis_max, constant_score and function_score, combined with array operations.

function_score follows Elasticsearch's FunctionScoreQuery: function values in double, the score modes (avg is
weighted by the functions' weights), the boost modes with max_boost, one float32 cast at the end, and an error for
a negative or non-numeric score, as Elasticsearch raises one. Decay and field_value_factor values depend on the
document only (the clock is frozen), so each is computed once per index over the whole column and then gathered.
"""

from __future__ import annotations

import json
import math
import time
import zlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.geo_point import parse_point
from pytest_relevance.engines.embedded.java import F32
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unsupported
from pytest_relevance.engines.embedded.queries.full_text import dis_max
from pytest_relevance.engines.embedded.queries.options import (
    allowed,
    boost_of,
    clause_list,
    field_spec,
    minimum_should_match,
    number,
)
from pytest_relevance.engines.embedded.queries.registry import evaluate, query
from pytest_relevance.engines.embedded.queries.scripts import compile_script, run_script
from pytest_relevance.engines.embedded.queries.values import distance_setting
from pytest_relevance.engines.embedded.recorder import RECORDING
from pytest_relevance.engines.embedded.scores import Scores, flat_sum
from pytest_relevance.inputs.clock import iso

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex

_MAX_BOOST = float(np.finfo(np.float32).max)


@query("bool")
def bool_(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    options = allowed(spec, {"must", "should", "must_not", "filter", "minimum_should_match", "boost",
                             "adjust_pure_negative"}, path, every="bool")  # fmt: skip
    boost = boost_of(options, path, boost)

    def clauses(key: str) -> list[Scores]:
        return [evaluate(index, q, f"{path}.{key}[{i}]", boost) for i, q in enumerate(clause_list(options, key))]

    must, should, must_not, filters = clauses("must"), clauses("should"), clauses("must_not"), clauses("filter")
    if not (must or should or must_not or filters):
        return Scores.constant(np.ones(index.n, dtype=bool), boost)
    adjust = options.get("adjust_pure_negative", True)
    if adjust not in (True, False, "true", "false"):
        raise Invalid(f"{path}.adjust_pure_negative", f"{adjust!r} is not true or false")
    if must_not and not (must or should or filters) and adjust in (False, "false"):
        # without Elasticsearch's added match_all filter, Lucene rewrites a pure negative BooleanQuery to no match
        return Scores.none(index.n)
    spec_msm = options.get("minimum_should_match")
    required = minimum_should_match(spec_msm, len(should), path) if spec_msm is not None and should else 0
    if len(must) + len(should) + len(must_not) + len(filters) == 1 and (must or should) and required <= 1:
        result = (must or should)[0]  # BooleanQuery.rewrite: a query of one scoring clause is that clause
    else:
        result = boolean(index, must, should, must_not, filters, required, flatten=True)
    return result.boosted(options.get("boost"))


def boolean(
    index: EmbeddedIndex,
    must: list[Scores],
    should: list[Scores],
    must_not: list[Scores],
    filters: list[Scores],
    required: int = 0,
    flatten: bool = False,
) -> Scores:
    """Lucene's BooleanQuery: every must and filter clause, no must_not clause, at least `required` should clauses
    (at least one when nothing else is required). As Lucene's scorers add them: the must scores summed in double
    and cast to float32 (ConjunctionScorer), the should scores likewise (the disjunction scorers), then the two added
    in float32 (ReqOptSumScorer, or a ConjunctionScorer of the two). `flatten` (the bool query): with `required` at
    most 1, should clauses that are unboosted pure disjunctions are taken apart first, as BooleanQuery.rewrite does
    (`flat_sum`), and a bool of should clauses only is itself a pure disjunction."""
    matched = np.ones(index.n, dtype=bool)
    for clause in must + filters:
        matched &= clause.matched
    for clause in must_not:
        matched &= ~clause.matched
    if should:
        if not (must or filters):
            required = max(required, 1)
        if required:
            count = np.sum([c.matched for c in should], axis=0)
            matched &= count >= required
    optional = None
    if should and flatten and required <= 1:
        optional = flat_sum(index, should)
        if not (must or filters or must_not):
            return (
                optional
                if optional.exact is not None
                else Scores.disjunction(index.n, optional.docs, optional.values.astype(np.float64))
            )
        opt_score = optional.score
    elif should:
        opt_total = np.zeros(index.n, dtype=np.float64)
        for clause in should:
            opt_total += clause.score
        opt_score = opt_total.astype(F32)
    req_total = np.zeros(index.n, dtype=np.float64)
    for clause in must:
        req_total += clause.score
    total = req_total.astype(F32) + opt_score if should else req_total.astype(F32)
    return Scores(matched, np.where(matched, total, F32(0)).astype(F32))


@query("dis_max")
def dis_max_(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    options = allowed(spec, {"queries", "tie_breaker", "boost"}, path, every="dis_max")
    boost = boost_of(options, path, boost)
    queries = clause_list(options, "queries")
    parts = [evaluate(index, q, f"{path}.queries[{i}]", boost) for i, q in enumerate(queries)]
    tie = number(options, "tie_breaker", path, 0.0)
    recorder = RECORDING.get()
    if recorder is not None:
        recorder.note(path, kind="max" if tie == 0 else "dis_max", tie_breaker=tie)
    return dis_max(index, parts, tie).boosted(options.get("boost"))


@query("constant_score")
def constant_score(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    if isinstance(spec, dict) and "query" in spec:  # ConstantScoreQueryBuilder reads `filter` only (1.x took either)
        raise Invalid(f"{path}.query", "[constant_score] query does not support [query], as Elasticsearch 8 refuses "
                      "it: its clause is `filter`")  # fmt: skip
    options = allowed(spec, {"filter", "boost"}, path, every="constant_score")
    if "filter" not in options:
        raise Invalid(path, "[constant_score] requires a 'filter' element")
    matched = evaluate(index, options["filter"], f"{path}.filter").matched
    boost = boost_of(options, path, boost)
    recorder = RECORDING.get()
    if recorder is not None:
        recorder.note(path, boost=boost)
    return Scores.constant(matched, boost)


@query("boosting")
def boosting(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    options = allowed(spec, {"positive", "negative", "negative_boost", "boost"}, path, every="boosting")
    if "positive" not in options or "negative" not in options:
        raise Invalid(path, "needs 'positive' and 'negative'")
    factor = number(options, "negative_boost", path)
    if factor < 0:
        raise Invalid(f"{path}.negative_boost", f"{factor!r} must be >= 0")
    positive = evaluate(index, options["positive"], f"{path}.positive", boost_of(options, path, boost))
    negative = evaluate(index, options["negative"], f"{path}.negative").matched
    recorder = RECORDING.get()
    if recorder is not None:
        recorder.note(path, negative_boost=factor, negative=negative[recorder.ordinals])
    score = np.where(negative, positive.score * F32(factor), positive.score).astype(F32)
    return Scores(positive.matched, score)


@query("nested")
def nested(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    """Lucene's ToParentBlockJoinQuery: the query runs on the nested objects, a parent matches when one of its
    objects does, and scores their avg (default), sum, max or min, or 0 (none)."""
    options = allowed(spec, {"path", "query", "score_mode", "ignore_unmapped", "inner_hits", "boost"}, path,
                      every="nested")  # fmt: skip
    nested_path = options.get("path")
    if nested_path not in index.nested:
        if options.get("ignore_unmapped"):
            return Scores.none(index.n)
        raise Invalid(f"{path}.path", f"{nested_path!r} is not a nested object in the mappings")
    mode = str(options.get("score_mode", "avg"))
    if mode not in ("avg", "sum", "max", "min", "none"):
        raise Invalid(f"{path}.score_mode", f"{mode!r} is not one of avg, sum, max, min, none")
    if options.get("query") is None:
        raise Invalid(path, "needs 'query'")
    child_index, parent_of = index.nested[nested_path]
    recorder = RECORDING.get()
    if recorder is None:
        inner = evaluate(child_index, options["query"], f"{path}.query", boost_of(options, path, boost))
    else:  # the inner query runs over the nested objects, not the documents the recorder follows: not recorded
        token = RECORDING.set(None)
        inner = evaluate(child_index, options["query"], f"{path}.query", boost_of(options, path, boost))
        RECORDING.reset(token)
        recorder.note(path, score_mode=mode, nested_path=str(nested_path))
    parents = parent_of[inner.docs]
    values = inner.values.astype(np.float64)
    docs = np.unique(parents)
    if mode == "none":
        return Scores.of(index.n, docs, np.zeros(docs.size, dtype=F32))
    if mode in ("avg", "sum"):
        total = np.bincount(parents, weights=values, minlength=index.n)[docs]
        if mode == "avg":
            total = total / np.bincount(parents, minlength=index.n)[docs]
        return Scores.of(index.n, docs, total.astype(F32))
    pick, start = (np.maximum, -np.inf) if mode == "max" else (np.minimum, np.inf)
    best = np.full(index.n, start)
    pick.at(best, parents, values)
    return Scores.of(index.n, docs, best[docs].astype(F32))


_FUNCTIONS = ("gauss", "exp", "linear", "field_value_factor", "script_score", "random_score", "weight")


@query("function_score")
def function_score(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    keys = {"query", "functions", "score_mode", "boost_mode", "boost", "max_boost", "min_score"}
    _refuse_as_elasticsearch(spec, keys, path)
    options = allowed(spec, {*keys, *_FUNCTIONS}, path)
    boost = boost_of(options, path, boost)
    base = evaluate(index, options.get("query") or {"match_all": {}}, f"{path}.query", boost)
    functions = options.get("functions")
    if functions is None:
        single = {k: v for k, v in options.items() if k in _FUNCTIONS}
        functions, where = ([single] if single else []), path
    elif not isinstance(functions, list):
        raise Invalid(f"{path}.functions", "expected a list of functions")
    else:
        where = f"{path}.functions"
    score_mode = str(options.get("score_mode", "multiply"))
    boost_mode = str(options.get("boost_mode", "multiply"))
    if score_mode not in ("multiply", "sum", "avg", "first", "max", "min"):
        raise Invalid(f"{path}.score_mode", f"{score_mode!r} is not one of multiply, sum, avg, first, max, min")
    if boost_mode not in _BOOST_MODES:
        raise Invalid(f"{path}.boost_mode", f"{boost_mode!r} is not one of {', '.join(_BOOST_MODES)}")
    max_boost = number(options, "max_boost", path, _MAX_BOOST)
    docs = base.docs
    query_score = base.values.astype(np.float64)
    compiled = []
    for i, function in enumerate(functions):
        at = f"{where}[{i}]" if where != path else path
        applies, values, weight = _function(index, function, at, docs, query_score)
        compiled.append((applies, values, weight))
    factor = _combine(score_mode, compiled, docs.size)
    recorder = RECORDING.get()
    if recorder is not None:
        recorder.note(path, score_mode=score_mode, boost_mode=boost_mode,
                      factor=recorder.gather(docs, np.minimum(factor, max_boost), 1.0))  # fmt: skip
        if "max_boost" in options:
            recorder.note(path, max_boost=max_boost)
    final = _BOOST_MODES[boost_mode](query_score, np.minimum(factor, max_boost)).astype(F32)
    if not compiled:  # FunctionFactorScorer returns the query's score when there is no function, whatever boost_mode
        final = base.values
    bad = np.flatnonzero(~(final >= 0))
    if bad.size:
        doc = index.ids[int(docs[bad[0]])]
        problem = f"document {doc!r} gets the score {float(final[bad[0]])!r}; Elasticsearch refuses a negative or "
        raise Invalid(path, problem + "non-numeric function score (check modifiers, weights and missing values)")
    if options.get("min_score") is not None:
        keep = final >= number(options, "min_score", path)
        docs, final = docs[keep], final[keep]
    return Scores.of(index.n, docs, final)


def _refuse_as_elasticsearch(spec: Any, keys: set[str], path: str) -> None:
    """What FunctionScoreQueryBuilder.fromXContent refuses, in its words: a key that names no score function (an
    object is read as the single function's name: Elasticsearch 1.x's top-level `filter` is one), a value that is
    no option, two single functions."""
    if not isinstance(spec, dict):
        return
    single = [key for key in spec if key in _FUNCTIONS]
    if len(single) > 1:
        raise Invalid(path, f"failed to parse [function_score] query. already found function [{single[0]}], now "
                            f"encountering [{single[1]}]. use [functions] array if you want to define several "
                            "functions, as Elasticsearch 8 refuses it")  # fmt: skip
    if single and "functions" in spec:
        order = [key for key in spec if key in (single[0], "functions")]
        first, then = ("[functions] array", single[0]) if order[0] == "functions" else (f"[{single[0]}]", "functions")
        raise Invalid(path, "failed to parse [function_score] query. [you can either define [functions] array or a "
                            f"single function, not both. already found {first}, now encountering [{then}].], as "
                            "Elasticsearch 8 refuses it")  # fmt: skip
    for key, value in spec.items():
        if key in keys or key in _FUNCTIONS or key == "_name":
            continue
        if isinstance(value, dict):
            hint = " (a filter goes in `functions: [{filter: ..., weight: ...}]`)" if key == "filter" else ""
            raise Invalid(f"{path}.{key}", f"unknown field [{key}]: no score function has that name, as "
                                           f"Elasticsearch 8 refuses it{hint}")  # fmt: skip
        kind = "array" if isinstance(value, list) else "field"
        raise Invalid(f"{path}.{key}", f"failed to parse [function_score] query. {kind} [{key}] is not supported, "
                                       "as Elasticsearch 8 refuses it")  # fmt: skip


def _combine(mode: str, compiled: list[tuple[np.ndarray | None, np.ndarray, float]], m: int) -> np.ndarray:
    """FunctionFactorScorer.computeScore over arrays: 1 where no function applies."""
    factor = np.ones(m)
    if mode == "multiply":
        for applies, values, _ in compiled:
            factor = factor * (values if applies is None else np.where(applies, values, 1.0))
        return factor
    if mode == "first":
        decided = np.zeros(m, dtype=bool)
        for applies, values, _ in compiled:
            take = ~decided if applies is None else (~decided & applies)
            factor = np.where(take, values, factor)
            decided |= take
        return factor
    if mode in ("max", "min"):
        pick, start = (np.maximum, -np.inf) if mode == "max" else (np.minimum, np.inf)
        best = np.full(m, start)
        for applies, values, _ in compiled:
            best = pick(best, values if applies is None else np.where(applies, values, start))
        return np.where(np.isinf(best) & (best == start), 1.0, best)
    total, weights = np.zeros(m), np.zeros(m)
    for applies, values, weight in compiled:
        on = np.ones(m, dtype=bool) if applies is None else applies
        total = total + np.where(on, values, 0.0)
        weights = weights + np.where(on, weight, 0.0)
    if mode == "avg":
        with np.errstate(invalid="ignore", divide="ignore"):
            total = total / weights
    return np.where(weights != 0, total, 1.0)


def _function(
    index: EmbeddedIndex, spec: Any, path: str, docs: np.ndarray, query_score: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray, float]:
    """(applies to each doc or None for all, the function's value for each doc, its weight)."""
    recorder = RECORDING.get()
    if recorder is None:
        return _function_values(index, spec, path, docs, query_score)
    recorder.open()
    applies, values, weight = _function_values(index, spec, path, docs, query_score)
    kinds = [k for k in _FUNCTIONS[:-1] if k in spec]
    name = kinds[0] if kinds else "weight"
    on = np.ones(docs.size, dtype=bool) if applies is None else applies
    scores = Scores.of(index.n, docs[on], values[on].astype(F32))
    recorder.close(f"{path}.{name}", _FUNCTION_KINDS[name], scores, function=name, weight=weight)
    return applies, values, weight


_FUNCTION_KINDS = {"gauss": "decay", "exp": "decay", "linear": "decay", "field_value_factor": "field_value_factor",
                   "script_score": "script", "random_score": "other", "weight": "weight"}  # fmt: skip


def _function_values(
    index: EmbeddedIndex, spec: Any, path: str, docs: np.ndarray, query_score: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray, float]:
    for key, value in spec.items() if isinstance(spec, dict) else ():
        if key in ("filter", *_FUNCTIONS, "_name"):
            continue
        if isinstance(value, dict):  # FunctionScoreQueryBuilder.parseFiltersAndFunctions: an object names a function
            raise Invalid(f"{path}.{key}", f"unknown field [{key}]: no score function has that name, as "
                                           "Elasticsearch 8 refuses it")  # fmt: skip
        raise Invalid(f"{path}.{key}", f"failed to parse [function_score] query. field [{key}] is not supported, as "
                                       "Elasticsearch 8 refuses it")  # fmt: skip
    options = allowed(spec, {"filter", *_FUNCTIONS}, path)
    applies = None
    if options.get("filter") is not None:
        applies = evaluate(index, options["filter"], f"{path}.filter").matched[docs]
    weight = number(options, "weight", path, 1.0)
    if weight < 0:
        raise Invalid(f"{path}.weight", f"{weight!r}: a function weight must be >= 0")
    kinds = [k for k in _FUNCTIONS[:-1] if k in options]
    if len(kinds) > 1:
        raise Invalid(path, f"one function per entry, got {' and '.join(kinds)}")
    if not kinds:
        return applies, np.full(docs.size, weight), weight
    kind = kinds[0]
    if kind == "field_value_factor":
        values = _field_value_factor(index, options[kind], f"{path}.{kind}", docs)
    elif kind == "random_score":
        values = _random_score(index, options[kind], f"{path}.{kind}", docs)
    elif kind == "script_score":
        script = _function_options(options[kind], {"script"}, kind, f"{path}.{kind}").get("script")
        values = run_script(index, compile_script(script, f"{path}.{kind}.script"), docs, query_score)
    else:
        values = _decay_values(index, kind, options[kind], f"{path}.{kind}")[docs]
    return applies, values * weight if weight != 1.0 else values, weight


def _function_options(spec: Any, keys: set[str], kind: str, path: str) -> dict[str, Any]:
    """A score function's options, a key its parser does not read refused in its words (`field_value_factor query
    does not support [x]`: the function's name, unbracketed)."""
    if isinstance(spec, dict):
        unknown = [key for key in spec if key not in keys and key != "_name"]
        if unknown:
            raise Invalid(path, f"{kind} query does not support [{unknown[0]}], as Elasticsearch 8 refuses it")
    return allowed(spec, keys, path)


def _random_score(index: EmbeddedIndex, spec: Any, path: str, docs: np.ndarray) -> np.ndarray:
    """A deterministic score in [0, 1) from the seed and the document's `field` value (its id without a field).
    Elasticsearch's values also depend on its index name and shard, so they are not reproduced, only the properties
    (the same seed and value give the same score on every run)."""
    options = _function_options(spec or {}, {"seed", "field"}, "random_score", path)
    seed = int(number(options, "seed", path, 0))
    field = options.get("field")
    if field is not None and field not in ("_seq_no", "_id"):
        index.check_field(field, path)
        keys = index.doc_values(field)
        if keys is None:
            raise Invalid(f"{path}.field", f"{field!r} is a text field; random_score needs a keyword or number")
        raw = [repr(k) for k in keys[docs]]
    else:
        raw = [index.ids[int(d)] for d in docs]
    return np.array([(zlib.crc32(r.encode(), seed & 0xFFFFFFFF) & 0xFFFFFF) / float(1 << 24) for r in raw])


def _field_value_factor(index: EmbeddedIndex, spec: Any, path: str, docs: np.ndarray) -> np.ndarray:
    options = _function_options(spec, {"field", "factor", "modifier", "missing"}, "field_value_factor", path)
    field = options.get("field")
    modifier = str(options.get("modifier", "none")).lower()
    if modifier not in _MODIFIERS:
        raise Invalid(f"{path}.modifier", f"{modifier!r} is not one of {', '.join(_MODIFIERS)}")
    factor = number(options, "factor", path, 1.0)
    missing = number(options, "missing", path) if options.get("missing") is not None else None
    if isinstance(field, str) and field not in index.kinds:
        return _unmapped_field_value_factor(index, field, factor, modifier, missing, path, docs)
    field = index.check_field(field, path)
    if index.kinds[field] not in ("number", "date", "boolean"):
        raise Invalid(f"{path}.field", f"{field!r} is a {index.kinds[field]} field; field_value_factor needs numbers")
    key = ("field_value_factor", field, factor, modifier, missing)
    recorder = RECORDING.get()
    if recorder is not None:
        raw = index.numeric[field].first[recorder.ordinals]
        recorder.note(path, field=field, factor=factor, modifier=modifier,
                      input=raw if missing is None else np.where(np.isnan(raw), missing, raw))  # fmt: skip
    cached = index.function_cache.get(key)
    if cached is None:
        raw = index.numeric[field].first.copy()
        if missing is not None:
            raw[np.isnan(raw)] = missing
        with np.errstate(all="ignore"):
            cached = _MODIFIERS[modifier](raw * factor)
        index.function_cache[key] = cached
    values = cached[docs]
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        doc = int(docs[bad[0]])
        value = float(index.numeric[field].first[doc])
        if np.isnan(value) and missing is None:
            problem = f"document {index.ids[doc]!r} has no {field!r}; give field_value_factor a 'missing' value"
        else:
            problem = (f"{modifier}({value * factor!r}) for document {index.ids[doc]!r} is not a number; choose "
                       "a modifier defined there (log1p, ln2p, ...) or filter such documents out")  # fmt: skip
        raise Invalid(path, problem)
    return values


def _unmapped_field_value_factor(
    index: EmbeddedIndex, field: str, factor: float, modifier: str, missing: float | None, path: str, docs: np.ndarray
) -> np.ndarray:
    """FieldValueFactorFunctionBuilder on a field the mappings lack: without `missing` Elasticsearch refuses the
    query; with it, every document's value is `missing` (FieldValueFactorFunction without field data)."""
    if missing is None:
        raise Invalid(
            f"{path}.field",
            f"Unable to find a field mapper for field [{field}]. No 'missing' value defined., as Elasticsearch 8 "
            "refuses it: map the field, or give field_value_factor a 'missing' value",
        )
    recorder = RECORDING.get()
    if recorder is not None:
        recorder.note(
            path, field=field, factor=factor, modifier=modifier, input=np.full(len(recorder.ordinals), missing)
        )
    with np.errstate(all="ignore"):
        value = float(_MODIFIERS[modifier](np.array([missing * factor]))[0])
    if not math.isfinite(value):
        raise Invalid(
            path,
            f"Result of field modification [{modifier}({missing * factor!r})] must be a number ('missing' of the "
            f"unmapped field {field!r}); choose a modifier defined there (log1p, ln2p, ...)",
        )
    return np.full(len(docs), value)


def _decay_values(index: EmbeddedIndex, kind: str, spec: Any, path: str) -> np.ndarray:
    """`_decay`, looked up by the spec as the template wrote it and the (frozen) clock that `now` reads: the
    template gives every query the same decay, and reading its origin, scale and offset again was a fifth of a
    query's time. Explaining reads them each time, as it notes them."""
    if RECORDING.get() is not None:
        return _decay(index, kind, spec, path)
    key = ("decay as written", kind, json.dumps(spec, sort_keys=True, default=repr), time.time_ns())
    values = index.function_cache.get(key)
    if values is None:
        values = index.function_cache[key] = _decay(index, kind, spec, path)
    return values


def _decay(index: EmbeddedIndex, kind: str, spec: Any, path: str) -> np.ndarray:
    """The decay function's value for every document (1 where the field is absent), cached per parameters."""
    if not isinstance(spec, dict):
        raise Invalid(path, "expected {field: {origin, scale, offset, decay}}")
    mode = str(spec.get("multi_value_mode", "min"))
    if mode != "min":
        raise Unsupported(f"{kind} multi_value_mode {mode}", path)
    field, params = field_spec(
        index, {k: v for k, v in spec.items() if k != "multi_value_mode"}, path, "origin", ("boost", "_name")
    )
    unknown = [key for key in params if key not in ("origin", "scale", "offset", "decay")]
    if unknown:  # DecayFunctionParser's numeric, date and geo variable parsers
        raise Invalid(f"{path}.{field}", f"parameter [{unknown[0]}] not supported!, as Elasticsearch 8 refuses it")
    allowed(params, {"origin", "scale", "offset", "decay"}, path)
    if field in index.geo:
        return _geo_decay(index, kind, field, params, path)
    kind_of_field = index.kinds[field]
    if kind_of_field not in ("date", "number"):
        raise Unsupported(f"{kind} decay on the {kind_of_field} field {field!r}", path)
    date = kind_of_field == "date"
    if params.get("scale") is None:
        raise Invalid(path, "needs 'scale' (e.g. 30d for a date, 10 for a number)")
    if params.get("origin") is None and not date:  # DecayFunctionBuilder.parseNumberVariable
        raise Invalid(path, "both [scale] and [origin] must be set for numeric fields, as Elasticsearch 8 refuses it")
    # parseDateVariable: a date decay without origin decays from now, which the frozen clock fixes
    written = params.get("origin")
    if written is None:  # the frozen clock's instant, as the template's `now` is written (clock.anchor)
        written = iso(datetime.now(UTC))
    origin = index.convert_query_value(field, written, f"{path}.{field}.origin")
    scale = distance_setting(params["scale"], date, f"{path}.{field}.scale")
    offset = distance_setting(params.get("offset", 0), date, f"{path}.{field}.offset")
    decay = _checked_decay(params, scale, offset, f"{path}.{field}")
    key = (kind, field, origin, scale, offset, decay)
    recorder = RECORDING.get()
    if recorder is not None:
        values = index.numeric[field].first[recorder.ordinals]
        if date:  # as the template writes them: an instant, durations
            values = np.array([_iso(v) for v in values], dtype=object)
            recorder.note(path, origin=_iso(origin), scale=str(params["scale"]), offset=str(params.get("offset", 0)))
        else:
            recorder.note(path, origin=origin, scale=scale, offset=offset)
        recorder.note(path, field=field, decay=decay, input=values)
    cached = index.function_cache.get(key)
    if cached is None:
        column = index.numeric[field]
        distance = column.min_per_doc(np.maximum(0.0, np.abs(column.values - origin) - offset))
        distance = np.where(np.isnan(distance), 0.0, distance)
        cached = _DECAYS[kind](distance, scale, decay)
        index.function_cache[key] = cached
    return cached


def _checked_decay(params: dict[str, Any], scale: float, offset: float, where: str) -> float:
    """The decay (default 0.5), after DecayFunctionBuilder's checks of it, the scale and the offset."""
    decay = number(params, "decay", where, 0.5)
    if scale <= 0:
        raise Invalid(f"{where}.scale", f"{params['scale']!r}: the scale must be greater than 0")
    if offset < 0:
        raise Invalid(f"{where}.offset", f"{params['offset']!r}: the offset must be >= 0")
    if not 0 < decay < 1:
        raise Invalid(f"{where}.decay", f"{params['decay']!r}: the decay must be between 0 and 1 (exclusive)")
    return decay


def _geo_decay(index: EmbeddedIndex, kind: str, field: str, params: dict[str, Any], path: str) -> np.ndarray:
    """DecayFunctionBuilder's geo variable: the distance of each stored point (GeoEncodingUtils' 32-bit encoding)
    from the origin by SloppyMath.haversinMeters, less the offset, the nearest point counting (multi_value_mode
    min), a document without a point at distance 0; scale and offset in metres unless they name a unit."""
    from pytest_relevance.engines.embedded.queries.specialized import metres
    from pytest_relevance.engines.embedded.sloppy_math import haversin_meters, stored_latitude, stored_longitude

    where = f"{path}.{field}"
    if params.get("scale") is None:
        raise Invalid(path, "needs 'scale' (for a geo_point: a distance, e.g. 2km)")
    if params.get("origin") is None:
        raise Invalid(path, "needs 'origin' (for a geo_point: {lat, lon}, 'lat,lon' or [lon, lat])")
    try:
        lat0, lon0 = parse_point(params["origin"])
    except (TypeError, ValueError, KeyError) as exc:
        raise Invalid(f"{where}.origin", f"cannot read the point {params['origin']!r} ({exc})") from None
    scale = metres(params["scale"], f"{where}.scale")
    offset = metres(params.get("offset", "0m"), f"{where}.offset")
    decay = _checked_decay(params, scale, offset, where)
    recorder = RECORDING.get()
    if recorder is not None:
        recorder.note(path, field=field, origin=f"{lat0},{lon0}", scale=scale, offset=offset, decay=decay)
    key = (kind, field, lat0, lon0, scale, offset, decay)
    cached = index.function_cache.get(key)
    if cached is None:
        geo = index.geo[field]
        meters = haversin_meters(lat0, lon0, stored_latitude(geo.lat), stored_longitude(geo.lon))
        nearest = np.full(geo.n_docs, np.inf)
        np.minimum.at(nearest, geo.doc_of, np.maximum(0.0, meters - offset))
        distance = np.where(geo.has_value, nearest, 0.0)
        cached = _DECAYS[kind](distance, scale, decay)
        index.function_cache[key] = cached
    return cached


def _iso(millis: float) -> str:
    """An epoch-milliseconds date as ISO 8601 (UTC), or "missing"."""
    if np.isnan(millis):
        return "missing"
    return datetime.fromtimestamp(millis / 1000, UTC).isoformat().replace("+00:00", "Z")


def _gauss(distance: np.ndarray, scale: float, decay: float) -> np.ndarray:
    processed = 0.5 * scale**2 / math.log(decay)
    return np.exp(0.5 * np.square(distance) / processed)


def _exp(distance: np.ndarray, scale: float, decay: float) -> np.ndarray:
    return np.exp(math.log(decay) / scale * distance)


def _linear(distance: np.ndarray, scale: float, decay: float) -> np.ndarray:
    processed = scale / (1.0 - decay)
    return np.maximum(0.0, (processed - distance) / processed)


_DECAYS: dict[str, Callable[[np.ndarray, float, float], np.ndarray]] = {
    "gauss": _gauss,
    "exp": _exp,
    "linear": _linear,
}
_MODIFIERS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "none": lambda v: v,
    "log": np.log10,
    "log1p": lambda v: np.log10(v + 1),
    "log2p": lambda v: np.log10(v + 2),
    "ln": np.log,
    "ln1p": np.log1p,
    "ln2p": lambda v: np.log(v + 2),
    "square": np.square,
    "sqrt": np.sqrt,
    "reciprocal": lambda v: 1.0 / v,
}
_BOOST_MODES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "multiply": lambda q, f: q * f,
    "replace": lambda q, f: f,
    "sum": lambda q, f: q + f,
    "avg": lambda q, f: (q + f) / 2.0,
    "max": np.maximum,
    "min": np.minimum,
}
