"""Painless, the language: statements, Java's types and the allowlisted methods scripts in relevance templates use.

`compile_painless` reads a script once into a tree of Python closures; `Program.run` runs it for one document.
Values carry their Java type in their Python class (`int` is Java's int, `Long` long, `Float` float, `float`
double, `bool` boolean, `str` String, `list` List, `dict` Map), so arithmetic follows Java's numeric promotion,
integer division and 32/64-bit overflow, and arithmetic on a boolean is the error Painless gives rather than 1.
This module knows nothing of indexes: a script's context variables (`_score`, `doc`, `params`) come from the
caller, so the same compiled program serves script_score and script sorts. The analysis context (the `condition`
token filter's AnalysisPredicateScript) has one variable instead, `token`, statically typed as there; the filter
context (the `script` query's FilterScript) has `params` and `doc` but no `_score`, and returns a boolean.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import numpy as np

from pytest_relevance.engines.embedded.java import (
    INT_MAX,
    INT_MIN,
    string_hash,
    to_float,
    trim,
    utf16,
    wrap_int,
    wrap_long,
)
from pytest_relevance.engines.embedded.sloppy_math import geohash_point, haversin_meters, plane_meters

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


# ---------------------------------------------------------------------------------------------------------- lexer

_TOKEN = re.compile(
    r"(?P<ws>\s+|//[^\n]*|/\*.*?\*/)"
    r"|(?P<num>0[xX][0-9a-fA-F]+[lL]?|(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?[fFdD]?|\d+(?:[eE][-+]?\d+)[fFdD]?"
    r"|\d+[lLfFdD]?)"
    r"|(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<op>>>>=|===|!==|==~|<<=|>>=|>>>|\?\.|\?:|->|::|=~|==|!=|<=|>=|&&|\|\||\+\+|--|\+=|-=|\*=|/=|%=|&=|\|=|"
    r"\^=|<<|>>|[-+*/%<>!~?:=(){}\[\],.;&|^])",
    re.S,
)
_KEYWORDS = frozenset(
    ["if", "else", "while", "do", "for", "in", "continue", "break", "return", "new", "try", "catch", "throw",
     "this", "instanceof"]
)  # fmt: skip
_PRIMITIVES = ("boolean", "int", "long", "float", "double")
_REFUSED_TYPES = frozenset(["char", "byte", "short"])
_REFERENCES = {
    "def": "def", "String": "String", "Object": "def", "Number": "Number", "Integer": "int", "Long": "long",
    "Double": "double", "Float": "float", "Boolean": "boolean", "List": "List", "ArrayList": "List",
    "Map": "Map", "HashMap": "Map", "Collection": "List", "Iterable": "List",
}  # fmt: skip
_TYPES = frozenset((*_PRIMITIVES, *_REFERENCES))


class Tok:
    __slots__ = ("col", "kind", "line", "text")

    def __init__(self, kind: str, text: str, line: int, col: int) -> None:
        self.kind, self.text, self.line, self.col = kind, text, line, col


def _lex(source: str) -> list[Tok]:
    tokens, at, line, line_start = [], 0, 1, 0
    while at < len(source):
        match = _TOKEN.match(source, at)
        if match is None:
            raise PainlessError(f"unexpected character {source[at]!r}", (line, at - line_start + 1))
        kind = match.lastgroup or ""
        if kind != "ws":
            tokens.append(Tok(kind, match.group(), line, at - line_start + 1))
        text = match.group()
        if "\n" in text:
            line += text.count("\n")
            line_start = at + text.rindex("\n") + 1
        at = match.end()
    tokens.append(Tok("end", "the end", line, at - line_start + 1))
    return tokens


# ------------------------------------------------------------------------------------------------- Java semantics


def _wrap_long(value: int) -> Long:
    return Long(wrap_long(value))


def _float(value: float) -> Float:
    return Float(to_float(value))


class _Moment:
    __slots__ = ("millis",)

    def __init__(self, millis: int) -> None:
        self.millis = millis

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.millis == self.millis  # type: ignore[attr-defined]

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


def _rank(value: Any) -> int:
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


def _as_rank(value: Any, rank: int) -> Any:
    if rank == 0:
        return int(value)
    if rank == 1:
        return Long(value)
    if rank == 2:
        return _float(value)
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
    if _rank(a) >= 0 or _rank(b) >= 0:
        return type(a) is type(b) and a == b
    return a == b


def _def_equals(a: Any, b: Any) -> bool:
    """`==` on def operands (DefMath.eq): numbers after promotion, anything else by equals."""
    if _rank(a) >= 0 and _rank(b) >= 0:
        return a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(java_equals(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _cannot(op: str, a: Any, b: Any) -> PainlessError:
    return PainlessError(f"Cannot apply [{op}] operation to types [{java_type(a)}] and [{java_type(b)}].")


def _arith(op: str, a: Any, b: Any) -> Any:
    rank = max(_rank(a), _rank(b))
    if _rank(a) < 0 or _rank(b) < 0:
        if op == "+" and (type(a) is str or type(b) is str):
            return to_string(a) + to_string(b)
        raise _cannot(op, a, b)
    if rank >= 2:
        x, y = float(a), float(b)
        if op == "+":
            out = x + y
        elif op == "-":
            out = x - y
        elif op == "*":
            out = x * y
        elif op == "/":
            out = x / y if y != 0 else (math.copysign(math.inf, x) * math.copysign(1, y) if x and x == x else math.nan)
        else:
            out = math.fmod(x, y) if y != 0 and not math.isinf(x) else (x if math.isinf(y) and y == y else math.nan)
        return _float(out) if rank == 2 else out
    x, y = int(a), int(b)
    if op == "+":
        out = x + y
    elif op == "-":
        out = x - y
    elif op == "*":
        out = x * y
    else:
        if y == 0:
            raise PainlessError("/ by zero (java.lang.ArithmeticException)")
        quotient = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)
        out = quotient if op == "/" else x - y * quotient
    return _wrap_long(out) if rank == 1 else wrap_int(out)


def _integral(op: str, a: Any, b: Any) -> Any:
    """`& | ^` (logical on booleans), `<< >> >>>` on int and long."""
    if isinstance(a, bool) and isinstance(b, bool) and op in "&|^":
        return {"&": a and b, "|": a or b, "^": a != b}[op]
    ra, rb = _rank(a), _rank(b)
    if ra not in (0, 1) or rb not in (0, 1):
        raise _cannot(op, a, b)
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
        return _wrap_long(out) if ra == 1 else wrap_int(out)
    x, y = int(a), int(b)
    out = {"&": x & y, "|": x | y, "^": x ^ y}[op]
    return _wrap_long(out) if max(ra, rb) == 1 else wrap_int(out)


def _compare(op: str, a: Any, b: Any) -> bool:
    if _rank(a) < 0 or _rank(b) < 0:
        raise _cannot(op, a, b)
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    return a >= b


def _boolean(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise PainlessError(f"Cannot cast [{java_type(value)}] to [boolean] ({what} needs a boolean).")
    return value


def explicit_cast(value: Any, target: str) -> Any:
    """`(type) value`: Java's narrowing and widening casts between numbers; reference casts check the class."""
    rank = _rank(value)
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
            return _wrap_long(whole)
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
        return _float(value) if target == "float" else float(value)
    return implicit_cast(value, target)


def implicit_cast(value: Any, target: str) -> Any:
    """Assignment to a declared type: widening only (int -> long -> float -> double), as Java allows."""
    if target == "def":
        return value
    if target in ("int", "long", "float", "double", "short", "byte", "char"):
        rank, wanted = _rank(value), {"int": 0, "long": 1, "float": 2, "double": 3}.get(target, 0)
        if rank < 0 or rank > wanted:
            raise PainlessError(f"Cannot cast from [{java_type(value)}] to [{target}].")
        return _as_rank(value, wanted)
    if value is None:
        if target == "boolean":
            raise PainlessError("Cannot cast null to a primitive type [boolean].")
        return None
    checks: dict[str, Callable[[Any], bool]] = {
        "boolean": lambda v: isinstance(v, bool),
        "String": lambda v: isinstance(v, str),
        "List": lambda v: isinstance(v, list),
        "Map": lambda v: isinstance(v, dict),
        "Number": lambda v: _rank(v) >= 0,
    }
    if not checks[target](value):
        raise PainlessError(f"Cannot cast [{java_type(value)}] to [{target}].")
    return value


def _instance(value: Any, target: str) -> bool:
    if value is None:
        return False
    if target == "def":
        return True
    if target in ("int", "long", "float", "double"):
        return _rank(value) == {"int": 0, "long": 1, "float": 2, "double": 3}[target]
    try:
        implicit_cast(value, target)
    except PainlessError:
        return False
    return True


def _default(declared: str) -> Any:
    return {"int": 0, "short": 0, "byte": 0, "char": 0, "long": Long(0), "float": Float(0.0), "double": 0.0,
            "boolean": False}.get(declared)  # fmt: skip


