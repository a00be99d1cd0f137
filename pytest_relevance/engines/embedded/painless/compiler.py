"""The parser and compiler: a script's source read once into a tree of Python closures (`compile_painless`), with
its statements' shapes for the array form."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from pytest_relevance.engines.embedded.java import (
    INT_MAX,
    INT_MIN,
    wrap_int,
)
from pytest_relevance.engines.embedded.painless.allowlist import (
    MATH,
    MATH_NOT_RUN,
    STATIC_FIELDS,
    STATIC_METHODS,
    TYPED,
    TYPED_NOT_RUN,
    call_method,
    getter_of,
    read_brace,
    read_field,
    write_brace,
)
from pytest_relevance.engines.embedded.painless.lexer import KEYWORDS, REFERENCES, REFUSED_TYPES, TYPES, Tok, lex
from pytest_relevance.engines.embedded.painless.tree import (
    BREAK,
    CONTINUE,
    RETURN,
    Build,
    Expr,
    Frame,
    Program,
    Run,
    Shape,
    nothing,
)
from pytest_relevance.engines.embedded.painless.values import (
    LOOP_LIMIT_MESSAGE,
    DocValues,
    Float,
    Long,
    NotSupported,
    PainlessError,
    apply_operator,
    arith,
    as_boolean,
    as_rank,
    cannot,
    def_equals,
    default_value,
    explicit_cast,
    float_of,
    implicit_cast,
    integral_op,
    is_instance,
    java_type,
    rank_of,
    to_long,
)
from pytest_relevance.engines.embedded.painless.vectors import (
    promoted_type,
    type_of,
    vector_binary,
    vector_brace,
    vector_call,
    vector_cast,
    vector_constant,
    vector_doc,
    vector_field,
    vector_local,
    vector_method,
    vector_params,
    vector_score,
    vector_ternary,
    vector_unary,
)


class _Scope:
    def __init__(self, parent: _Scope | None, allocate: Callable[[], int]) -> None:
        self.parent, self.allocate = parent, allocate
        self.names: dict[str, tuple[int, str]] = {}

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
        self.source, self.tokens, self.at = source, lex(source), 0
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
            and self.peek().text in TYPES
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
            return lambda last: nothing
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
        return lambda last: nothing

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
        if token.text not in TYPES:
            raise self.refuse(f"the type {token.text!r}", token)
        if self.is_op("[") and self.is_op("]", 1):
            raise self.refuse("an array type", token)
        return REFERENCES.get(token.text, token.text)

    def simple(self) -> Build:
        """A declaration, break, continue, return, or an expression statement."""
        token = self.peek()
        if token.kind == "name" and token.text in _UNSUPPORTED_NAMES:
            raise self.refuse(_UNSUPPORTED_NAMES[token.text], token)
        if token.kind == "name" and token.text in ("break", "continue"):
            self.take()
            signal = BREAK if token.text == "break" else CONTINUE
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
                    return RETURN

                return run_return

            return build_return
        if token.kind == "name" and token.text in REFUSED_TYPES:
            raise self.refuse(f"the type {token.text!r}", token)
        if token.kind == "name" and token.text in TYPES and self.peek(1).kind == "name":
            return self.declaration()
        if token.kind == "name" and token.text in TYPES and self.is_op("[", 1) and self.is_op("]", 2):
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
                return RETURN

            return run_last

        return build_expression

    def declaration(self) -> Build:
        declared = self.type_name(self.take())
        runs: list[Run] = []
        declared_slots: list[tuple[int, str, Expr | None]] = []
        while True:
            name_token = self.take()
            if name_token.kind != "name" or name_token.text in KEYWORDS:
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
                instance_type = self.type_name(self.take())
                run = left.run
                left = Expr(partial(_instance_of, run, instance_type), left.where)
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
                lambda fr: value, (token.line, token.col), vector=vector_constant(value), static=type_of(value)
            )
            return self.postfix(literal)
        if token.kind == "op" and token.text in ("!", "-", "+", "~"):
            self.take()
            return _unary(token.text, self.unary(), (token.line, token.col))
        if token.kind == "op" and token.text == "/":
            raise self.refuse("a regex", token)
        typed = self.is_op("(") and self.peek(1).kind == "name" and self.peek(1).text in TYPES
        if typed and (self.is_op(")", 2) or (self.is_op("[", 2) and self.is_op("]", 3))):
            self.take("(")
            cast_type = self.type_name(self.take())
            self.take(")")
            return _cast(cast_type, self.unary(), (token.line, token.col))
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
            return Expr(lambda fr: value, where, vector=vector_constant(value), static=type_of(value))
        if token.kind == "str":
            text = _unescape(token.text)
            return Expr(lambda fr: text, where, vector=vector_constant(text), static="String")
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
            return Expr(lambda fr: value, where, vector=vector_constant(value), static="boolean")
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
                vector=vector_local(slot),
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
        if key in STATIC_FIELDS and not self.is_op("("):
            value = STATIC_FIELDS[key]
            return Expr(lambda fr: value, where, vector=vector_constant(value))
        if token.text == "Math" and member.text in MATH:
            function = MATH[member.text]
            expressions = self.argument_exprs()
            runs = [e.run for e in expressions]
            return Expr(
                lambda fr: function(*(r(fr) for r in runs)),
                where,
                vector=vector_call(f"Math.{member.text}", expressions),
            )
        if key in STATIC_METHODS:
            function = STATIC_METHODS[key]
            runs = self.arguments()
            return Expr(lambda fr: function(*(r(fr) for r in runs)), where)
        if token.text == "Math" and member.text not in MATH_NOT_RUN:
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
        vector = vector_call(token.text, expressions) if token.text in self.vector_helpers else None

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
        canonical, table = TYPED[expr.static]  # type: ignore[index]
        where = (member.line, member.col)
        name = member.text
        if self.is_op("("):
            arguments = self.argument_exprs()
        else:
            getter = getter_of(table, name)
            if getter is None or table[getter][0]:
                raise PainlessError(f"field [{canonical}, {name}] not found", where)
            name, arguments = getter, []
        if name in TYPED_NOT_RUN:
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
                if expr.static in TYPED:
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


def _instance_of(run: Run, target: str, fr: Frame) -> bool:
    """`x instanceof T`: whether the value of `x` is a T."""
    return is_instance(run(fr), target)


def _literal(token: Tok) -> Any:
    text = token.text
    where = (token.line, token.col)
    suffix = text[-1].lower() if text[-1] in "lLfFdD" and not text.lower().startswith("0x") else ""
    if text.lower().startswith("0x"):
        suffix = "l" if text[-1] in "lL" else ""
        bits = int(text[2:].rstrip("lL"), 16)
        if suffix == "l":
            return to_long(bits) if bits < 2**64 else _bad_literal(text, where)
        return wrap_int(bits) if bits < 2**32 else _bad_literal(text, where)
    body = text[:-1] if suffix else text
    if suffix in ("f", "d") or any(c in body for c in ".eE"):
        return float_of(float(body)) if suffix == "f" else float(body)
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
            if signal is BREAK:
                break
            if signal is RETURN:
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
            if signal is BREAK:
                break
            if signal is RETURN:
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
            if signal is BREAK:
                break
            if signal is RETURN:
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
    default = default_value(declared)
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
        return write(fr, _compound_cast(lvalue, apply_operator(operator, read(fr), right(fr))))

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
        after = write(fr, _compound_cast(lvalue, apply_operator(operator, before, 1)))
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
    return arith("+", a, b)


def _subtract(a: Any, b: Any) -> Any:
    kind = type(a)
    if kind is type(b):
        if kind is float:
            return a - b
        if kind is int:
            out = a - b
            return out if INT_MIN <= out <= INT_MAX else wrap_int(out)
    return arith("-", a, b)


def _multiply(a: Any, b: Any) -> Any:
    if type(a) is float and type(b) is float:
        return a * b
    return arith("*", a, b)


def _less(a: Any, b: Any) -> bool:
    if type(a) in _NUMBERS and type(b) in _NUMBERS:
        return a < b
    raise cannot("<", a, b)


def _less_equal(a: Any, b: Any) -> bool:
    if type(a) in _NUMBERS and type(b) in _NUMBERS:
        return a <= b
    raise cannot("<=", a, b)


def _greater(a: Any, b: Any) -> bool:
    if type(a) in _NUMBERS and type(b) in _NUMBERS:
        return a > b
    raise cannot(">", a, b)


def _greater_equal(a: Any, b: Any) -> bool:
    if type(a) in _NUMBERS and type(b) in _NUMBERS:
        return a >= b
    raise cannot(">=", a, b)


def _equal(a: Any, b: Any) -> bool:
    kind = type(a)
    if kind is type(b) and (kind is str or kind is int or kind is float):
        return a == b
    return def_equals(a, b)


def _operation(op: str) -> Callable[[Any, Any], Any]:
    fast = {"+": _add, "-": _subtract, "*": _multiply, "<": _less, "<=": _less_equal, ">": _greater,
            ">=": _greater_equal, "==": _equal}.get(op)  # fmt: skip
    if fast is not None:
        return fast
    if op == "!=":
        return lambda a, b: not _equal(a, b)
    if op in ("/", "%"):
        return lambda a, b: arith(op, a, b)
    return lambda a, b: integral_op(op, a, b)


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
    promoted = promoted_type(x, y)
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
    vector = vector_binary(op, left, right)
    static = _static_binary(op, left, right, where)
    if op in ("&&", "||"):
        conjunction = op == "&&"

        def logical(fr: Frame) -> Any:
            try:
                first = as_boolean(a(fr), op)
                if first is not conjunction:
                    return first
                return as_boolean(b(fr), op)
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
        if rank_of(value) < 0:
            raise PainlessError(f"Cannot apply [-] operation to type [{java_type(value)}].")
        return arith("-", as_rank(0, rank_of(value)), value) if rank_of(value) < 2 else as_rank(-value, rank_of(value))

    def plus(fr: Frame) -> Any:
        value = a(fr)
        if rank_of(value) < 0:
            raise PainlessError(f"Cannot apply [+] operation to type [{java_type(value)}].")
        return value

    def invert(fr: Frame) -> Any:
        value = a(fr)
        if rank_of(value) not in (0, 1):
            raise PainlessError(f"Cannot apply [~] operation to type [{java_type(value)}].")
        return integral_op("^", value, as_rank(-1, rank_of(value)))

    runs = {"!": lambda fr: not as_boolean(a(fr), "!"), "-": negate, "+": plus, "~": invert}
    static = inner.static
    if op == "!":
        _static_cast(inner, "boolean")
        static = "boolean"
    elif static is not None and static not in ("int", "long", "float", "double"):
        raise PainlessError(f"Cannot apply [{op}] operation to type [{static}].", where)
    return Expr(_located(runs[op], where), where, vector=vector_unary(op, inner), static=static)


def _ternary(test: Expr, yes: Expr, no: Expr, where: tuple[int, int]) -> Expr:
    check, a, b = _as_condition(test), yes.run, no.run
    return Expr(lambda fr: a(fr) if check(fr) else b(fr), test.where, vector=vector_ternary(test, yes, no))


def _cast(target: str, inner: Expr, where: tuple[int, int]) -> Expr:
    a = inner.run
    numeric = ("int", "long", "float", "double")
    to_number = target in numeric and inner.static in ("boolean", "String")
    if to_number or (target == "boolean" and inner.static in numeric):
        raise PainlessError(f"Cannot cast from [{inner.static}] to [{target}].", where)
    run = _located(lambda fr: explicit_cast(a(fr), target), where)
    static = target if target not in ("def", "Number") else None
    return Expr(run, where, vector=vector_cast(target, inner), static=static)


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

    return Expr(run, target.where, lvalue=("field", get, name), vector=vector_field(target, name))


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

    return Expr(run, target.where, lvalue=("brace", get, at), vector=vector_brace(target, key))


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

    return Expr(run, target.where, vector=vector_method(target, name, arguments))


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
    "params": lambda where: Expr(lambda fr: fr.ctx.params, where, vector=vector_params),
    "doc": lambda where: Expr(_read_doc, where, vector=vector_doc),
    "_score": lambda where: Expr(lambda fr: fr.ctx.score, where, vector=vector_score, static="double"),
}


_FILTER_VARIABLES = {name: read for name, read in _SCORE_VARIABLES.items() if name != "_score"}


_ANALYSIS_VARIABLES: dict[str, Callable[[tuple[int, int]], Expr]] = {
    "token": lambda where: Expr(lambda fr: fr.ctx.token, where, static="Token"),
}
