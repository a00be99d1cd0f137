"""Analysis settings Elasticsearch refuses, or reads differently from a naive reading, as the embedded engine must.

Each case cites the Elasticsearch or Lucene check it mirrors; before these tests the embedded engine accepted the
setting and analyzed text anyway (or ignored an index-level limit the config raised).
"""

from __future__ import annotations

import pytest

from pytest_relevance.engines.embedded.analysis import Analysis
from pytest_relevance.errors import RelevanceInputError


def terms(settings: dict, text: str) -> list[str]:
    """Terms of analyzer `x` under full index settings (`analysis` plus any index-level keys)."""
    return Analysis.from_settings(settings, "index.yaml", None).analyzer("x", "test").terms(text)


def one(tokenizer: str | dict, *filters: str | dict, **index: object) -> dict:
    """Index settings with one custom analyzer `x` (a dict is defined as tokenizer `t` or filter `f0`, `f1`...)
    and index-level keys such as max_ngram_diff."""
    analysis: dict = {"tokenizer": {}, "filter": {}}
    if isinstance(tokenizer, dict):
        analysis["tokenizer"]["t"], tokenizer = tokenizer, "t"
    names = []
    for i, spec in enumerate(filters):
        if isinstance(spec, dict):
            analysis["filter"][f"f{i}"], spec = spec, f"f{i}"
        names.append(spec)
    analysis["analyzer"] = {"x": {"tokenizer": tokenizer, "filter": names}}
    return {"index": dict(index), "analysis": analysis}


def refused(settings: dict, *fragments: str) -> None:
    with pytest.raises(RelevanceInputError) as caught:
        terms(settings, "text")
    for fragment in fragments:
        assert fragment in str(caught.value)


# IndexSettings.MAX_NGRAM_DIFF_SETTING (default 1) and MAX_SHINGLE_DIFF_SETTING (default 3), read by
# NGramTokenizerFactory, NGramTokenFilterFactory and ShingleTokenFilterFactory.


def test_a_raised_max_ngram_diff_allows_wider_ngrams_in_every_spelling_of_the_setting() -> None:
    wide = {"type": "ngram", "min_gram": 1, "max_gram": 3}
    expected = ["a", "ab", "abc", "b", "bc", "c"]
    assert terms(one(wide, max_ngram_diff=2), "abc") == expected
    assert terms({**one(wide), "index.max_ngram_diff": "2"}, "abc") == expected
    assert terms({"max_ngram_diff": 2, "analysis": one(wide)["analysis"]}, "abc") == expected
    assert terms(one("standard", {"type": "ngram", "min_gram": 1, "max_gram": 3}, max_ngram_diff=2), "ab") == [
        "a", "ab", "b"
    ]  # fmt: skip
    refused(one(wide), "max_ngram_diff (1)")
    refused(one(wide, max_ngram_diff=1), "index.max_ngram_diff")


def test_shingle_sizes_beyond_max_shingle_diff_are_refused_counting_unigrams() -> None:
    wide = {"type": "shingle", "min_shingle_size": 2, "max_shingle_size": 5}
    refused(one("whitespace", wide), "index.max_shingle_diff (3)", "is 4")
    assert terms(one("whitespace", {**wide, "output_unigrams": False}), "a b c") == ["a b", "a b c", "b c"]
    assert terms(one("whitespace", wide, max_shingle_diff=4), "a b") == ["a", "a b", "b"]


@pytest.mark.parametrize("kind", ["ngram", "edge_ngram"])
@pytest.mark.parametrize(("lo", "hi", "problem"), [(3, 2, "must not be greater than max_gram"), (0, 1, "at least 1")])
def test_gram_sizes_lucene_refuses_are_errors(kind: str, lo: int, hi: int, problem: str) -> None:
    spec = {"type": kind, "min_gram": lo, "max_gram": hi}
    refused(one(spec), problem)
    refused(one("standard", spec), problem)