# ------------------------------------------------------------------------------------------------- the allowlist


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
    if _rank(value) < 0:
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
    if _rank(value) < 0:
        raise PainlessError(f"Cannot cast from [{java_type(value)}] to [double].")
    if _rank(value) <= 1:
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
        ranks = [_rank(a) for a in args]
        if min(ranks) < 0:
            raise PainlessError(f"Cannot cast from [{java_type(args[ranks.index(min(ranks))])}] to [double].")
        rank = max(ranks)
        out = function(*(float(a) if rank >= 2 else int(a) for a in args))
        if rank == 0:
            return wrap_int(out)
        if rank == 1:
            return _wrap_long(out)
        return _as_rank(out, rank)

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
_MATH_NOT_RUN = frozenset(
    ["random", "ulp", "nextUp", "nextDown", "nextAfter", "IEEEremainder", "scalb", "getExponent", "copySign"]
)
_STATIC_FIELDS: dict[tuple[str, str], Any] = {
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


_STATIC_METHODS: dict[tuple[str, str], Callable[..., Any]] = {
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


def _moment(value: Any, kind: type) -> int:
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
_TYPED: dict[str, tuple[str, dict[str, tuple[int, str | None, Callable[..., Any]]]]] = {
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
_TYPED_NOT_RUN = frozenset(["chars", "codePoints", "replaceAll", "replaceFirst", "getType"])
_TOKEN_METHODS = {name: entry[2] for name, entry in _TYPED["Token"][1].items()}
_CHAR_TERM_METHODS = {name: entry[2] for name, entry in _TYPED["CharSequence"][1].items()}


def _getter(table: dict[str, Any], name: str) -> str | None:
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
    elif _rank(target) >= 0:
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
    if type(target) is AnalysisToken and _getter(_TOKEN_METHODS, name) is not None:
        return _TOKEN_METHODS[_getter(_TOKEN_METHODS, name)](target)  # type: ignore[index]
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


# ---------------------------------------------------------------------------------------------- parser + compiler

_BREAK, _CONTINUE, _RETURN = object(), object(), object()
FELL_OFF = object()  # a script that ends without a value: ScoreScript's execute returns its type's default
_NOT_CONSTANT = object()
Run = Callable[["Frame"], Any]


class Frame:
    """One execution: the local variables' slots, the context, the loop budget and the returned value."""

    __slots__ = ("budget", "ctx", "result", "slots")

    def __init__(self, size: int, ctx: Context) -> None:
        self.slots: list[Any] = [None] * size
        self.ctx, self.budget, self.result = ctx, ctx.loop_budget, FELL_OFF


class Expr:
    """A compiled expression: its closure, where it starts, what it assigns to when it is a variable, a field or
    an index (`lvalue`), how it reads as an array expression over many documents (`vector`, see
    `pytest_relevance.engines.embedded.queries.scripts`; None when it cannot be vectorized), and its type when it is
    known when compiling (`static`: a literal, a typed local, an operator's result); an assignment keeps what it
    assigns (`assign`: the lvalue, the operator and the right side) for the array form of statements."""

    __slots__ = ("assign", "lvalue", "run", "static", "vector", "where")

    def __init__(
        self,
        run: Run,
        where: tuple[int, int],
        lvalue: tuple[Any, ...] | None = None,
        vector: Callable[[Any], Any] | None = None,
        static: str | None = None,
        assign: tuple[Any, ...] | None = None,
    ) -> None:
        self.run, self.where, self.lvalue, self.vector, self.static = run, where, lvalue, vector, static
        self.assign = assign


Build = Callable[[bool], Run]  # a statement, built knowing whether it is the script's last (its value returned)
# A statement as the array form reads it: ("declare", [(slot, type, init)]), ("assign", slot, type, op, right),
# ("eval", expr), ("return", expr), ("if", test, then, else), ("block", shapes), ("empty",); None: no array form.
Shape = tuple[Any, ...]


class Program:
    """A compiled script: `run(ctx)` gives its value for one document; `vector` is the single expression's array
    form when the script is one (None otherwise); `statements` the shapes of a script of straight-line statements
    (`vector_statements` types them as one array form; None when a statement has none)."""

    __slots__ = ("body", "slots", "source", "statements", "vector")

    def __init__(
        self,
        source: str,
        body: Run,
        slots: int,
        vector: Callable[[Any], Any] | None,
        statements: list[Shape] | None = None,
    ) -> None:
        self.source, self.body, self.slots, self.vector = source, body, slots, vector
        self.statements = statements

    def run(self, ctx: Context) -> Any:
        frame = Frame(self.slots, ctx)
        self.body(frame)
        return frame.result


class _Scope:
    def __init__(self, parent: _Scope | None, allocate: Callable[[], int]) -> None:
        self.parent, self.allocate, self.names = parent, allocate, {}

    def find(self, name: str) -> tuple[int, str] | None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


_ASSIGN = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>="))
_BINARY_LEVELS: list[tuple[str, ...]] = [
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!=", "===", "!=="),
    ("<", "<=", ">", ">=", "instanceof"),
    ("<<", ">>", ">>>"),
    ("+", "-"),
    ("*", "/", "%"),
]
_UNSUPPORTED_NAMES = {
    "try": "try/catch",
    "catch": "try/catch",
    "throw": "throw",
    "this": "function reference (this::)",
}


class Compiler:
    """Recursive descent over Painless's grammar (PainlessParser.g4), emitting closures as it goes: variables are
    resolved to slots when declared, so a script is read once and run per document without a tree walk."""

    def __init__(
        self,
        source: str,
        helpers: dict[str, Callable[..., Any]],
        vector_helpers: frozenset[str],
        context: str = "score",
    ) -> None:
        self.source, self.tokens, self.at = source, _lex(source), 0
        self.helpers, self.vector_helpers = helpers, vector_helpers
        self.context = context
        self.variables = {"analysis": _ANALYSIS_VARIABLES, "filter": _FILTER_VARIABLES}.get(context, _SCORE_VARIABLES)
        self.count = 0
        self.scope = _Scope(None, self._allocate)

    def _allocate(self) -> int:
        self.count += 1
        return self.count - 1

    # --------------------------------------------------------------------------------------------- tokens

    def peek(self, ahead: int = 0) -> Tok:
        return self.tokens[min(self.at + ahead, len(self.tokens) - 1)]

    def is_op(self, text: str, ahead: int = 0) -> bool:
        token = self.peek(ahead)
        return token.kind == "op" and token.text == text

    def is_word(self, text: str, ahead: int = 0) -> bool:
        token = self.peek(ahead)
        return token.kind == "name" and token.text == text

    def take(self, text: str | None = None) -> Tok:
        token = self.peek()
        if (token.kind == "end" and text is not None) or (text is not None and token.text != text):
            raise PainlessError(f"expected [{text}], found [{token.text}]", (token.line, token.col))
        if token.kind == "end":
            raise PainlessError("unexpected end of script", (token.line, token.col))
        self.at += 1
        return token

    def refuse(self, construct: str, token: Tok) -> NotSupported:
        return NotSupported(f"{construct} is not supported by the embedded engine's Painless", (token.line, token.col))

    # --------------------------------------------------------------------------------------------- statements

    def program(self) -> Program:
        if (
            self.peek().kind == "name"
            and self.peek().text in _TYPES
            and self.peek(1).kind == "name"
            and self.is_op("(", 2)
        ):
            raise self.refuse("a function definition", self.peek())
        builds: list[Build] = []
        shapes: list[Shape | None] = []
        single: Expr | None = None
        while self.peek().kind != "end":
            start = self.at
            builds.append(self.statement())
            shapes.append(self._shape)
            single = self._single if start == 0 else None
        if not builds:
            raise PainlessError("Cannot generate an empty script.", (1, 1))
        if self.context in ("analysis", "filter") and single is not None and len(builds) == 1:
            _static_cast(single, "boolean")  # AnalysisPredicateScript's and FilterScript's execute return a boolean
        statements = [build(i == len(builds) - 1) for i, build in enumerate(builds)]
        body = _sequence(statements)
        vector = single.vector if single is not None and len(builds) == 1 else None
        straight = vector is None and self.context == "score" and None not in shapes
        return Program(self.source, body, self.count, vector, shapes if straight else None)  # type: ignore[arg-type]

    _single: Expr | None = None
    _shape: Shape | None = None  # the last statement's, see Shape

    def statement(self) -> Build:
        """One statement with its terminating `;` (optional before `}` and at the end, as Painless allows)."""
        self._single = self._shape = None
        token = self.peek()
        if (token.kind == "name" and token.text in ("if", "while", "for", "do", "try")) or self.is_op("{"):
            build = self.control() if token.kind == "name" else self.block()
            self._single = None  # a `return` inside is not the script's one expression
            if token.kind == "name" and token.text != "if":
                self._shape = None  # loops run per document
            return build
        if self.is_op(";"):
            self.take(";")
            self._shape = ("empty",)
            return lambda last: _nothing
        build = self.simple()
        if self.is_op(";"):
            self.take(";")
        elif not self.is_op("}") and self.peek().kind != "end":
            found = self.peek()
            raise PainlessError(f"expected [;], found [{found.text}]", (found.line, found.col))
        return build

    def block(self) -> Build:
        self.take("{")
        outer = self.scope
        self.scope = _Scope(outer, self._allocate)
        builds, shapes = [], []
        while not self.is_op("}"):
            if self.peek().kind == "end":
                raise PainlessError("expected [}], found [the end]", (self.peek().line, self.peek().col))
            builds.append(self.statement())
            shapes.append(self._shape)
        self.take("}")
        self.scope = outer
        self._shape = None if None in shapes else ("block", shapes)

        def build(last: bool) -> Run:
            return _sequence([b(last and i == len(builds) - 1) for i, b in enumerate(builds)])

        return build

    def trailer(self) -> Build:
        """A loop's or if's body: a block, or a single statement in a scope of its own."""
        outer = self.scope
        self.scope = _Scope(outer, self._allocate)
        try:
            return self.statement()
        finally:
            self.scope = outer

    def condition(self) -> Run:
        return _as_condition(self.condition_expr())

    def condition_expr(self) -> Expr:
        self.take("(")
        expr = self.expression()
        self.take(")")
        return expr

    def control(self) -> Build:
        token = self.take()
        word = token.text
        if word == "try":
            raise self.refuse("try/catch", token)
        if word == "if":
            tested = self.condition_expr()
            test = _as_condition(tested)
            yes = self.trailer()
            yes_shape, no_shape = self._shape, None
            no = None
            if self.is_word("else"):
                self.take("else")
                no = self.trailer()
                no_shape = self._shape
            known = yes_shape is not None and (no is None or no_shape is not None)
            self._shape = ("if", tested, yes_shape, no_shape) if known else None

            def build_if(last: bool) -> Run:
                then, other = yes(last), no(last) if no is not None else None

                def run_if(fr: Frame) -> Any:
                    if test(fr):
                        return then(fr)
                    return other(fr) if other is not None else None

                return run_if

            return build_if
        if word == "while":
            test = self.condition()
            body = self.trailer() if not self.is_op(";") else self._empty()
            return lambda last: _loop(None, test, None, body(False), token)
        if word == "do":
            body = self.block()
            if not self.is_word("while"):
                raise PainlessError(
                    f"expected [while], found [{self.peek().text}]", (self.peek().line, self.peek().col)
                )
            self.take("while")
            test = self.condition()
            if self.is_op(";"):
                self.take(";")
            return lambda last: _do_loop(body(False), test, token)
        return self.for_loop(token)

    def _empty(self) -> Build:
        self.take(";")
        return lambda last: _nothing

    def for_loop(self, token: Tok) -> Build:
        self.take("(")
        outer = self.scope
        self.scope = _Scope(outer, self._allocate)
        try:
            each = self._each_header()
            if each is not None:
                slot, declared, items = each
                self.take(")")
                body = self.trailer()
                return lambda last: _each_loop(slot, declared, items, body(False), token)
            init = None if self.is_op(";") else self.simple()
            self.take(";")
            test = None
            if not self.is_op(";"):
                expr = self.expression()
                test = _as_condition(expr)
            self.take(";")
            update = None if self.is_op(")") else self.expression().run
            self.take(")")
            body = self.trailer() if not self.is_op(";") else self._empty()
        finally:
            self.scope = outer
        return lambda last: _loop(init(False) if init else None, test, update, body(False), token)

    def _each_header(self) -> tuple[int, str, Run] | None:
        """`for (def x : list)` or `for (x in list)`: the loop variable's slot and type, and the iterable."""
        if self.peek().kind == "name" and self.peek(1).kind == "name" and self.is_op(":", 2):
            declared = self.type_name(self.take())
            name = self.take().text
            self.take(":")
        elif self.peek().kind == "name" and self.is_word("in", 1):
            declared, name = "def", self.take().text
            self.take("in")
        else:
            return None
        items = self.expression().run
        slot = self.scope.allocate()
        self.scope.names[name] = (slot, declared)
        return slot, declared, items

    def type_name(self, token: Tok) -> str:
        if token.text not in _TYPES:
            raise self.refuse(f"the type {token.text!r}", token)
        if self.is_op("[") and self.is_op("]", 1):
            raise self.refuse("an array type", token)
        return _REFERENCES.get(token.text, token.text)

    def simple(self) -> Build:
        """A declaration, break, continue, return, or an expression statement."""
        token = self.peek()
        if token.kind == "name" and token.text in _UNSUPPORTED_NAMES:
            raise self.refuse(_UNSUPPORTED_NAMES[token.text], token)
        if token.kind == "name" and token.text in ("break", "continue"):
            self.take()
            signal = _BREAK if token.text == "break" else _CONTINUE
            return lambda last: lambda fr: signal
        if token.kind == "name" and token.text == "return":
            self.take()
            expr = self.expression()
            self._single = expr
            self._shape = ("return", expr)
            run = expr.run

            def build_return(last: bool) -> Run:
                def run_return(fr: Frame) -> Any:
                    fr.result = run(fr)
                    return _RETURN

                return run_return

            return build_return
        if token.kind == "name" and token.text in _REFUSED_TYPES:
            raise self.refuse(f"the type {token.text!r}", token)
        if token.kind == "name" and token.text in _TYPES and self.peek(1).kind == "name":
            return self.declaration()
        if token.kind == "name" and token.text in _TYPES and self.is_op("[", 1) and self.is_op("]", 2):
            raise self.refuse("an array type", token)
        expr = self.expression()
        self._single = expr
        self._shape = ("eval", expr)
        if expr.assign is not None:
            lvalue, op, right = expr.assign
            self._shape = ("assign", lvalue[1], lvalue[2], op, right) if lvalue[0] == "var" else None
        run = expr.run

        def build_expression(last: bool) -> Run:
            if not last:

                def run_statement(fr: Frame) -> None:
                    run(fr)  # its value is dropped: a falsy one (`x = 0`) is no signal that ends the sequence

                return run_statement

            def run_last(fr: Frame) -> Any:
                fr.result = run(fr)
                return _RETURN

            return run_last

        return build_expression

    def declaration(self) -> Build:
        declared = self.type_name(self.take())
        runs: list[Run] = []
        declared_slots: list[tuple[int, str, Expr | None]] = []
        while True:
            name_token = self.take()
            if name_token.kind != "name" or name_token.text in _KEYWORDS:
                raise PainlessError(f"invalid variable name [{name_token.text}]", (name_token.line, name_token.col))
            if self.scope.find(name_token.text) is not None or name_token.text in self.variables:
                raise PainlessError(
                    f"variable [{name_token.text}] is already defined", (name_token.line, name_token.col)
                )
            init: Run | None = None
            value: Expr | None = None
            if self.is_op("="):
                self.take("=")
                value = self.expression()
                _static_cast(value, declared)
                init = value.run
            slot = self.scope.allocate()
            declared_slots.append((slot, declared, value))
            self.scope.names[name_token.text] = (slot, declared)
            runs.append(_declare(slot, declared, init, (name_token.line, name_token.col)))
            if not self.is_op(","):
                break
            self.take(",")
        self._shape = ("declare", declared_slots)
        return lambda last: _sequence(runs)

    # --------------------------------------------------------------------------------------------- expressions

    def expression(self) -> Expr:
        left = self.conditional()
        token = self.peek()
        if token.kind == "op" and token.text in _ASSIGN:
            self.take()
            if left.lvalue is None:
                raise PainlessError("invalid assignment: the left side is not a variable", (token.line, token.col))
            right = self.expression()
            run = _assign(left.lvalue, token.text, right.run, left.where)
            return Expr(run, left.where, assign=(left.lvalue, token.text, right))
        if token.kind == "op" and token.text in ("->", "::"):
            raise self.refuse("a lambda" if token.text == "->" else "a function reference", token)
        return left

    def conditional(self) -> Expr:
        test = self.binary(0)
        if self.is_op("?"):
            token = self.take("?")
            yes = self.expression()
            self.take(":")
            no = self.expression()
            return _ternary(test, yes, no, (token.line, token.col))
        if self.is_op("?:"):
            self.take("?:")
            other = self.expression()
            first, fallback = test.run, other.run

            def elvis(fr: Frame) -> Any:
                value = first(fr)
                return value if value is not None else fallback(fr)

            return Expr(elvis, test.where)
        return test

    def binary(self, level: int) -> Expr:
        if level == len(_BINARY_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while True:
            token = self.peek()
            if token.kind == "op" and token.text in ("=~", "==~"):
                raise self.refuse("a regex (=~, ==~)", token)
            is_instanceof = (
                token.kind == "name" and token.text == "instanceof" and "instanceof" in _BINARY_LEVELS[level]
            )
            if not is_instanceof and not (token.kind == "op" and token.text in _BINARY_LEVELS[level]):
                return left
            self.take()
            if is_instanceof:
                target = self.type_name(self.take())
                run = left.run
                left = Expr(lambda fr, run=run, target=target: _instance(run(fr), target), left.where)
                continue
            if token.text in ("===", "!=="):
                raise self.refuse("identity comparison (===, !==)", token)
            right = self.binary(level + 1)
            left = _binary(token.text, left, right, (token.line, token.col))

    def unary(self) -> Expr:
        token = self.peek()
        if token.kind == "op" and token.text in ("++", "--"):
            self.take()
            target = self.unary()
            if target.lvalue is None:
                raise PainlessError(f"[{token.text}] needs a variable", (token.line, token.col))
            return Expr(_increment(target.lvalue, token.text, True, target.where), (token.line, token.col))
        if token.kind == "op" and token.text == "-" and self.peek(1).kind == "num":
            self.take()  # Painless folds the sign into the literal: -2147483648 is an int
            number = self.take()
            value = _literal(Tok("num", "-" + number.text, number.line, number.col))
            literal = Expr(
                lambda fr: value, (token.line, token.col), vector=_vector_constant(value), static=_type_of(value)
            )
            return self.postfix(literal)
        if token.kind == "op" and token.text in ("!", "-", "+", "~"):
            self.take()
            return _unary(token.text, self.unary(), (token.line, token.col))
        if token.kind == "op" and token.text == "/":
            raise self.refuse("a regex", token)
        typed = self.is_op("(") and self.peek(1).kind == "name" and self.peek(1).text in _TYPES
        if typed and (self.is_op(")", 2) or (self.is_op("[", 2) and self.is_op("]", 3))):
            self.take("(")
            target = self.type_name(self.take())
            self.take(")")
            return _cast(target, self.unary(), (token.line, token.col))
        expr = self.postfix(self.primary())
        after = self.peek()
        if after.kind == "op" and after.text in ("++", "--"):
            self.take()
            if expr.lvalue is None:
                raise PainlessError(f"[{after.text}] needs a variable", (after.line, after.col))
            return Expr(_increment(expr.lvalue, after.text, False, expr.where), expr.where)
        return expr

    def _lambda_ahead(self) -> bool:
        """`x -> ...` or `(a, b) -> ...` starts here."""
        if self.peek().kind == "name" and self.is_op("->", 1):
            return True
        if not self.is_op("("):
            return False
        ahead = 1
        while self.peek(ahead).kind == "name" or self.is_op(",", ahead):
            ahead += 1
        return self.is_op(")", ahead) and self.is_op("->", ahead + 1)

    def primary(self) -> Expr:
        if self._lambda_ahead():
            raise self.refuse("a lambda", self.peek())
        token = self.take()
        where = (token.line, token.col)
        if token.kind == "num":
            value = _literal(token)
            return Expr(lambda fr: value, where, vector=_vector_constant(value), static=_type_of(value))
        if token.kind == "str":
            text = _unescape(token.text)
            return Expr(lambda fr: text, where, vector=_vector_constant(text), static="String")
        if token.kind == "op" and token.text == "(":
            inner = self.expression()
            self.take(")")
            return Expr(inner.run, where, vector=inner.vector, static=inner.static)
        if token.kind == "op" and token.text == "[":
            return self.collection(where)
        if token.kind != "name":
            raise PainlessError(f"unexpected [{token.text}]", where)
        name = token.text
        if name in ("true", "false"):
            value = name == "true"
            return Expr(lambda fr: value, where, vector=_vector_constant(value), static="boolean")
        if name == "null":
            return Expr(lambda fr: None, where)
        if name == "new":
            return self.new_object(token)
        if name in _UNSUPPORTED_NAMES:
            raise self.refuse(_UNSUPPORTED_NAMES[name], token)
        local = self.scope.find(name)
        if local is not None:
            slot, declared = local
            static = None if declared in ("def", "Number") else declared
            return Expr(
                lambda fr: fr.slots[slot],
                where,
                lvalue=("var", slot, declared),
                vector=_vector_local(slot),
                static=static,
            )
        if name in self.variables:
            return self.variables[name](where)
        if self.is_op("::"):
            raise self.refuse("a function reference", self.peek())
        if name in ("Math", "Integer", "Long", "Double", "Float", "String", "Boolean"):
            return self.static_member(token)
        if self.is_op("("):
            return self.helper_call(token)
        known = ", ".join(self.variables)
        raise PainlessError(f"cannot resolve symbol [{name}] (not a local variable or one of {known})", where)

    def collection(self, where: tuple[int, int]) -> Expr:
        """`[1, 2]`, `[]`, `['a': 1]`, `[:]`: an ArrayList or a HashMap, built anew each time it is read."""
        if self.is_op(":") and self.is_op("]", 1):
            self.take(":")
            self.take("]")
            return Expr(lambda fr: {}, where)
        items: list[Run] = []
        keys: list[Run] = []
        while not self.is_op("]"):
            first = self.expression()
            if self.is_op(":"):
                self.take(":")
                keys.append(first.run)
                items.append(self.expression().run)
            else:
                if keys:
                    raise PainlessError("a map initializer needs key: value everywhere", first.where)
                items.append(first.run)
            if not self.is_op(","):
                break
            self.take(",")
        self.take("]")
        if keys:
            pairs = list(zip(keys, items, strict=True))
            return Expr(lambda fr: {k(fr): v(fr) for k, v in pairs}, where)
        return Expr(lambda fr: [item(fr) for item in items], where)

    def new_object(self, token: Tok) -> Expr:
        kind = self.take()
        if self.is_op("["):
            raise self.refuse("an array (new ...[])", token)
        if kind.text not in ("ArrayList", "HashMap"):
            raise self.refuse(f"new {kind.text}(...)", token)
        arguments = self.arguments()
        where = (token.line, token.col)
        if kind.text == "HashMap":
            if arguments:
                source = arguments[0]
                return Expr(lambda fr: dict(source(fr)), where)
            return Expr(lambda fr: {}, where)
        if arguments:
            source = arguments[0]
            return Expr(lambda fr: list(source(fr)), where)
        return Expr(lambda fr: [], where)

    def static_member(self, token: Tok) -> Expr:
        where = (token.line, token.col)
        self.take(".")
        member = self.take()
        key = (token.text, member.text)
        if key in _STATIC_FIELDS and not self.is_op("("):
            value = _STATIC_FIELDS[key]
            return Expr(lambda fr: value, where, vector=_vector_constant(value))
        if token.text == "Math" and member.text in MATH:
            function = MATH[member.text]
            expressions = self.argument_exprs()
            runs = [e.run for e in expressions]
            return Expr(
                lambda fr: function(*(r(fr) for r in runs)),
                where,
                vector=_vector_call(f"Math.{member.text}", expressions),
            )
        if key in _STATIC_METHODS:
            function = _STATIC_METHODS[key]
            runs = self.arguments()
            return Expr(lambda fr: function(*(r(fr) for r in runs)), where)
        if token.text == "Math" and member.text not in _MATH_NOT_RUN:
            raise PainlessError(f"Unknown call [{member.text}] on type [Math].", (member.line, member.col))
        raise self.refuse(f"{token.text}.{member.text}", member)

    def helper_call(self, token: Tok) -> Expr:
        """Elasticsearch's script_score functions (saturation, sigmoid, decay*), given by the caller."""
        where = (token.line, token.col)
        function = self.helpers.get(token.text)
        if function is None and self.context == "filter":  # ScoreScriptUtils is allowlisted for scoring alone
            raise PainlessError(f"Unknown call [{token.text}] with [{len(self.argument_exprs())}] arguments.", where)
        if function is None:
            raise self.refuse(f"the function {token.text}()", token)
        expressions = self.argument_exprs()
        runs = [e.run for e in expressions]
        vector = _vector_call(token.text, expressions) if token.text in self.vector_helpers else None

        def call(fr: Frame) -> Any:
            return function(*(r(fr) for r in runs))

        return Expr(call, where, vector=vector)

    def argument_exprs(self) -> list[Expr]:
        self.take("(")
        found: list[Expr] = []
        while not self.is_op(")"):
            found.append(self.expression())
            if not self.is_op(","):
                break
            self.take(",")
        self.take(")")
        return found

    def arguments(self) -> list[Run]:
        return [e.run for e in self.argument_exprs()]

    def typed_member(self, expr: Expr, member: Tok, safe: bool) -> Expr:
        """A method or getter of a statically typed value (`token`, its term): resolved when compiling, so one the
        allowlist lacks is Painless's compile error rather than a runtime one."""
        canonical, table = _TYPED[expr.static]  # type: ignore[index]
        where = (member.line, member.col)
        name = member.text
        if self.is_op("("):
            arguments = self.argument_exprs()
        else:
            getter = _getter(table, name)
            if getter is None or table[getter][0]:
                raise PainlessError(f"field [{canonical}, {name}] not found", where)
            name, arguments = getter, []
        if name in _TYPED_NOT_RUN:
            raise self.refuse(f"{canonical}.{name}", member)
        entry = table.get(name)
        if entry is None or entry[0] != len(arguments):
            raise PainlessError(f"member method [{canonical}, {name}/{len(arguments)}] not found", where)
        _, static, function = entry
        get, runs = expr.run, [a.run for a in arguments]

        def run(fr: Frame) -> Any:
            obj = get(fr)
            if obj is None:
                if safe:
                    return None
                raise PainlessError(f"Cannot invoke [{name}] on a null value (java.lang.NullPointerException)", where)
            try:
                return function(obj, *(r(fr) for r in runs))
            except PainlessError as exc:
                raise _placed(exc, where) from None

        return Expr(run, expr.where, static=static)

    def postfix(self, expr: Expr) -> Expr:
        while True:
            token = self.peek()
            if token.kind == "op" and token.text in (".", "?."):
                self.take()
                member = self.take()
                safe = token.text == "?."
                if member.kind not in ("name", "num"):
                    raise PainlessError(f"unexpected [{member.text}] after [.]", (member.line, member.col))
                if expr.static in _TYPED:
                    expr = self.typed_member(expr, member, safe)
                elif self.is_op("("):
                    expressions = self.argument_exprs()
                    expr = _method(expr, member.text, expressions, safe, (member.line, member.col))
                else:
                    expr = _field(expr, member.text, safe, (member.line, member.col))
            elif token.kind == "op" and token.text == "[":
                self.take("[")
                key = self.expression()
                self.take("]")
                expr = _brace(expr, key, (token.line, token.col))
            else:
                return expr


def _literal(token: Tok) -> Any:
    text = token.text
    where = (token.line, token.col)
    suffix = text[-1].lower() if text[-1] in "lLfFdD" and not text.lower().startswith("0x") else ""
    if text.lower().startswith("0x"):
        suffix = "l" if text[-1] in "lL" else ""
        body = int(text[2:].rstrip("lL"), 16)
        if suffix == "l":
            return _wrap_long(body) if body < 2**64 else _bad_literal(text, where)
        return wrap_int(body) if body < 2**32 else _bad_literal(text, where)
    body = text[:-1] if suffix else text
    if suffix in ("f", "d") or any(c in body for c in ".eE"):
        return _float(float(body)) if suffix == "f" else float(body)
    sign, digits = (-1, body[1:]) if body.startswith("-") else (1, body)
    value = sign * (int(digits, 8) if len(digits) > 1 and digits.startswith("0") else int(digits))
    if suffix == "l":
        return Long(value) if -(2**63) <= value < 2**63 else _bad_literal(text, where)
    return value if -(2**31) <= value < 2**31 else _bad_literal(text, where)


def _bad_literal(text: str, where: tuple[int, int]) -> Any:
    raise PainlessError(f"Invalid int constant [{text}]. If a long constant was intended, end it with L.", where)


def _unescape(text: str) -> str:
    """Painless strings: single or double quotes; only `\\\\` and the enclosing quote are escapes."""
    quote, body = text[0], text[1:-1]
    return body.replace("\\" + quote, quote).replace("\\\\", "\\")


def _nothing(fr: Frame) -> None:
    return None


def _sequence(runs: list[Run]) -> Run:
    if len(runs) == 1:
        return runs[0]

    def run_all(fr: Frame) -> Any:
        for run in runs:
            signal = run(fr)
            if signal is not None:
                return signal
        return None

    return run_all


def _as_condition(expr: Expr) -> Run:
    run, where = expr.run, expr.where
    _static_cast(expr, "boolean")

    def check(fr: Frame) -> bool:
        value = run(fr)
        if value is True or value is False:
            return value
        raise PainlessError(f"Cannot cast from [{java_type(value)}] to [boolean].", where)

    return check


def _tick(fr: Frame, where: tuple[int, int]) -> None:
    fr.budget -= 1
    if fr.budget <= 0:
        raise PainlessError(LOOP_LIMIT_MESSAGE, where)


def _loop(init: Run | None, test: Run | None, update: Run | None, body: Run, token: Tok) -> Run:
    """while and for: the condition, then the loop counter (DefaultIRTreeToASMBytesPhase.visitWhileLoop), then
    the body; a break leaves, a continue goes to the update."""
    where = (token.line, token.col)

    def run_loop(fr: Frame) -> Any:
        if init is not None:
            init(fr)
        while test is None or test(fr):
            fr.budget -= 1
            if fr.budget <= 0:
                raise PainlessError(LOOP_LIMIT_MESSAGE, where)
            signal = body(fr)
            if signal is _BREAK:
                break
            if signal is _RETURN:
                return signal
            if update is not None:
                update(fr)
        return None

    return run_loop


def _do_loop(body: Run, test: Run, token: Tok) -> Run:
    where = (token.line, token.col)

    def run_do(fr: Frame) -> Any:
        while True:
            _tick(fr, where)
            signal = body(fr)
            if signal is _BREAK:
                break
            if signal is _RETURN:
                return signal
            if not test(fr):
                break
        return None

    return run_do


def _each_loop(slot: int, declared: str, items: Run, body: Run, token: Tok) -> Run:
    where = (token.line, token.col)

    def run_each(fr: Frame) -> Any:
        iterable = items(fr)
        if isinstance(iterable, dict):
            raise PainlessError("Cannot iterate over a Map: use map.keySet() or map.values()", where)
        if not isinstance(iterable, list):
            raise PainlessError(f"Cannot iterate over [{java_type(iterable)}].", where)
        for item in list(iterable):
            _tick(fr, where)
            fr.slots[slot] = implicit_cast(item, declared) if declared != "def" else item
            signal = body(fr)
            if signal is _BREAK:
                break
            if signal is _RETURN:
                return signal
        return None

    return run_each


def _located(function: Run, where: tuple[int, int]) -> Run:
    """Errors raised while running a node get the node's line:column when they have none yet."""

    def run(fr: Frame) -> Any:
        try:
            return function(fr)
        except PainlessError as exc:
            raise _placed(exc, where) from None

    return run


def _declare(slot: int, declared: str, init: Run | None, where: tuple[int, int]) -> Run:
    default = _default(declared)
    if init is None:

        def run_default(fr: Frame) -> None:
            fr.slots[slot] = default

        return run_default

    exact = _EXACT.get(declared)

    def run_init(fr: Frame) -> None:
        value = init(fr)
        if type(value) is exact or declared == "def":
            fr.slots[slot] = value
            return
        try:
            fr.slots[slot] = implicit_cast(value, declared)
        except PainlessError as exc:
            exc.where = exc.where or where
            raise

    return run_init


def _operate(op: str, a: Any, b: Any) -> Any:
    if op in ("+", "-", "*", "/", "%"):
        return _arith(op, a, b)
    if op in ("&", "|", "^", "<<", ">>", ">>>"):
        return _integral(op, a, b)
    raise PainlessError(f"unknown operator [{op}]")


def _reader(lvalue: tuple[Any, ...]) -> Run:
    kind = lvalue[0]
    if kind in ("var", "slot"):
        slot = lvalue[1]
        return lambda fr: fr.slots[slot]
    if kind == "field":
        target, name = lvalue[1], lvalue[2]
        return lambda fr: read_field(target(fr), name)
    target, key = lvalue[1], lvalue[2]
    return lambda fr: read_brace(target(fr), key(fr))


_EXACT = {"int": int, "long": Long, "float": Float, "double": float, "boolean": bool, "String": str}


def _writer(lvalue: tuple[Any, ...]) -> Callable[[Frame, Any], Any]:
    kind = lvalue[0]
    if kind in ("var", "slot"):
        slot, declared = lvalue[1], lvalue[2]
        exact = _EXACT.get(declared)

        def write_var(fr: Frame, value: Any) -> Any:
            if declared != "def" and type(value) is not exact:
                value = implicit_cast(value, declared)
            fr.slots[slot] = value
            return value

        return write_var
    if kind == "field":
        target, name = lvalue[1], lvalue[2]

        def write_field(fr: Frame, value: Any) -> Any:
            obj = target(fr)
            if not isinstance(obj, dict) or obj is fr.ctx.params:
                raise PainlessError(f"Cannot assign the field [{name}] of [{java_type(obj)}]")
            obj[name] = value
            return value

        return write_field
    target, key = lvalue[1], lvalue[2]

    def write_index(fr: Frame, value: Any) -> Any:
        write_brace(target(fr), key(fr), value)
        return value

    return write_index


def _compound_cast(lvalue: tuple[Any, ...], value: Any) -> Any:
    """`x op= y` is `x = (T)(x op y)`: the implicit narrowing cast back to the variable's type."""
    if lvalue[0] in ("var", "slot") and lvalue[2] in ("int", "long", "float", "double"):
        return explicit_cast(value, lvalue[2])
    return value


def _assign(lvalue: tuple[Any, ...], op: str, right: Run, where: tuple[int, int]) -> Run:
    write = _writer(lvalue)
    if op == "=":
        return _located(lambda fr: write(fr, right(fr)), where)
    read, operator = _reader(lvalue), op[:-1]

    def compound(fr: Frame) -> Any:
        return write(fr, _compound_cast(lvalue, _operate(operator, read(fr), right(fr))))

    return _located(compound, where)


def _increment(lvalue: tuple[Any, ...], op: str, prefix: bool, where: tuple[int, int]) -> Run:
    read, write = _reader(lvalue), _writer(lvalue)
    operator = "+" if op == "++" else "-"
    if lvalue[0] == "var":  # `i++` on an int local, the loop counter's common case, without the general path
        slot, delta, general = lvalue[1], 1 if op == "++" else -1, _increment(("slot", *lvalue[1:]), op, prefix, where)

        def step_int(fr: Frame) -> Any:
            before = fr.slots[slot]
            if type(before) is int and INT_MIN < before + delta <= INT_MAX:
                fr.slots[slot] = before + delta
                return before + delta if prefix else before
            return general(fr)

        return step_int

    def step(fr: Frame) -> Any:
        before = read(fr)
        after = write(fr, _compound_cast(lvalue, _operate(operator, before, 1)))
        return after if prefix else before

    return _located(step, where)


_NUMBERS = frozenset((int, Long, float, Float))


def _add(a: Any, b: Any) -> Any:
    kind = type(a)
    if kind is type(b):
        if kind is float:
            return a + b
        if kind is int:
            out = a + b
            return out if INT_MIN <= out <= INT_MAX else wrap_int(out)
    return _arith("+", a, b)


def _subtract(a: Any, b: Any) -> Any:
    kind = type(a)
    if kind is type(b):
        if kind is float:
            return a - b
        if kind is int:
            out = a - b
            return out if INT_MIN <= out <= INT_MAX else wrap_int(out)
    return _arith("-", a, b)


def _multiply(a: Any, b: Any) -> Any:
    if type(a) is float and type(b) is float:
        return a * b
    return _arith("*", a, b)


def _less(a: Any, b: Any) -> bool:
    if type(a) in _NUMBERS and type(b) in _NUMBERS:
        return a < b
    raise _cannot("<", a, b)


def _less_equal(a: Any, b: Any) -> bool:
    if type(a) in _NUMBERS and type(b) in _NUMBERS:
        return a <= b
    raise _cannot("<=", a, b)


def _greater(a: Any, b: Any) -> bool:
    if type(a) in _NUMBERS and type(b) in _NUMBERS:
        return a > b
    raise _cannot(">", a, b)


def _greater_equal(a: Any, b: Any) -> bool:
    if type(a) in _NUMBERS and type(b) in _NUMBERS:
        return a >= b
    raise _cannot(">=", a, b)


def _equal(a: Any, b: Any) -> bool:
    kind = type(a)
    if kind is type(b) and (kind is str or kind is int or kind is float):
        return a == b
    return _def_equals(a, b)


def _operation(op: str) -> Callable[[Any, Any], Any]:
    fast = {"+": _add, "-": _subtract, "*": _multiply, "<": _less, "<=": _less_equal, ">": _greater,
            ">=": _greater_equal, "==": _equal}.get(op)  # fmt: skip
    if fast is not None:
        return fast
    if op == "!=":
        return lambda a, b: not _equal(a, b)
    if op in ("/", "%"):
        return lambda a, b: _arith(op, a, b)
    return lambda a, b: _integral(op, a, b)


def _static_binary(op: str, left: Expr, right: Expr, where: tuple[int, int]) -> str | None:
    """A compile error where both types are known and the operator does not take them (`true + 1`), else the
    result's type when it is known."""
    x, y = left.static, right.static
    if op in ("&&", "||"):
        _static_cast(left, "boolean")
        _static_cast(right, "boolean")
        return "boolean"
    if op in ("==", "!="):
        return "boolean"
    if x is None or y is None:
        return None
    if op == "+" and "String" in (x, y):
        return "String"
    promoted = _promoted(x, y)
    integral = x in ("int", "long") and y in ("int", "long")
    if op in ("&", "|", "^") and x == y == "boolean":
        return "boolean"
    if promoted is None or (op in ("&", "|", "^", "<<", ">>", ">>>") and not integral):
        raise PainlessError(f"Cannot apply [{op}] operation to types [{x}] and [{y}].", where)
    if op in ("<", "<=", ">", ">="):
        return "boolean"
    if op in ("<<", ">>", ">>>"):
        return x
    return promoted


def _static_cast(expr: Expr, target: str) -> None:
    """Assigning a known type where it cannot go implicitly (`int x = 1.5`, `if (1)`) is a compile error."""
    found = expr.static
    if found is None or found == target or (target in ("def", "Number") and found != "boolean"):
        return
    numeric = ("int", "long", "float", "double")
    if target in numeric and found in numeric and numeric.index(found) <= numeric.index(target):
        return
    if target in ("List", "Map", "String") and found == "null":
        return
    raise PainlessError(f"Cannot cast from [{found}] to [{target}].", expr.where)


def _binary(op: str, left: Expr, right: Expr, where: tuple[int, int]) -> Expr:
    a, b = left.run, right.run
    vector = _vector_binary(op, left, right)
    static = _static_binary(op, left, right, where)
    if op in ("&&", "||"):
        conjunction = op == "&&"

        def logical(fr: Frame) -> Any:
            try:
                first = _boolean(a(fr), op)
                if first is not conjunction:
                    return first
                return _boolean(b(fr), op)
            except PainlessError as exc:
                raise _placed(exc, where) from None

        return Expr(logical, left.where, vector=vector, static=static)
    operate = _operation(op)

    def run(fr: Frame) -> Any:
        try:
            return operate(a(fr), b(fr))
        except PainlessError as exc:
            raise _placed(exc, where) from None

    return Expr(run, left.where, vector=vector, static=static)


def _placed(exc: PainlessError, where: tuple[int, int]) -> PainlessError:
    """The innermost node's place for an error raised without one."""
    if exc.where is None:
        exc.where = where
    return exc


def _unary(op: str, inner: Expr, where: tuple[int, int]) -> Expr:
    a = inner.run

    def negate(fr: Frame) -> Any:
        value = a(fr)
        if _rank(value) < 0:
            raise PainlessError(f"Cannot apply [-] operation to type [{java_type(value)}].")
        return _arith("-", _as_rank(0, _rank(value)), value) if _rank(value) < 2 else _as_rank(-value, _rank(value))

    def plus(fr: Frame) -> Any:
        value = a(fr)
        if _rank(value) < 0:
            raise PainlessError(f"Cannot apply [+] operation to type [{java_type(value)}].")
        return value

    def invert(fr: Frame) -> Any:
        value = a(fr)
        if _rank(value) not in (0, 1):
            raise PainlessError(f"Cannot apply [~] operation to type [{java_type(value)}].")
        return _integral("^", value, _as_rank(-1, _rank(value)))

    runs = {"!": lambda fr: not _boolean(a(fr), "!"), "-": negate, "+": plus, "~": invert}
    static = inner.static
    if op == "!":
        _static_cast(inner, "boolean")
        static = "boolean"
    elif static is not None and static not in ("int", "long", "float", "double"):
        raise PainlessError(f"Cannot apply [{op}] operation to type [{static}].", where)
    return Expr(_located(runs[op], where), where, vector=_vector_unary(op, inner), static=static)


def _ternary(test: Expr, yes: Expr, no: Expr, where: tuple[int, int]) -> Expr:
    check, a, b = _as_condition(test), yes.run, no.run
    return Expr(lambda fr: a(fr) if check(fr) else b(fr), test.where, vector=_vector_ternary(test, yes, no))


def _cast(target: str, inner: Expr, where: tuple[int, int]) -> Expr:
    a = inner.run
    numeric = ("int", "long", "float", "double")
    to_number = target in numeric and inner.static in ("boolean", "String")
    if to_number or (target == "boolean" and inner.static in numeric):
        raise PainlessError(f"Cannot cast from [{inner.static}] to [{target}].", where)
    run = _located(lambda fr: explicit_cast(a(fr), target), where)
    static = target if target not in ("def", "Number") else None
    return Expr(run, where, vector=_vector_cast(target, inner), static=static)


def _read_doc(fr: Frame) -> Any:
    return _DOC


class _DocMap:
    """`doc`: a Map from field names to their doc values for the current document."""


_DOC = _DocMap()


def _doc_lookup(fr: Frame, key: Any) -> DocValues:
    if not isinstance(key, str):
        raise PainlessError(f"doc[...] takes a field name, got [{java_type(key)}]")
    if fr.ctx.doc is None:
        raise PainlessError("doc is not available in this context")
    return fr.ctx.doc(key)


def _field(target: Expr, name: str, safe: bool, where: tuple[int, int]) -> Expr:
    get = target.run

    def run(fr: Frame) -> Any:
        obj = get(fr)
        if type(obj) is dict:
            return obj.get(name)
        if obj is None and safe:
            return None
        try:
            return _field_of(fr, obj, name)
        except PainlessError as exc:
            raise _placed(exc, where) from None

    return Expr(run, target.where, lvalue=("field", get, name), vector=_vector_field(target, name))


def _field_of(fr: Frame, obj: Any, name: str) -> Any:
    if obj is _DOC:
        return _doc_lookup(fr, name)
    return read_field(obj, name)


def _brace(target: Expr, key: Expr, where: tuple[int, int]) -> Expr:
    get, at = target.run, key.run

    def run(fr: Frame) -> Any:
        obj, key = get(fr), at(fr)
        try:
            if obj is _DOC:
                return _doc_lookup(fr, key)
            if type(obj) is list and type(key) is int and 0 <= key < len(obj):
                return obj[key]
            return read_brace(obj, key)
        except PainlessError as exc:
            raise _placed(exc, where) from None

    return Expr(run, target.where, lvalue=("brace", get, at), vector=_vector_brace(target, key))


def _method(target: Expr, name: str, arguments: list[Expr], safe: bool, where: tuple[int, int]) -> Expr:
    get, runs = target.run, [a.run for a in arguments]

    def run(fr: Frame) -> Any:
        obj = get(fr)
        if obj is None and safe:
            return None
        args = [r(fr) for r in runs]
        try:
            if obj is _DOC:
                return _doc_method(fr, name, args)
            return call_method(obj, name, args)
        except PainlessError as exc:
            raise _placed(exc, where) from None

    return Expr(run, target.where, vector=_vector_method(target, name, arguments))


def _doc_method(fr: Frame, name: str, args: list[Any]) -> Any:
    """`doc.containsKey('f')` and `doc.get('f')`, the Map methods scripts call on `doc`."""
    if name == "containsKey" and len(args) == 1:
        try:
            _doc_lookup(fr, args[0])
        except PainlessError:
            return False
        return True
    if name == "get" and len(args) == 1:
        return _doc_lookup(fr, args[0])
    raise PainlessError(f"dynamic method [doc, {name}/{len(args)}] not found")


def compile_painless(
    source: str,
    helpers: dict[str, Callable[..., Any]],
    vector_helpers: frozenset[str] = frozenset(),
    context: str = "score",
) -> Program:
    """Read a script once; errors name the construct and its line:column in the source. `context` is "score"
    (script_score, script sorts: `params`, `doc`, `_score`), "filter" (the script query's FilterScript: `params`,
    `doc`) or "analysis" (AnalysisPredicateScript: `token`)."""
    return Compiler(source, helpers, vector_helpers, context).program()


# Each context's variables: how an expression reads them.
_SCORE_VARIABLES: dict[str, Callable[[tuple[int, int]], Expr]] = {
    "params": lambda where: Expr(lambda fr: fr.ctx.params, where, vector=_vector_params),
    "doc": lambda where: Expr(_read_doc, where, vector=_vector_doc),
    "_score": lambda where: Expr(lambda fr: fr.ctx.score, where, vector=_vector_score, static="double"),
}
_FILTER_VARIABLES = {name: read for name, read in _SCORE_VARIABLES.items() if name != "_score"}
_ANALYSIS_VARIABLES: dict[str, Callable[[tuple[int, int]], Expr]] = {
    "token": lambda where: Expr(lambda fr: fr.ctx.token, where, static="Token"),
}


# ------------------------------------------------------------------------------------- the array form of expressions


class Node:
    """An expression over many documents at once: `const`, `score`, `doc_value` / `doc_count` / `doc_empty`
    (value: the field), `cast`, `unary`, `binary`, `if`, `call`; for statements also `clean` (a mask without its
    errors), `reads` (where a reached expression fails) and `script` (the returned value and every `reads`).
    `type` is the Java type its Vector gave it and `java` a constant's Java value, for the exact evaluation of
    statements (ints, longs and floats as Java computes them)."""

    __slots__ = ("children", "java", "kind", "type", "value")

    def __init__(self, kind: str, value: Any = None, children: tuple[Node, ...] = ()) -> None:
        self.kind, self.value, self.children = kind, value, children
        self.type: str | None = None
        self.java: Any = _NOT_CONSTANT


class Vector:
    """An expression's array form, its static Java type, and its value when it is a constant of the query."""

    __slots__ = ("constant", "node", "type")

    def __init__(self, node: Node, type: str, constant: Any = _NOT_CONSTANT) -> None:
        self.node, self.type, self.constant = node, type, constant
        node.type = type


class VectorEnv:
    """What typing an expression over the documents needs: the params, and each field's doc-value type."""

    def __init__(
        self,
        params: dict[str, Any],
        field_type: Callable[[str], str | None],
        doubles: bool = False,
        exact: bool = False,
    ) -> None:
        # doubles: Lucene expressions (`lang: expression`), where every number is a double; exact: statements,
        # evaluated with Java's int, long and float arithmetic, so integer division and floats have an array form
        self.params, self.field_type, self.doubles, self.exact = params, field_type, doubles, exact
        self.locals: dict[int, Vector] = {}  # each local's value where the statements are read


_NUMERIC_TYPES = ("int", "long", "float", "double")
_VectorOf = Callable[[VectorEnv], Vector | None]


def _type_of(value: Any) -> str:
    rank = _rank(value)
    if rank >= 0:
        return _NUMERIC_TYPES[rank]
    if isinstance(value, bool):
        return "boolean"
    return {str: "String", dict: "Map", list: "List"}.get(type(value), "def")


def _constant(value: Any) -> Vector:
    plain = float(value) if _rank(value) >= 0 else value
    node = Node("const", plain)
    node.java = value
    return Vector(node, _type_of(value), value)


def _vector_constant(value: Any) -> _VectorOf:
    return lambda env: _constant(float(value) if env.doubles and _rank(value) >= 0 else value)


def _vector_score(env: VectorEnv) -> Vector:
    return Vector(Node("score"), "double")


def _vector_params(env: VectorEnv) -> Vector:
    return Vector(Node("const", None), "Map", env.params)


def _vector_doc(env: VectorEnv) -> Vector:
    return Vector(Node("const", None), "doc")


def _children(env: VectorEnv, *parts: Expr) -> list[Vector] | None:
    found = []
    for part in parts:
        vector = part.vector(env) if part.vector is not None else None
        if vector is None:
            return None
        found.append(vector)
    return found


def _fold(compute: Callable[[], Any]) -> Vector | None:
    """A constant of the query computed once with Java's semantics; an error is left to the per-document run."""
    try:
        return _constant(compute())
    except PainlessError:
        return None


def _promoted(*types: str) -> str | None:
    if not all(t in _NUMERIC_TYPES for t in types):
        return None
    return _NUMERIC_TYPES[max(_NUMERIC_TYPES.index(t) for t in types)]


def _vector_binary(op: str, left: Expr, right: Expr) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, left, right)
        if parts is None:
            return None
        a, b = parts
        if a.constant is not _NOT_CONSTANT and b.constant is not _NOT_CONSTANT:
            x, y = a.constant, b.constant
            if op in ("&&", "||"):
                return _fold(lambda: _boolean(x, op) and _boolean(y, op) if op == "&&" else _boolean(x, op) or y)
            if op in ("==", "!="):
                return _fold(lambda: _def_equals(x, y) == (op == "=="))
            if op in ("<", "<=", ">", ">="):
                return _fold(lambda: _compare(op, x, y))
            return _fold(lambda: _operate(op, x, y))
        node = Node("binary", op, (a.node, b.node))
        if op in ("&&", "||"):
            return Vector(node, "boolean") if a.type == b.type == "boolean" else None
        if op in ("==", "!="):
            same = a.type == b.type and a.type in ("String", "boolean")
            return Vector(node, "boolean") if same or _promoted(a.type, b.type) else None
        promoted = _promoted(a.type, b.type)
        if promoted is None or (promoted == "float" and not env.exact):
            return None
        if op in ("<", "<=", ">", ">="):
            return Vector(node, "boolean")
        if op in ("+", "-", "*") or (op in ("/", "%") and (promoted == "double" or env.exact)):
            return Vector(node, promoted)
        return None  # integer division (outside statements) and the bitwise operators run per document

    return vector


def _vector_unary(op: str, inner: Expr) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, inner)
        if parts is None:
            return None
        (a,) = parts
        if a.constant is not _NOT_CONSTANT:
            value = a.constant
            if op == "!":
                return _fold(lambda: not _boolean(value, "!"))
            if op in ("-", "+") and _rank(value) >= 0:
                return _fold(lambda: _arith("-", _as_rank(0, _rank(value)), value) if op == "-" else value)
            return None
        if op == "!" and a.type == "boolean":
            return Vector(Node("unary", "!", (a.node,)), "boolean")
        if op in ("-", "+") and (a.type in ("int", "long", "double") or (env.exact and a.type == "float")):
            return Vector(Node("unary", op, (a.node,)), a.type)
        return None

    return vector


def _vector_ternary(test: Expr, yes: Expr, no: Expr) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, test, yes, no)
        if parts is None:
            return None
        c, a, b = parts
        if c.type != "boolean":
            return None
        if c.constant is not _NOT_CONSTANT:
            return a if c.constant else b
        kind = "boolean" if a.type == b.type == "boolean" else _promoted(a.type, b.type)
        if kind is None or (kind == "float" and not env.exact):
            return None
        return Vector(Node("if", None, (c.node, a.node, b.node)), kind)

    return vector


def _vector_cast(target: str, inner: Expr) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, inner)
        if parts is None:
            return None
        (a,) = parts
        if a.constant is not _NOT_CONSTANT:
            return _fold(lambda: explicit_cast(a.constant, target))
        kinds = _NUMERIC_TYPES if env.exact else ("int", "long", "double")
        if target in kinds and a.type in kinds:
            return Vector(Node("cast", target, (a.node,)), target)
        return None

    return vector


