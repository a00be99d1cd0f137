"""Painless, the language: statements, Java's types and the allowlisted methods scripts in relevance templates use.

`compile_painless` reads a script once into a tree of Python closures; `Program.run` runs it for one document.
Values carry their Java type in their Python class (`int` is Java's int, `Long` long, `Float` float, `float`
double, `bool` boolean, `str` String, `list` List, `dict` Map), so arithmetic follows Java's numeric promotion,
integer division and 32/64-bit overflow, and arithmetic on a boolean is the error Painless gives rather than 1.
This package knows nothing of indexes: a script's context variables (`_score`, `doc`, `params`) come from the
caller, so the same compiled program serves script_score and script sorts. The analysis context (the `condition`
token filter's AnalysisPredicateScript) has one variable instead, `token`, statically typed as there; the filter
context (the `script` query's FilterScript) has `params` and `doc` but no `_score`, and returns a boolean.

In flow order: `values` (the values, their Java types and Java's arithmetic), `lexer`, `allowlist` (the methods a
script may call), `tree` (what the compiler builds), `vectors` (the array form over many documents) and
`compiler`. Callers import from this facade.
"""

from __future__ import annotations

from pytest_relevance.engines.embedded.painless.allowlist import MATH, from_json, number_arg
from pytest_relevance.engines.embedded.painless.compiler import compile_painless
from pytest_relevance.engines.embedded.painless.tree import FELL_OFF, Program
from pytest_relevance.engines.embedded.painless.values import (
    LOOP_LIMIT_MESSAGE,
    AnalysisToken,
    Context,
    DocValues,
    Float,
    GeoPoint,
    GeoPoints,
    Long,
    MissingValue,
    NotSupported,
    PainlessError,
    ZonedDateTime,
    java_type,
)
from pytest_relevance.engines.embedded.painless.vectors import Node, VectorEnv, vector_statements

__all__ = [
    "FELL_OFF",
    "LOOP_LIMIT_MESSAGE",
    "MATH",
    "AnalysisToken",
    "Context",
    "DocValues",
    "Float",
    "GeoPoint",
    "GeoPoints",
    "Long",
    "MissingValue",
    "Node",
    "NotSupported",
    "PainlessError",
    "Program",
    "VectorEnv",
    "ZonedDateTime",
    "compile_painless",
    "from_json",
    "java_type",
    "number_arg",
    "vector_statements",
]
