"""The array form of expressions: a script's expression as a tree of `Node`s evaluated over many documents at once
(see `pytest_relevance.engines.embedded.queries.scripts`), typed as Painless types it so the results are Java's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_relevance.engines.embedded.painless.allowlist import MATH, call_method, read_brace, read_field
from pytest_relevance.engines.embedded.painless.tree import NOT_CONSTANT, Expr, Program, Shape, nothing
from pytest_relevance.engines.embedded.painless.values import (
    PainlessError,
    apply_operator,
    arith,
    as_boolean,
    as_rank,
    compare,
    def_equals,
    default_value,
    explicit_cast,
    rank_of,
)


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
        self.java: Any = NOT_CONSTANT


class Vector:
    """An expression's array form, its static Java type, and its value when it is a constant of the query."""

    __slots__ = ("constant", "node", "type")

    def __init__(self, node: Node, type: str, constant: Any = NOT_CONSTANT) -> None:
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


def type_of(value: Any) -> str:
    rank = rank_of(value)
    if rank >= 0:
        return _NUMERIC_TYPES[rank]
    if isinstance(value, bool):
        return "boolean"
    names: dict[type, str] = {str: "String", dict: "Map", list: "List"}
    return names.get(type(value), "def")


def _constant(value: Any) -> Vector:
    plain = float(value) if rank_of(value) >= 0 else value
    node = Node("const", plain)
    node.java = value
    return Vector(node, type_of(value), value)


def vector_constant(value: Any) -> _VectorOf:
    return lambda env: _constant(float(value) if env.doubles and rank_of(value) >= 0 else value)


def vector_score(env: VectorEnv) -> Vector:
    return Vector(Node("score"), "double")


def vector_params(env: VectorEnv) -> Vector:
    return Vector(Node("const", None), "Map", env.params)


def vector_doc(env: VectorEnv) -> Vector:
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


def promoted_type(*types: str) -> str | None:
    if not all(t in _NUMERIC_TYPES for t in types):
        return None
    return _NUMERIC_TYPES[max(_NUMERIC_TYPES.index(t) for t in types)]


def vector_binary(op: str, left: Expr, right: Expr) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, left, right)
        if parts is None:
            return None
        a, b = parts
        if a.constant is not NOT_CONSTANT and b.constant is not NOT_CONSTANT:
            x, y = a.constant, b.constant
            if op in ("&&", "||"):
                return _fold(lambda: as_boolean(x, op) and as_boolean(y, op) if op == "&&" else as_boolean(x, op) or y)
            if op in ("==", "!="):
                return _fold(lambda: def_equals(x, y) == (op == "=="))
            if op in ("<", "<=", ">", ">="):
                return _fold(lambda: compare(op, x, y))
            return _fold(lambda: apply_operator(op, x, y))
        node = Node("binary", op, (a.node, b.node))
        if op in ("&&", "||"):
            return Vector(node, "boolean") if a.type == b.type == "boolean" else None
        if op in ("==", "!="):
            same = a.type == b.type and a.type in ("String", "boolean")
            return Vector(node, "boolean") if same or promoted_type(a.type, b.type) else None
        promoted = promoted_type(a.type, b.type)
        if promoted is None or (promoted == "float" and not env.exact):
            return None
        if op in ("<", "<=", ">", ">="):
            return Vector(node, "boolean")
        if op in ("+", "-", "*") or (op in ("/", "%") and (promoted == "double" or env.exact)):
            return Vector(node, promoted)
        return None  # integer division (outside statements) and the bitwise operators run per document

    return vector


def vector_unary(op: str, inner: Expr) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, inner)
        if parts is None:
            return None
        (a,) = parts
        if a.constant is not NOT_CONSTANT:
            value = a.constant
            if op == "!":
                return _fold(lambda: not as_boolean(value, "!"))
            if op in ("-", "+") and rank_of(value) >= 0:
                return _fold(lambda: arith("-", as_rank(0, rank_of(value)), value) if op == "-" else value)
            return None
        if op == "!" and a.type == "boolean":
            return Vector(Node("unary", "!", (a.node,)), "boolean")
        if op in ("-", "+") and (a.type in ("int", "long", "double") or (env.exact and a.type == "float")):
            return Vector(Node("unary", op, (a.node,)), a.type)
        return None

    return vector


