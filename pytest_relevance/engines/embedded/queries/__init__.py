"""The query DSL of the embedded engine: one function per query type, each scoring the whole corpus at once.

A handler takes the index, its clause, the clause's path in the template (for messages) and the boost its
ancestors pass down (Lucene multiplies boosts into the term weights rather than scaling scores afterwards, and
float32 rounding depends on that order), and returns `Scores`: a match mask and float32 scores over every document
ordinal. Adding a query type is one decorated function; an unknown name is reported by `evaluate` alone.

The package: `registry` (the handlers by query type, `evaluate`), `errors`, `options` (reading a clause's options)
and one module per family of query types, imported here so that their handlers register. `Scores` lives below, in
`pytest_relevance.engines.embedded.scores`, as the explain recorder reads it too.
"""

from __future__ import annotations

from pytest_relevance.engines.embedded.queries import (
    combined,
    compound,
    full_text,
    more,
    multi_term,
    query_string,
    scripts,
    spans,
    specialized,
    term_level,
    vectors,
)
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unmapped, Unsupported
from pytest_relevance.engines.embedded.queries.options import minimum_should_match, unknown_field
from pytest_relevance.engines.embedded.queries.registry import HANDLERS, evaluate, query
from pytest_relevance.engines.embedded.scores import Scores

__all__ = [
    "HANDLERS",
    "Invalid",
    "Scores",
    "Unmapped",
    "Unsupported",
    "combined",
    "compound",
    "evaluate",
    "full_text",
    "minimum_should_match",
    "more",
    "multi_term",
    "query",
    "query_string",
    "scripts",
    "spans",
    "specialized",
    "term_level",
    "unknown_field",
    "vectors",
]
