"""The array form of straight-line Painless statements (issue 20): the same float64 values and the same errors as
the per-document run, with Java's int, long and float arithmetic."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.engines.embedded.queries import Invalid
from pytest_relevance.engines.embedded.queries.scripts import _statements, compile_script, run_script

DOCS = [
    {"id": "a", "pop": 7, "price": 2.5, "stock": True, "rank": 3, "big": 9007199254740000, "brand": "x"},
    {"id": "b", "pop": -7, "price": -0.1, "stock": False, "rank": -2147483647, "brand": "y"},
    {"id": "c", "price": 1e300, "rank": 0, "big": -9007199254740000},
    {"id": "d", "pop": 0, "stock": True, "rank": 2147483647, "big": 3, "brand": "x"},
    {"id": "e", "pop": 123456789, "price": 16777217.0, "rank": 5, "big": 0},
]
MAPPING = {
    "mappings": {
        "properties": {
            "pop": {"type": "long"}, "price": {"type": "double"}, "stock": {"type": "boolean"},
            "rank": {"type": "integer"}, "big": {"type": "long"}, "brand": {"type": "keyword"},
        }
    }
}  # fmt: skip
SCORES = np.array([1.5, 0.25, 3.0, 0.0, 7.75])

# Each script has an array form; the `missing` ones read a missing value on a branch some document takes.
VECTORIZED = [
    "long p = doc['pop'].size() == 0 ? 0 : doc['pop'].value; return _score * Math.log10(p + 2);",
    "if (doc['pop'].size() == 0) { return _score; } return _score * Math.log(2 + Math.abs(doc['pop'].value));",
    "double s = _score; if (doc['stock'].size() > 0 && doc['stock'].value) { s *= 1.2 } return s;",
    "int r = (int) doc['rank'].value; r += 1; return r;",
    "int r = (int) doc['rank'].value; r *= 3; return r;",
    "int r = (int) doc['rank'].value; return r / 2 + r % 3;",
    "int r = (int) doc['rank'].value; r /= 2.5; return r - 1;",
    "long b = doc['big'].size() == 0 ? 9223372036854775807L : doc['big'].value; b += 9223372036854775807L; return b;",
    "long b = 9223372036854775807L; b = b * 3 + doc['rank'].value; return b;",
    "float f = doc['rank'].value; f *= 1.1; return f;",
    "float f = 0.1f; f += doc['rank'].value; double d = f * 3; return d + f;",
    "float f = (float) (doc['price'].size() == 0 ? 0.3 : doc['price'].value); return f / 3;",
    "int x = 7; int y = -2; return x / y * 10 + x % y;",
    "def x = (int) doc['rank'].value; x = x * 2; if (x > 4) { x = x - 1 } else { x = x + 100 } return x;",
    "def s = 1; if (_score > 1) { s += 1 } else if (_score > 0.1) { s += 2 } else { s = 9 } return s * _score;",
    "double s = _score; if (doc['price'].size() == 0) { return 1; } else if (doc['price'].value < 0) { s = 0 }"
    " else { s += doc['price'].value } return s;",
    "if (doc['pop'].size() > 0) { long p = doc['pop'].value; if (p > 0) { return p; } } return -1;",
    "if (_score > 1) { _score * 2 } else { _score + 1 }",
    "int n = 0; if (_score > 2) { n = 1; }",
    "boolean hot = doc['rank'].value > 2; int k; if (hot) { k = 3 } else { k = -3 } return k * 1.5;",
    "long v = doc['rank'].value; v = -v; int w = (int) (v * 4294967296L + 5); return w;",
    "double a = (long) (doc['price'].size() == 0 ? -1e30 : doc['price'].value * 1e17); return a;",
    "int i = (int) (doc['price'].size() == 0 ? 1e30 : doc['price'].value); return i;",
    "if (doc['brand'].size() > 0 && doc['brand'].value == 'x') { return 2 * _score; } return _score;",
    "double s = Math.max(_score, 1); s = Math.min(s, 2.0f); return s + Math.sqrt(4);",
    "int r = (int) doc['rank'].value; if (r != 0) { return 100 / r; } return 0;",
    "if (_score > 0.1) { return doc['price'].value; } return 0;",
    "double s = _score; return Math.log(s) + Math.log1p(-s) + Math.log10(s - 1) + Math.log1p(s - 1);",
    "double s = _score; if (s < 1) { return Math.log(s); } return Math.log10(s) * Math.exp(-s);",
    "long p = 3; if (doc['pop'].size() == 0) { p = 4 } else { p += doc['pop'].value } return p;",
]
ERRORS = [
    "double s = _score; return s * doc['pop'].value + 1.0;",
    "long p = doc['pop'].value; return 1;",
    "if (_score > 1) { return doc['pop'].value; } return 0;",
    "int r = (int) doc['rank'].value; return 100 / (r - 5);",
    "long p = 3; if (doc['stock'].size() == 0) { p = doc['pop'].value } return p;",
]
PER_DOCUMENT = [
    "int s = 0; for (int i = 0; i < 3; ++i) { s += i } return s;",
    "def x = 1; if (_score > 1) { x = 2.5 } return x;",
    "String b = doc['brand'].size() == 0 ? '' : doc['brand'].value; return b.length();",
    "int r = 1; r++; return r;",
    "return _score > 1;",
]


@pytest.fixture(scope="module")
def index() -> EmbeddedIndex:
    return EmbeddedEngine().open(DOCS, MAPPING, "id")


def both(index: EmbeddedIndex, source: str) -> tuple[Any, Any]:
    """The script's values (or error message) by its array form and per document."""
    docs = np.arange(index.n)
    outcomes = []
    for vectorize in (True, False):
        try:
            values = run_script(index, compile_script(source, "q.script"), docs, SCORES, vectorize)
            values = np.asarray(values, dtype=np.float64)
            outcomes.append(np.where(np.isnan(values), np.nan, values).tobytes())  # bit for bit, NaN as one NaN
        except Invalid as exc:
            outcomes.append(str(exc))
    return outcomes[0], outcomes[1]