def vector_ternary(test: Expr, yes: Expr, no: Expr) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, test, yes, no)
        if parts is None:
            return None
        c, a, b = parts
        if c.type != "boolean":
            return None
        if c.constant is not NOT_CONSTANT:
            return a if c.constant else b
        kind = "boolean" if a.type == b.type == "boolean" else promoted_type(a.type, b.type)
        if kind is None or (kind == "float" and not env.exact):
            return None
        return Vector(Node("if", None, (c.node, a.node, b.node)), kind)

    return vector


def vector_cast(target: str, inner: Expr) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, inner)
        if parts is None:
            return None
        (a,) = parts
        if a.constant is not NOT_CONSTANT:
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


def vector_field(target: Expr, name: str) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, target)
        if parts is None:
            return None
        (a,) = parts
        if a.type == "Map" and a.constant is not NOT_CONSTANT:
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


def vector_brace(target: Expr, key: Expr) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, target, key)
        if parts is None:
            return None
        a, k = parts
        if a.type == "doc":
            return _doc_field(env, a, k)
        if a.constant is not NOT_CONSTANT and k.constant is not NOT_CONSTANT and a.type in ("Map", "List"):
            return _fold(lambda: read_brace(a.constant, k.constant))
        return None

    return vector


def vector_method(target: Expr, name: str, arguments: list[Expr]) -> _VectorOf:
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
        if NOT_CONSTANT not in constants and a.type in ("Map", "List", "String"):
            return _fold(lambda: call_method(constants[0], name, constants[1:]))
        return None

    return vector


_DATE_STEPS = {("date", "toInstant"): "instant", ("instant", "toEpochMilli"): "long", ("date", "getMillis"): "long"}


_VECTOR_MATH = frozenset(
    ["log", "log10", "log1p", "exp", "expm1", "sqrt", "cbrt", "pow", "abs", "min", "max", "floor", "ceil",
     "signum", "sin", "cos", "tan", "atan", "rint", "hypot"]
)  # fmt: skip


def vector_call(name: str, arguments: list[Expr]) -> _VectorOf:
    def vector(env: VectorEnv) -> Vector | None:
        parts = _children(env, *arguments)
        if parts is None:
            return None
        if name.startswith("Math.") and all(p.constant is not NOT_CONSTANT for p in parts):
            function = MATH[name[len("Math.") :]]
            return _fold(lambda: function(*(p.constant for p in parts)))
        dated = name.startswith("decayDate") and len(parts) == 5 and parts[4].type == "date"
        numeric = [p.type for p in (parts[:4] if dated else parts) if p.type != "String" or p.constant is NOT_CONSTANT]
        if promoted_type(*numeric) is None or (name.startswith("Math.") and name[5:] not in _VECTOR_MATH):
            return None
        kind = promoted_type(*numeric) if name in ("Math.abs", "Math.min", "Math.max") else "double"
        if kind == "float" and not env.exact:
            return None
        return Vector(Node("call", name, tuple(p.node for p in parts)), kind or "double")

    return vector


def vector_local(slot: int) -> _VectorOf:
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
    if vector.constant is not NOT_CONSTANT:
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
        if vector.constant is NOT_CONSTANT:
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
                    locals_[slot] = _constant(default_value(declared))
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
                        nothing,
                        (0, 0),
                        vector=vector_binary(
                            op[:-1],
                            Expr(nothing, (0, 0), vector=_given(locals_[slot])),
                            Expr(nothing, (0, 0), vector=_given(value)),
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
        if condition.constant is not NOT_CONSTANT:
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
