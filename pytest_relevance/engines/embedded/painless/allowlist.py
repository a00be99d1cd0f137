"""The allowlist: the Java methods, fields and statics a Painless script may call, run in Python with Java's
semantics (String, List, Map, Math, the doc values, dates, geo distances, the analysis token)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from pytest_relevance.engines.embedded.java import (
    string_hash,
    trim,
    utf16,
    wrap_int,
)
from pytest_relevance.engines.embedded.painless.values import (
    AnalysisToken,
    CharTerm,
    DocValues,
    Float,
    GeoPoint,
    GeoPoints,
    Instant,
    Long,
    MissingValue,
    NotSupported,
    PainlessError,
    ZonedDateTime,
    as_rank,
    explicit_cast,
    java_equals,
    java_type,
    rank_of,
    to_long,
    to_string,
)
from pytest_relevance.engines.embedded.sloppy_math import geohash_point, haversin_meters, plane_meters


def _math_double(function: Callable[..., float]) -> Callable[..., float]:
    def call(*args: Any) -> float:
        numbers = [number_arg(a) for a in args]
        try:
            return float(function(*numbers))
        except (ValueError, ZeroDivisionError):
            return math.nan
        except OverflowError:
            return math.inf

    return call


def number_arg(value: Any) -> float:
    """A number where a method takes a double (Math.*, the script helpers): a boolean or String is a cast error."""
    if rank_of(value) < 0:
        raise PainlessError(f"Cannot cast from [{java_type(value)}] to [double].")
    return float(value)


def _log(x: float) -> float:
    return -math.inf if x == 0 else math.log(x)


def _log10(x: float) -> float:
    return -math.inf if x == 0 else math.log10(x)


def _log1p(x: float) -> float:
    return -math.inf if x == -1 else math.log1p(x)


def _pow(x: float, y: float) -> float:
    try:
        return math.pow(x, y)
    except ValueError:
        return math.nan
    except ZeroDivisionError:
        return math.inf


def _round(value: Any) -> Any:
    if rank_of(value) < 0:
        raise PainlessError(f"Cannot cast from [{java_type(value)}] to [double].")
    if rank_of(value) <= 1:
        return value
    x = float(value)
    if math.isnan(x):
        return 0 if type(value) is Float else Long(0)
    whole = math.floor(x + 0.5) if not math.isinf(x) else (2**63 - 1 if x > 0 else -(2**63))
    if type(value) is Float:
        return int(max(-(2**31), min(2**31 - 1, whole)))
    return Long(max(-(2**63), min(2**63 - 1, whole)))


def _promoting(function: Callable[..., Any]) -> Callable[..., Any]:
    """Math.abs/min/max: the result has the promoted type of the arguments."""

    def call(*args: Any) -> Any:
        ranks = [rank_of(a) for a in args]
        if min(ranks) < 0:
            raise PainlessError(f"Cannot cast from [{java_type(args[ranks.index(min(ranks))])}] to [double].")
        rank = max(ranks)
        out = function(*(float(a) if rank >= 2 else int(a) for a in args))
        if rank == 0:
            return wrap_int(out)
        if rank == 1:
            return to_long(out)
        return as_rank(out, rank)

    return call


def _java_min(a: Any, b: Any) -> Any:
    if isinstance(a, float) and (math.isnan(a) or math.isnan(b)):
        return math.nan
    return min(a, b)


def _java_max(a: Any, b: Any) -> Any:
    if isinstance(a, float) and (math.isnan(a) or math.isnan(b)):
        return math.nan
    return max(a, b)


def _signum(x: float) -> float:
    return x if x == 0 or math.isnan(x) else math.copysign(1.0, x)


MATH: dict[str, Callable[..., Any]] = {
    "abs": _promoting(abs), "max": _promoting(_java_max), "min": _promoting(_java_min), "round": _round,
    "log": _math_double(_log), "log10": _math_double(_log10), "log1p": _math_double(_log1p),
    "exp": _math_double(math.exp), "expm1": _math_double(math.expm1), "sqrt": _math_double(math.sqrt),
    "cbrt": _math_double(np.cbrt), "pow": _math_double(_pow), "floor": _math_double(math.floor),
    "ceil": _math_double(math.ceil), "signum": _math_double(_signum), "sin": _math_double(math.sin),
    "cos": _math_double(math.cos), "tan": _math_double(math.tan), "asin": _math_double(math.asin),
    "acos": _math_double(math.acos), "atan": _math_double(math.atan), "atan2": _math_double(math.atan2),
    "sinh": _math_double(math.sinh), "cosh": _math_double(math.cosh), "tanh": _math_double(math.tanh),
    "hypot": _math_double(math.hypot), "rint": _math_double(np.rint), "toRadians": _math_double(math.radians),
    "toDegrees": _math_double(math.degrees),
}  # fmt: skip


# java.lang.Math methods in Painless's allowlist that this interpreter does not run
MATH_NOT_RUN = frozenset(
    ["random", "ulp", "nextUp", "nextDown", "nextAfter", "IEEEremainder", "scalb", "getExponent", "copySign"]
)


STATIC_FIELDS: dict[tuple[str, str], Any] = {
    ("Math", "PI"): math.pi, ("Math", "E"): math.e, ("Integer", "MAX_VALUE"): 2**31 - 1,
    ("Integer", "MIN_VALUE"): -(2**31), ("Long", "MAX_VALUE"): Long(2**63 - 1), ("Long", "MIN_VALUE"): Long(-(2**63)),
    ("Double", "MAX_VALUE"): 1.7976931348623157e308, ("Double", "MIN_VALUE"): 5e-324,
    ("Double", "POSITIVE_INFINITY"): math.inf, ("Double", "NEGATIVE_INFINITY"): -math.inf, ("Double", "NaN"): math.nan,
}  # fmt: skip


def _parse_number(text: Any, kind: str) -> Any:
    if not isinstance(text, str):
        raise PainlessError(f"Cannot cast [{java_type(text)}] to [java.lang.String].")
    try:
        if kind == "double":
            return float(text.strip())
        value = int(text, 10)
    except ValueError:
        raise PainlessError(f'For input string: "{text}" (java.lang.NumberFormatException)') from None
    limit = 2**63 if kind == "long" else 2**31
    if not -limit <= value < limit:
        raise PainlessError(f'For input string: "{text}" (java.lang.NumberFormatException)')
    return Long(value) if kind == "long" else value


STATIC_METHODS: dict[tuple[str, str], Callable[..., Any]] = {
    ("Integer", "parseInt"): lambda s: _parse_number(s, "int"),
    ("Long", "parseLong"): lambda s: _parse_number(s, "long"),
    ("Double", "parseDouble"): lambda s: _parse_number(s, "double"),
    ("String", "valueOf"): to_string,
    ("Integer", "toString"): to_string,
    ("Double", "toString"): to_string,
    ("Double", "isNaN"): lambda x: math.isnan(number_arg(x)),
}


def _index(size: int, at: Any, kind: str) -> int:
    """A List index: an int; negative from the end in `list[i]` (Painless normalizes brace indexes), not in
    `list.get(i)`, which is Java's; else out of bounds."""
    if type(at) is not int:
        raise PainlessError(f"Cannot cast [{java_type(at)}] to [int] (a {kind} index is an int).")
    position = at + size if at < 0 and kind == "list" else at
    if not 0 <= position < size:
        raise PainlessError(f"Index {at} out of bounds for length {size} (java.lang.IndexOutOfBoundsException)")
    return position


