"""What the compiler builds: a compiled expression (`Expr`), a program (`Program`) and the frame one run of it
executes in (`Frame`), with the markers a statement returns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_relevance.engines.embedded.painless.values import Context

BREAK, CONTINUE, RETURN = object(), object(), object()


FELL_OFF = object()  # a script that ends without a value: ScoreScript's execute returns its type's default


NOT_CONSTANT = object()


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


def nothing(fr: Frame) -> None:
    return None