def _doc_field(env: VectorEnv, vector: Vector, key: Vector) -> Vector | None:
    if vector.type != "doc" or not isinstance(key.constant, str):
        return None
    kind = env.field_type(key.constant)
    if env.doubles:  # Lucene expressions read numbers, dates and booleans as doubles, and nothing else
        kind = "double" if kind in ("long", "date", "double", "boolean") else None
    return Vector(Node("const", key.constant), f"field:{kind}") if kind is not None else None


def _vector_field(target: Expr, name: str) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, target)
        if parts is None:
            return None
        (a,) = parts
        if a.type == "Map" and a.constant is not _NOT_CONSTANT:
            return _fold(lambda: read_field(a.constant, name))
        if a.type == "doc":
            return _doc_field(env, a, _constant(name))
        if a.type.startswith("field:"):
            return _doc_member(a, name)
        if name == "millis" and a.type == "date":
            return Vector(a.node, "long")
        return None

    return vector


def _doc_member(field: Vector, name: str) -> Vector | None:
    kind, column = field.type[len("field:") :], field.node.value
    if name in ("value", "getValue"):
        return Vector(Node("doc_value", column), kind)
    if name in ("length", "size", "getLength"):
        return Vector(Node("doc_count", column), "int")
    if name in ("empty", "isEmpty"):
        return Vector(Node("doc_empty", column), "boolean")
    return None