@pytest.mark.parametrize("source", VECTORIZED + ERRORS)
def test_statements_match_the_per_document_run(index: EmbeddedIndex, source: str) -> None:
    assert _statements(index, compile_script(source, "q.script")) is not None
    vector, each = both(index, source)
    assert vector == each


@pytest.mark.parametrize("source", ERRORS)
def test_errors_where_the_statement_is_reached(index: EmbeddedIndex, source: str) -> None:
    vector, each = both(index, source)
    assert isinstance(vector, str) and vector == each


@pytest.mark.parametrize("source", PER_DOCUMENT)
def test_other_statements_run_per_document(index: EmbeddedIndex, source: str) -> None:
    assert _statements(index, compile_script(source, "q.script")) is None
    vector, each = both(index, source)
    assert vector == each


def _generated(seed: int) -> str:
    """A random straight-line script over int, long, float, double and def locals, ifs and compound assignments."""
    rng = random.Random(seed)
    reads = ["_score", "doc['pop'].value", "(int) doc['rank'].value", "doc['price'].value", "doc['big'].value",
             "doc['pop'].size()", "3", "-7", "2147483647", "9223372036854775807L", "0.5f", "2.5", "0"]  # fmt: skip
    names: list[str] = []

    def term() -> str:
        return rng.choice(reads + names * 3)

    def expr() -> str:
        return f"{term()} {rng.choice('+-*/%')} {term()}" if rng.random() < 0.7 else term()

    lines = []
    for i in range(rng.randint(2, 6)):
        kind = rng.random()
        if kind < 0.35 or not names:
            declared = rng.choice(["long", "double", "def"])
            lines.append(f"{declared} v{i} = {expr()};")
            names.append(f"v{i}")
        elif kind < 0.65:
            lines.append(f"{rng.choice(names)} {rng.choice(['+=', '-=', '*=', '/=', '='])} {expr()};")
        else:
            test = f"{term()} {rng.choice(['<', '>', '==', '!='])} {term()}"
            then = f"{rng.choice(names)} *= {expr()};" if rng.random() < 0.6 else f"return {expr()};"
            other = f" else {{ {rng.choice(names)} -= {term()}; }}" if rng.random() < 0.5 else ""
            lines.append(f"if ({test}) {{ {then} }}{other}")
    lines.append(f"return {expr()};")
    return " ".join(lines)


@pytest.mark.parametrize("seed", range(150))
def test_generated_statements(index: EmbeddedIndex, seed: int) -> None:
    source = _generated(seed)
    try:
        compile_script(source, "q.script")
    except Invalid:
        return  # a compile error (a narrowing the types refuse) has no run to compare
    vector, each = both(index, source)
    assert vector == each, source