def test_edge_ngram_side_is_front_or_back() -> None:
    """EdgeNGramTokenFilterFactory.parseSide: `back` is a ReverseStringFilter on each side of the edge grams (the
    Lucene reference is the edge_ngram_filter_back case of tests/lucene_extra/tokens.json.gz); anything else is
    its IllegalArgumentException."""
    back = {"type": "edge_ngram", "min_gram": 1, "max_gram": 3, "side": "back"}
    assert terms(one("standard", back), "boots") == ["s", "ts", "ots"]
    refused(one("standard", {**back, "side": "middle"}), "filter.f0.side: invalid side: middle")


# StemmerTokenFilterFactory: `language.equalsIgnoreCase(...)`, with lightEnglish, minimalEnglish, possessiveEnglish;
# SnowballTokenFilterFactory: Strings.capitalize(language), `name` when `language` is absent.


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"type": "stemmer", "language": "English"}, ["run", "poni"]),
        ({"type": "stemmer", "language": "lightEnglish"}, ["running", "pony"]),
        ({"type": "stemmer", "name": "Light_English"}, ["running", "pony"]),
        ({"type": "stemmer", "language": "minimalEnglish"}, ["running", "pony"]),
        ({"type": "stemmer", "language": "PORTER2"}, ["run", "poni"]),
        ({"type": "stemmer"}, ["run", "poni"]),
        ({"type": "snowball", "language": "english"}, ["run", "poni"]),
        ({"type": "snowball", "name": "english"}, ["run", "poni"]),
    ],
)
def test_stemmer_names_are_matched_as_elasticsearch_matches_them(spec: dict, expected: list[str]) -> None:
    assert terms(one("standard", "lowercase", spec), "running ponies") == expected


def test_a_snowball_language_elasticsearch_cannot_find_stays_refused() -> None:
    refused(one("standard", {"type": "snowball", "language": "ENGLISH"}), "'ENGLISH'", "language")


# Analysis.parseStopWords -> parseWords: inline `stopwords` before `stopwords_path`, named lists resolved in both.


@pytest.mark.parametrize(
    "spec",
    [
        {"stopwords": ["_english_", "quick"]},
        {"stopwords": "_english_, quick"},
        {"stopwords": ["_english_", "quick"], "stopwords_path": "absent.txt"},
    ],
)
def test_stop_words_mix_named_lists_with_words_inline_first(spec: dict) -> None:
    assert terms(one("standard", "lowercase", {"type": "stop", **spec}), "The quick fox") == ["fox"]


def test_a_stop_words_file_may_name_a_list(tmp_path) -> None:
    (tmp_path / "stop.txt").write_text("# mine\n_english_\nquick\n", encoding="utf-8")
    settings = one("standard", "lowercase", {"type": "stop", "stopwords_path": "stop.txt"})
    analysis = Analysis.from_settings(settings, tmp_path / "index.yaml", tmp_path)
    assert analysis.analyzer("x", "test").terms("The quick fox") == ["fox"]


def test_other_languages_named_lists_expand_inline_and_in_files(tmp_path) -> None:
    spec = {"type": "stop", "stopwords": ["_french_", "chat"]}
    assert terms(one("standard", "lowercase", spec), "Le chat et la souris") == ["souris"]
    (tmp_path / "stop.txt").write_text("_german_\n_dutch_\n", encoding="utf-8")
    settings = one("standard", "lowercase", {"type": "stop", "stopwords_path": "stop.txt"})
    analysis = Analysis.from_settings(settings, tmp_path / "index.yaml", tmp_path)
    assert analysis.analyzer("x", "test").terms("Der Hund en de kat") == ["hund", "kat"]