def _vector_brace(target: Expr, key: Expr) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, target, key)
        if parts is None:
            return None
        a, k = parts
        if a.type == "doc":
            return _doc_field(env, a, k)
        if a.constant is not _NOT_CONSTANT and k.constant is not _NOT_CONSTANT and a.type in ("Map", "List"):
            return _fold(lambda: read_brace(a.constant, k.constant))
        return None

    return vector


def _vector_method(target: Expr, name: str, arguments: list[Expr]) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, target, *arguments)
        if parts is None:
            return None
        a, args = parts[0], parts[1:]
        if a.type == "doc" and name == "get" and len(args) == 1:
            return _doc_field(env, a, args[0])
        if a.type.startswith("field:") and not args:
            return _doc_member(a, name)
        if not args and (a.type, name) in _DATE_STEPS:  # epoch milliseconds through toInstant().toEpochMilli()
            return Vector(a.node, _DATE_STEPS[a.type, name])
        constants = [p.constant for p in parts]
        if _NOT_CONSTANT not in constants and a.type in ("Map", "List", "String"):
            return _fold(lambda: call_method(constants[0], name, constants[1:]))
        return None

    return vector


_DATE_STEPS = {("date", "toInstant"): "instant", ("instant", "toEpochMilli"): "long", ("date", "getMillis"): "long"}
_VECTOR_MATH = frozenset(
    ["log", "log10", "log1p", "exp", "expm1", "sqrt", "cbrt", "pow", "abs", "min", "max", "floor", "ceil",
     "signum", "sin", "cos", "tan", "atan", "rint", "hypot"]
)  # fmt: skip


