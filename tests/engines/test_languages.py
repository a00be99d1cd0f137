# ruff: noqa: RUF001 (Turkish dotless i and other letters of the languages are the point here)
"""Other languages: the embedded engine's stop lists, Snowball stemmers, language lowercase filters and language
analyzers against reference data from real Lucene 9.9.1 (tests/lucene_extra/languages.py)."""

from __future__ import annotations

import json
import lzma
from functools import cache
from pathlib import Path

import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine
from pytest_relevance.engines.embedded.analysis import Analysis, filters, snowball, stopwords
from pytest_relevance.errors import RelevanceInputError

REFERENCE = Path(__file__).resolve().parent.parent / "lucene_extra"
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


def analyzer_of(settings: dict, name: str = "x", base: Path | None = None):
    return Analysis.from_settings(settings, (base or Path(".")) / "index.yaml", base).analyzer(name, "test")


def one_filter(spec: dict, tokenizer: str = "standard") -> dict:
    return {"analysis": {"filter": {"f": spec}, "analyzer": {"x": {"tokenizer": tokenizer, "filter": ["f"]}}}}


@pytest.mark.parametrize(
    ("language", "snowball_name"),
    [
        ("danish", "Danish"),
        ("DUTCH_KP", "Kp"),
        ("dutchKp", "Kp"),
        ("kp", "Kp"),
        ("Lovins", "Lovins"),
        ("german2", "German2"),
        ("porter2", "English"),
        ("yiddish", "Yiddish"),  # the factory's fallback: Strings.capitalize, then the class by that exact name
        ("Tamil", "Tamil"),
    ],
)
def test_stemmer_names_that_build_snowball_stemmers(language: str, snowball_name: str) -> None:
    word = {"Danish": "hundene", "Kp": "fietsen", "Lovins": "nationality", "German2": "häuser", "English": "ponies",
            "Yiddish": "גייענדיק", "Tamil": "படங்கள்"}[snowball_name]  # fmt: skip
    stem = snowball.stemmer(snowball_name)(word)
    assert stem != word
    assert analyzer_of(one_filter({"type": "stemmer", "language": language}, "whitespace")).terms(word) == [stem]


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("YIDDISH", "the 'YIDDISH' stemmer is not supported by the embedded engine"),
    ],
)
def test_stemmer_names_without_a_snowball_stemmer_stay_refused(language: str, message: str) -> None:
    with pytest.raises(RelevanceInputError, match=message) as caught:
        analyzer_of(one_filter({"type": "stemmer", "language": language}))
    assert "settings.analysis.filter.f.language" in str(caught.value)


def test_the_snowball_filter_capitalizes_the_first_letter_only() -> None:
    assert analyzer_of(one_filter({"type": "snowball", "language": "german2"})).terms("häuser") == ["haus"]
    assert analyzer_of(one_filter({"type": "snowball", "name": "russian"})).terms("книги") == ["книг"]
    with pytest.raises(RelevanceInputError, match="Lucene has no Snowball stemmer 'GERMAN2'; the languages are"):
        analyzer_of(one_filter({"type": "snowball", "language": "gERMAN2"}))


def test_the_snowball_analyzer_takes_the_class_name_exactly_with_its_default_stop_words() -> None:
    def analyzer(**spec: object):
        return analyzer_of({"analysis": {"analyzer": {"x": {"type": "snowball", **spec}}}})

    assert analyzer(language="French").terms("Le chat des voisins") == ["chat", "voisin"]
    assert analyzer(language="Danish").terms("og hundene") == ["og", "hund"]  # no default stop words but these five
    assert analyzer(language="Danish", stopwords="_danish_").terms("og hundene") == ["hund"]
    assert analyzer(language="Turkish").terms("IŞIKLAR") == ["ışık"]
    with pytest.raises(RelevanceInputError, match=r"'french' \(the snowball analyzer takes the name exactly\)"):
        analyzer(language="french")