@pytest.mark.parametrize("stopwords", [["_cjk_", "le"], "_cjk_, le", "_cjk_"])
def test_an_unknown_named_list_is_a_literal_word_with_a_warning(stopwords: list[str] | str) -> None:
    # Analysis.resolveNamedWords: a word that names no list is added as is
    settings = one("whitespace", {"type": "stop", "stopwords": stopwords})
    assert terms(settings, "_cjk_ le _french_") == ["_french_"] if "le" in stopwords else ["le", "_french_"]
    analysis = Analysis.from_settings(settings, "index.yaml", None)
    analysis.check_definitions()
    (message,) = analysis.warnings
    assert message.startswith(
        "settings.analysis.filter.f0.stopwords: '_cjk_' is not a stop list Elasticsearch names, so it stops the "
        "literal word '_cjk_' there and here; the lists are _arabic_, "
    )


# CommonAnalysisPlugin: a name used without a definition is the pre-configured component, which can differ from a
# definition without options; the camelCase n-gram names throw for indices created by version 8.


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        (one("edge_ngram"), ["a"]),
        (one({"type": "edge_ngram"}), ["a", "ab"]),
        (one("keyword", "edge_ngram"), ["a"]),
        (one("keyword", {"type": "edge_ngram"}), ["a", "ab"]),
        (one("keyword", "truncate"), ["abcdefghij"]),
        (one("keyword", {"type": "truncate", "length": 3}), ["abc"]),
    ],
)
def test_pre_configured_components_keep_their_own_defaults(settings: dict, expected: list[str]) -> None:
    assert terms(settings, "abcdefghijkl") == expected


def test_pre_configured_elision_strips_french_articles_in_any_case() -> None:
    assert terms(one("standard", "elision"), "L'avion d'Air") == ["avion", "Air"]


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ({"type": "truncate"}, "needs a length"),
        ({"type": "truncate", "length": 0}, "needs a length"),
        ({"type": "elision"}, "needs articles"),
    ],
)
def test_definitions_missing_what_elasticsearch_requires_are_refused(spec: dict, problem: str) -> None:
    refused(one("standard", spec), problem)


@pytest.mark.parametrize(
    ("settings", "name"),
    [
        (one({"type": "nGram"}), "'ngram'"),
        (one({"type": "edgeNGram"}), "'edge_ngram'"),
        (one("standard", "nGram"), "'ngram'"),
        (one("standard", {"type": "edgeNGram"}), "'edge_ngram'"),
    ],
)
def test_camel_case_ngram_names_are_refused_as_in_new_elasticsearch_8_indices(settings: dict, name: str) -> None:
    refused(settings, "Elasticsearch 8 refuses", name)


# Range checks in Lucene's constructors (StandardTokenizer.setMaxTokenLength, CharTokenizer, ClassicTokenizer,
# LimitTokenCountFilter, LengthFilter) and KeywordMarkerTokenFilterFactory's exclusive options.


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        (one({"type": "standard", "max_token_length": 0}), "max_token_length"),
        (one({"type": "standard", "max_token_length": 1024 * 1024 + 1}), "max_token_length"),
        (one({"type": "whitespace", "max_token_length": -1}), "max_token_length"),
        (one({"type": "uax_url_email", "max_token_length": 0}), "max_token_length"),
        (one({"type": "classic", "max_token_length": 0}), "max_token_length"),
        (one({"type": "char_group", "tokenize_on_chars": ["-"], "max_token_length": 0}), "max_token_length"),
        (one("standard", {"type": "limit", "max_token_count": 0}), "max_token_count"),
        (one("standard", {"type": "length", "min": -1}), "min"),
        (one("standard", {"type": "length", "min": 5, "max": 2}), "max"),
    ],
)
def test_option_values_lucene_refuses_are_errors_naming_the_key(settings: dict, key: str) -> None:
    refused(settings, f".{key}: must be between")


def test_the_standard_analyzer_range_checks_max_token_length_too() -> None:
    settings = {"analysis": {"analyzer": {"x": {"type": "standard", "max_token_length": 0}}}}
    refused(settings, "settings.analysis.analyzer.x.max_token_length")