def _vector_call(name: str, arguments: list[Expr]) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, *arguments)
        if parts is None:
            return None
        if name.startswith("Math.") and all(p.constant is not _NOT_CONSTANT for p in parts):
            function = MATH[name[len("Math.") :]]
            return _fold(lambda: function(*(p.constant for p in parts)))
        dated = name.startswith("decayDate") and len(parts) == 5 and parts[4].type == "date"
        numeric = [p.type for p in (parts[:4] if dated else parts) if p.type != "String" or p.constant is _NOT_CONSTANT]
        if _promoted(*numeric) is None or (name.startswith("Math.") and name[5:] not in _VECTOR_MATH):
            return None
        kind = _promoted(*numeric) if name in ("Math.abs", "Math.min", "Math.max") else "double"
        if kind == "float" and not env.exact:
            return None
        return Vector(Node("call", name, tuple(p.node for p in parts)), kind or "double")

    return vector


def _vector_local(slot: int) -> _VectorOf:
    """A local's value where the statements are read (its array form is its last assignment's)."""
    return lambda env: env.locals.get(slot)


class _NoVector(Exception):
    """A statement the array form lacks: the script runs per document."""


_WIDENS = {"int": 0, "long": 1, "float": 2, "double": 3}
_LOCAL_TYPES = frozenset((*_NUMERIC_TYPES, "boolean"))


