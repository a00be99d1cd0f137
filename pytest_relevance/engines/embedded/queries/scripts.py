"""Painless for `script_score` (the query and the function_score function), the `script` query and script sorts.

A script is compiled once (`pytest_relevance.engines.embedded.painless`). A script that is one expression over
`_score`, `params`, `doc['f'].value` / `.size()` / `.empty`, arithmetic, comparisons, the ternary, `Math.*` and
Elasticsearch's script helpers runs once per query over every matching document as arrays, which is as fast as
`field_value_factor`; its types are checked as Painless checks them first (integer division, arithmetic on a
boolean, a String where a number is needed all leave the array form). Straight-line statements (locals, assignments,
`if`/`else`, `return`) also run as arrays (`_Exact`: ints, longs and floats as Java computes them, an `if` as masks).
Anything else (loops, Lists and Maps, String methods) runs per matching document through the compiled closures,
with Java's semantics. Reading `doc['f'].value` where the document has no value is an error, as in Elasticsearch,
but only where that branch is the one taken.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from pytest_relevance.engines.embedded.cost import tally
from pytest_relevance.engines.embedded.dates import DEFAULT_FORMAT, DateParseError, date_format, query_millis
from pytest_relevance.engines.embedded.java import F32
from pytest_relevance.engines.embedded.painless import (
    FELL_OFF,
    MATH,
    Context,
    DocValues,
    GeoPoint,
    GeoPoints,
    Long,
    MissingValue,
    Node,
    NotSupported,
    PainlessError,
    Program,
    VectorEnv,
    ZonedDateTime,
    compile_painless,
    from_json,
    java_type,
    number_arg,
    vector_statements,
)
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unsupported
from pytest_relevance.engines.embedded.queries.options import allowed, boost_of, number
from pytest_relevance.engines.embedded.queries.registry import evaluate, query
from pytest_relevance.engines.embedded.queries.values import distance_setting, time_value_millis
from pytest_relevance.engines.embedded.scores import Scores
from pytest_relevance.engines.embedded.sloppy_math import (
    latitude_code,
    longitude_code,
    stored_latitude,
    stored_longitude,
)

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex
    from pytest_relevance.engines.embedded.index import GeoField

_MATH: dict[str, Callable[..., Any]] = {
    "log": np.log, "log10": np.log10, "log1p": np.log1p, "exp": np.exp, "expm1": np.expm1, "sqrt": np.sqrt,
    "cbrt": np.cbrt, "pow": np.power, "abs": np.abs, "min": np.minimum, "max": np.maximum, "floor": np.floor,
    "ceil": np.ceil, "signum": np.sign, "sin": np.sin, "cos": np.cos, "tan": np.tan, "atan": np.arctan,
    "rint": np.rint, "hypot": np.hypot,
}  # fmt: skip
_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
    "%": np.fmod, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "&&": np.logical_and, "||": np.logical_or,
}  # fmt: skip
_HELPERS = frozenset(
    ["saturation", "sigmoid", "decayNumericGauss", "decayNumericExp", "decayNumericLinear", "decayDateGauss",
     "decayDateExp", "decayDateLinear"]
)  # fmt: skip
_INTEGER_TYPES = frozenset(["long", "integer", "short", "byte", "unsigned_long"])


def _decay(name: str, settings: list[Any], value: Any, path: str) -> Any:
    """ScoreScriptUtils' decay functions over one value or an array of them."""
    date = name.startswith("decayDate")
    if date:
        # ScoreScriptUtils.DecayDate* take the scale and offset as Strings read by TimeValue.parseTimeValue
        if not all(isinstance(setting, str) for setting in settings[1:3]):
            raise Invalid(f"{path}.source", f"{name}() takes the scale and offset as strings, e.g. '30d'")
        # ScoreScriptUtils.DecayDate*: the origin read by strict_date_optional_time||epoch_millis in UTC
        try:
            origin = query_millis(str(settings[0]), date_format(DEFAULT_FORMAT), False, UTC)
        except DateParseError as exc:
            raise Invalid(f"{path}.source", f"{name}(): {exc}") from None
        scale = time_value_millis(settings[1], f"{path}.source")
        offset = time_value_millis(settings[2], f"{path}.source")
    else:
        origin = float(settings[0])
        scale = distance_setting(settings[1], False, f"{path}.source")
        offset = distance_setting(settings[2], False, f"{path}.source")
    decay = float(settings[3])
    distance = np.maximum(0.0, np.abs(value - origin) - offset)
    if name.endswith("Gauss"):
        return np.exp(0.5 * np.square(distance) / (0.5 * scale**2 / math.log(decay)))
    if name.endswith("Exp"):
        return np.exp(math.log(decay) / scale * distance)
    scaling = scale / (1.0 - decay)
    return np.maximum(0.0, (scaling - distance) / scaling)


