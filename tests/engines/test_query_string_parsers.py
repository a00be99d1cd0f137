"""query_string and simple_query_string as Elasticsearch 8 builds them on top of Lucene's parsers (issue 20, item 4):
what the Lucene reference runs (test_query_parsers_lucene.py) cannot show, because it is Elasticsearch's part:
field resolution, `minimum_should_match` on the built query, several fields, and the parse errors."""

from __future__ import annotations

import random

import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.engines.embedded.queries.query_string import lex
from pytest_relevance.errors import RelevanceInputError

DOCS = [
    {"id": "1", "title": "hiking boots", "body": "trail running shoes for hiking", "path": "/a", "n": 3},
    {"id": "2", "title": "trail guide", "body": "a guide to every hiking trail", "path": "/b", "n": 5},
    {"id": "3", "title": "running shoes", "body": "shoes for the road", "path": "/c", "n": 7},
    {"id": "4", "title": "on-call rotation", "body": "who is on call tonight", "path": "/d"},
]
PROPERTIES = {
    "title": {"type": "text"},
    "body": {"type": "text"},
    "path": {"type": "text", "index": False},
    "n": {"type": "integer"},
}


@pytest.fixture(scope="module")
def index() -> EmbeddedIndex:
    return EmbeddedEngine().open(DOCS, {"mappings": {"properties": PROPERTIES}}, "id")


def hits(index: EmbeddedIndex, query: dict) -> dict[str, float]:
    return dict(index.search_many({"q": {"query": query}}, 10, "query.yaml")["q"])


def test_field_groups_and_their_boosts(index: EmbeddedIndex) -> None:
    grouped = hits(index, {"query_string": {"query": "title:(hiking OR trail) AND -shoes", "fields": ["body"]}})
    assert set(grouped) == {"2"}  # doc 1 has shoes in its body, the default field of `-shoes`
    alone = hits(index, {"query_string": {"query": "title:(hiking trail)", "fields": ["body"]}})
    boosted = hits(index, {"query_string": {"query": "title:(hiking trail)^2", "fields": ["body"]}})
    assert set(alone) == {"1", "2"}
    assert boosted == pytest.approx({doc: 2 * score for doc, score in alone.items()})
    assert alone == pytest.approx(hits(index, {"match": {"title": "hiking trail"}}))


def test_minimum_should_match_applies_only_to_a_boolean_query(index: EmbeddedIndex) -> None:
    # Queries.maybeApplyMinimumShouldMatch: one word across two fields is a dis_max, not a boolean: msm is ignored
    one_word = {"query": "hiking", "fields": ["title", "body"], "minimum_should_match": 2}
    assert set(hits(index, {"simple_query_string": one_word})) == {"1", "2"}
    assert set(hits(index, {"query_string": one_word})) == {"1", "2"}
    two_words = {**one_word, "query": "hiking trail"}
    assert set(hits(index, {"simple_query_string": two_words})) == {"1", "2"}
    assert set(hits(index, {"query_string": {**two_words, "fields": ["title"]}})) == set()


def test_simple_query_string_prefix_is_only_a_trailing_star(index: EmbeddedIndex) -> None:
    def sqs(text: str) -> set[str]:
        return set(hits(index, {"simple_query_string": {"query": text, "fields": ["title"]}}))

    assert sqs("*on-call*") == set()  # a prefix query for the term "*on-call": no term starts with "*"
    assert sqs("*call") == {"4"}  # a leading "*" is text: the analyzer drops it
    assert sqs("rot*") == {"4"}
    assert sqs("hik?ng") == set()  # "?" is no operator: the term "hik?ng" analyzes to "hik", "ng"
    assert sqs('"running shoes') == {"3"}  # an unclosed quote is ignored, the words are terms
    assert sqs("(running | guide") == {"2", "3"}  # so is an unclosed parenthesis