def _to(vector: Vector, target: str) -> Vector:
    """A numeric value cast to `target` as Java casts it (a constant folded)."""
    if vector.type == target:
        return vector
    if vector.constant is not _NOT_CONSTANT:
        return _constant(explicit_cast(vector.constant, target))
    return Vector(Node("cast", target, (vector.node,)), target)


def _stored(vector: Vector | None, declared: str) -> Vector:
    """The value a local holds after `local = value`: widened to its type (a def local keeps the value's)."""
    if vector is None or vector.type not in _LOCAL_TYPES:
        raise _NoVector
    if declared == "def" or declared == vector.type:
        return vector
    if declared in _WIDENS and vector.type in _WIDENS and _WIDENS[vector.type] < _WIDENS[declared]:
        return _to(vector, declared)
    raise _NoVector  # a narrowing or a boolean to a number: the per-document run's error


def _given(vector: Vector) -> _VectorOf:
    return lambda env: vector


class _Statements:
    """Straight-line statements read once as one array form: locals are their values' array forms, an `if`
    merges them by its condition, and every expression a document reaches is kept (`reads`) so a missing doc
    value is an error only where its statement runs."""

    def __init__(self, env: VectorEnv) -> None:
        self.env = env
        self.reads: list[Node] = []
        self.returns: list[tuple[Node | None, Vector]] = []  # where each return is taken, and its value

    def value(self, expr: Expr, live: Node | None) -> Vector:
        vector = expr.vector(self.env) if expr.vector is not None else None
        if vector is None:
            raise _NoVector
        if vector.constant is _NOT_CONSTANT:
            self.reads.append(vector.node if live is None else Node("reads", None, (live, vector.node)))
        return vector

    def run(self, shapes: list[Shape], live: Node | None, last: bool) -> tuple[bool, Node | None]:
        """The statements from `live` (None: every document): whether documents still run after them, and where."""
        for i, shape in enumerate(shapes):
            going, live = self.statement(shape, live, last and i == len(shapes) - 1)
            if not going:
                return False, None
        return True, live

    def statement(self, shape: Shape, live: Node | None, last: bool) -> tuple[bool, Node | None]:
        kind, locals_ = shape[0], self.env.locals
        if kind == "declare":
            for slot, declared, init in shape[1]:
                if init is None:
                    if declared not in _LOCAL_TYPES:
                        raise _NoVector  # a def or reference without a value is null
                    locals_[slot] = _constant(_default(declared))
                else:
                    locals_[slot] = _stored(self.value(init, live), declared)
        elif kind == "assign":
            _, slot, declared, op, right = shape
            value = self.value(right, live)
            if op != "=":
                if slot not in locals_:
                    raise _NoVector
                value = self.value(
                    Expr(
                        _nothing,
                        (0, 0),
                        vector=_vector_binary(
                            op[:-1],
                            Expr(_nothing, (0, 0), vector=_given(locals_[slot])),
                            Expr(_nothing, (0, 0), vector=_given(value)),
                        ),
                    ),
                    live,
                )
                if declared in _NUMERIC_TYPES and value.type in _NUMERIC_TYPES:
                    value = _to(value, declared)
            locals_[slot] = _stored(value, declared)
            if last:  # the script's last statement: the assigned value is returned
                self.returns.append((live, locals_[slot]))
                return False, None
        elif kind in ("eval", "return"):
            value = self.value(shape[1], live)
            if kind == "return" or last:
                self.returns.append((live, value))
                return False, None
        elif kind == "block":
            return self.run(shape[1], live, last)
        elif kind == "if":
            return self.branch(shape, live, last)
        return True, live

    def branch(self, shape: Shape, live: Node | None, last: bool) -> tuple[bool, Node | None]:
        _, test, yes, no = shape
        condition = self.value(test, live)
        if condition.type != "boolean":
            raise _NoVector
        if condition.constant is not _NOT_CONSTANT:
            taken = yes if condition.constant else no
            return (True, live) if taken is None else self.statement(taken, live, last)
        mask = Node("clean", None, (condition.node,))
        other = Node("unary", "!", (mask,))
        before = dict(self.env.locals)
        yes_going, _ = self.statement(yes, _both(live, mask), last)
        after_yes, self.env.locals = self.env.locals, dict(before)
        no_going = True
        if no is not None:
            no_going, _ = self.statement(no, _both(live, other), last)
        after_no = self.env.locals
        merged = {}
        for slot, start in before.items():
            a, b = after_yes.get(slot, start), after_no.get(slot, start)
            if a is b or not no_going:
                merged[slot] = a
            elif not yes_going:
                merged[slot] = b
            elif a.type != b.type:
                raise _NoVector  # a def local whose type depends on the branch
            else:
                merged[slot] = Vector(Node("if", None, (mask, a.node, b.node)), a.type)
        self.env.locals = merged
        if yes_going and no_going:
            return True, live
        if yes_going or no_going:
            return True, _both(live, mask if yes_going else other)
        return False, None


def _both(live: Node | None, mask: Node) -> Node:
    if live is None:
        return mask
    return Vector(Node("binary", "&&", (live, mask)), "boolean").node


def vector_statements(program: Program, env: VectorEnv) -> Vector | None:
    """The array form of a script of straight-line statements (None: it runs per document): its value as a double
    where each document returns (0 where it ends without one), and every expression a document reaches."""
    if program.statements is None:
        return None
    walk = _Statements(env)
    try:
        going, _ = walk.run(program.statements, None, True)
        result = _constant(0.0) if going else None
        for live, value in reversed(walk.returns):
            if value.type not in _NUMERIC_TYPES:
                raise _NoVector  # a boolean where the score is a double: the per-document run's error
            value = _to(value, "double")
            result = (
                value
                if live is None or result is None
                else Vector(Node("if", None, (live, value.node, result.node)), "double")
            )
    except _NoVector:
        return None
    finally:
        env.locals = {}
    if result is None:
        return None
    return Vector(Node("script", None, (result.node, *walk.reads)), "double")
