"""Painless's values and Java's semantics on them: the classes that carry a value's Java type (`Long`, `Float`, the
doc values, dates, geo points), the errors, and Java's numeric promotion, arithmetic, casts and equality."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import numpy as np

from pytest_relevance.engines.embedded.java import (
    to_float,
    wrap_int,
    wrap_long,
)

MAX_LOOP_COUNTER = 1_000_000  # CompilerSettings.maxLoopCounter's default (script.painless.max_loop_counter)


LOOP_LIMIT_MESSAGE = "The maximum number of statements that can be executed in a loop has been reached."


class Long(int):
    """A Java long (a Python int is a Java int)."""


class Float(float):
    """A Java float (a Python float is a Java double)."""


class PainlessError(Exception):
    """A compile or runtime error of the script, with its line:column in the source (None when not known)."""

    def __init__(self, message: str, where: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.message, self.where = message, where


class NotSupported(PainlessError):
    """A construct Painless has and this interpreter does not run (`lambda`, `regex`, `new` of most classes)."""


class Context:
    """What a script sees besides its own variables: `params`, `_score`, and `doc` as a callable giving a field's
    doc values (a list, sorted as doc values are) or raising for a field that is not mapped; `token` in the
    analysis context. (Plain classes with slots rather than dataclasses here and below: they are faster to create
    and to import.)"""

    __slots__ = ("doc", "loop_budget", "params", "score", "token")

    def __init__(
        self,
        params: dict[str, Any],
        score: float = 0.0,
        doc: Callable[[str], DocValues] | None = None,
        loop_budget: int = MAX_LOOP_COUNTER,
        token: AnalysisToken | None = None,
    ) -> None:
        self.params, self.score, self.doc, self.loop_budget = params, score, doc, loop_budget
        self.token = token


class AnalysisToken:
    """`token` in the analysis context (AnalysisPredicateScript.Token): the current token's attributes as the
    filter's input gives them; `position` counts the increments seen so far from -1, as Token.updatePosition does
    (the `_analyze` convention of 0-based positions). Not its type: the embedded tokenizers do not keep Lucene's."""

    __slots__ = ("end", "increment", "keyword", "length", "position", "start", "term")

    def __init__(
        self, term: str, position: int, increment: int, length: int, start: int, end: int, keyword: bool
    ) -> None:
        self.term, self.position, self.increment, self.length = term, position, increment, length
        self.start, self.end, self.keyword = start, end, keyword


class CharTerm:
    """What `token.getTerm()` gives: the token's CharTermAttribute, a CharSequence that is not a String, so
    String methods are not its methods and `==` with a String is false (equals compares attribute objects)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return type(other) is CharTerm and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


class DocValues(list):
    """`doc['f']`: ScriptDocValues, a List of the document's values; `.value` is the first (the smallest)."""

    def __init__(self, values: list[Any], name: str) -> None:
        super().__init__(values)
        self.name = name


class GeoPoint:
    """A geo_point doc value (org.elasticsearch.common.geo.GeoPoint): the latitude and longitude as the doc values'
    32-bit encoding gives them back, not the source's decimals."""

    __slots__ = ("lat", "lon")

    def __init__(self, lat: float, lon: float) -> None:
        self.lat, self.lon = lat, lon

    def __eq__(self, other: object) -> bool:
        return type(other) is GeoPoint and (other.lat, other.lon) == (self.lat, self.lon)

    def __hash__(self) -> int:
        return hash((self.lat, self.lon))

    def __str__(self) -> str:
        return f"{to_string(self.lat)}, {to_string(self.lon)}"  # GeoPoint.toString


class GeoPoints(DocValues):
    """`doc['f']` of a geo_point field (ScriptDocValues.GeoPoints): its points in doc-value order, with the
    distance methods, in metres from the first point."""


class MissingValue(PainlessError):
    """`doc['f'].value` on a document without a value (Elasticsearch's IllegalStateException)."""


def to_long(value: int) -> Long:
    return Long(wrap_long(value))


def float_of(value: float) -> Float:
    return Float(to_float(value))


class _Moment:
    __slots__ = ("millis",)

    def __init__(self, millis: int) -> None:
        self.millis = millis

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.millis == self.millis

    def __hash__(self) -> int:
        return hash(self.millis)


class ZonedDateTime(_Moment):
    """A date field's doc value (java.time.ZonedDateTime in UTC), kept as epoch milliseconds: not a number, so
    arithmetic on it is the error Painless gives; `toInstant().toEpochMilli()` is its number."""

    __slots__ = ()

    def field(self, unit: str) -> int:
        moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=self.millis)
        if unit == "DayOfYear":
            return moment.timetuple().tm_yday
        if unit == "Nano":
            return moment.microsecond * 1000
        return getattr(moment, {"MonthValue": "month", "DayOfMonth": "day"}.get(unit, unit.lower()))


