"""Painless as Elasticsearch runs it: Java's types and semantics, statements, the allowlisted methods, the loop
limit, and the embedded engine's refusals naming the construct and its line:column. Expected values are worked out
by hand from the Java Language Specification and Painless's sources (DefMath, CompilerSettings, the allowlists);
the scripts are the shapes Elasticsearch's Painless guide and relevance templates use."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.engines.embedded.painless import (
    FELL_OFF,
    LOOP_LIMIT_MESSAGE,
    Context,
    Float,
    Long,
    NotSupported,
    PainlessError,
    VectorEnv,
    compile_painless,
    from_json,
)
from pytest_relevance.engines.embedded.queries.scripts import _per_document, compile_script
from pytest_relevance.errors import RelevanceInputError


def run(source: str, params: dict[str, Any] | None = None, score: float = 0.0) -> Any:
    return compile_painless(source, {}).run(Context(from_json(params or {}), score=score))


@pytest.mark.parametrize(
    ("source", "value", "java"),
    [
        ("5 / 2", 2, int),  # integer division truncates
        ("5 / 2.0", 2.5, float),
        ("-7 / 2", -3, int),  # toward zero, not floor
        ("-7 % 3", -1, int),  # the sign of the dividend
        ("2147483647 + 1", -2147483648, int),  # int overflow wraps
        ("2147483647L + 1", 2147483648, Long),
        ("9223372036854775807L + 1", -9223372036854775808, Long),
        ("(int) 3.99", 3, int),
        ("(int) -3.99", -3, int),
        ("(int) 1e20", 2147483647, int),  # narrowing a double saturates
        ("(long) 2.5", 2, Long),
        ("(int) 4294967297L", 1, int),  # narrowing a long keeps the low 32 bits
        ("(double) 1 / 2", 0.5, float),  # the cast binds tighter than /
        ("0.1f + 0.2f", float(np.float32(np.float32(0.1) + np.float32(0.2))), Float),
        ("1 + 2 + 'a'", "3a", str),  # left to right: 1 + 2 first
        ("'a' + 1 + 2", "a12", str),
        ("'v' + 1.0 + true", "v1.0true", str),
        ("'' + 1e7 + ' ' + 0.0001", "1.0E7 1.0E-4", str),  # Double.toString
        ("Math.max(1, 2)", 2, int),
        ("Math.max(1, 2.0)", 2.0, float),
        ("Math.abs(-2147483648)", -2147483648, int),  # Math.abs(Integer.MIN_VALUE) overflows in Java
        ("Math.round(2.5)", 3, Long),
        ("Math.round(-2.5)", -2, Long),  # floor(x + 0.5)
        ("Math.sqrt(-1) != Math.sqrt(-1)", True, bool),  # NaN
        ("Math.log(0)", -math.inf, float),
        ("1.0 / 0", math.inf, float),
        ("1 << 33", 2, int),  # the shift distance masked to 5 bits
        ("-1 >>> 28", 15, int),
        ("5 & 3 | 8", 9, int),
        ("1 == 1.0", True, bool),  # == on numbers compares after promotion
        ("Integer.MAX_VALUE + 1 == Integer.MIN_VALUE", True, bool),
        ("int i = 5; i *= 1.5; i", 7, int),  # compound assignment narrows back to int
        ("int i = 7; i /= 2; i++; ++i; i--; i", 4, int),
        ("int x; x", 0, int),  # locals start at their type's default
        ("boolean b; b", False, bool),
        ("def y = 1; y = 'now a string'; y.length()", 12, int),
        ("double a = 2; a * 3", 6.0, float),  # the last expression is the value
        ("long big = Integer.MAX_VALUE; big * 2", 4294967294, Long),
        ("def n = 3000000000L; n.intValue()", -1294967296, int),
        ("def n = 2.75; n.longValue() + n.intValue()", 4, Long),
    ],
)
def test_java_semantics(source: str, value: Any, java: type) -> None:
    got = run(source)
    assert type(got) is java
    assert got == value


@pytest.mark.parametrize(
    ("source", "params", "value"),
    [
        ("int s = 0; for (int i = 0; i < 10; ++i) { if (i % 2 == 0) continue; if (i > 7) break; s += i; } return s",
         {}, 16),
        ("int i = 0; while (i < 10) { i += 3; } i", {}, 12),
        ("int i = 0; do { i++; } while (i < 5); return i;", {}, 5),
        ("def t = 0; for (def x : params.l) { t += x } t", {"l": [1, 2.5]}, 3.5),
        ("def t = 0; for (x in params.l) { t += x } t", {"l": [1, 2]}, 3),
        ("if (params.x > 5) { return 1 } else if (params.x > 2) { return 2 } else { return 3 }", {"x": 3}, 2),
        ("if (params.x > 1) { 10 } else { 20 }", {"x": 0}, 20),  # the last statement's value, in either branch
        ("double s = 0; for (int i = 0; i < params.w.length; ++i) { s += params.w[i] * (i + 1); } return s;",
         {"w": [1, 2.5, 3]}, 15.0),
        ("List l = [1, 2, 3]; l[-1] + l.get(0) + l.size()", {}, 7),  # negative list indexes count from the end
        ("Map m = ['a': 1]; m['b'] = 2; m.c = 3; m.a + m.b + m.get('c') + m.size()", {}, 9),
        ("Map m = [:]; m.isEmpty() && [].isEmpty() && !m.containsKey('a')", {}, True),
        ("params.weights['title'] * 2", {"weights": {"title": 1.5}}, 3.0),
        ("params.l.contains(1)", {"l": [1]}, True),
        ("params.l.contains(1L)", {"l": [1]}, False),  # Integer.equals(Long) is false
        ("params.a instanceof Integer && params.big instanceof Long && params.f instanceof Double",
         {"a": 1, "big": 2**40, "f": 0.5}, True),  # JSON params: Integer when it fits, else Long
        ("'Hello'.toLowerCase().startsWith('he') && 'abc'.contains('bc') && 'abc'.endsWith('c')", {}, True),
        ("'hello world'.indexOf('o') + 'hello'.substring(1, 3).length() + ' x '.trim().length()", {}, 7),
        ("params.s.equals('x') ? 1 : params.s.isEmpty() ? 2 : 3", {"s": ""}, 2),
        ("params.missing ?: 5", {}, 5),
        ("String t = params.title; t?.length()", {}, None),
        ("ArrayList l = new ArrayList(); l.add(2); l.add(3); l.size() * l[1]", {}, 6),
    ],
)  # fmt: skip
def test_statements_collections_and_strings(source: str, params: dict[str, Any], value: Any) -> None:
    assert run(source, params) == value


def test_static_type_errors_are_compile_errors_even_where_no_document_goes() -> None:
    with pytest.raises(PainlessError, match=r"Cannot apply \[\*\] operation to types \[boolean\] and \[int\]"):
        compile_painless("if (params.never) { boolean b = true; return b * 2 } return 0", {})
    with pytest.raises(PainlessError, match=r"Cannot cast from \[String\] to \[double\]"):
        compile_painless("double d = 'x'", {})
    with pytest.raises(PainlessError, match=r"Cannot cast from \[boolean\] to \[int\]"):
        compile_painless("(int) (1 > 2)", {})


def test_a_script_without_a_value_falls_off_to_the_default() -> None:
    # auto-return: ScoreScript's execute returns 0.0 when the script ends without a value
    assert run("if (false) { return 1 }") is FELL_OFF


def test_the_loop_counter_is_painless_max_loop_counter() -> None:
    # checked after the condition, before the body, one counter for every loop: 999,999 iterations run
    assert run("int i = 0; while (i < 999999) { i++ } i") == 999_999
    with pytest.raises(PainlessError, match=r"The maximum number of statements that can be executed in a loop"):
        run("int i = 0; while (i < 1000000) { i++ } i")
    with pytest.raises(PainlessError) as nested:
        run("long c = 0;\nfor (int i = 0; i < 1000; i++) { for (int j = 0; j < 1000; j++) { c++ } } c")
    # 999 outer passes of 1 + 1000 ticks leave one: the outer loop's next pass is the one refused
    assert nested.value.message == LOOP_LIMIT_MESSAGE and nested.value.where == (2, 1)


@pytest.mark.parametrize(
    ("source", "message", "where"),
    [
        ("true + 1", "Cannot apply [+] operation to types [boolean] and [int].", (1, 6)),  # a compile error
        ("params.flag * 2", "Cannot apply [*] operation to types [java.lang.Boolean] and [java.lang.Integer].",
         (1, 13)),
        ("!1", "Cannot cast from [int] to [boolean].", (1, 2)),
        ("if (1) { 2 }", "Cannot cast from [int] to [boolean].", (1, 5)),
        ("int x = 1.5", "Cannot cast from [double] to [int].", (1, 9)),
        ("int x = params.f", "Cannot cast from [java.lang.Double] to [int].", (1, 5)),
        ("String s = 1", "Cannot cast from [int] to [String].", (1, 12)),
        ("def s = params.l; s * 2", "Cannot apply [*] operation to types [java.util.ArrayList] and [java.lang.Integer]",
         (1, 21)),  # def: a runtime error
        ("1 / 0", "/ by zero", (1, 3)),
        ("params.l[5]", "Index 5 out of bounds for length 1", (1, 9)),
        ("params.l.get(-1)", "Index -1 out of bounds for length 1", (1, 10)),
        ("x + 1", "cannot resolve symbol [x]", (1, 1)),
        ("int x = 1; int x = 2", "variable [x] is already defined", (1, 16)),
        ("2147483648", "Invalid int constant [2147483648]", (1, 1)),
        ("'abc'.foo()", "dynamic method [java.lang.String, foo/0] not found", (1, 7)),
        ("Math.foo(1)", "Unknown call [foo] on type [Math].", (1, 6)),
        ("double s = 0\nreturn s", "expected [;], found [return]", (2, 1)),
    ],
)  # fmt: skip
def test_errors_are_painless_errors_with_their_place(source: str, message: str, where: tuple[int, int]) -> None:
    with pytest.raises(PainlessError) as caught:
        run(source, {"flag": True, "f": 1.5, "l": [1]})
    assert message in caught.value.message and not isinstance(caught.value, NotSupported)
    assert caught.value.where == where


@pytest.mark.parametrize(
    ("source", "construct", "where"),
    [
        ("double s = 0;\nfor (def x : params.l) {\n  s += x.stream().map(y -> y * 2).sum();\n}", "a lambda", (3, 23)),
        ("params.l.removeIf(x -> x > 1)", "a lambda", (1, 19)),
        ("params.l.sort(Integer::compare)", "a function reference", (1, 22)),
        ("params.s =~ /ab+/", "a regex", (1, 10)),
        ("/ab+/.matcher(params.s).matches()", "a regex", (1, 1)),
        ("new StringBuilder()", "new StringBuilder(...)", (1, 1)),
        ("int[] a = new int[3]", "an array type", (1, 1)),
        ("def a = new int[3]", "an array (new ...[])", (1, 9)),
        ("double f(double x) { return x * 2 } f(1)", "a function definition", (1, 1)),
        ("try { 1 } catch (Exception e) { 2 }", "try/catch", (1, 1)),
        ("1 === 1", "identity comparison", (1, 3)),
        ("String.format('%d', 1)", "String.format", (1, 8)),
        ("Math.random()", "Math.random", (1, 6)),
        ("char c = 'a'; c", "the type 'char'", (1, 1)),
    ],
)  # fmt: skip
def test_unsupported_constructs_are_named_with_their_place(source: str, construct: str, where: tuple[int, int]) -> None:
    with pytest.raises(NotSupported) as caught:
        run(source, {"l": [1], "s": "ab"})
    assert caught.value.message.startswith(construct) and caught.value.where == where


# ------------------------------------------------------------------------------------------- scripts in queries

DOCS = [
    {"id": "a", "name": "Alpha", "goals": [3, 1, 2], "price": 10.5, "tags": ["red", "blue"], "flag": True, "rank": 4,
     "t": "alpha text", "d": "2026-01-10"},
    {"id": "b", "name": "beta", "goals": [7], "price": 2.0, "tags": ["green"], "flag": False, "rank": 1},
    {"id": "c", "name": "Gamma", "goals": [], "tags": ["blue", "red", "red"], "rank": 5},
]  # fmt: skip
MAPPING = {
    "mappings": {
        "properties": {
            "name": {"type": "keyword"}, "goals": {"type": "long"}, "price": {"type": "double"},
            "tags": {"type": "keyword"}, "flag": {"type": "boolean"}, "rank": {"type": "integer"},
            "t": {"type": "text"}, "d": {"type": "date"},
        }
    }
}  # fmt: skip


@pytest.fixture(scope="module")
def index() -> EmbeddedIndex:
    return EmbeddedEngine().open(DOCS, MAPPING, "id")


def scored(
    index: EmbeddedIndex, source: str, params: dict[str, Any] | None = None, ids: list[str] | None = None
) -> dict:
    script = {"source": source, "params": params or {}}
    base = {"ids": {"values": ids}} if ids else {"match_all": {}}
    body = {"query": {"script_score": {"query": base, "script": script}}}
    return dict(index.search_many({"q": body}, 10, "query.yaml")["q"])


def test_painless_guide_goals_loop(index: EmbeddedIndex) -> None:
    # the Painless guide's walkthrough: doc['goals'][i] is a Long; `total += ` narrows back to int
    source = "int total = 0; for (int i = 0; i < doc['goals'].length; ++i) { total += doc['goals'][i]; } return total;"
    assert scored(index, source) == {"a": 6.0, "b": 7.0, "c": 0.0}


def test_learning_to_rank_style_weights_over_params_lists(index: EmbeddedIndex) -> None:
    source = (
        "double s = 0;\n"
        "for (int i = 0; i < params.fields.size(); ++i) {\n"
        "  String f = params.fields[i];\n"
        "  if (doc[f].size() > 0) { s += params.weights[i] * doc[f].value; }\n"
        "}\n"
        "return s + _score;"
    )
    params = {"fields": ["price", "rank"], "weights": [0.5, 2]}
    # 0.5 x price + 2 x rank + the match_all score 1; c has no price
    assert scored(index, source, params) == {"a": 14.25, "b": 4.0, "c": 11.0}


def test_integer_division_on_doc_values_is_javas(index: EmbeddedIndex) -> None:
    # Elasticsearch's score-context example: rank is a Long, so a whole-number max_rank divides as integers
    source = "doc['rank'].value / params.max_rank"
    assert scored(index, source, {"max_rank": 5.0}) == pytest.approx({"a": 0.8, "b": 0.2, "c": 1.0})
    assert scored(index, source, {"max_rank": 5}) == {"a": 0.0, "b": 0.0, "c": 1.0}


def test_keyword_doc_values_are_a_sorted_set(index: EmbeddedIndex) -> None:
    loop = "int n = 0; for (def t : doc['tags']) { if (params.boost.contains(t)) { n++ } } return n"
    assert scored(index, loop, {"boost": ["red"]}) == {"a": 1.0, "b": 0.0, "c": 1.0}  # c's two reds are one
    first = "doc['tags'][0] == 'blue' ? 1 : 0"
    assert scored(index, first) == {"a": 1.0, "b": 0.0, "c": 1.0}
    prefix = "doc['name'].value.toLowerCase().startsWith(params.p) ? 2 : 1"
    assert scored(index, prefix, {"p": "a"}) == {"a": 2.0, "b": 1.0, "c": 1.0}


def test_boolean_doc_values_are_booleans_not_numbers(index: EmbeddedIndex) -> None:
    assert scored(index, "doc['flag'].value ? 1.5 : 0.5", ids=["a", "b"]) == {"a": 1.5, "b": 0.5}
    message = (
        r"Cannot apply \[\+\] operation to types \[java.lang.Boolean\] and \[java.lang.Integer\]\. \(document 'a'\)"
    )
    with pytest.raises(RelevanceInputError, match=message):
        scored(index, "doc['flag'].value + 1", ids=["a", "b"])
    with pytest.raises(RelevanceInputError, match=r"Cannot cast from \[java.lang.Boolean\] to \[double\]"):
        scored(index, "doc['price'].value > 5", ids=["a", "b"])


def test_doc_errors_are_elasticsearchs(index: EmbeddedIndex) -> None:
    with pytest.raises(RelevanceInputError, match=r"document 'c' has no value for a doc\['...'\]\.value"):
        scored(index, "double p = doc['price'].value; return p;")
    with pytest.raises(RelevanceInputError, match=r"No field found for \[nope\] in mapping"):
        scored(index, "def v = doc['nope']; v.size()")
    with pytest.raises(RelevanceInputError, match=r"Text fields are not optimised"):
        scored(index, "int n = doc['t'].size(); n")


def test_unsupported_constructs_name_the_template_path_and_place(index: EmbeddedIndex) -> None:
    with pytest.raises(RelevanceInputError) as caught:
        scored(index, "double s = 0;\nparams.l.forEach(x -> s += x);\nreturn s;", {"l": [1]})
    assert str(caught.value).endswith(
        "query 'q': query.script_score.script.source: at line 2:18: a lambda is not supported by the embedded "
        "engine's Painless; the elasticsearch engine runs it"
    )


def test_function_score_runs_statement_scripts(index: EmbeddedIndex) -> None:
    source = "def m = 0; for (def g : doc['goals']) { m = Math.max(m, g) } m"
    function = {"script_score": {"script": {"source": source}}, "weight": 2}
    body = {"query": {"function_score": {"query": {"match_all": {}}, "functions": [function], "boost_mode": "replace"}}}
    assert dict(index.search_many({"q": body}, 10, "q.yaml")["q"]) == {"a": 6.0, "b": 14.0, "c": 0.0}


def test_script_sorts(index: EmbeddedIndex) -> None:
    number = {"_script": {"type": "number", "order": "asc",
                          "script": {"source": "doc['price'].size() == 0 ? 0 : doc['price'].value * params.f",
                                     "params": {"f": 2}}}}  # fmt: skip
    string = {"_script": {"type": "string", "script": "doc['name'].value"}}

    def order(sort: dict) -> list[str]:
        body = {"query": {"match_all": {}}, "sort": [sort]}
        return [doc for doc, _ in index.search_many({"q": body}, 10, "q.yaml")["q"]]

    assert order(number) == ["c", "b", "a"]
    assert order(string) == ["a", "c", "b"]  # String order: 'Alpha' < 'Gamma' < 'beta'
    with pytest.raises(RelevanceInputError, match=r"sort\[0\]\._script\.type: a _script sort needs 'type'"):
        order({"_script": {"script": "1"}})


@pytest.mark.parametrize(
    "source",
    [
        "Math.log10(doc['rank'].value + 2) * params.w + _score",
        "doc['price'].size() == 0 ? params.none : doc['price'].value * 1.5",
        "saturation(doc['rank'].value, 10) + sigmoid(doc['rank'].value, 5, 2)",
        "decayNumericGauss(5, 2, 0, 0.5, doc['rank'].value) + decayNumericLinear(4, 3, 1, 0.5, doc['rank'].value)",
        "(int) (doc['rank'].value * 2.5) + Math.abs(-doc['rank'].value)",
        "doc['name'].value == 'beta' || doc['rank'].value >= 5 ? 2 : 1",
        "!doc['tags'].empty && doc['goals'].isEmpty() ? 3 : doc['goals'].size()",
        "doc['price'].size() > 0 && doc['price'].value > 5 ? 1 : 0",  # the guard: c has no price
        "doc['price'].empty || doc['price'].value < 5 ? 2 : 1",
    ],
)
def test_the_array_form_equals_the_per_document_run(index: EmbeddedIndex, source: str) -> None:
    # a pure expression runs over all documents at once; its values are those the statement interpreter gives
    script = compile_script({"source": source, "params": {"w": 2, "none": 0.5}}, "p")
    assert script.program.vector is not None
    field_types = {"rank": "long", "price": "double", "name": "String", "tags": "String", "goals": "long"}
    assert script.program.vector(VectorEnv(script.params, field_types.get)) is not None
    docs = np.arange(3)
    scores = np.full(3, 1.0)
    per_document = _per_document(index, script, docs, scores).astype(np.float32)  # scores are floats
    assert scored(index, source, {"w": 2, "none": 0.5}) == dict(zip("abc", per_document.tolist(), strict=True))


def test_a_return_inside_the_one_statement_is_not_the_scripts_expression(index: EmbeddedIndex) -> None:
    # the return runs only where its branch is taken; elsewhere the script falls off to 0
    assert scored(index, "if (doc['goals'].size() > 1) { return 5 }") == {"a": 5.0, "b": 0.0, "c": 0.0}
    assert scored(index, "for (def g : doc['goals']) { if (g > 2) { return 5 } }") == {"a": 5.0, "b": 5.0, "c": 0.0}


def test_integer_arithmetic_and_statements_leave_the_array_form() -> None:
    env = VectorEnv({"n": 2}, {"rank": "long"}.get)
    assert compile_painless("doc['rank'].value / params.n", {}).vector(env) is None  # type: ignore[misc]
    assert compile_painless("doc['rank'].value / 2.0", {}).vector(env) is not None  # type: ignore[misc]
    assert compile_painless("double x = doc['rank'].value; x", {}).vector is None


def test_date_doc_values_are_zoned_date_times(index: EmbeddedIndex) -> None:
    millis = 1_768_003_200_000  # 2026-01-10T00:00:00Z
    check = "doc['d'].value.toInstant().toEpochMilli() == params.m && doc['d'].value.millis == params.m ? 1 : 0"
    assert scored(index, check, {"m": millis}, ids=["a"]) == {"a": 1.0}  # the array form
    parts = "def d = doc['d'].value; d.getYear() * 10000 + d.getMonthValue() * 100 + d.dayOfMonth"
    assert scored(index, parts, ids=["a"]) == {"a": 20260110.0}
    decay = "def d = doc['d'].value; return decayDateGauss('2026-01-20', '10d', '0d', 0.5, d);"
    assert scored(index, decay, ids=["a"]) == pytest.approx({"a": 0.5})  # one scale away: the decay itself
    # a date is not a number: arithmetic on it is Painless's error, not epoch milliseconds
    with pytest.raises(RelevanceInputError, match=r"Cannot apply \[-\] operation to types \[java.time.ZonedDateTime\]"):
        scored(index, "doc['d'].value - 1", ids=["a"])


def test_lucene_expressions_are_doubles_with_missing_values_zero(index: EmbeddedIndex) -> None:
    def expression(source: str) -> dict[str, float]:
        body = {
            "query": {"script_score": {"query": {"match_all": {}}, "script": {"lang": "expression", "source": source}}}
        }
        return dict(index.search_many({"q": body}, 10, "q.yaml")["q"])

    assert expression("doc['rank'].value / 2 + doc['price'].value") == {"a": 12.5, "b": 2.5, "c": 2.5}
    with pytest.raises(RelevanceInputError, match=r"a lang: expression script beyond one arithmetic expression"):
        expression("double x = 1; x")


def test_runtime_errors_name_the_place_and_the_document(index: EmbeddedIndex) -> None:
    with pytest.raises(RelevanceInputError) as caught:
        scored(index, "int i = doc['rank'].value.intValue();\nwhile (i >= 0) { i++ }", ids=["a"])
    assert str(caught.value).endswith(
        "query 'q': query.script_score.script.source: Painless runtime error at line 2:1: The maximum number of "
        "statements that can be executed in a loop has been reached. (document 'a')"
    )


# --------------------------------------------------------------------------------------- the script query (filter)


def filtered(index: EmbeddedIndex, clause: dict[str, Any]) -> dict:
    return dict(index.search_many({"q": {"query": clause}}, 10, "q.yaml")["q"])


def script_clause(source: str, params: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
    return {"script": {"script": {"source": source, "params": params or {}}, **options}}


def test_the_script_query_keeps_what_the_filter_script_returns_true_for_at_the_boost(index: EmbeddedIndex) -> None:
    # ScriptQuery's weight is a ConstantScoreWeight: every kept document scores the boost (1.0 by default)
    assert filtered(index, script_clause("doc['rank'].value > params.r", {"r": 2})) == {"a": 1.0, "c": 1.0}
    assert filtered(index, script_clause("doc['rank'].value > params.r", {"r": 2}, boost=2.5)) == {"a": 2.5, "c": 2.5}
    # a bare source string is an inline Painless script (Script.parse); the boost above multiplies in
    wrapped = {"constant_score": {"filter": {"script": {"script": "doc['flag'].size() == 0"}}, "boost": 3}}
    assert filtered(index, wrapped) == {"c": 3.0}
    # statements: a branch without a return value falls off to boolean's default, false
    loop = "for (def g : doc['goals']) { if (g > 2) { return true } }"
    assert filtered(index, script_clause(loop)) == {"a": 1.0, "b": 1.0}


def test_the_script_query_filters_in_bool(index: EmbeddedIndex) -> None:
    low = {"script": {"script": "doc['rank'].value < 5"}}
    high = {"script": {"script": "doc['rank'].value > 2", "boost": 4}}
    assert filtered(index, {"bool": {"must": {"match_all": {}}, "must_not": low}}) == {"c": 1.0}
    assert filtered(index, {"bool": {"filter": [low, high]}}) == {"a": 0.0}
    # in must it scores: match_all's 1 plus the script's constant 4
    assert filtered(index, {"bool": {"must": [{"match_all": {}}, high]}}) == {"a": 5.0, "c": 5.0}


@pytest.mark.parametrize(
    ("source", "message"),
    [
        # FilterScript has params and doc, not _score: Painless's compile error for an unknown variable
        ("doc['rank'].value + _score > 2", r"Painless compile error at line 1:21: cannot resolve symbol \[_score\]"),
        # execute() returns a boolean: a known type that is not one is a compile error ...
        ("(int) doc['rank'].value", r"Painless compile error at line 1:1: Cannot cast from \[int\] to \[boolean\]\."),
        # ... and a def one Def.defToboolean's ClassCastException when the document is run
        ("doc['rank'].value", r"Painless runtime error: cannot cast def \[long\] to boolean .*document 'a'"),
        ("def t = doc['name'].value; t", r"cannot cast def \[java.lang.String\] to boolean"),
        # ScoreScriptUtils' functions are allowlisted in the score context only
        ("saturation(doc['rank'].value, 2) > 0.5", r"at line 1:1: Unknown call \[saturation\] with \[2\] arguments"),
        ("doc['price'].value > 3", r"document 'c' has no value for a doc\['...'\]\.value the script reads"),
    ],
)
def test_the_script_query_errors_are_painlesss(index: EmbeddedIndex, source: str, message: str) -> None:
    with pytest.raises(RelevanceInputError, match=message):
        filtered(index, script_clause(source))


@pytest.mark.parametrize(
    ("clause", "message"),
    [
        ({"script": {"script": "true", "boots": 2}}, r"query.script: \[script\] query does not support \[boots\]"),
        ({"script": {"script": ["true"]}}, r"\[script\] query does not support an array of scripts"),
        ({"script": {"boost": 2}}, r"script must be provided with a \[script\] filter"),
        ({"script": {"script": {"id": "kept"}}}, r"a stored script \(script.id\) at query.script.script is not "
                                                 r"supported by the embedded engine.*elasticsearch engine supports"),
        ({"script": {"script": {"source": "true", "lang": "expression"}}}, r"script lang expression at query.script"
                                                                           r".script is not supported"),
        ({"script": {"script": {"source": "true", "lang": "mustache"}}}, r"script lang mustache .*not supported"),
    ],
)  # fmt: skip
def test_the_script_query_refusals(index: EmbeddedIndex, clause: dict[str, Any], message: str) -> None:
    with pytest.raises(RelevanceInputError, match=message):
        filtered(index, clause)


def test_the_script_query_explains_as_its_constant(index: EmbeddedIndex) -> None:
    high = {"script": {"script": "doc['rank'].value > 2", "boost": 4}}
    body = {"query": {"bool": {"must": [{"match_all": {}}, high], "filter": [high]}}}
    tree = index.explain(body, ["a"], 10, "q.yaml", "q")["a"]
    scored, filtered = tree.children[1], tree.children[2]
    assert (scored.kind, scored.value, tree.value) == ("constant", 4.0, 5.0)
    assert filtered.kind == "filter" and filtered.matched