def _helper(name: str, path: str) -> Callable[..., float]:
    """One script helper for the per-document run, the same arithmetic as the array form."""

    def call(*args: Any) -> float:
        if name == "saturation" and len(args) == 2:
            value, k = (number_arg(a) for a in args)
            return value / (k + value)
        if name == "sigmoid" and len(args) == 3:
            value, k, a = (number_arg(x) for x in args)
            return float(np.power(value, a) / (np.power(k, a) + np.power(value, a)))
        if name.startswith("decayDate") and len(args) == 5:
            if not isinstance(args[4], ZonedDateTime):
                raise PainlessError(f"Cannot cast [{java_type(args[4])}] to [java.time.ZonedDateTime].")
            return float(_decay(name, list(args[:4]), float(args[4].millis), path))
        if name.startswith("decay") and len(args) == 5:
            return float(_decay(name, list(args[:4]), number_arg(args[4]), path))
        raise PainlessError(f"the function {name}() with {len(args)} arguments is not supported")

    return call


@dataclass
class Script:
    """A compiled script and its params as the script sees them (Integer, Long, Double, ArrayList, HashMap)."""

    program: Program
    params: dict[str, Any]
    path: str
    lang: str = "painless"


@functools.lru_cache(maxsize=256)
def _compiled(source: str, path: str, context: str) -> Program:
    if context == "filter":  # ScoreScriptUtils' functions are allowlisted in the score context only
        return compile_painless(source, {}, context="filter")
    helpers = {name: _helper(name, path) for name in _HELPERS}
    return compile_painless(source, helpers, _HELPERS)


def compile_script(spec: Any, path: str, context: str = "score") -> Script:
    """`{source, params, lang}` or a bare source string; refuses stored scripts and other langs. `context`:
    "score" (script_score, sorts) or "filter" (the script query, where Lucene expressions are not run here)."""
    if isinstance(spec, str):
        spec = {"source": spec}
    if isinstance(spec, dict) and "id" in spec:
        raise Unsupported("a stored script (script.id)", path, ["inline scripts: {source, params, lang}"])
    options = allowed(spec, {"source", "params", "lang"}, path)
    langs = ("painless", "expression") if context == "score" else ("painless",)
    if options.get("lang", "painless") not in langs:
        raise Unsupported(f"script lang {options['lang']}", path, [f"lang: {lang}" for lang in langs])
    if not isinstance(options.get("source"), str):
        raise Invalid(path, "needs 'source' (stored scripts are not supported by the embedded engine)")
    params = options.get("params") or {}
    if not isinstance(params, dict):
        raise Invalid(f"{path}.params", "expected a mapping")
    try:
        program = _compiled(options["source"], path, context)
    except NotSupported as exc:
        raise Invalid(f"{path}.source", f"{_at(exc)}{exc.message}; the elasticsearch engine runs it") from None
    except PainlessError as exc:
        raise Invalid(f"{path}.source", f"Painless compile error {_at(exc)}{exc.message}") from None
    return Script(program, from_json(params), path, options.get("lang", "painless"))