def _substring(text: str, begin: Any, end: Any = None) -> str:
    stop = len(text) if end is None else end
    if type(begin) is not int or type(stop) is not int:
        raise PainlessError("Cannot cast the substring bounds to [int].")
    if not 0 <= begin <= stop <= len(text):
        raise PainlessError(
            f"begin {begin}, end {stop}, length {len(text)} (java.lang.StringIndexOutOfBoundsException)"
        )
    return text[begin:stop]


def _str_arg(value: Any) -> str:
    if not isinstance(value, str):
        raise PainlessError(f"Cannot cast [{java_type(value)}] to [java.lang.String].")
    return value


def _index_of(text: str, needle: Any, start: Any = 0) -> int:
    return text.find(_str_arg(needle), max(0, int(start)))


_STRING_METHODS: dict[str, Callable[..., Any]] = {
    "length": len, "isEmpty": lambda s: not s, "equals": lambda s, o: isinstance(o, str) and s == o,
    "equalsIgnoreCase": lambda s, o: isinstance(o, str) and s.casefold() == o.casefold(),
    "contains": lambda s, o: _str_arg(o) in s, "startsWith": lambda s, o: s.startswith(_str_arg(o)),
    "endsWith": lambda s, o: s.endswith(_str_arg(o)), "toLowerCase": str.lower, "toUpperCase": str.upper,
    "indexOf": _index_of, "lastIndexOf": lambda s, o: s.rfind(_str_arg(o)), "substring": _substring,
    "trim": trim, "concat": lambda s, o: s + _str_arg(o),
    "replace": lambda s, a, b: s.replace(_str_arg(a), _str_arg(b)),
    "charAt": lambda s, i: s[_index(len(s), i, "string")],
    "compareTo": lambda s, o: _compare_strings(s, _str_arg(o)), "toString": lambda s: s,
}  # fmt: skip