def test_keyword_marker_refuses_a_pattern_with_a_word_list() -> None:
    spec = {"type": "keyword_marker", "keywords_pattern": "run.*", "keywords": ["jumping"]}
    refused(one("standard", spec, "porter_stem"), "keywords_pattern cannot be combined")


# Regex.flagsFromString: names split on `|`, upper-cased, an unknown name throws.


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ("CASE_INSENSITIVE", ["a", "b", "c"]),
        ("case_insensitive", ["a", "b", "c"]),
        ("COMMENTS|CASE_INSENSITIVE", ["a", "b", "c"]),
        ("", ["aXb", "c"]),
    ],
)
def test_pattern_flags_are_read_in_any_case(flags: str, expected: list[str]) -> None:
    assert terms(one({"type": "pattern", "pattern": "x", "flags": flags}), "aXbxc") == expected


def test_the_literal_flag_matches_the_pattern_as_text() -> None:
    spec = {"type": "pattern_replace", "pattern": "a.c", "replacement": "-", "flags": "LITERAL"}
    assert terms(one("keyword", spec), "abc a.c") == ["abc -"]


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        ("CASE_INSENSITIVE|NOPE", "unknown regex flag 'NOPE'"),
        ("CASE_INSENSITIVE,MULTILINE", "unknown regex flag"),
        ("UNIX_LINES", "UNIX_LINES is not supported"),
        ("CASE_INSENSITIVE|UNICODE_CASE", "UNICODE_CASE is not supported"),
    ],
)
def test_regex_flags_elasticsearch_refuses_or_the_engine_lacks_are_errors(flags: str, problem: str) -> None:
    refused(one({"type": "pattern", "pattern": "x", "flags": flags}), ".t.flags", problem)


# Elasticsearch accepts any key under index.analysis and each factory reads its own, ignoring the rest
# (elastic/elasticsearch#16451, #27814, #41299): the embedded engine builds the index too, and warns of each such key,
# so a misspelt option does not pass unnoticed.


def warned(analysis: dict) -> list[str]:
    """The warnings of an index config with this analysis (every component it defines is built, as at index
    creation)."""
    loaded = Analysis.from_settings({"analysis": analysis}, "index.yaml", None)
    loaded.check_definitions()
    return loaded.warnings


@pytest.mark.parametrize(
    ("analysis", "key_path"),
    [
        ({"analyzer": {"x": {"tokenizer": "standard", "filters": ["lowercase"]}}}, "analyzer.x.filters"),
        ({"analyzer": {"x": {"type": "standard", "filter": ["lowercase"]}}}, "analyzer.x.filter"),
        ({"analyzer": {"default": {"type": "standard", "language": "english"}}}, "analyzer.default.language"),
        ({"analyzer": {"x": {"type": "whitespace", "max_token_length": 3}}}, "analyzer.x.max_token_length"),
        (one("standard", {"type": "stop", "stopword": ["the"]})["analysis"], "filter.f0.stopword"),
        (one("standard", {"type": "reverse", "all": True})["analysis"], "filter.f0.all"),
        (one("standard", {"type": "word_delimiter", "ignore_keywords": True})["analysis"], "filter.f0.ignore_keywords"),
        (one("standard", {"type": "word_delimiter", "stem_english_possesive": False})["analysis"],
         "filter.f0.stem_english_possesive"),
        (one({"type": "pattern", "pattern": ",", "group_": 1})["analysis"], "tokenizer.t.group_"),
        (
            {
                "analyzer": {"x": {"tokenizer": "keyword", "char_filter": ["m"]}},
                "char_filter": {"m": {"type": "mapping", "mappings": ["a => b"], "mapping": ["a => c"]}},
            },
            "char_filter.m.mapping",
        ),
        ({"char_filter": {"h": {"type": "html_strip", "_name": "strip"}}}, "char_filter.h._name"),
        ({"filter": {"unused": {"type": "lowercase", "languge": "greek"}}}, "filter.unused.languge"),
    ],
)  # fmt: skip
def test_a_key_the_component_does_not_read_is_accepted_with_a_warning_naming_it(analysis: dict, key_path: str) -> None:
    (message,) = warned(analysis)
    assert message.startswith(f"settings.analysis.{key_path}: not an option of the ")
    assert "Elasticsearch accepts it and ignores it, and so does the embedded engine" in message