def _at(exc: PainlessError) -> str:
    return f"at line {exc.where[0]}:{exc.where[1]}: " if exc.where else ""


@dataclass
class _Value:
    """Values over the documents, and where a missing doc value was read (an error if it reaches the result)."""

    data: Any
    bad: Any = False


class _Run:
    """The array form (`painless.Node`) over the matching documents."""

    def __init__(
        self, index: EmbeddedIndex, docs: np.ndarray, score: np.ndarray, path: str, zero_missing: bool = False
    ) -> None:
        # zero_missing: Lucene expressions read a missing value as 0 where Painless refuses it
        self.index, self.docs, self.score, self.path, self.zero_missing = index, docs, score, path, zero_missing

    def eval(self, node: Node) -> _Value:
        method = getattr(self, f"_{node.kind}")
        return method(node)

    def _const(self, node: Node) -> _Value:
        return _Value(node.value)

    def _score(self, node: Node) -> _Value:
        return _Value(self.score)

    def _doc_value(self, node: Node) -> _Value:
        values = self.index.doc_values(node.value)
        assert values is not None  # the typing leaves text fields to the per-document run, which refuses them
        if self.zero_missing:
            return _Value(np.nan_to_num(values[self.docs].astype(np.float64), nan=0.0))
        return _Value(values[self.docs], self._doc_counts(node.value) == 0)

    def _doc_count(self, node: Node) -> _Value:
        return _Value(self._doc_counts(node.value).astype(np.float64))

    def _doc_empty(self, node: Node) -> _Value:
        return _Value(self._doc_counts(node.value) == 0)

    def _cast(self, node: Node) -> _Value:
        inner = self.eval(node.children[0])
        data = np.asarray(inner.data, dtype=np.float64)
        if node.value in ("long", "int"):  # Java's narrowing: toward zero, saturating, NaN to 0
            limit = 2.0**63 if node.value == "long" else 2.0**31
            data = np.nan_to_num(np.clip(np.trunc(data), -limit, limit - 1), nan=0.0)
        return _Value(data, inner.bad)

    def _unary(self, node: Node) -> _Value:
        inner = self.eval(node.children[0])
        data = np.logical_not(inner.data) if node.value == "!" else inner.data
        return _Value(-data if node.value == "-" else data, inner.bad)

    def _binary(self, node: Node) -> _Value:
        left, right = self.eval(node.children[0]), self.eval(node.children[1])
        with np.errstate(all="ignore"):
            data = _BINARY[node.value](left.data, right.data)
        if node.value in ("&&", "||"):  # the right side is read only where the left does not decide
            reads = np.asarray(left.data, dtype=bool) == (node.value == "&&")
            return _Value(data, np.logical_or(left.bad, np.logical_and(reads, right.bad)))
        return _Value(data, np.logical_or(left.bad, right.bad))

    def _if(self, node: Node) -> _Value:
        condition, yes, no = (self.eval(child) for child in node.children)
        taken = np.asarray(condition.data, dtype=bool)
        bad = np.logical_or(condition.bad, np.where(taken, yes.bad, no.bad))
        return _Value(np.where(taken, yes.data, no.data), bad)

    def _call(self, node: Node) -> _Value:
        args = [self.eval(child) for child in node.children]
        return self._apply(
            node.value, [a.data for a in args], functools.reduce(np.logical_or, [a.bad for a in args], False)
        )

    def _apply(self, name: str, data: list[Any], bad: Any) -> _Value:
        args = data
        with np.errstate(all="ignore"):
            if name.startswith("Math."):
                return _Value(_MATH[name[5:]](*data), bad)
            if name == "saturation" and len(data) == 2:
                return _Value(data[0] / (data[1] + data[0]), bad)
            if name == "sigmoid" and len(data) == 3:
                return _Value(
                    np.power(data[0], data[2]) / (np.power(data[1], data[2]) + np.power(data[0], data[2])), bad
                )
            if name.startswith("decay") and len(args) == 5:
                return _Value(_decay(name, data[:4], data[4], self.path), bad)
        raise Invalid(f"{self.path}.source", f"the function {name}() with {len(args)} arguments is not supported")

    def _doc_counts(self, field: str) -> np.ndarray:
        return self.index.doc_value_counts(field)[self.docs]