def _compare_strings(a: str, b: str) -> int:
    for x, y in zip(a, b, strict=False):
        if x != y:
            return ord(x) - ord(y)
    return len(a) - len(b)


def _contains_equal(items: Any, value: Any) -> bool:
    return any(java_equals(item, value) for item in items)


def _list_index_of(items: list, value: Any) -> int:
    return next((i for i, item in enumerate(items) if java_equals(item, value)), -1)


def _sum(items: list) -> float:
    return float(sum(number_arg(v) for v in items))


def _list_set(items: list, at: Any, value: Any) -> Any:
    position = _index(len(items), at, "list")
    previous, items[position] = items[position], value
    return previous


_LIST_METHODS: dict[str, Callable[..., Any]] = {
    "size": len, "getLength": len, "isEmpty": lambda items: not items,
    "get": lambda items, i: items[_index(len(items), i, "get")], "contains": _contains_equal,
    "indexOf": _list_index_of, "add": lambda items, v: items.append(v) or True, "set": _list_set,
    "sum": _sum, "addAll": lambda items, more: items.extend(more) or True,
}  # fmt: skip


def _map_key(mapping: dict, key: Any) -> Any:
    """Map lookups by equals; JSON params have String keys."""
    return key if isinstance(key, str) else next((k for k in mapping if java_equals(k, key)), key)


_MAP_METHODS: dict[str, Callable[..., Any]] = {
    "get": lambda m, k: m.get(_map_key(m, k)), "containsKey": lambda m, k: _map_key(m, k) in m,
    "getOrDefault": lambda m, k, d: m.get(_map_key(m, k), d), "size": len, "isEmpty": lambda m: not m,
    "keySet": lambda m: list(m), "values": lambda m: list(m.values()),
    "containsValue": lambda m, v: _contains_equal(m.values(), v), "put": lambda m, k, v: _map_put(m, k, v),
}  # fmt: skip


def _map_put(mapping: dict, key: Any, value: Any) -> Any:
    previous = mapping.get(key)
    mapping[key] = value
    return previous


def _doc_value(values: DocValues) -> Any:
    if not values:
        raise MissingValue(
            f"A document doesn't have a value for a field! Use doc[<field>].size()==0 to check if a document is "
            f"missing a field! (doc[{values.name!r}])"
        )
    return values[0]


def _doc_get(values: DocValues, at: Any) -> Any:
    if type(at) is not int or not 0 <= at < len(values):
        raise PainlessError(
            f"A document doesn't have a value at index {at} of doc[{values.name!r}], which has {len(values)} "
            "(check doc[<field>].size() first)"
        )
    return values[at]


