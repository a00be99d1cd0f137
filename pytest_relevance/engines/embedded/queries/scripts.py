"""A safe subset of Painless for `script_score` (the query and the function_score function), evaluated over arrays.

Supported: numbers, strings, booleans, `params.x` / `params['x']`, `_score`, `doc['f'].value` (the smallest value,
as doc values are sorted; dates as epoch milliseconds), `doc['f'].size()`, `.empty` / `.isEmpty()`, arithmetic,
comparisons, `&&` `||` `!`, the ternary, `Math.*` (log, log10, log1p, exp, sqrt, pow, abs, min, max, floor, ceil,
signum, ...), and Elasticsearch's script helpers `saturation`, `sigmoid`, `decayNumericGauss/Exp/Linear`,
`decayDateGauss/Exp/Linear`. A script is parsed once into a tree and run once per query over every matching
document. Reading `doc['f'].value` where the document has no value is an error, as in Elasticsearch, but only
where that branch is the one taken.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.dates import DEFAULT_FORMAT, DateParseError, date_format, query_millis
from pytest_relevance.engines.embedded.queries import (
    F32,
    Invalid,
    Scores,
    Unsupported,
    allowed,
    boost_of,
    evaluate,
    number,
    query,
)
from pytest_relevance.engines.embedded.queries.values import distance_setting, time_value_millis

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded import EmbeddedIndex

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?)[dDfFlL]?"
    r"|(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<op>==|!=|<=|>=|&&|\|\||[-+*/%<>!?:(),.\[\];]))"
)
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
_PRECEDENCE = [("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%")]


@dataclass
class Node:
    kind: str
    value: Any = None
    children: tuple[Node, ...] = ()


class _Parser:
    def __init__(self, source: str, path: str) -> None:
        self.path, self.tokens, at = path, [], 0
        text = source.strip()
        text = text[len("return ") :] if text.startswith("return ") else text
        text = text.rstrip().rstrip(";")
        while at < len(text):
            match = _TOKEN.match(text, at)
            if not match or match.end() == at:
                if text[at:].strip() == "":
                    break
                raise self.error(f"cannot read {text[at : at + 20]!r}")
            at = match.end()
            kind = match.lastgroup
            self.tokens.append((kind, match.group(kind)))
        self.at = 0

    def error(self, problem: str) -> Invalid:
        return Invalid(f"{self.path}.source", f"{problem} (the embedded engine runs a subset of Painless)")

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None or (expected is not None and token[1] != expected):
            raise self.error(f"expected {expected or 'more'}, found {token[1] if token else 'the end'}")
        self.at += 1
        return token

    def parse(self) -> Node:
        node = self.ternary()
        if self.peek() is not None:
            raise self.error(f"unexpected {self.peek()[1]!r}")  # type: ignore[index]
        return node

    def ternary(self) -> Node:
        condition = self.binary(0)
        if self.peek() == ("op", "?"):
            self.take("?")
            yes = self.ternary()
            self.take(":")
            return Node("if", children=(condition, yes, self.ternary()))
        return condition

    def binary(self, level: int) -> Node:
        if level == len(_PRECEDENCE):
            return self.unary()
        node = self.binary(level + 1)
        while (token := self.peek()) is not None and token[0] == "op" and token[1] in _PRECEDENCE[level]:
            self.take()
            node = Node("binary", token[1], (node, self.binary(level + 1)))
        return node

    def unary(self) -> Node:
        token = self.peek()
        if token in (("op", "-"), ("op", "!"), ("op", "+")):
            self.take()
            return Node("unary", token[1], (self.unary(),))  # type: ignore[index]
        if self._cast_ahead():
            cast = self.tokens[self.at + 1][1]
            self.at += 3
            return Node("cast", cast, (self.unary(),))
        return self.postfix(self.primary())

    def _cast_ahead(self) -> bool:
        """`(double) x`: a parenthesised type name followed by an operand."""
        ahead = self.tokens[self.at : self.at + 3]
        return (
            len(ahead) == 3 and ahead[0] == ("op", "(") and ahead[2] == ("op", ")")
            and ahead[1][1] in ("double", "float", "long", "int")
        )  # fmt: skip

    def primary(self) -> Node:
        kind, text = self.take()
        if kind == "num":
            return Node("const", float(text))
        if kind == "str":
            return Node("const", bytes(text[1:-1], "utf-8").decode("unicode_escape"))
        if text == "(":
            node = self.ternary()
            self.take(")")
            return node
        if kind != "name":
            raise self.error(f"unexpected {text!r}")
        if text in ("true", "false"):
            return Node("const", text == "true")
        if text == "_score":
            return Node("score")
        if text == "params":
            return Node("params")
        if text == "doc":
            self.take("[")
            field = self.primary()
            self.take("]")
            if field.kind != "const" or not isinstance(field.value, str):
                raise self.error("doc[...] needs a field name in quotes")
            return Node("doc", field.value)
        if text == "Math":
            self.take(".")
            name = self.take()[1]
            if name in ("PI", "E"):
                return Node("const", math.pi if name == "PI" else math.e)
            if name not in _MATH:
                raise self.error(f"Math.{name} is not supported")
            return Node("call", f"Math.{name}", self.arguments())
        if self.peek() == ("op", "("):
            return Node("call", text, self.arguments())
        raise self.error(f"unknown name {text!r}")

    def arguments(self) -> tuple[Node, ...]:
        self.take("(")
        args = []
        while self.peek() != ("op", ")"):
            args.append(self.ternary())
            if self.peek() == ("op", ","):
                self.take(",")
        self.take(")")
        return tuple(args)

    def postfix(self, node: Node) -> Node:
        while (token := self.peek()) in (("op", "."), ("op", "[")):
            self.take()
            if token == ("op", "["):
                key = self.ternary()
                self.take("]")
                node = Node("member", key.value, (node,))
                continue
            name = self.take()[1]
            if self.peek() == ("op", "("):
                node = Node("method", name, (node, *self.arguments()))
            else:
                node = Node("member", name, (node,))
        return node


def compile_script(spec: Any, path: str) -> tuple[Node, dict[str, Any]]:
    """`{source, params, lang}` or a bare source string -> (tree, params); refuses stored scripts and other langs."""
    if isinstance(spec, str):
        spec = {"source": spec}
    options = allowed(spec, {"source", "params", "lang"}, path)
    if options.get("lang", "painless") not in ("painless", "expression"):
        raise Unsupported(f"script lang {options['lang']}", path)
    if not isinstance(options.get("source"), str):
        raise Invalid(path, "needs 'source' (stored scripts are not supported by the embedded engine)")
    params = options.get("params") or {}
    if not isinstance(params, dict):
        raise Invalid(f"{path}.params", "expected a mapping")
    return _Parser(options["source"], path).parse(), params


@dataclass
class _Value:
    """Values over the documents, and where a missing doc value was read (an error if it reaches the result)."""

    data: Any
    bad: Any = False


class _Run:
    def __init__(self, index: EmbeddedIndex, docs: np.ndarray, score: np.ndarray, params: dict, path: str) -> None:
        self.index, self.docs, self.score, self.params, self.path = index, docs, score, params, path

    def eval(self, node: Node) -> _Value:
        method = getattr(self, f"_{node.kind}")
        return method(node)

    def _const(self, node: Node) -> _Value:
        return _Value(node.value)

    def _score(self, node: Node) -> _Value:
        return _Value(self.score)

    def _params(self, node: Node) -> _Value:
        return _Value(self.params)

    def _cast(self, node: Node) -> _Value:
        inner = self.eval(node.children[0])
        data = np.asarray(inner.data, dtype=np.float64)
        if node.value in ("long", "int"):
            data = np.trunc(data)
        return _Value(data, inner.bad)

    def _unary(self, node: Node) -> _Value:
        inner = self.eval(node.children[0])
        data = np.logical_not(inner.data) if node.value == "!" else inner.data
        return _Value(-data if node.value == "-" else data, inner.bad)

    def _binary(self, node: Node) -> _Value:
        left, right = self.eval(node.children[0]), self.eval(node.children[1])
        with np.errstate(all="ignore"):
            data = _BINARY[node.value](_numeric(left.data), _numeric(right.data))
        return _Value(data, np.logical_or(left.bad, right.bad))

    def _if(self, node: Node) -> _Value:
        condition, yes, no = (self.eval(child) for child in node.children)
        taken = np.asarray(condition.data, dtype=bool)
        bad = np.logical_or(condition.bad, np.where(taken, yes.bad, no.bad))
        return _Value(np.where(taken, _numeric(yes.data), _numeric(no.data)), bad)

    def _doc(self, node: Node) -> _Value:
        field = node.value
        if field not in self.index.kinds:
            raise Invalid(f"{self.path}.source", f"doc[{field!r}]: the field is not in the index mappings")
        return _Value(("doc", field))

    def _member(self, node: Node) -> _Value:
        target = self.eval(node.children[0])
        if isinstance(target.data, dict):
            if node.value not in target.data:
                raise Invalid(f"{self.path}.params", f"the script reads params.{node.value}, which is not given")
            return _Value(target.data[node.value])
        if isinstance(target.data, tuple) and target.data[0] == "doc":
            field = target.data[1]
            if node.value == "value":
                values, present = self._doc_values(field)
                return _Value(values, ~present)
            if node.value == "empty":
                return _Value(self._doc_counts(field) == 0)
            if node.value in ("length",):
                return _Value(self._doc_counts(field).astype(np.float64))
        if node.value == "millis":  # a date value's epoch milliseconds
            return target
        raise Invalid(f"{self.path}.source", f"'.{node.value}' is not supported here")

    def _method(self, node: Node) -> _Value:
        target = self.eval(node.children[0])
        if isinstance(target.data, tuple) and target.data[0] == "doc":
            field = target.data[1]
            if node.value in ("size", "length"):
                return _Value(self._doc_counts(field).astype(np.float64))
            if node.value == "isEmpty":
                return _Value(self._doc_counts(field) == 0)
            if node.value == "getValue":
                values, present = self._doc_values(field)
                return _Value(values, ~present)
        if node.value in ("toInstant", "toEpochMilli", "getMillis"):  # date value -> epoch milliseconds
            return target
        raise Invalid(f"{self.path}.source", f"'.{node.value}()' is not supported here")

    def _call(self, node: Node) -> _Value:
        args = [self.eval(child) for child in node.children]
        bad = functools.reduce(np.logical_or, [a.bad for a in args], False)
        name = node.value
        data = [_numeric(a.data) for a in args]
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
                return _Value(self._decay(name, [a.data for a in args[:4]], data[4]), bad)
        raise Invalid(f"{self.path}.source", f"the function {name}() with {len(args)} arguments is not supported")

    def _decay(self, name: str, settings: list[Any], value: Any) -> Any:
        date = name.startswith("decayDate")
        if date:
            # ScoreScriptUtils.DecayDate* take the scale and offset as Strings read by TimeValue.parseTimeValue
            if not all(isinstance(setting, str) for setting in settings[1:3]):
                raise Invalid(f"{self.path}.source", f"{name}() takes the scale and offset as strings, e.g. '30d'")
            # ScoreScriptUtils.DecayDate*: the origin read by strict_date_optional_time||epoch_millis in UTC
            try:
                origin = query_millis(str(settings[0]), date_format(DEFAULT_FORMAT), False, UTC)
            except DateParseError as exc:
                raise Invalid(f"{self.path}.source", f"{name}(): {exc}") from None
            scale = time_value_millis(settings[1], f"{self.path}.source")
            offset = time_value_millis(settings[2], f"{self.path}.source")
        else:
            origin = float(settings[0])
            scale = distance_setting(settings[1], False, f"{self.path}.source")
            offset = distance_setting(settings[2], False, f"{self.path}.source")
        decay = float(settings[3])
        distance = np.maximum(0.0, np.abs(value - origin) - offset)
        if name.endswith("Gauss"):
            return np.exp(0.5 * np.square(distance) / (0.5 * scale**2 / math.log(decay)))
        if name.endswith("Exp"):
            return np.exp(math.log(decay) / scale * distance)
        if name.endswith("Linear"):
            scaling = scale / (1.0 - decay)
            return np.maximum(0.0, (scaling - distance) / scaling)
        raise Invalid(f"{self.path}.source", f"the function {name}() is not supported")

    def _doc_counts(self, field: str) -> np.ndarray:
        return self.index.doc_value_counts(field)[self.docs]

    def _doc_values(self, field: str) -> tuple[np.ndarray, np.ndarray]:
        values = self.index.doc_values(field)
        if values is None:
            raise Invalid(f"{self.path}.source", f"doc[{field!r}]: text fields have no doc values (use a keyword)")
        return values[self.docs], self._doc_counts(field) > 0


def _numeric(data: Any) -> Any:
    if isinstance(data, bool):
        return float(data)
    return data


def run_script(index: EmbeddedIndex, tree: Node, params: dict, docs: np.ndarray, score: np.ndarray, path: str) -> Any:
    """The script's value for each document of `docs` (float64), or one error naming a document it fails on."""
    result = _Run(index, docs, score, params, path).eval(tree)
    data = np.broadcast_to(np.asarray(_numeric(result.data), dtype=np.float64), docs.shape)
    bad = np.broadcast_to(np.asarray(result.bad, dtype=bool), docs.shape)
    if bad.any():
        doc = index.ids[int(docs[np.flatnonzero(bad)[0]])]
        raise Invalid(path, f"document {doc!r} has no value for a doc['...'].value the script reads; check "
                            "doc['f'].size() == 0 first, as Elasticsearch requires")  # fmt: skip
    return data


@query("script_score")
def script_score(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    options = allowed(spec, {"query", "script", "min_score", "boost"}, path)
    if "script" not in options:
        raise Invalid(path, "needs 'script'")
    tree, params = compile_script(options["script"], f"{path}.script")
    base = evaluate(index, options.get("query") or {"match_all": {}}, f"{path}.query")
    docs = base.docs
    values = run_script(index, tree, params, docs, base.values.astype(np.float64), f"{path}.script")
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