def test_several_fields_build_as_elasticsearch_builds_them(index: EmbeddedIndex) -> None:
    fields = ["title^2", "body"]
    best = {"multi_match": {"query": "hiking shoes", "fields": fields}}
    assert hits(index, {"query_string": {"query": "hiking shoes", "fields": fields}}) == pytest.approx(
        hits(index, best)
    )
    most = {"multi_match": {"query": "hiking shoes", "fields": fields, "type": "most_fields"}}
    per_word = [{"multi_match": {"query": w, "fields": fields, "type": "most_fields"}} for w in ("hiking", "shoes")]
    simple = hits(index, {"simple_query_string": {"query": "hiking shoes", "fields": fields}})
    assert simple == pytest.approx(hits(index, {"bool": {"should": per_word}}))
    assert set(hits(index, most)) == {"1", "2", "3"}
    # a phrase is a phrase multi_match (tie 0 in simple_query_string too)
    phrase = {"multi_match": {"query": "running shoes", "fields": fields, "type": "phrase"}}
    assert hits(index, {"simple_query_string": {"query": '"running shoes"', "fields": fields}}) == pytest.approx(
        hits(index, phrase)
    )


def test_field_patterns_skip_unsearchable_fields_and_multiply_overlapping_boosts(index: EmbeddedIndex) -> None:
    # `*` reaches path (index: false) and n (a number): Elasticsearch skips the first and is lenient on the second
    assert set(hits(index, {"query_string": {"query": "hiking"}})) == {"1", "2"}
    assert set(hits(index, {"simple_query_string": {"query": "hiking", "fields": ["*"]}})) == {"1", "2"}
    title = hits(index, {"match": {"title": "trail"}})
    overlapping = {"query": "trail", "fields": ["title^2", "ti*^3"]}  # title reached twice: 2 x 3
    assert hits(index, {"simple_query_string": overlapping}) == pytest.approx({"2": 6 * title["2"]})
    with pytest.raises(RelevanceInputError, match="index: false"):
        hits(index, {"query_string": {"query": "a", "fields": ["path"]}})  # named, not expanded: refused


def test_index_query_default_field_is_where_a_query_without_fields_searches() -> None:
    settings = {"index": {"query": {"default_field": ["title"]}}}
    index = EmbeddedEngine().open(DOCS, {"settings": settings, "mappings": {"properties": PROPERTIES}}, "id")
    assert set(hits(index, {"query_string": {"query": "trail"}})) == {"2"}
    assert set(hits(index, {"simple_query_string": {"query": "trail"}})) == {"2"}
    assert set(hits(index, {"query_string": {"query": "trail", "default_field": "body"}})) == {"1", "2"}
    with pytest.raises(RelevanceInputError, match=r"index\.query\.default_field: 3 is not a field name"):
        EmbeddedEngine().open(DOCS, {"settings": {"index.query.default_field": 3}}, "id")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("hiking AND", "expected a term, a phrase, a range or '(', found the end"),
        ("(hiking", "expected rparen, found the end"),
        ('"hiking', "a quote '\"' without its closing quote"),
        ("hiking^", "a boost '^' needs a number after it"),
        ("hiking)", "unexpected ')' at character 6"),
        ("hik\\", "unexpected character '\\\\'"),
    ],
)
def test_query_string_syntax_errors_say_what_is_wrong(index: EmbeddedIndex, text: str, problem: str) -> None:
    with pytest.raises(RelevanceInputError) as error:
        hits(index, {"query_string": {"query": text, "fields": ["title"]}})
    message = str(error.value)
    assert "query.query_string.query" in message and "cannot parse the query string" in message
    assert problem in message, message


def test_the_lexer_takes_the_longest_token_and_the_grammars_kinds() -> None:
    kinds = [(t.kind, t.image) for t in lex('ANDroid AND && foo* *foo a-b -c "q \\" x"~2^3 [1 TO *} ! x')]
    assert kinds == [
        ("TERM", "ANDroid"), ("AND", "AND"), ("AND", "&&"), ("PREFIXTERM", "foo*"), ("WILDTERM", "*foo"),
        ("TERM", "a-b"), ("MINUS", "-"), ("TERM", "c"), ("QUOTED", '"q \\" x"'), ("FUZZY_SLOP", "~2"),
        ("CARAT", "^"), ("NUMBER", "3"), ("RANGEIN_START", "["), ("RANGE_GOOP", "1"), ("RANGE_TO", "TO"),
        ("RANGE_GOOP", "*"), ("RANGEEX_END", "}"), ("BAREOPER", "! "), ("TERM", "x"), ("EOF", ""),
    ]  # fmt: skip