_NUMBER_METHODS: dict[str, Callable[..., Any]] = {
    "intValue": lambda n: explicit_cast(n, "int"), "longValue": lambda n: explicit_cast(n, "long"),
    "floatValue": lambda n: explicit_cast(n, "float"), "doubleValue": lambda n: explicit_cast(n, "double"),
    "equals": java_equals, "toString": to_string,
    "compareTo": lambda n, o: (n > number_arg(o)) - (n < o),
}  # fmt: skip


_DOC_METHODS: dict[str, Callable[..., Any]] = {
    "getValue": _doc_value, "size": len, "getLength": len, "isEmpty": lambda v: not v, "get": _doc_get,
    "contains": _contains_equal, "getValues": list,
}  # fmt: skip


def _date_getter(unit: str) -> Callable[[ZonedDateTime], int]:
    return lambda date: date.field(unit)


def _moment(value: Any, kind: type[ZonedDateTime] | type[Instant]) -> int:
    if type(value) is not kind:
        raise PainlessError(f"Cannot cast [{java_type(value)}] to [{java_type(kind(0))}].")
    return value.millis


_DATE_METHODS: dict[str, Callable[..., Any]] = {
    "toInstant": lambda d: Instant(d.millis), "getMillis": lambda d: Long(d.millis),
    "toEpochSecond": lambda d: Long(d.millis // 1000),
    "isBefore": lambda d, o: d.millis < _moment(o, ZonedDateTime),
    "isAfter": lambda d, o: d.millis > _moment(o, ZonedDateTime),
    "isEqual": lambda d, o: d.millis == _moment(o, ZonedDateTime),
    "compareTo": lambda d, o: (d.millis > _moment(o, ZonedDateTime)) - (d.millis < o.millis),
    "equals": lambda d, o: d == o,
    **{f"get{unit}": _date_getter(unit)
       for unit in ("Year", "MonthValue", "DayOfMonth", "DayOfYear", "Hour", "Minute", "Second", "Nano")},
}  # fmt: skip


_INSTANT_METHODS: dict[str, Callable[..., Any]] = {
    "toEpochMilli": lambda i: Long(i.millis), "getEpochSecond": lambda i: Long(i.millis // 1000),
    "isBefore": lambda i, o: i.millis < _moment(o, Instant), "isAfter": lambda i, o: i.millis > _moment(o, Instant),
    "equals": lambda i, o: i == o,
}  # fmt: skip


def _token_type(token: AnalysisToken) -> str:
    raise NotSupported("token.getType() (the embedded engine does not keep Lucene's token types)")


def _sub_sequence(term: CharTerm, begin: Any, end: Any) -> str:
    """CharTermAttributeImpl.subSequence: a new String of the chars begin..end."""
    return _substring(utf16(term.text), begin, end)


# The allowlisted methods of the analysis context's static types: name -> (arguments, result type (None: def),
# function). `token` is typed, so a method or getter not listed is a compile error, as in Painless.
TYPED: dict[str, tuple[str, dict[str, tuple[int, str | None, Callable[..., Any]]]]] = {
    "Token": ("AnalysisPredicateScript.Token", {
        "getTerm": (0, "CharSequence", lambda t: CharTerm(t.term)), "getPosition": (0, "int", lambda t: t.position),
        "getPositionIncrement": (0, "int", lambda t: t.increment),
        "getPositionLength": (0, "int", lambda t: t.length), "getStartOffset": (0, "int", lambda t: t.start),
        "getEndOffset": (0, "int", lambda t: t.end), "getType": (0, "String", _token_type),
        "isKeyword": (0, "boolean", lambda t: t.keyword),
    }),
    "CharSequence": ("CharSequence", {
        "length": (0, "int", lambda s: len(utf16(s.text))),
        "charAt": (1, None, lambda s, i: _STRING_METHODS["charAt"](utf16(s.text), i)),
        "subSequence": (2, "CharSequence", _sub_sequence), "toString": (0, "String", str),
        "equals": (1, "boolean", lambda s, o: s == o), "hashCode": (0, "int", lambda s: string_hash(s.text)),
    }),
}  # fmt: skip


# Allowlisted methods this interpreter does not run: CharSequence's streams and regex augmentations, and the token's
# type (the embedded tokenizers do not keep Lucene's token types, `<ALPHANUM>`, `<NUM>`...).
TYPED_NOT_RUN = frozenset(["chars", "codePoints", "replaceAll", "replaceFirst", "getType"])


_TOKEN_METHODS = {name: entry[2] for name, entry in TYPED["Token"][1].items()}


_CHAR_TERM_METHODS = {name: entry[2] for name, entry in TYPED["CharSequence"][1].items()}


def getter_of(table: dict[str, Any], name: str) -> str | None:
    """The getter `x.name` stands for: getName() or isName() (Painless's shortcut), if the class has it."""
    tail = f"{name[:1].upper()}{name[1:]}"
    return next((g for g in (f"get{tail}", f"is{tail}") if g in table), None)


def _geo_distance(measure: Callable[[float, float, float, float], float]) -> Callable[..., float]:
    def distance(points: GeoPoints, lat: Any, lon: Any) -> float:
        point = _doc_value(points)
        return measure(point.lat, point.lon, number_arg(lat), number_arg(lon))

    return distance


def _with_default(distance: Callable[..., float]) -> Callable[..., float]:
    """arcDistanceWithDefault, planeDistanceWithDefault: the default (a double) for a document without a point."""

    def measured(points: GeoPoints, lat: Any, lon: Any, default: Any) -> float:
        fallback = number_arg(default)
        return distance(points, lat, lon) if points else fallback

    return measured


def _geohash_with_default(points: GeoPoints, geohash: Any, default: Any) -> float:
    fallback = number_arg(default)
    return _geohash_distance(points, geohash) if points else fallback


def _arc_meters(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """GeoUtils.arcDistance: SloppyMath.haversinMeters."""
    return float(haversin_meters(lat1, lon1, np.array([lat2]), np.array([lon2]))[0])


def _geohash_distance(points: GeoPoints, geohash: Any) -> float:
    point = _doc_value(points)
    try:
        lat, lon = geohash_point(_str_arg(geohash))
    except ValueError as exc:
        raise PainlessError(f"{exc} (java.lang.IllegalArgumentException)") from None
    return _arc_meters(point.lat, point.lon, lat, lon)


_GEO_METHODS: dict[str, Callable[..., Any]] = {
    **_DOC_METHODS, "getLat": lambda v: _doc_value(v).lat, "getLon": lambda v: _doc_value(v).lon,
    "arcDistance": _geo_distance(_arc_meters), "planeDistance": _geo_distance(plane_meters),
    "arcDistanceWithDefault": _with_default(_geo_distance(_arc_meters)),
    "planeDistanceWithDefault": _with_default(_geo_distance(plane_meters)),
    "geohashDistance": _geohash_distance, "geohashDistanceWithDefault": _geohash_with_default,
    "getDimensionalType": lambda v: 0 if v else -1,
}  # fmt: skip


_GEO_POINT_METHODS: dict[str, Callable[..., Any]] = {
    "getLat": lambda p: p.lat, "getLon": lambda p: p.lon, "equals": lambda p, o: p == o, "toString": str,
}  # fmt: skip


def call_method(target: Any, name: str, args: list[Any]) -> Any:
    """A method of an allowlisted class, picked by the target's runtime class, as a def call is."""
    if target is None:
        raise PainlessError(f"Cannot invoke [{name}] on a null value (java.lang.NullPointerException)")
    if type(target) is GeoPoints:
        table: dict[str, Callable[..., Any]] = _GEO_METHODS
    elif isinstance(target, DocValues):
        table = _DOC_METHODS
    elif type(target) is GeoPoint:
        table = _GEO_POINT_METHODS
    elif isinstance(target, str):
        table = _STRING_METHODS
    elif isinstance(target, list):
        table = _LIST_METHODS
    elif isinstance(target, dict):
        table = _MAP_METHODS
    elif rank_of(target) >= 0:
        table = _NUMBER_METHODS
    elif type(target) is ZonedDateTime:
        table = _DATE_METHODS
    elif type(target) is Instant:
        table = _INSTANT_METHODS
    elif type(target) is AnalysisToken:
        table = _TOKEN_METHODS
    elif type(target) is CharTerm:
        table = _CHAR_TERM_METHODS
    else:
        table = {}
    method = table.get(name)
    if method is None:
        raise PainlessError(
            f"dynamic method [{java_type(target)}, {name}/{len(args)}] not found (not in Painless's allowlist, or "
            "not run by the embedded engine)"
        )
    try:
        return method(target, *args)
    except TypeError:
        raise PainlessError(
            f"dynamic method [{java_type(target)}, {name}/{len(args)}] not found (wrong number of arguments)"
        ) from None


def read_field(target: Any, name: str) -> Any:
    """`x.name`: a Map's key, a getter (`.length` is getLength(), `.empty` isEmpty()), a doc value's `.value`."""
    if isinstance(target, dict):
        return target.get(name)
    if type(target) in (GeoPoints, GeoPoint) and name in ("lat", "lon"):  # getLat(), getLon()
        return _GEO_METHODS[f"get{name.title()}"](target) if type(target) is GeoPoints else getattr(target, name)
    if isinstance(target, DocValues):
        if name == "value":
            return _doc_value(target)
        if name in ("empty", "length", "values"):
            return {"empty": not target, "length": len(target), "values": list(target)}[name]
    if isinstance(target, list):
        if name in ("length", "empty"):
            return len(target) if name == "length" else not target
        if name.isdigit():
            return target[_index(len(target), int(name), "list")]
    if isinstance(target, str) and name == "empty":
        return not target
    getter = f"get{name[:1].upper()}{name[1:]}"
    if type(target) is ZonedDateTime and getter in _DATE_METHODS:  # `d.millis`, `d.year`: the getter shortcut
        return _DATE_METHODS[getter](target)
    if type(target) is Instant and getter in _INSTANT_METHODS:
        return _INSTANT_METHODS[getter](target)
    if type(target) is AnalysisToken and getter_of(_TOKEN_METHODS, name) is not None:
        return _TOKEN_METHODS[getter_of(_TOKEN_METHODS, name)](target)  # type: ignore[index]
    if target is None:
        raise PainlessError(f"Cannot access the field [{name}] of a null value (java.lang.NullPointerException)")
    raise PainlessError(f"dynamic getter [{java_type(target)}, {name}] not found")


def read_brace(target: Any, key: Any) -> Any:
    if isinstance(target, dict):
        return target.get(_map_key(target, key))
    if isinstance(target, DocValues):
        return _doc_get(target, key)
    if isinstance(target, list):
        return target[_index(len(target), key, "list")]
    if target is None:
        raise PainlessError("Cannot read an index of a null value (java.lang.NullPointerException)")
    raise PainlessError(f"Attempting to address a non-array-like type [{java_type(target)}] as an array.")


def write_brace(target: Any, key: Any, value: Any) -> None:
    if isinstance(target, DocValues):
        raise PainlessError("doc values are read-only")
    if isinstance(target, dict):
        target[_map_key(target, key)] = value
    elif isinstance(target, list):
        target[_index(len(target), key, "list")] = value
    else:
        raise PainlessError(f"Attempting to address a non-array-like type [{java_type(target)}] as an array.")


def from_json(value: Any) -> Any:
    """A `params` value as Elasticsearch's XContent gives it to the script: Integer when the number fits an int,
    else Long; Double for fractions; ArrayList and HashMap for arrays and objects."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if -(2**31) <= value < 2**31 else Long(value)
    if isinstance(value, float):
        return value
    if isinstance(value, list):
        return [from_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): from_json(v) for k, v in value.items()}
    return value