class Instant(_Moment):
    """java.time.Instant, what ZonedDateTime.toInstant() gives."""

    __slots__ = ()


def java_type(value: Any) -> str:
    """The Java class name Painless's runtime errors print for a value."""
    kind = type(value)
    if value is None:
        return "null"
    return {
        bool: "java.lang.Boolean", int: "java.lang.Integer", Long: "java.lang.Long", Float: "java.lang.Float",
        float: "java.lang.Double", str: "java.lang.String", list: "java.util.ArrayList", dict: "java.util.HashMap",
        DocValues: "org.elasticsearch.index.fielddata.ScriptDocValues", ZonedDateTime: "java.time.ZonedDateTime",
        GeoPoints: "org.elasticsearch.index.fielddata.ScriptDocValues$GeoPoints",
        GeoPoint: "org.elasticsearch.common.geo.GeoPoint",
        Instant: "java.time.Instant", AnalysisToken: "org.elasticsearch.analysis.common.AnalysisPredicateScript$Token",
        CharTerm: "org.apache.lucene.analysis.tokenattributes.PackedTokenAttributeImpl",
    }.get(kind, kind.__name__)  # fmt: skip


def rank_of(value: Any) -> int:
    """Numeric promotion order (int < long < float < double), -1 for a value that is not a number."""
    kind = type(value)
    if kind is int:
        return 0
    if kind is Long:
        return 1
    if kind is Float:
        return 2
    if kind is float:
        return 3
    return -1


def as_rank(value: Any, rank: int) -> Any:
    if rank == 0:
        return int(value)
    if rank == 1:
        return Long(value)
    if rank == 2:
        return float_of(value)
    return float(value)


