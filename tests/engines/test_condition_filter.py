"""The `condition` token filter: Lucene's ConditionalTokenFilter around a chain, a Painless predicate choosing the
tokens the chain sees (issue 20 item 3).

The reference (tests/lucene_extra/condition.py) runs real Lucene 9.9.1: its ProtectedTermFilter is a
ConditionalTokenFilter, so for predicates of the term alone it is the same filter. Predicates on positions,
offsets and keyword flags are checked against hand-derived expectations from Elasticsearch's
AnalysisPredicateScript.Token.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from pytest_relevance.engines.embedded.analysis import Analysis
from pytest_relevance.errors import RelevanceInputError

REFERENCE = json.loads(
    gzip.decompress((Path(__file__).parent.parent / "lucene_extra" / "condition.json.gz").read_bytes())
)


def settings(script: object, wrapped: list[str], before: tuple[str, ...] = (), **filters: dict) -> dict:
    return {
        "analysis": {
            "filter": {**filters, "cond": {"type": "condition", "filter": wrapped, "script": script}},
            "analyzer": {"a": {"tokenizer": "standard", "filter": [*before, "cond"]}},
        }
    }


def analyzed(config: dict, text: str) -> list[tuple[str, int]]:
    analysis = Analysis.from_settings(config, "index.yaml")
    analysis.check_definitions()
    return [(t.term, t.position) for t in analysis.analyzer("a", "test").analyze(text)]


def refused(config: dict, *fragments: str, text: str = "some text") -> str:
    with pytest.raises(RelevanceInputError) as caught:
        analyzed(config, text)
    for fragment in fragments:
        assert fragment in str(caught.value)
    return str(caught.value)


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=[case["name"] for case in REFERENCE["cases"]])
def test_tokens_positions_offsets_and_end_match_lucene(case: dict) -> None:
    analyzer = Analysis.from_settings(case["settings"], "index.yaml").analyzer("a", "test")
    for text, expected in zip(case["texts"], case["tokens"], strict=True):
        got = [[t.term, t.position, t.start_offset, t.end_offset, t.position_length] for t in analyzer.analyze(text)]
        _, end_increment, final = analyzer._stream(text)
        assert [*got, ["", end_increment, final]] == expected, text


def test_the_elasticsearch_docs_example_lowercases_only_the_short_words() -> None:
    config = settings({"source": "token.getTerm().length() < 5"}, ["lowercase"])
    assert [term for term, _ in analyzed(config, "THE QUICK BROWN FOX")] == ["the", "QUICK", "BROWN", "fox"]


def test_the_script_sees_positions_counted_over_every_input_token_from_zero() -> None:
    # the stop filter leaves positions 0, 2, 3, 4 (the gap of "the" counts): uppercase the even ones
    config = settings({"source": "token.getPosition() % 2 == 0"}, ["uppercase"], ("stop",))
    assert analyzed(config, "one the three four five") == [("ONE", 0), ("THREE", 2), ("four", 3), ("FIVE", 4)]
    # getPositionIncrement is the input's: the word after the removed "the" has 2
    gap = settings({"source": "token.getPositionIncrement() > 1"}, ["uppercase"], ("stop",))
    assert analyzed(gap, "one the three four") == [("one", 0), ("THREE", 2), ("four", 3)]


def test_the_script_reads_offsets_the_keyword_flag_and_getter_shortcuts() -> None:
    offsets = settings({"source": "token.startOffset >= 4 && token.getEndOffset() <= 9"}, ["uppercase"])
    assert [term for term, _ in analyzed(offsets, "the quick brown")] == ["the", "QUICK", "brown"]
    marked = settings(
        {"source": "!token.isKeyword()"},
        ["porter_stem"],
        ("marker",),
        marker={"type": "keyword_marker", "keywords": ["running"]},
    )
    assert [term for term, _ in analyzed(marked, "running jumping")] == ["running", "jump"]


def test_the_term_is_a_char_sequence_not_a_string() -> None:
    # CharTermAttribute.equals(String) is false both ways; its toString() is the String
    never = settings({"source": "token.getTerm() == 'fox'"}, ["uppercase"])
    assert [term for term, _ in analyzed(never, "the fox")] == ["the", "fox"]
    text = settings({"source": "token.getTerm().toString() == 'fox'"}, ["uppercase"])
    assert [term for term, _ in analyzed(text, "the fox")] == ["the", "FOX"]
    refused(
        settings({"source": "token.getTerm().startsWith('f')"}, ["uppercase"]),
        "settings.analysis.filter.cond.script.source",
        "member method [CharSequence, startsWith/1] not found",
    )
    refused(
        settings({"source": "def t = token.getTerm(); t.startsWith('f')"}, ["uppercase"]),
        "Painless runtime error",
        "startsWith/1] not found",
        "(on the token 'some')",
    )


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        ({"id": "my-script"}, "Cannot use stored scripts in tokenfilter [cond]"),
        ("token.getTerm().length() < 5", "needs a script object"),
        ({"source": "token.getTerm().length() < 5", "lang": "expression"}, "runs painless only"),
        ({"source": "token.foo()"}, "member method [AnalysisPredicateScript.Token, foo/0] not found"),
        ({"source": "token.term.length()"}, "Cannot cast from [int] to [boolean]"),
        ({"source": "params.max > 1"}, "cannot resolve symbol [params]"),
        ({"source": "doc['f'].value == 1"}, "cannot resolve symbol [doc]"),
        ({"source": "token.getType() == '<NUM>'"}, "getType is not supported"),
        ({"source": "token.getTerm().charAt(9) == 'x'"}, "Painless runtime error"),
        ({"source": "token.position"}, "Cannot cast from [int] to [boolean]"),
        ({"source": "def n = token.position; n"}, "Cannot cast [java.lang.Integer] to [boolean]"),
    ],
)
def test_scripts_elasticsearch_refuses_are_errors_naming_the_script(script: object, problem: str) -> None:
    message = refused(settings(script, ["lowercase"]), problem)
    assert "settings.analysis.filter.cond.script" in message


def test_an_unused_condition_without_filters_refuses_the_index() -> None:
    config = {"analysis": {"filter": {"cond": {"type": "condition", "filter": [], "script": {"source": "true"}}}}}
    with pytest.raises(RelevanceInputError, match=r"Empty list of filters provided to tokenfilter \[cond\]"):
        Analysis.from_settings(config, "index.yaml").check_definitions()


def test_a_broken_script_refuses_the_index_even_when_no_analyzer_uses_it() -> None:
    config = {
        "analysis": {
            "filter": {"cond": {"type": "condition", "filter": ["lowercase"], "script": {"source": "token.x"}}}
        }
    }
    with pytest.raises(RelevanceInputError, match=r"field \[AnalysisPredicateScript\.Token, x\] not found"):
        Analysis.from_settings(config, "index.yaml").check_definitions()


def test_the_wrapped_filters_must_be_named_and_known() -> None:
    refused(settings({"source": "true"}, []), "Empty list of filters provided to tokenfilter [cond]")
    refused(settings({"source": "true"}, ["no_such_filter"]), "settings.analysis.filter.cond.filter[0]")
    looped = settings({"source": "true"}, ["cond"])
    refused(looped, "wraps itself")
    normalizer = {
        "analysis": {
            "filter": {"cond": {"type": "condition", "filter": ["lowercase"], "script": {"source": "true"}}},
            "normalizer": {"n": {"type": "custom", "filter": ["cond"]}},
        }
    }
    with pytest.raises(RelevanceInputError, match="cannot be used in a normalizer"):
        Analysis.from_settings(normalizer, "index.yaml").normalizer("n", "test")
