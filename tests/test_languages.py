"""Other languages: the embedded engine's stop lists, Snowball stemmers, language lowercase filters and language
analyzers against reference data from real Lucene 9.9.1 (tests/lucene_extra/languages.py)."""

from __future__ import annotations

from pytest_relevance.engines.embedded.analysis import filters, stopwords

# Elasticsearch 8's Analysis.NAMED_STOP_WORDS.
ELASTICSEARCH_LISTS = [
    "arabic",
    "armenian",
    "basque",
    "bengali",
    "brazilian",
    "bulgarian",
    "catalan",
    "czech",
    "danish",
    "dutch",
    "english",
    "estonian",
    "finnish",
    "french",
    "galician",
    "german",
    "greek",
    "hindi",
    "hungarian",
    "indonesian",
    "irish",
    "italian",
    "latvian",
    "lithuanian",
    "norwegian",
    "persian",
    "portuguese",
    "romanian",
    "russian",
    "serbian",
    "sorani",
    "spanish",
    "swedish",
    "thai",
    "turkish",
]


def test_every_stop_list_elasticsearch_names_is_there() -> None:
    assert sorted(stopwords.NAMED) == sorted(f"_{name}_" for name in ELASTICSEARCH_LISTS)
    assert all(len(stopwords.NAMED[name]) >= 30 for name in stopwords.NAMED)


def test_english_is_the_constant_and_lucenes_file_agrees_with_it() -> None:
    assert stopwords.NAMED["_english_"] is filters.ENGLISH_STOP_WORDS
    assert stopwords._lists()["_english_"] == filters.ENGLISH_STOP_WORDS


def test_lists_hold_lucenes_words() -> None:
    """A few words each list must hold (Lucene's files), so a file that lost its words or encoding fails here."""
    assert {"le", "la", "et", "était", "êtes"} <= stopwords.NAMED["_french_"]
    assert {"der", "und", "für"} <= stopwords.NAMED["_german_"]
    assert {"и", "в", "не"} <= stopwords.NAMED["_russian_"]
    assert "_klingon_" not in stopwords.NAMED