_LOGS = {"log": (0.0, math.log), "log10": (0.0, math.log10), "log1p": (-1.0, math.log1p)}  # (the pole, libm's)
_LIBM = frozenset(["exp", "expm1", "sin", "cos", "tan", "atan", "pow", "hypot", "cbrt"])
_DTYPES = {"int": np.int32, "long": np.int64, "float": np.float32, "double": np.float64, "boolean": np.bool_}
_INTEGRAL = ("int", "long")
_LONG_EDGE = 2.0**63


def _java_cast(data: Any, source: str | None, target: str) -> Any:
    """Values of Java type `source` cast to `target` as Java casts them: a long to int wraps, a double to long or
    int truncates toward zero and saturates (NaN is 0), to float rounds to nearest."""
    if source == target or target not in _DTYPES:
        return data
    array = np.asarray(data)
    if target in _INTEGRAL and source not in _INTEGRAL:
        real = array.astype(np.float64)
        if target == "int":
            return np.nan_to_num(np.clip(np.trunc(real), -(2.0**31), 2.0**31 - 1), nan=0.0).astype(np.int32)
        inside = np.where(np.isnan(real) | (np.abs(real) >= _LONG_EDGE), 0.0, real).astype(np.int64)
        high, low = np.iinfo(np.int64).max, np.iinfo(np.int64).min
        return np.where(real >= _LONG_EDGE, high, np.where(real <= -_LONG_EDGE, low, inside))
    return array.astype(_DTYPES[target])