def test_the_analyzer_still_analyzes_as_elasticsearch_without_the_ignored_key() -> None:
    analysis = one("standard", {"type": "word_delimiter", "stem_english_possesive": False})
    assert terms(analysis, "John's wi-fi") == terms(one("standard", {"type": "word_delimiter"}), "John's wi-fi")


def test_a_custom_analyzers_offset_gap_is_read_not_warned_of() -> None:
    analysis = {"analyzer": {"x": {"tokenizer": "standard", "offset_gap": 10, "position_increment_gap": 5}}}
    assert warned(analysis) == []
    with pytest.raises(RelevanceInputError, match=r"settings.analysis.analyzer.x.offset_gap: expected int"):
        warned({"analyzer": {"x": {"tokenizer": "standard", "offset_gap": "wide"}}})


def test_a_normalizer_with_a_tokenizer_is_refused_as_elasticsearch_refuses_it() -> None:
    loaded = Analysis.from_settings(
        {"analysis": {"normalizer": {"n": {"filter": ["lowercase"], "tokenizer": "standard"}}}}, "index.yaml", None
    )
    with pytest.raises(RelevanceInputError) as caught:
        loaded.normalizer("n", "test")
    assert str(caught.value) == (
        "index.yaml: settings.analysis.normalizer.n.tokenizer: Custom normalizer [n] cannot configure a tokenizer, "
        "as Elasticsearch refuses it: a normalizer is always the keyword tokenizer, give it filters only"
    )


def test_every_documented_option_of_a_component_is_still_accepted() -> None:
    spec = {
        "type": "word_delimiter_graph", "adjust_offsets": False, "ignore_keywords": True, "catenate_all": True,
        "generate_word_parts": True, "generate_number_parts": True, "catenate_words": False, "catenate_numbers": False,
        "split_on_case_change": True, "preserve_original": False, "split_on_numerics": True,
        "stem_english_possessive": True, "protected_words": ["Wi-Fi"], "type_table": ["$ => DIGIT"],
    }  # fmt: skip
    assert terms(one("whitespace", spec), "Wi-Fi Power-Shot") == ["Wi-Fi", "PowerShot", "Power", "Shot"]
    shingle = {"type": "shingle", "min_shingle_size": 2, "max_shingle_size": 2, "output_unigrams": False,
               "output_unigrams_if_no_shingles": True, "token_separator": "_", "filler_token": "-"}  # fmt: skip
    assert terms(one("whitespace", shingle), "a b") == ["a_b"]
    limit = {"type": "limit", "max_token_count": 1, "consume_all_tokens": True}
    assert terms(one("whitespace", limit), "a b") == ["a"]


def test_the_whitespace_analyzer_ignores_max_token_length_as_elasticsearch_does() -> None:
    """WhitespaceAnalyzerProvider reads no setting: tokens are cut at Lucene's 255, whatever the config says; the
    key is refused above, and the analyzer itself keeps 255."""
    settings = {"analysis": {"analyzer": {"x": {"type": "whitespace"}}}}
    assert terms(settings, "a" * 300) == ["a" * 255, "a" * 45]