def _number_text(digits_of: str, value: float) -> str:
    """Double.toString and Float.toString: the shortest digits that read back, scientific outside [1e-3, 1e7)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign, digits, exponent = Decimal(digits_of).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) + int(exponent) - 1
    if 1e-3 <= abs(value) < 1e7:
        plain = format(Decimal(digits_of), "f")
        plain = plain if "." in plain else plain + ".0"
        return plain.rstrip("0") + ("0" if plain.rstrip("0").endswith(".") else "")
    return ("-" if sign else "") + f"{text[0]}.{text[1:] or '0'}E{power}"


def to_string(value: Any) -> str:
    """String.valueOf, as `+` concatenation uses it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if type(value) is Float:
        return _number_text(str(np.float32(value)), float(value))
    if isinstance(value, float):
        return _number_text(repr(value), value)
    if isinstance(value, list):
        return "[" + ", ".join(to_string(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{to_string(k)}={to_string(v)}" for k, v in value.items()) + "}"
    return str(value)


def java_equals(a: Any, b: Any) -> bool:
    """`Object.equals`: boxed numbers are equal only with the same class (`Integer(1).equals(Long(1))` is false)."""
    if rank_of(a) >= 0 or rank_of(b) >= 0:
        return type(a) is type(b) and a == b
    return a == b


def def_equals(a: Any, b: Any) -> bool:
    """`==` on def operands (DefMath.eq): numbers after promotion, anything else by equals."""
    if rank_of(a) >= 0 and rank_of(b) >= 0:
        return a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(java_equals(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def cannot(op: str, a: Any, b: Any) -> PainlessError:
    return PainlessError(f"Cannot apply [{op}] operation to types [{java_type(a)}] and [{java_type(b)}].")


#: the operators Python computes as Java does on doubles and (before the overflow wrap) on ints and longs; division
#: and remainder differ (Java truncates toward zero, divides by zero into infinities) and are written out
_EXACT: dict[str, Callable[[Any, Any], Any]] = {"+": operator.add, "-": operator.sub, "*": operator.mul}


def arith(op: str, a: Any, b: Any) -> Any:
    rank = max(rank_of(a), rank_of(b))
    if rank_of(a) < 0 or rank_of(b) < 0:
        if op == "+" and (type(a) is str or type(b) is str):
            return to_string(a) + to_string(b)
        raise cannot(op, a, b)
    if rank >= 2:
        x, y = float(a), float(b)
        if op in _EXACT:
            out = _EXACT[op](x, y)
        elif op == "/":
            out = x / y if y != 0 else (math.copysign(math.inf, x) * math.copysign(1, y) if x and x == x else math.nan)
        else:
            out = math.fmod(x, y) if y != 0 and not math.isinf(x) else (x if math.isinf(y) and y == y else math.nan)
        return float_of(out) if rank == 2 else out
    x, y = int(a), int(b)
    if op in _EXACT:
        out = _EXACT[op](x, y)
    else:
        if y == 0:
            raise PainlessError("/ by zero (java.lang.ArithmeticException)")
        quotient = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)
        out = quotient if op == "/" else x - y * quotient
    return to_long(out) if rank == 1 else wrap_int(out)


def integral_op(op: str, a: Any, b: Any) -> Any:
    """`& | ^` (logical on booleans), `<< >> >>>` on int and long."""
    if isinstance(a, bool) and isinstance(b, bool) and op in "&|^":
        return {"&": a and b, "|": a or b, "^": a != b}[op]
    ra, rb = rank_of(a), rank_of(b)
    if ra not in (0, 1) or rb not in (0, 1):
        raise cannot(op, a, b)
    if op in ("<<", ">>", ">>>"):
        bits = 64 if ra == 1 else 32
        shift = int(b) & (bits - 1)
        x = int(a)
        if op == "<<":
            out = x << shift
        elif op == ">>":
            out = x >> shift
        else:
            out = (x % (1 << bits)) >> shift
        return to_long(out) if ra == 1 else wrap_int(out)
    x, y = int(a), int(b)
    out = {"&": x & y, "|": x | y, "^": x ^ y}[op]
    return to_long(out) if max(ra, rb) == 1 else wrap_int(out)


def compare(op: str, a: Any, b: Any) -> bool:
    if rank_of(a) < 0 or rank_of(b) < 0:
        raise cannot(op, a, b)
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    return a >= b


def as_boolean(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise PainlessError(f"Cannot cast [{java_type(value)}] to [boolean] ({what} needs a boolean).")
    return value


def explicit_cast(value: Any, target: str) -> Any:
    """`(type) value`: Java's narrowing and widening casts between numbers; reference casts check the class."""
    rank = rank_of(value)
    if target in ("int", "long", "short", "byte", "char"):
        if rank < 0:
            raise PainlessError(f"Cannot cast from [{java_type(value)}] to [{target}].")
        if rank >= 2:
            x = float(value)
            if math.isnan(x):
                whole = 0
            else:
                low, high = (-(2**63), 2**63 - 1) if target == "long" else (-(2**31), 2**31 - 1)
                whole = int(max(low, min(high, x))) if not math.isinf(x) else (high if x > 0 else low)
        else:
            whole = int(value)
        if target == "long":
            return to_long(whole)
        if target == "short":
            return (whole + 2**15) % 2**16 - 2**15
        if target == "byte":
            return (whole + 2**7) % 2**8 - 2**7
        if target == "char":
            return whole % 2**16
        return wrap_int(whole)
    if target in ("float", "double"):
        if rank < 0:
            raise PainlessError(f"Cannot cast from [{java_type(value)}] to [{target}].")
        return float_of(value) if target == "float" else float(value)
    return implicit_cast(value, target)


def implicit_cast(value: Any, target: str) -> Any:
    """Assignment to a declared type: widening only (int -> long -> float -> double), as Java allows."""
    if target == "def":
        return value
    if target in ("int", "long", "float", "double", "short", "byte", "char"):
        rank, wanted = rank_of(value), {"int": 0, "long": 1, "float": 2, "double": 3}.get(target, 0)
        if rank < 0 or rank > wanted:
            raise PainlessError(f"Cannot cast from [{java_type(value)}] to [{target}].")
        return as_rank(value, wanted)
    if value is None:
        if target == "boolean":
            raise PainlessError("Cannot cast null to a primitive type [boolean].")
        return None
    checks: dict[str, Callable[[Any], bool]] = {
        "boolean": lambda v: isinstance(v, bool),
        "String": lambda v: isinstance(v, str),
        "List": lambda v: isinstance(v, list),
        "Map": lambda v: isinstance(v, dict),
        "Number": lambda v: rank_of(v) >= 0,
    }
    if not checks[target](value):
        raise PainlessError(f"Cannot cast [{java_type(value)}] to [{target}].")
    return value


def is_instance(value: Any, target: str) -> bool:
    if value is None:
        return False
    if target == "def":
        return True
    if target in ("int", "long", "float", "double"):
        return rank_of(value) == {"int": 0, "long": 1, "float": 2, "double": 3}[target]
    try:
        implicit_cast(value, target)
    except PainlessError:
        return False
    return True


def default_value(declared: str) -> Any:
    return {"int": 0, "short": 0, "byte": 0, "char": 0, "long": Long(0), "float": Float(0.0), "double": 0.0,
            "boolean": False}.get(declared)  # fmt: skip


def apply_operator(op: str, a: Any, b: Any) -> Any:
    if op in ("+", "-", "*", "/", "%"):
        return arith(op, a, b)
    if op in ("&", "|", "^", "<<", ">>", ">>>"):
        return integral_op(op, a, b)
    raise PainlessError(f"unknown operator [{op}]")