class _Exact(_Run):
    """The array form of statements with Java's arithmetic: ints as int32, longs as int64 (wrapping as Java
    overflows), floats as float32, integer division truncating (a zero divisor is an error where it is reached).
    Nodes are shared where a local is read several times, so each is computed once."""

    def __init__(self, index: EmbeddedIndex, docs: np.ndarray, score: np.ndarray, path: str) -> None:
        super().__init__(index, docs, score, path)
        self.memo: dict[int, _Value] = {}

    def eval(self, node: Node) -> _Value:
        found = self.memo.get(id(node))
        if found is None:
            found = self.memo[id(node)] = super().eval(node)
        return found

    def typed(self, node: Node, target: str | None) -> tuple[Any, Any]:
        value = self.eval(node)
        return _java_cast(value.data, node.type, target) if target is not None else value.data, value.bad

    def _const(self, node: Node) -> _Value:
        if node.type in _DTYPES and node.java is not None:
            return _Value(np.asarray(node.java, dtype=_DTYPES[node.type]))
        return _Value(node.value)

    def _doc_value(self, node: Node) -> _Value:
        column = cast(np.ndarray, self.index.doc_values(node.value))  # the array form reads fields with doc values
        values, missing = column[self.docs], self._doc_counts(node.value) == 0
        if node.type in _INTEGRAL:
            values = np.where(missing, 0.0, values).astype(np.int64)
        elif node.type == "boolean":
            values = (values != 0) & ~missing
        return _Value(values, missing)

    def _doc_count(self, node: Node) -> _Value:
        return _Value(self._doc_counts(node.value).astype(np.int32))

    def _cast(self, node: Node) -> _Value:
        (child,) = node.children
        data, bad = self.typed(child, node.value)
        return _Value(data, bad)

    def _clean(self, node: Node) -> _Value:
        return _Value(np.asarray(self.eval(node.children[0]).data, dtype=bool))

    def _reads(self, node: Node) -> _Value:
        live, expr = (self.eval(child) for child in node.children)
        return _Value(None, np.logical_and(live.data, expr.bad))

    def _script(self, node: Node) -> _Value:
        result, *reads = (self.eval(child) for child in node.children)
        return _Value(result.data, functools.reduce(np.logical_or, [r.bad for r in reads], False))

    def _unary(self, node: Node) -> _Value:
        if node.value == "!":
            inner = self.eval(node.children[0])
            return _Value(np.logical_not(inner.data), inner.bad)
        data, bad = self.typed(node.children[0], node.type)
        return _Value(np.negative(data) if node.value == "-" else data, bad)

    def _if(self, node: Node) -> _Value:
        condition = self.eval(node.children[0])
        (yes, yes_bad), (no, no_bad) = (self.typed(child, node.type) for child in node.children[1:])
        taken = np.asarray(condition.data, dtype=bool)
        bad = np.logical_or(condition.bad, np.where(taken, yes_bad, no_bad))
        return _Value(np.where(taken, yes, no), bad)

    def _binary(self, node: Node) -> _Value:
        op, (a, b) = node.value, node.children
        if op in ("&&", "||"):
            return super()._binary(node)
        kind = node.type if op in ("+", "-", "*", "/", "%") else _operand(a.type, b.type)
        (x, x_bad), (y, y_bad) = self.typed(a, kind), self.typed(b, kind)
        bad = np.logical_or(x_bad, y_bad)
        if op in ("/", "%") and kind in _INTEGRAL:
            zero = np.asarray(y) == 0
            x, y = np.asarray(x, dtype=np.int64), np.where(zero, 1, y).astype(np.int64)
            if op == "/":
                quotient = x // y
                data = quotient + ((quotient * y != x) & ((x < 0) != (y < 0)))
            else:
                data = np.fmod(x, y)
            return _Value(data.astype(_DTYPES[kind]), np.logical_or(bad, zero))
        return _Value(_BINARY[op](x, y), bad)

    def _call(self, node: Node) -> _Value:
        name = node.value
        kind = node.type if name in ("Math.abs", "Math.min", "Math.max") else "double"
        typed = [self.typed(child, kind if child.type in _DTYPES else None) for child in node.children]
        bad = functools.reduce(np.logical_or, [b for _, b in typed], False)
        function, n = name[len("Math.") :], self.docs.size
        if function in _LOGS:  # the per-document run's libm, as numpy's own can differ by an ulp
            x = np.broadcast_to(np.asarray(typed[0][0], dtype=np.float64), (n,))
            edge, raw = _LOGS[function]
            out = np.where(x == edge, -np.inf, np.nan)
            inside = x > edge
            out[inside] = np.fromiter(map(raw, x[inside].tolist()), dtype=np.float64, count=int(inside.sum()))
            return _Value(out, bad)
        if function in _LIBM:
            columns = [np.broadcast_to(np.asarray(data, dtype=np.float64), (n,)).tolist() for data, _ in typed]
            return _Value(np.fromiter(map(MATH[function], *columns), dtype=np.float64, count=n), bad)
        return self._apply(
            name, [data for data, _ in typed], functools.reduce(np.logical_or, [b for _, b in typed], False)
        )


def _operand(a: str | None, b: str | None) -> str | None:
    """The type a comparison's operands are promoted to (None: booleans or Strings, compared as they are)."""
    order = ("int", "long", "float", "double")
    if a in order and b in order:
        return order[max(order.index(a), order.index(b))]
    return None


def _field_type(index: EmbeddedIndex, field: str) -> str | None:
    """The Java type of `doc['f'].value`: Long for whole numbers, ZonedDateTime for dates, Double for the other
    numbers, Boolean, String for keywords; None for a field the array form leaves to the per-document run."""
    kind = index.kinds.get(field)
    if kind == "date":
        return "date"
    if kind == "number":
        return "long" if index.fields[field].type in _INTEGER_TYPES else "double"
    if kind == "boolean":
        return "boolean"
    return "String" if kind == "keyword" else None