def test_lowercase_languages_and_an_unknown_one() -> None:
    assert analyzer_of(one_filter({"type": "lowercase", "language": "Turkish"})).terms("DİYARBAKIR") == ["diyarbakır"]
    assert analyzer_of(one_filter({"type": "lowercase", "language": "greek"})).terms("ΆΡΗΣ") == ["αρησ"]
    assert analyzer_of(one_filter({"type": "lowercase", "language": "irish"})).terms("nAthair") == ["n-athair"]
    with pytest.raises(
        RelevanceInputError, match=r"settings\.analysis\.filter\.f\.language: Elasticsearch has no 'dutch'"
    ):
        analyzer_of(one_filter({"type": "lowercase", "language": "dutch"}))


def test_a_language_lowercase_filter_works_in_a_normalizer() -> None:
    settings = {
        "analysis": {
            "filter": {"tr": {"type": "lowercase", "language": "turkish"}},
            "normalizer": {"n": {"type": "custom", "filter": ["tr"]}},
        }
    }
    assert Analysis.from_settings(settings, "index.yaml").normalizer("n", "test").terms("ISPARTA") == ["ısparta"]


def test_language_analyzers_read_stopwords_path_and_stem_exclusion(tmp_path: Path) -> None:
    (tmp_path / "stop.txt").write_text("# mine\nhunden\n_danish_\n", encoding="utf-8")
    spec = {"type": "danish", "stopwords_path": "stop.txt", "stem_exclusion": ["katten"]}
    analyzer = analyzer_of({"analysis": {"analyzer": {"x": spec}}}, base=tmp_path)
    assert analyzer.terms("Hunden og katten og hestene") == ["katten", "hest"]
    none = {"analysis": {"analyzer": {"x": {"type": "danish", "stem_exclusion": "_none_"}}}}
    assert analyzer_of(none).terms("katten") == ["kat"]


def test_a_misspelt_language_analyzer_option_is_ignored_with_a_warning() -> None:
    analysis = Analysis.from_settings(
        {"analysis": {"analyzer": {"x": {"type": "swedish", "stem_exlusion": ["katter"]}}}}, "index.yaml", None
    )
    assert analysis.analyzer("x", "test").terms("katter") == ["katt"]  # not excluded: Elasticsearch ignores the key
    (message,) = analysis.warnings
    assert message.startswith("settings.analysis.analyzer.x.stem_exlusion: not an option of the swedish analyzer")


def test_language_analyzers_others_still_need_stay_refused() -> None:
    """Thai words come from the JDK's dictionary break iterator: the refusal says so, and who runs it."""
    with pytest.raises(RelevanceInputError) as caught:
        analyzer_of({"analysis": {}}, "thai")
    assert str(caught.value).endswith(
        "the analyzer 'thai' (its words come from the JDK's Thai dictionary break iterator, which has no exact port "
        "here) is not supported by the embedded engine; the elasticsearch engine supports it"
    )


def test_a_language_analyzer_in_a_mapping_analyzes_documents_and_queries() -> None:
    docs = [
        {"id": "d0", "title": "Новая книга о кошках"},
        {"id": "d1", "title": "Книги и журналы"},
        {"id": "d2", "title": "Собаки в парке"},
    ]
    settings = {
        "settings": {"analysis": {"analyzer": {"ru": {"type": "russian", "stem_exclusion": ["журналы"]}}}},
        "mappings": {"properties": {"title": {"type": "text", "analyzer": "ru"}}},
    }
    index = EmbeddedEngine().open(docs, settings, "id")

    def found(text: str) -> set[str]:
        hits = index.search_many({"q": {"query": {"match": {"title": text}}}}, 10, "query.yaml")["q"]
        return {doc for doc, _ in hits}

    assert found("книгами") == {"d0", "d1"}  # книга, книги, книгами share the stem книг
    assert found("журналы") == {"d1"}
    assert found("журнал") == set()  # the excluded word keeps its ending, so its stem matches nothing
    assert found("и о в") == set()  # Lucene's Russian stop words
