"""Other languages: the embedded engine's stop lists, Snowball stemmers, language lowercase filters and language
analyzers against reference data from real Lucene 9.9.1 (tests/lucene_extra/languages.py)."""

from __future__ import annotations

import json
import lzma
from functools import cache
from pathlib import Path

import pytest

from pytest_relevance.engines.embedded.analysis import Analysis, filters, snowball, stopwords

REFERENCE = Path(__file__).resolve().parent / "lucene_extra"
SAMPLE = 15  # the default run checks every 15th word of each list, and every edge case; `-m languages_full` all


@cache
def lucene_stems() -> dict[str, list[tuple[str, str]]]:
    """Stemmer name -> (word, Lucene's stem) for its language's words (snowball_stems.txt.xz; languages.py)."""
    text = lzma.decompress((REFERENCE / "snowball_stems.txt.xz").read_bytes()).decode("utf-8", "surrogatepass")
    words: dict[str, list[str]] = {}
    edits: dict[str, tuple[str, list[str]]] = {}
    current: list[str] = []
    for line in text.split("\n")[:-1]:
        if line.startswith("@"):
            current = words.setdefault(line[1:], [])
        elif line.startswith("#"):
            name, code = line[1:].split(" ")
            current = []
            edits[name] = (code, current)
        else:
            current.append(line)
    out = {}
    for name, (code, lines) in edits.items():
        assert len(lines) == len(words[code])
        out[name] = [(word, apply(word, line)) for word, line in zip(words[code], lines, strict=True)]
    return out


def apply(word: str, edit: str) -> str:
    """A stem from its edit of the word: empty is the word; else characters dropped, a tab, characters added."""
    if not edit:
        return word
    cut, _, gained = edit.partition("\t")
    return word[: len(word) - int(cut)] + gained


def stem_cases(full: bool) -> list:
    """(stemmer, word, stem): every word when full, else a sample that keeps the edge cases at each list's end."""
    cases = []
    for name, pairs in lucene_stems().items():
        keep = pairs if full else pairs[::SAMPLE] + pairs[-40:]
        cases += [(name, word, stem) for word, stem in keep]
    return cases


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


def test_every_snowball_stemmer_lucene_ships_is_here() -> None:
    assert set(lucene_stems()) == snowball.LANGUAGES
    assert len(snowball.LANGUAGES) == 33


def check_stems(full: bool) -> None:
    wrong = [(n, w, s, snowball.stemmer(n)(w)) for n, w, s in stem_cases(full) if snowball.stemmer(n)(w) != s]
    assert wrong == []


def test_snowball_stems_equal_lucenes_on_a_sample_of_real_words() -> None:
    check_stems(full=False)


@pytest.mark.languages_full
def test_snowball_stems_equal_lucenes_on_every_word() -> None:
    check_stems(full=True)


def test_terms_beyond_the_bmp_are_stemmed_by_utf16_unit_as_in_java() -> None:
    """Java counts 😀 as two characters: Porter2's short-word rule sees `a😀` as long (Lucene's stem), PyStemmer
    alone as short; a half surrogate pair (a truncated token) is no letter either, and comes back as it was."""
    assert snowball.stemmer("English")("a😀ing") == "a😀"
    assert snowball.stemmer("Lovins")("😀s") == "😀"
    assert snowball.stemmer("English")("cats\ud83d") == "cats\ud83d"
    assert snowball.stemmer("English")("a\ue000😀ing") == "a\ue000😀"  # its own private-use letter is kept


@cache
def lucene_tokens() -> dict:
    """languages.json.xz (languages.py): texts by group, and per case its Elasticsearch settings and Lucene's tokens."""
    return json.loads(lzma.decompress((REFERENCE / "languages.json.xz").read_bytes()).decode("utf-8", "surrogatepass"))


def token_mismatches(name: str, full: bool) -> list:
    case = lucene_tokens()["cases"][name]
    analyzer = Analysis.from_settings(case["settings"], "languages.json.xz").analyzer(case["analyzer"], "test")
    texts = lucene_tokens()["texts"][case["texts"]]
    wrong = []
    for index in range(0, len(texts), 1 if full else SAMPLE // 3):
        got = [
            [t.term, t.position, t.start_offset, t.end_offset, t.position_length]
            for t in analyzer.analyze(texts[index])
        ]
        if got != case["tokens"][index]:
            wrong.append((texts[index], got, case["tokens"][index]))
    return wrong


def token_cases() -> list[str]:
    return sorted(lucene_tokens()["cases"])


@pytest.mark.parametrize("name", token_cases())
def test_language_analyzers_and_filters_equal_lucene_token_for_token(name: str) -> None:
    assert token_mismatches(name, full=False) == []


@pytest.mark.languages_full
@pytest.mark.parametrize("name", token_cases())
def test_language_analyzers_and_filters_equal_lucene_on_every_text(name: str) -> None:
    assert token_mismatches(name, full=True) == []