def _columns(index: EmbeddedIndex, field: str) -> list[list[Any]]:
    """Every document's doc values for `field` as the script sees them, sorted as doc values are (keywords
    deduplicated), built once per index and field."""
    key = ("painless_doc_values", field)
    if key in index.function_cache:
        return index.function_cache[key]
    per_doc: list[list[Any]] = [[] for _ in range(index.n)]
    kind = _field_type(index, field)
    if field in index.numeric:
        column = index.numeric[field]
        converts: dict[str | None, Callable[[float], Any]] = {
            "long": lambda v: Long(int(v)), "boolean": lambda v: v != 0, "date": lambda v: ZonedDateTime(int(v)),
        }  # fmt: skip
        convert = converts.get(kind, float)
        for doc, value in zip(column.doc_of.tolist(), column.values.tolist(), strict=True):
            per_doc[doc].append(convert(value))
    elif field in index.keyword:
        keyword = index.keyword[field]
        terms = list(keyword.vocab)
        for tid, doc in zip(keyword.ids.tolist(), keyword.doc_of.tolist(), strict=True):
            per_doc[doc].append(terms[tid])
        for values in per_doc:
            values.sort()
    elif field in index.geo:
        _geo_columns(index.geo[field], per_doc)
    index.function_cache[key] = per_doc
    return per_doc


def _geo_columns(geo: GeoField, per_doc: list[list[Any]]) -> None:
    """Each document's points as LatLonDocValuesField stores them: decoded from GeoEncodingUtils' 32-bit encoding,
    in the order of the encoded longs (latitude's int, then longitude's int read unsigned), as doc values sort."""
    lat, lon = stored_latitude(geo.lat), stored_longitude(geo.lon)
    unsigned_lon = longitude_code(geo.lon).astype(np.int64) & 0xFFFFFFFF
    order = np.lexsort((unsigned_lon, latitude_code(geo.lat), geo.doc_of))
    for at in order.tolist():
        per_doc[int(geo.doc_of[at])].append(GeoPoint(float(lat[at]), float(lon[at])))


class _Documents:
    """`doc` for the per-document run: the current document's values of each field it reads."""

    def __init__(self, index: EmbeddedIndex) -> None:
        self.index, self._current = index, 0
        self.columns: dict[str, list[list[Any]]] = {}
        self.read: dict[str, DocValues] = {}  # this document's, as a script reads doc['f'] several times

    @property
    def current(self) -> int:
        return self._current

    @current.setter
    def current(self, doc: int) -> None:
        self._current = doc
        self.read.clear()

    def __call__(self, field: str) -> DocValues:
        found = self.read.get(field)
        if found is not None:
            return found
        column = self.columns.get(field)
        if column is None:
            kind = self.index.kinds.get(field)
            if kind is None:
                raise PainlessError(f"No field found for [{field}] in mapping")
            if kind == "text":
                raise PainlessError(
                    f"Text fields are not optimised for operations that require per-document field data like "
                    f"aggregations and sorting, so these operations are disabled by default. Please use a keyword "
                    f"field instead (doc[{field!r}])"
                )
            if field not in self.index.numeric and field not in self.index.keyword and field not in self.index.geo:
                raise PainlessError(f"doc[{field!r}]: the {kind} field's doc values are not run by the embedded engine")
            column = self.columns[field] = _columns(self.index, field)
        values_class = GeoPoints if field in self.index.geo else DocValues
        found = self.read[field] = values_class(column[self._current], field)
        return found


def _each_document(index: EmbeddedIndex, script: Script, docs: np.ndarray, score: np.ndarray) -> Iterator[Any]:
    """The script run once per matching document with Java's semantics, its value for each in turn."""
    documents = _Documents(index)
    ctx = Context(script.params, doc=documents)
    run = script.program.run
    path = script.path
    for doc, value in zip(docs.tolist(), score.tolist(), strict=True):
        documents.current, ctx.score = doc, value
        try:
            result = run(ctx)
        except MissingValue:
            raise Invalid(path, f"document {index.ids[doc]!r} has no value for a doc['...'].value the script reads; "
                                "check doc['f'].size() == 0 first, as Elasticsearch requires") from None  # fmt: skip
        except PainlessError as exc:
            raise Invalid(f"{path}.source", f"Painless runtime error {_at(exc)}{exc.message} (document "
                                            f"{index.ids[doc]!r})") from None  # fmt: skip
        yield index.ids[doc], result