def test_analyze_wildcard_analyzes_the_prefix_text() -> None:
    docs = [{"id": "a", "title": "Running shoes"}, {"id": "b", "title": "on-call runners"}]
    mapping = {"mappings": {"properties": {"title": {"type": "text", "analyzer": "english"}}}}
    index = EmbeddedEngine().open(docs, mapping, "id")
    for kind in ("query_string", "simple_query_string"):
        plain = {"query": "Running*", "fields": ["title"]}
        assert hits(index, {kind: plain}) == {}  # the normalized prefix "running": the index holds "run"
        assert set(hits(index, {kind: {**plain, "analyze_wildcard": True}})) == {"a", "b"}  # prefix "run"
    # several tokens: terms, then a prefix on the last one, joined by the default operator
    on_call = hits(index, {"query_string": {"query": "on-call*", "fields": ["title"], "analyze_wildcard": True}})
    assert set(on_call) == {"b"}
    expected = {"bool": {"should": [{"term": {"title": "on"}}, {"prefix": {"title": "call"}}]}}
    assert on_call == pytest.approx(hits(index, expected))


def test_query_string_type_phrase_makes_every_part_a_phrase(index: EmbeddedIndex) -> None:
    body = {"query": "running shoes OR guide", "fields": ["title", "body"], "type": "phrase"}
    phrase = {"multi_match": {"query": "running shoes", "fields": ["title", "body"], "type": "phrase"}}
    guide = {"multi_match": {"query": "guide", "fields": ["title", "body"], "type": "phrase"}}
    expected = hits(index, {"bool": {"should": [phrase, guide]}})
    assert hits(index, {"query_string": body}) == pytest.approx(expected)
    assert set(expected) == {"1", "2", "3"}


PIECES = ["hiking", "trail", " ", "AND", "OR", "NOT", "&&", "||", "!", "+", "-", "(", ")", '"', "*", "?", "~", "~1",
          "^2", ":", "title:", "n:", "\\", "[", "]", "{", "}", "TO", "/", "|", "the", "_exists_:", "*:", ">=3",
          "\\u0041", "\\u00", "~0.5", "^", '""', "()", "x*y", "\\*"]  # fmt: skip


def test_any_text_is_a_result_or_one_clear_error(index: EmbeddedIndex) -> None:
    """Seeded random texts from the syntax's pieces: each runs or is refused with a message naming the query,
    never a traceback (a Python error from inside the engine)."""
    rng = random.Random(20)
    refused = 0
    for _ in range(400):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 10)))
        for kind in ("query_string", "simple_query_string"):
            try:
                hits(index, {kind: {"query": text, "fields": ["title^2", "body", "n"], "lenient": True}})
            except RelevanceInputError as error:
                assert f"query.{kind}.query" in str(error)
                refused += 1
    assert refused > 0


def test_fields_and_default_field_together_are_refused_as_elasticsearch_refuses_them(index: EmbeddedIndex) -> None:
    with pytest.raises(RelevanceInputError, match=r"cannot use \[fields\] parameter in conjunction with \[default_"):
        hits(index, {"query_string": {"query": "trail", "fields": ["title"], "default_field": "body"}})


def test_a_regular_expression_the_engine_cannot_read_is_refused(index: EmbeddedIndex) -> None:
    with pytest.raises(RelevanceInputError, match=r"'\(the' is not a regular expression this engine reads"):
        hits(index, {"query_string": {"query": "/(the/", "fields": ["title"]}})


@pytest.mark.parametrize("kind", ["cross_fields", "phrase_prefix"])
def test_query_string_cross_fields_and_phrase_prefix_are_multi_match_of_that_type(
    index: EmbeddedIndex, kind: str
) -> None:
    fields = ["title^2", "body"]
    body = {"query": "running sho OR guide", "fields": fields, "type": kind}
    parts = [{"multi_match": {"query": q, "fields": fields, "type": kind}} for q in ("running sho", "guide")]
    expected = hits(index, {"bool": {"should": parts}})
    assert hits(index, {"query_string": body}) == pytest.approx(expected)
    assert expected