# PathHierarchyTokenizerFactory ("delimiter/replacement must be a one char value"), PathHierarchyTokenizer (negative
# skip or bufferSize) and KeywordTokenizer (bufferSize outside 1..1048576).


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ({"type": "path_hierarchy", "delimiter": "::"}, "delimiter"),
        ({"type": "path_hierarchy", "replacement": "->"}, "replacement"),
        ({"type": "path_hierarchy", "skip": -1}, "skip"),
        ({"type": "path_hierarchy", "buffer_size": -1}, "buffer_size"),
        ({"type": "keyword", "buffer_size": 0}, "buffer_size"),
    ],
)
def test_tokenizer_options_elasticsearch_refuses_are_errors(spec: dict, key: str) -> None:
    refused(one(spec), f"tokenizer.t.{key}: must be")


def test_path_hierarchy_with_its_one_character_options() -> None:
    spec = {"type": "path_hierarchy", "delimiter": "-", "replacement": "/", "skip": 1, "buffer_size": 10}
    assert terms(one(spec), "a-b-c") == ["/b", "/b/c"]


# java.util.regex.Matcher.appendReplacement, which PatternReplaceFilter and PatternReplaceCharFilter use.


@pytest.mark.parametrize(
    ("replacement", "expected"),
    [
        ("\\$1", "$1b"),
        ("${w}!", "a!b"),
        ("$10", "a0b"),
        ("x\\y", "xyb"),
        ("a\\\\b", "a\\bb"),
        ("$0$1", "aab"),
    ],
)
def test_replacements_read_as_java_reads_them(replacement: str, expected: str) -> None:
    spec = {"type": "pattern_replace", "pattern": "(?<w>a)", "replacement": replacement}
    assert terms(one("keyword", spec), "ab") == [expected]
    char_filter = {"type": "pattern_replace", "pattern": "(?<w>a)", "replacement": replacement}
    settings = {"analysis": {"analyzer": {"x": {"tokenizer": "keyword", "char_filter": ["c"]}}}}
    settings["analysis"]["char_filter"] = {"c": char_filter}
    assert terms(settings, "ab") == [expected]


@pytest.mark.parametrize(("replacement", "problem"), [("\\", "escapes nothing"), ("$", "no group"), ("$2", "no group"),
                                                      ("${v}", "names no group")])  # fmt: skip
def test_replacements_java_throws_on_are_errors(replacement: str, problem: str) -> None:
    spec = {"type": "pattern_replace", "pattern": "(?<w>a)", "replacement": replacement}
    refused(one("keyword", spec), "f0.replacement", problem)


# CharGroupTokenizerFactory and NGramTokenizerFactory classes are Java's Character.isWhitespace (no no-break space)
# and isDigit (decimal digits only); char_group reads parseEscapedChar's escapes; token_chars names any case.


@pytest.mark.parametrize(
    ("tokenizer", "text", "expected"),
    [
        ({"type": "char_group", "tokenize_on_chars": ["whitespace"]}, "a\u00a0b c", ["a\u00a0b", "c"]),
        ({"type": "char_group", "tokenize_on_chars": ["digit"]}, "x²y3z", ["x²y", "z"]),
        ({"type": "char_group", "tokenize_on_chars": ["\\u002d", "\\\\", "\\b"]}, "a-b\\c\bd", ["a", "b", "c", "d"]),
        ({"type": "ngram", "max_gram": 1, "token_chars": ["Letter", "whitespace"]}, "a\u00a0b", ["a", "b"]),
    ],
)
def test_character_classes_and_escapes_are_javas(tokenizer: dict, text: str, expected: list[str]) -> None:
    assert terms(one(tokenizer), text) == expected


def test_an_escape_java_cannot_read_is_an_error() -> None:
    refused(one({"type": "char_group", "tokenize_on_chars": ["\\q"]}), "tokenize_on_chars[0]")


def test_type_as_payload_is_analysis_commons_pre_configured_filter_and_changes_no_term() -> None:
    # CommonAnalysisPlugin's pre-configured type_as_payload: the type goes into the payload, which BM25 never reads
    assert terms(one("standard", "lowercase", "type_as_payload"), "Quick 42 Fox") == ["quick", "42", "fox"]