def _per_document(index: EmbeddedIndex, script: Script, docs: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Each document's value converted to double as ScoreScript's execute returns it (0 when the script ends
    without a value, its auto-return default)."""
    out = np.empty(docs.size, dtype=np.float64)
    for i, (doc, result) in enumerate(_each_document(index, script, docs, score)):
        if result is FELL_OFF:
            result = 0.0
        elif isinstance(result, bool) or not isinstance(result, int | float):
            raise Invalid(
                f"{script.path}.source",
                f"Painless runtime error: Cannot cast from [{java_type(result)}] to [double] (the script's value "
                f"for document {doc!r})",
            )
        out[i] = result
    return out


def script_strings(index: EmbeddedIndex, script: Script, docs: np.ndarray, score: np.ndarray) -> list[str]:
    """A string script sort's value per document: a String, as StringSortScript's execute returns."""
    out = []
    for doc, result in _each_document(index, script, docs, score):
        if not isinstance(result, str):
            shown = "no value" if result is FELL_OFF else f"[{java_type(result)}]"
            raise Invalid(f"{script.path}.source", f"Painless runtime error: Cannot cast from {shown} to [String] "
                                                   f"(the script's value for document {doc!r})")  # fmt: skip
        out.append(result)
    return out


def _vector(index: EmbeddedIndex, script: Script) -> Any:
    """The script's array form typed for this index and params (None: it runs per document), typed once per index,
    script and params (templates repeat them per query)."""
    program = script.program
    if program.vector is None:
        return None
    expression = script.lang == "expression"
    key = ("painless_vector", program.source, repr(script.params), expression)
    if key not in index.function_cache:
        env = VectorEnv(script.params, lambda field: _field_type(index, field), expression)
        index.function_cache[key] = program.vector(env)
    return index.function_cache[key]


def _missing_value(index: EmbeddedIndex, path: str, doc: int) -> Invalid:
    return Invalid(path, f"document {index.ids[doc]!r} has no value for a doc['...'].value the script reads; check "
                         "doc['f'].size() == 0 first, as Elasticsearch requires")  # fmt: skip


def _statements(index: EmbeddedIndex, script: Script) -> Any:
    """The array form of a script of straight-line statements typed for this index and params (None: it runs per
    document), typed once per index, script and params."""
    program = script.program
    if program.statements is None or script.lang != "painless":
        return None
    key = ("painless_statements", program.source, repr(script.params))
    if key not in index.function_cache:
        env = VectorEnv(script.params, lambda field: _field_type(index, field), exact=True)
        index.function_cache[key] = vector_statements(program, env)
    return index.function_cache[key]


def run_script(
    index: EmbeddedIndex, script: Script, docs: np.ndarray, score: np.ndarray, vectorize: bool = True
) -> Any:
    """The script's value for each document of `docs` (float64), or one error naming a document it fails on.
    `vectorize=False` runs statements per document (the reference the array form of statements is tested on)."""
    path = script.path
    tally("docs_scored", docs.size)
    vector = _vector(index, script)
    statements = _statements(index, script) if vector is None and vectorize else None
    if statements is not None:
        with np.errstate(all="ignore"):
            result = _Exact(index, docs, score, path).eval(statements.node)
        if not np.any(result.bad):  # else the per-document run raises the first document's error
            return np.broadcast_to(np.asarray(result.data, dtype=np.float64), docs.shape)
    if script.lang == "expression" and (vector is None or vector.type != "double"):
        raise Unsupported("a lang: expression script beyond one arithmetic expression", f"{path}.source", [
            "_score, doc['f'].value, numbers, + - * / %, comparisons and the ternary, as doubles"])  # fmt: skip
    if vector is None or vector.type not in ("int", "long", "double"):
        return _per_document(index, script, docs, score)
    result = _Run(index, docs, score, path, script.lang == "expression").eval(vector.node)
    data = np.broadcast_to(np.asarray(result.data, dtype=np.float64), docs.shape)
    bad = np.broadcast_to(np.asarray(result.bad, dtype=bool), docs.shape)
    if bad.any():
        raise _missing_value(index, path, int(docs[np.flatnonzero(bad)[0]]))
    return data


# the primitive names Def.defToboolean prints for a boxed value it cannot cast
_UNBOXED = {
    "java.lang.Integer": "int", "java.lang.Long": "long", "java.lang.Float": "float", "java.lang.Double": "double"
}  # fmt: skip


def run_filter(index: EmbeddedIndex, script: Script) -> np.ndarray:
    """Which documents a filter script keeps: FilterScript's execute on every document (ScriptQuery's
    approximation is all of them), its auto-returned default false where it ends without a value."""
    docs = np.arange(index.n)
    vector = _vector(index, script)
    if vector is not None and vector.type == "boolean":
        result = _Run(index, docs, np.zeros(index.n), script.path).eval(vector.node)
        bad = np.broadcast_to(np.asarray(result.bad, dtype=bool), docs.shape)
        if bad.any():
            raise _missing_value(index, script.path, int(np.flatnonzero(bad)[0]))
        return np.broadcast_to(np.asarray(result.data, dtype=bool), docs.shape).copy()
    keep = np.zeros(index.n, dtype=bool)
    for at, (doc, result) in enumerate(_each_document(index, script, docs, np.zeros(index.n))):
        if result is FELL_OFF:
            continue
        if not isinstance(result, bool):
            found = "a null" if result is None else f"def [{_UNBOXED.get(java_type(result), java_type(result))}]"
            raise Invalid(f"{script.path}.source", f"Painless runtime error: cannot cast {found} to boolean (the "
                                                   f"script's value for document {doc!r})")  # fmt: skip
        keep[at] = result
    return keep


@query("script")
def script_query(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    """ScriptQueryBuilder: the documents the filter script keeps, each scoring ScriptQuery's ConstantScoreWeight
    (the boost, times the boosts above it)."""
    if isinstance(spec, dict) and isinstance(spec.get("script"), list):
        raise Invalid(f"{path}.script", "[script] query does not support an array of scripts. Use a bool query with "
                                        "a clause per script instead. (Elasticsearch's refusal)")  # fmt: skip
    options = allowed(spec, {"script", "boost"}, path, every="script")
    if "script" not in options:
        raise Invalid(path, "script must be provided with a [script] filter, as Elasticsearch 8 refuses it")
    script = compile_script(options["script"], f"{path}.script", context="filter")
    own = boost_of(options, path, boost)
    docs = np.flatnonzero(run_filter(index, script))
    return Scores.of(index.n, docs, np.full(docs.size, own, dtype=F32))


@query("script_score")
def script_score(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    options = allowed(spec, {"query", "script", "min_score", "boost"}, path, parser="script_score")
    if "script" not in options:
        raise Invalid(path, "needs 'script'")
    script = compile_script(options["script"], f"{path}.script")
    base = evaluate(index, options.get("query") or {"match_all": {}}, f"{path}.query")
    docs = base.docs
    values = run_script(index, script, docs, base.values.astype(np.float64))
    final = values.astype(F32)
    bad = np.flatnonzero(~(final >= 0))
    if bad.size:
        raise Invalid(path, f"document {index.ids[int(docs[bad[0]])]!r} gets the script score {float(final[bad[0]])!r};"
                            " Elasticsearch refuses a negative or non-numeric score")  # fmt: skip
    final = final * F32(boost_of(options, path, boost))
    if options.get("min_score") is not None:
        keep = final >= number(options, "min_score", path)
        docs, final = docs[keep], final[keep]
    return Scores.of(index.n, docs, final)
