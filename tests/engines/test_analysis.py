# ruff: noqa: RUF001 (the examples are non-ASCII text on purpose: curly apostrophes, Arabic-Indic digits)
"""Text analysis against real Lucene 9.9.1 (../shared/data/lucene) and Elasticsearch's documented examples."""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_relevance.cli.commands import main
from pytest_relevance.engines.embedded.analysis import Analysis, Analyzer, Token
from pytest_relevance.engines.embedded.analysis.kstem import kstem
from pytest_relevance.engines.embedded.analysis.porter import porter_stem
from pytest_relevance.engines.embedded.index import TextField
from pytest_relevance.engines.embedded.mapping import IndexMapping, Similarity
from pytest_relevance.errors import RelevanceInputError

LUCENE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "lucene"
ANALYZERS = json.loads((LUCENE / "analyzers.json").read_text()) if (LUCENE / "analyzers.json").is_file() else {}
# Texts where we knowingly differ from Lucene, with why; the test fails if one of them starts to agree.
KNOWN: dict[str, dict[str, str]] = {}


@cache
def lucene_tokens() -> dict[str, list[tuple[str, list[tuple]]]]:
    by_analyzer: dict[str, list[tuple[str, list[tuple]]]] = defaultdict(list)
    with gzip.open(LUCENE / "analysis.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            by_analyzer[row["analyzer"]].append((row["text"], [tuple(t) for t in row["tokens"]]))
    return by_analyzer


def analysis(settings: dict, source: str = "index.yaml", base_dir: Path | None = None) -> Analysis:
    return Analysis.from_settings({"analysis": settings}, source, base_dir)


def terms(settings: dict, name: str, text: str) -> list[str]:
    return [t.term for t in analysis(settings).analyzer(name, "test").analyze(text)]


def indexed(analyzer: Analyzer, values: list[str]) -> list[tuple[int, str]]:
    """(position, term) of every token of one multi-valued document as the embedded index stores it."""
    field = TextField("t", analyzer, analyzer.term_lists, analyzer.term_lists, Similarity())
    field.add(values)
    field.freeze()
    out = []
    for term in field.vocab:
        postings = field.postings(term)
        if postings is not None:
            out += [(int(position), term) for position in field.positions_of(postings, 0)]
    return sorted(out)


def custom(tokenizer: str, *filters: str, char_filter: tuple[str, ...] = (), **defs: dict) -> dict:
    """settings.analysis with one custom analyzer `x`; `defs` are named components: filter_NAME, tokenizer_NAME..."""
    out: dict = {"analyzer": {"x": {"tokenizer": tokenizer, "filter": list(filters), "char_filter": list(char_filter)}}}
    for key, spec in defs.items():
        kind, _, name = key.partition("__")
        out.setdefault(kind, {})[name] = spec
    return out


@pytest.mark.skipif(not ANALYZERS, reason=f"Lucene reference data not found at {LUCENE}")
@pytest.mark.parametrize("name", list(ANALYZERS or ["none"]))
def test_every_token_position_and_offset_equals_lucene(name: str, record_property) -> None:
    analyzer = analysis(ANALYZERS[name], "analyzers.json", LUCENE / "config").analyzer(name, "test")
    rows = lucene_tokens()[name]
    differ = []
    for text, expected in rows:
        got = [(t.term, t.position, t.start_offset, t.end_offset, t.position_length) for t in analyzer.analyze(text)]
        if got != expected:
            differ.append((text, expected, got))
        else:  # the indexing path (no token objects where the chain allows) agrees too
            assert analyzer.term_positions(text) == [(t[0], t[1]) for t in expected], (name, text)
            assert analyzer.term_lists(text) == ([t[0] for t in expected], [t[1] for t in expected]), (name, text)
    share = 1 - len(differ) / len(rows)
    record_property("exact_share", share)
    print(f"{name}: {len(rows) - len(differ)}/{len(rows)} texts exactly equal ({share:.2%})")
    unexpected = [d for d in differ if d[0] not in KNOWN.get(name, {})]
    assert not unexpected, f"{name}: {len(differ)} of {len(rows)} texts differ, first: {unexpected[0]}"
    assert {d[0] for d in differ} == set(KNOWN.get(name, {})), "a known difference is gone: drop it from KNOWN"


with gzip.open(Path(__file__).parent.parent / "lucene_extra" / "tokens.json.gz", "rt", encoding="utf-8") as extra:
    EXTRA = json.load(extra)
KNOWN_EXTRA: dict[str, dict[str, str]] = {}


@pytest.mark.parametrize("case", list(EXTRA["cases"]))
def test_components_beyond_the_shared_data_equal_lucene(case: str) -> None:
    """tests/lucene_extra/tokens.json.gz: made by generate.py beside it, with real Lucene 9.9.1."""
    spec = EXTRA["cases"][case]
    analyzer = analysis(spec["settings"]).analyzer("x", "test")
    differ = set()
    for text, expected in zip(EXTRA["texts"], spec["tokens"], strict=True):
        got = [[t.term, t.position, t.start_offset, t.end_offset, t.position_length] for t in analyzer.analyze(text)]
        if got != expected:
            differ.add(text)
            assert text in KNOWN_EXTRA.get(case, {}), f"{case}: {text!r}\nLucene {expected}\nours   {got}"
    assert differ == set(KNOWN_EXTRA.get(case, {})), "a known difference is gone: drop it from KNOWN_EXTRA"


# Random inputs made by tests/lucene_extra/generate.py (adversarial strings through the tokenizers, word sequences
# through overlapping synonym rules) where we knowingly differ, with why; the test fails if one starts to agree.
KNOWN_FUZZ: dict[str, dict[str, str]] = {}


@pytest.mark.parametrize("case", list(EXTRA["fuzz"]))
def test_adversarial_strings_and_synonym_sequences_equal_lucene(case: str) -> None:
    spec = EXTRA["fuzz"][case]
    analyzer = analysis(spec["settings"]).analyzer("x", "test")
    differ = {}
    for text, expected in zip(spec["texts"], spec["tokens"], strict=True):
        got = [[t.term, t.position, t.start_offset, t.end_offset, t.position_length] for t in analyzer.analyze(text)]
        if got != expected:
            differ[text] = (expected, got)
    unexpected = {text: pair for text, pair in differ.items() if text not in KNOWN_FUZZ.get(case, {})}
    assert not unexpected, f"{case}: {len(differ)} of {len(spec['texts'])} differ: {unexpected}"
    assert set(differ) == set(KNOWN_FUZZ.get(case, {})), "a known difference is gone: drop it from KNOWN_FUZZ"


KSTEM_STEMS = Path(__file__).parent.parent / "lucene_extra" / "kstem_stems.tsv.gz"


def test_kstem_equals_lucene_on_every_cranfield_word_and_30_000_more() -> None:
    """tests/lucene_extra/kstem_stems.tsv.gz: Lucene 9.9.1's KStemFilter on Cranfield's words, the reference texts'
    words, dictionary words with English suffixes and edge cases (made by kstem.py beside it)."""
    with gzip.open(KSTEM_STEMS, "rt", encoding="utf-8") as lines:
        rows = [line.rstrip("\n").split("\t") for line in lines]
    changed = sum(len(row) == 2 for row in rows)
    assert len(rows) > 40_000 and changed > 15_000, "the reference should exercise every step"
    differ = [(row[0], row[-1], got) for row in rows if (got := kstem(row[0])) != row[-1]]
    assert not differ, f"{len(differ)} of {len(rows)} stems differ from Lucene's (word, Lucene, ours): {differ[:20]}"


def test_light_english_and_kstem_are_lucene_kstem_and_spare_keywords() -> None:
    """Elasticsearch's three names build KStem (stems as Lucene gives them, see kstem_stems.tsv.gz), which leaves
    a keyword_marker term and an uppercase term alone."""
    settings = custom(
        "standard", "lowercase", "protect", "light",
        filter__light={"type": "stemmer", "language": "light_english"},
        filter__protect={"type": "keyword_marker", "keywords": ["ponies"]},
    )  # fmt: skip
    text = "Ponies aides Italians stabilization microcoding boundaries aerodynamically pressures calculated"
    assert terms(settings, "x", text) == [
        "ponies", "aide", "italy", "stabilize", "microcode", "boundary", "aerodynamic", "pressure", "calculate",
    ]  # fmt: skip
    assert terms(custom("whitespace", "kstem"), "x", "generalizations Pressures") == ["generalization", "Pressures"]
    by_language = custom("whitespace", "k", filter__k={"type": "stemmer", "language": "kstem"})
    assert terms(by_language, "x", "generalizations Pressures") == ["generalization", "Pressures"]


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("as", "as"),  # two letters: left alone
        ("caresses", "caress"), ("ponies", "poni"),  # sses -> ss, ies -> i
        ("agreed", "agre"), ("feed", "feed"),  # eed -> ee only when m > 0 (then step 6 drops the e)
        ("hopping", "hop"), ("falling", "fall"), ("filing", "file"), ("hoping", "hope"),  # undouble / cvc adds e
        ("happy", "happi"), ("sky", "sky"), ("yyy", "yyi"),  # y -> i needs a vowel; a y after a consonant is one
        ("analogies", "analog"), ("flexibly", "flexibl"),  # the reference C code's logi -> log and bli -> ble
        ("relational", "relat"), ("generalization", "gener"), ("triplicate", "triplic"), ("electricity", "electr"),
        ("adjustment", "adjust"), ("adoption", "adopt"),  # step 5 drops a suffix when m > 1; ion only after s or t
        ("controll", "control"), ("roll", "roll"), ("rate", "rate"), ("cease", "ceas"),  # step 6 by the measure
    ],
)  # fmt: skip
def test_porter_rules_on_hand_checked_words(word: str, stem: str) -> None:
    """Each rule of Porter's reference C stemmer (the one Lucene's PorterStemmer ports), stemmed by hand; the Lucene
    token tests above cover them only as far as the reference texts happen to use them."""
    assert porter_stem(word) == stem


SUGGEST_STOP = custom(
    "whitespace", "s", filter__s={"type": "stop", "stopwords": ["to", "the", "a"], "remove_trailing": False}
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [  # Lucene's TestSuggestStopFilter (lucene/suggest): (term, start, end, position)
        ("go to", [("go", 0, 2, 0), ("to", 3, 5, 1)]),
        ("go to ", [("go", 0, 2, 0)]),
        ("go to school", [("go", 0, 2, 0), ("school", 6, 12, 2)]),
        ("go to a the school", [("go", 0, 2, 0), ("school", 12, 18, 4)]),
        ("go to a the", [("go", 0, 2, 0), ("the", 8, 11, 3)]),
        ("go to a the ", [("go", 0, 2, 0)]),
    ],
)
def test_stop_without_remove_trailing_keeps_a_last_stop_word_still_being_typed(text: str, expected: list) -> None:
    tokens = analysis(SUGGEST_STOP).analyzer("x", "test").analyze(text)
    assert [(t.term, t.start_offset, t.end_offset, t.position) for t in tokens] == expected


def test_a_kept_trailing_stop_word_is_a_keyword_and_leaves_no_end_gap() -> None:
    """SuggestStopFilter marks the kept word keyword (a stemmer after it skips it), and its end() does not carry the
    positions of stop words removed at the very end, unlike StopFilter: the next value of a multi-valued field
    starts one position gap after the last kept token."""
    settings = custom(
        "standard", "lowercase", "s", "porter_stem",
        filter__s={"type": "stop", "stopwords": ["flies", "the"], "remove_trailing": False},
    )  # fmt: skip
    analyzer = analysis(settings).analyzer("x", "test")
    assert [t.term for t in analyzer.analyze("Fruit flies")] == ["fruit", "flies"]
    assert [t.term for t in analyzer.analyze("Fruit flies.")] == ["fruit"]
    assert [t.term for t in analyzer.analyze("flies running")] == ["run"]
    assert indexed(analyzer, ["running the", "x"]) == [(0, "run"), (1, "the"), (102, "x")]
    assert indexed(analyzer, ["running the ", "x"]) == [(0, "run"), (101, "x")]
    removing = analysis(custom("whitespace", "s", filter__s={"type": "stop", "stopwords": ["the"]}))
    assert indexed(removing.analyzer("x", "test"), ["a the ", "x"]) == [(0, "a"), (102, "x")]


def test_word_delimiter_type_table_from_a_file_skips_comment_lines(tmp_path: Path) -> None:
    """`#` starts a comment in type_table_path (Elasticsearch's word list files), so `#` is typed by escape there;
    inline rules have no comments. (Typed characters against Lucene: the type_table cases of tokens.json.gz.)"""
    (tmp_path / "types.txt").write_text("# comment\n\\u0023 => ALPHA\n + => ALPHA \n\n", encoding="utf-8")
    from_file = {"type": "word_delimiter_graph", "type_table_path": "types.txt"}
    inline = {"type": "word_delimiter_graph", "type_table": ["# => ALPHA", "+ => ALPHA"]}
    for spec in (from_file, inline):
        settings = {"filter": {"w": spec}, "analyzer": {"x": {"tokenizer": "whitespace", "filter": ["w"]}}}
        analyzer = Analysis.from_settings({"analysis": settings}, tmp_path / "index.json", tmp_path)
        assert analyzer.analyzer("x", "test").terms("c# c++ wi-fi") == ["c#", "c++", "wi", "fi"]


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ("+ ALPHA", "expected 'character => TYPE'"),
        ("ab => ALPHA", "only a single character"),
        ("\U0001f600 => ALPHA", "only a single character"),
        ("+ => LETTER", "the type must be one of LOWER, UPPER, ALPHA, DIGIT, ALPHANUM, SUBWORD_DELIM"),
        ("\\u00 => ALPHA", "needs four hex digits"),
        ("\\ud83d => ALPHA", "a surrogate"),
    ],
)
def test_a_bad_type_table_rule_names_its_index(rule: str, problem: str) -> None:
    settings = custom("whitespace", "w", filter__w={"type": "word_delimiter", "type_table": ["- => ALPHA", rule]})
    with pytest.raises(RelevanceInputError) as caught:
        analysis(settings, "cfg.yaml").analyzer("x", "test")
    assert str(caught.value).startswith("cfg.yaml: settings.analysis.filter.w.type_table[1]: ")
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    ("settings", "key_path"),
    [
        ({"filter": {"f": {"type": "hunspell"}}}, "settings.analysis.filter.f"),
        ({"filter": {"f": {"type": "stemmer", "language": "YIDDISH"}}}, "settings.analysis.filter.f.language"),
    ],
)
def test_unsupported_components_are_one_error_with_key_path_file_and_the_way_out(settings, key_path) -> None:
    kind = next(iter(settings))
    settings["analyzer"] = {"x": {"tokenizer": "standard", kind: ["f"]}}
    with pytest.raises(RelevanceInputError, match="elasticsearch engine supports it") as caught:
        analysis(settings, "cfg.yaml").analyzer("x", "test")
    assert str(caught.value).startswith(f"cfg.yaml: {key_path}")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"filter": {"f": {"type": "icu_folding"}}},
         "settings.analysis.filter.f: the token filter 'icu_folding' needs the analysis-icu plugin"),
        ({"char_filter": {"f": {"type": "icu_normalizer"}}},
         "settings.analysis.char_filter.f: the char filter 'icu_normalizer' needs the analysis-icu plugin"),
        ({"tokenizer": {"f": {"type": "icu_tokenizer"}}},
         "settings.analysis.tokenizer.f: the tokenizer 'icu_tokenizer' needs the analysis-icu plugin"),
        ({"filter": {"f": {"type": "polish_stem"}}},
         "settings.analysis.filter.f: the token filter 'polish_stem' needs the analysis-stempel plugin"),
        ({"tokenizer": {"f": {"type": "kuromoji_tokenizer"}}},
         "settings.analysis.tokenizer.f: the tokenizer 'kuromoji_tokenizer' needs the analysis-kuromoji plugin"),
        ({"filter": {"f": {"type": "ja_stop"}}},
         "settings.analysis.filter.f: the token filter 'ja_stop' needs the analysis-kuromoji plugin"),
        ({"tokenizer": {"f": {"type": "nori_tokenizer"}}},
         "settings.analysis.tokenizer.f: the tokenizer 'nori_tokenizer' needs the analysis-nori plugin"),
        ({"tokenizer": {"f": {"type": "smartcn_tokenizer"}}},
         "settings.analysis.tokenizer.f: the tokenizer 'smartcn_tokenizer' needs the analysis-smartcn plugin"),
        ({"filter": {"f": {"type": "phonetic", "encoder": "metaphone"}}},
         "settings.analysis.filter.f: the token filter 'phonetic' needs the analysis-phonetic plugin"),
        ({"filter": {"f": {"type": "preserve_original"}}},
         "settings.analysis.filter.f: the token filter 'preserve_original' needs the extra (Wikimedia's, for "
         "CirrusSearch) plugin"),
        ({"filter": {"f": {"type": "icu_token_repair"}}},
         "settings.analysis.filter.f: the token filter 'icu_token_repair' needs the extra-analysis-textify "
         "(Wikimedia's, for CirrusSearch) plugin"),
    ],
)  # fmt: skip
def test_a_plugins_component_names_the_plugin_not_the_spelling(settings: dict, message: str) -> None:
    kind = next(iter(settings))
    settings["analyzer"] = {"x": {"tokenizer": "f"} if kind == "tokenizer" else {"tokenizer": "standard", kind: ["f"]}}
    with pytest.raises(RelevanceInputError) as caught:
        analysis(settings, "cfg.yaml").analyzer("x", "test")
    assert str(caught.value) == f"cfg.yaml: {message}; the Elasticsearch engine with that plugin runs it"


@pytest.mark.parametrize(("name", "plugin"), [("polish", "analysis-stempel"), ("kuromoji", "analysis-kuromoji"),
                                              ("nori", "analysis-nori"), ("smartcn", "analysis-smartcn")])  # fmt: skip
def test_a_plugins_analyzer_names_the_plugin(name: str, plugin: str) -> None:
    with pytest.raises(RelevanceInputError) as caught:
        analysis({}, "cfg.yaml").analyzer(name, "mappings.properties.t.analyzer")
    assert str(caught.value) == (
        f"cfg.yaml: mappings.properties.t.analyzer: the analyzer {name!r} needs the {plugin} plugin; the "
        "Elasticsearch engine with that plugin runs it"
    )


def test_a_misspelt_component_is_unknown_not_unsupported() -> None:
    with pytest.raises(RelevanceInputError, match=r"filter\[0\]: unknown token filter 'lowecase'; check the spelling"):
        analysis(custom("standard", "lowecase"), "cfg.yaml").analyzer("x", "test")
    with pytest.raises(
        RelevanceInputError, match=r"t.analyzer: the analyzer 'fingerprint' is not supported .* elasticsearch"
    ):
        analysis({}).analyzer("fingerprint", "mappings.properties.t.analyzer")


def test_unsupported_tokenizer_and_unknown_analyzer() -> None:
    with pytest.raises(RelevanceInputError, match=r"cfg.yaml: settings.analysis.tokenizer.t: .*'icu_tokenizer'"):
        analysis(custom("t", tokenizer__t={"type": "icu_tokenizer"}), "cfg.yaml").analyzer("x", "test")
    with pytest.raises(RelevanceInputError, match=r"mappings.properties.title.analyzer: unknown analyzer 'nope'"):
        analysis({}).analyzer("nope", "mappings.properties.title.analyzer")


# Elasticsearch's reference documentation examples (GET _analyze requests and the tokens they list).


def test_asciifolding_preserve_original() -> None:
    settings = custom("standard", "f", filter__f={"type": "asciifolding", "preserve_original": True})
    tokens = analysis(settings).analyzer("x", "t").analyze("açaí à la carte")
    assert [(t.term, t.position) for t in tokens] == [
        ("acai", 0), ("açaí", 0), ("a", 1), ("à", 1), ("la", 2), ("carte", 3)
    ]  # fmt: skip


def test_stop_lists_inline_from_a_file_and_ignore_case(tmp_path: Path) -> None:
    (tmp_path / "stop.txt").write_text("# comment\nthe\nover\n")
    settings = custom(
        "whitespace",
        "s",
        filter__s={"type": "stop", "stopwords_path": "stop.txt", "ignore_case": True},
    )
    tokens = analysis(settings, base_dir=tmp_path).analyzer("x", "t").analyze("The quick fox jumps OVER the dog")
    assert [(t.term, t.position) for t in tokens] == [("quick", 1), ("fox", 2), ("jumps", 3), ("dog", 6)]
    assert terms(custom("whitespace", "s", filter__s={"type": "stop", "stopwords": ["a", "is"]}), "x", "a is b") == [
        "b"
    ]


def test_keyword_marker_and_stemmer_override_protect_from_the_stemmer() -> None:
    settings = custom(
        "whitespace", "m", "o", "porter_stem",
        filter__m={"type": "keyword_marker", "keywords": ["jumping"]},
        filter__o={"type": "stemmer_override", "rules": ["running, runs => run", "stemmer => stemmer"]},
    )  # fmt: skip
    assert terms(settings, "x", "fox running jumping stemmer flies") == ["fox", "run", "jumping", "stemmer", "fli"]


def test_english_stem_exclusion_and_keyword_repeat() -> None:
    settings = {"analyzer": {"x": {"type": "english", "stem_exclusion": ["running"]}}}
    assert terms(settings, "x", "The running dogs") == ["running", "dog"]
    repeat = custom("whitespace", "keyword_repeat", "porter_stem", "remove_duplicates")
    assert [(t.term, t.position) for t in analysis(repeat).analyzer("x", "t").analyze("jumping dog")] == [
        ("jumping", 0), ("jump", 0), ("dog", 1)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("tokenizer", "filter_spec", "text", "expected"),
    [
        ("standard", "elision", "j’examine près du wharf", ["examine", "près", "du", "wharf"]),
        ("standard", {"type": "reverse"}, "quick fox jumps", ["kciuq", "xof", "spmuj"]),
        (
            "whitespace",
            "truncate",
            "the quinquennial extravaganza carried on",
            ["the", "quinquenni", "extravagan", "carried", "on"],
        ),
        ("standard", {"type": "limit", "max_token_count": 2}, "quick fox jumps over lazy dog", ["quick", "fox"]),
        (
            "whitespace",
            {"type": "keep", "keep_words": ["dog", "elephant", "fox"]},
            "the quick fox jumps over the lazy dog",
            ["fox", "dog"],
        ),
        ("standard", {"type": "cjk_width"}, "ｼｰｻｲﾄﾞﾗｲﾅｰ", ["シーサイドライナー"]),
        ("whitespace", {"type": "decimal_digit"}, "१-one two-३", ["1-one", "two-3"]),
        ("standard", {"type": "uppercase"}, "the Quick FoX JUMPs", ["THE", "QUICK", "FOX", "JUMPS"]),
        (
            "whitespace",
            {"type": "length", "min": 0, "max": 4},
            "the quick brown fox jumps over",
            ["the", "fox", "over"],
        ),
        (
            "whitespace",
            {"type": "pattern_replace", "pattern": "(dog)", "replacement": "watch$1"},
            "foxes jump lazy dogs",
            ["foxes", "jump", "lazy", "watchdogs"],
        ),
        ("whitespace", {"type": "trim"}, "fox", ["fox"]),
        ("standard", {"type": "unique"}, "the quick fox jumps the lazy fox", ["the", "quick", "fox", "jumps", "lazy"]),
    ],
)
def test_documented_token_filter_examples(tokenizer, filter_spec, text, expected) -> None:
    """A name alone is the pre-configured filter, as the examples use elision and truncate (their definitions need
    articles and length)."""
    settings = (
        custom(tokenizer, filter_spec)
        if isinstance(filter_spec, str)
        else custom(tokenizer, "f", filter__f=filter_spec)
    )
    assert terms(settings, "x", text) == expected


def test_shingles_fill_position_gaps_with_the_filler_token() -> None:
    settings = custom(
        "whitespace", "s", "sh",
        filter__s={"type": "stop", "stopwords": ["a"]}, filter__sh={"type": "shingle", "filler_token": "+"},
    )  # fmt: skip
    tokens = analysis(settings).analyzer("x", "t").analyze("fox jumps a lazy dog")
    assert [(t.term, t.position, t.position_length) for t in tokens] == [
        ("fox", 0, 1), ("fox jumps", 0, 2), ("jumps", 1, 1), ("jumps +", 1, 2), ("+ lazy", 2, 2),
        ("lazy", 3, 1), ("lazy dog", 3, 2), ("dog", 4, 1),
    ]  # fmt: skip
    sizes = custom(
        "whitespace", "sh",
        filter__sh={"type": "shingle", "min_shingle_size": 2, "max_shingle_size": 3, "output_unigrams": False},
    )  # fmt: skip
    assert terms(sizes, "x", "quick brown fox jumps") == [
        "quick brown", "quick brown fox", "brown fox", "brown fox jumps", "fox jumps"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "text", "expected"),
    [
        (
            {"type": "ngram"},
            "Quick Fox",
            ["Q", "Qu", "u", "ui", "i", "ic", "c", "ck", "k", "k ", " ", " F", "F", "Fo", "o", "ox", "x"],
        ),
        (
            {"type": "edge_ngram", "min_gram": 2, "max_gram": 10, "token_chars": ["letter", "digit"]},
            "2 Quick Foxes.",
            ["Qu", "Qui", "Quic", "Quick", "Fo", "Fox", "Foxe", "Foxes"],
        ),
        ({"type": "path_hierarchy"}, "/one/two/three", ["/one", "/one/two", "/one/two/three"]),
        (
            {"type": "path_hierarchy", "delimiter": "-", "replacement": "/", "skip": 2},
            "one-two-three-four-five",
            ["/three", "/three/four", "/three/four/five"],
        ),
        (
            {"type": "char_group", "tokenize_on_chars": ["whitespace", "-", "\n"]},
            "The QUICK brown-fox",
            ["The", "QUICK", "brown", "fox"],
        ),
        ({"type": "simple_pattern", "pattern": "[0123456789]{3}"}, "fd-786-335-514-x", ["786", "335", "514"]),
        (
            {"type": "pattern", "pattern": '"((?:\\\\"|[^"]|\\\\")+)"', "group": 1},
            'comma,"separated",values',
            ["separated"],
        ),
        (
            {"type": "classic"},
            "The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.",
            ["The", "2", "QUICK", "Brown", "Foxes", "jumped", "over", "the", "lazy", "dog's", "bone"],
        ),
    ],
)
def test_documented_tokenizer_examples(spec, text, expected) -> None:
    assert terms(custom("t", tokenizer__t=spec), "x", text) == expected


def test_char_filters_map_offsets_back_to_the_original_text() -> None:
    html = analysis({"analyzer": {"x": {"tokenizer": "keyword", "char_filter": ["html_strip"]}}})
    assert [t.term for t in html.analyzer("x", "t").analyze("<p>I&apos;m so <b>happy</b>!</p>")] == [
        "\nI'm so happy!\n"
    ]
    digits = custom(
        "keyword",
        char_filter=("m",),
        char_filter__m={"type": "mapping", "mappings": ["٠ => 0", "٢ => 2", "٥ => 5", "١ => 1"]},
    )
    assert terms(digits, "x", "My license plate is ٢٥٠١٥") == ["My license plate is 25015"]
    dashes = custom(
        "standard",
        char_filter=("p",),
        char_filter__p={"type": "pattern_replace", "pattern": "(\\d+)-(?=\\d)", "replacement": "$1_"},
    )
    assert terms(dashes, "x", "My credit card is 123-456-789") == ["My", "credit", "card", "is", "123_456_789"]
    expanding = custom("standard", char_filter=("m",), char_filter__m={"type": "mapping", "mappings": ["& => and"]})
    tokens = analysis(expanding).analyzer("x", "t").analyze("R & D")
    assert [(t.term, t.start_offset, t.end_offset) for t in tokens] == [("R", 0, 1), ("and", 2, 3), ("D", 4, 5)]


def test_synonyms_from_a_file_beside_the_config_and_their_options(tmp_path: Path) -> None:
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "syn.txt").write_text("# comment\nny, new york\nusa => united states\n")
    settings = custom(
        "standard", "lowercase", "syn", filter__syn={"type": "synonym_graph", "synonyms_path": "analysis/syn.txt"}
    )
    tokens = analysis(settings, base_dir=tmp_path).analyzer("x", "t").analyze("NY usa")
    assert [(t.term, t.position, t.position_length) for t in tokens] == [
        ("new", 0, 1), ("ny", 0, 2), ("york", 1, 1), ("united", 2, 1), ("states", 3, 1)
    ]  # fmt: skip
    no_expand = custom(
        "standard", "syn", filter__syn={"type": "synonym", "synonyms": ["tv, television"], "expand": False}
    )  # fmt: skip
    assert terms(no_expand, "x", "television tv") == ["tv", "tv"]
    strict = custom("standard", "stop", "syn", filter__syn={"type": "synonym_graph", "synonyms": ["the => a", "x, y"]})
    with pytest.raises(RelevanceInputError, match=r"settings.analysis.filter.syn.synonyms\[0\]: term 'the' was"):
        analysis(strict).analyzer("x", "t")
    strict["filter"]["syn"]["lenient"] = True
    assert terms(strict, "x", "the x") == ["y", "x"]
    missing = custom("standard", "syn", filter__syn={"type": "synonym", "synonyms_path": "nope.txt"})
    with pytest.raises(RelevanceInputError, match=r"synonyms_path: cannot read"):
        analysis(missing, base_dir=tmp_path).analyzer("x", "t")


def test_multi_valued_fields_leave_lucenes_position_and_offset_gaps() -> None:
    analyzer = analysis({}).analyzer("standard", "t")
    tokens = analyzer.analyze_values(["Hello world", "again"])
    assert tokens[-1] == Token("again", 1 + 100 + 1, 12, 17)
    stop = analysis({"analyzer": {"x": {"type": "stop"}}}).analyzer("x", "t")
    assert stop.analyze_values(["fox the", "dog"])[-1].position == 0 + 1 + 100 + 1  # the trailing stop word counts
    assert indexed(stop, ["fox the", "dog"]) == [(0, "fox"), (102, "dog")]
    assert indexed(analyzer, ["Hello world", "", "again"]) == [(0, "hello"), (1, "world"), (202, "again")]
    assert analyzer.terms("Hello World") == ["hello", "world"]
    assert analysis({}).analyzer("standard", "t").analyze("😀 a")[1] == Token("a", 1, 3, 4)  # UTF-16 offsets


def test_normalizers_apply_to_the_whole_value() -> None:
    settings = {"normalizer": {"n": {"type": "custom", "filter": ["lowercase", "asciifolding"]}}}
    assert [t.term for t in analysis(settings).normalizer("n", "t").analyze("Crème Brûlée")] == ["creme brulee"]
    with pytest.raises(RelevanceInputError, match="cannot be used in a normalizer"):
        analysis({"normalizer": {"n": {"type": "custom", "filter": ["porter_stem"]}}}).normalizer("n", "t")


# mapping.py: what each field gets, by Elasticsearch's rules


def test_mapping_applies_elasticsearchs_analyzer_defaults(tmp_path: Path) -> None:
    body = {
        "settings": {
            "index": {"similarity": {"short": {"type": "BM25", "k1": 0.9, "b": 0.3}}},
            "analysis": {
                "analyzer": {"default": {"type": "english"}, "default_search": {"type": "simple"}},
                "normalizer": {"lower": {"type": "custom", "filter": ["lowercase"]}},
            },
        },
        "mappings": {
            "properties": {
                "title": {
                    "type": "text",
                    "copy_to": "all",
                    "similarity": "short",
                    "fields": {
                        "raw": {"type": "keyword", "normalizer": "lower"},
                        "std": {"type": "text", "analyzer": "standard"},
                    },
                },
                "body": {"type": "text", "analyzer": "whitespace", "search_quote_analyzer": "keyword", "norms": False},
                "all": {"type": "text", "similarity": "boolean", "index": "false"},
                "author": {"properties": {"name": {"type": "text", "search_analyzer": "standard"}}},
                "price": {"type": "scaled_float", "scaling_factor": 100},
            }
        },
    }  # fmt: skip
    mapping = IndexMapping(body, tmp_path / "index.yaml", tmp_path)
    title, raw, std = mapping.field("title"), mapping.field("title.raw"), mapping.field("title.std")
    assert (title.analyzer.name, title.search_analyzer.name, title.search_quote_analyzer.name) == (
        "default", "default_search", "default_search"
    )  # fmt: skip
    assert (std.analyzer.name, std.search_analyzer.name, std.parent) == ("standard", "standard", "title")
    assert title.multi_fields == ("title.raw", "title.std") and title.copy_to == ("all",)
    assert (title.similarity.k1, title.similarity.b) == (0.9, 0.3)
    assert raw.kind == "keyword" and [t.term for t in raw.normalizer.analyze("Big Dog")] == ["big dog"]
    body_field = mapping.field("body")
    assert (body_field.search_analyzer.name, body_field.search_quote_analyzer.name, body_field.norms) == (
        "whitespace", "keyword", False
    )  # fmt: skip
    assert mapping.field("all").similarity.kind == "boolean" and not mapping.field("all").index
    assert mapping.field("author.name").analyzer.name == "default"
    assert mapping.field("author.name").search_analyzer.name == "standard"
    assert mapping.field("price").kind == "number"


@pytest.mark.parametrize(
    ("properties", "problem"),
    [
        ({"t": {"type": "text", "analyzer": "nope"}}, "mappings.properties.t.analyzer: unknown analyzer 'nope'"),
        ({"t": {"type": "txt"}}, "mappings.properties.t.type: unknown field type 'txt'"),
        ({"t": {"type": "text", "copy_to": "x"}}, "t: copy_to 'x': Elasticsearch maps 'x' dynamically from the"),
        ({"t": {"type": "text", "similarity": "my"}}, "mappings.properties.t.similarity: unknown similarity 'my'"),
        ({"t": {"type": "keyword", "normalizer": "n"}}, "mappings.properties.t.normalizer: unknown normalizer 'n'"),
    ],
)
def test_mapping_errors_name_the_file_and_key(properties, problem) -> None:
    with pytest.raises(RelevanceInputError) as caught:
        IndexMapping({"mappings": {"properties": properties}}, "conf/index.yaml")
    assert str(caught.value) == f"conf/index.yaml: {problem}" or str(caught.value).startswith(
        f"conf/index.yaml: {problem}"
    )


def test_cli_analyze_prints_elasticsearch_tokens(tmp_path: Path, capsys) -> None:
    config = tmp_path / "index.json"
    config.write_text(
        json.dumps(
            {
                "settings": {
                    "analysis": {
                        "filter": {"syn": {"type": "synonym_graph", "synonyms": ["wi fi, wifi"]}},
                        "analyzer": {"syn": {"tokenizer": "standard", "filter": ["lowercase", "syn"]}},
                    }
                },
                "mappings": {"properties": {"title": {"type": "text", "analyzer": "english"}}},
            }
        )
    )
    assert main(["analyze", "--index-config", str(config), "--analyzer", "syn", "--format", "json", "Wi-Fi"]) == 0
    tokens = json.loads(capsys.readouterr().out)["tokens"]
    assert tokens[0] == {"token": "wifi", "start_offset": 0, "end_offset": 5, "position": 0, "positionLength": 2}
    assert tokens[1] == {"token": "wi", "start_offset": 0, "end_offset": 2, "position": 0}
    assert main(["analyze", "--index-config", str(config), "--field", "title", "The Runners'"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["token", "start_offset", "end_offset", "position"]
    assert lines[1].split() == ["runner", "4", "11", "1"]  # the trailing apostrophe is no part of the word
    assert main(["analyze", "--index-config", str(config), "--field", "nope", "x"]) == 2
    assert "field 'nope' is not a text or keyword field (title)" in capsys.readouterr().err


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127) | st.sampled_from("ab1_.:',;"), max_size=20))
def test_the_ascii_fast_path_segments_as_uax29_does(text: str) -> None:
    from pytest_relevance.engines.embedded.analysis.tokenizers import _STANDARD, _STANDARD_ASCII

    assert [m.span() for m in _STANDARD_ASCII.finditer(text)] == [m.span() for m in _STANDARD.finditer(text)]


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ1_.:',;- éÀÖØöøÿßÉ×÷ªµº\xad·¹"), max_size=20))
def test_the_latin1_fast_path_segments_as_uax29_does(text: str) -> None:
    """Accented Latin-1 letters take the spelled-out pattern; anything else in Latin-1 falls back to the general one."""
    from pytest_relevance.engines.embedded.analysis.tokenizers import _STANDARD, _standard_pattern

    assert [m.span() for m in _standard_pattern(text).finditer(text)] == [m.span() for m in _STANDARD.finditer(text)]


LATIN_TEXT = st.text(alphabet=st.sampled_from("aZ1_.:',;- \n\téÀÖØöøÿßÉx9"), max_size=16)
# a representative of every word-break class the batch path handles or must leave to the general pattern: Greek and
# Cyrillic letters, other digits, curly quotes and dashes, connectors, combining marks, joiners, Hebrew, Katakana,
# Thai, ideographs, emoji, symbols such as ™
WORLD = (
    "aZ1_.:',;- éªµ·×\xadΩωЖж٣١٫٬\u2018\u2019\u201c—–…€\u202f＿０\u0301\u200d\u200bאבカタกขの漢字™®😀👍🏽\u2024\ufe52"
)
ANY_TEXT = st.text(alphabet=st.sampled_from(WORLD) | st.characters(), max_size=16)
WORLD_TEXT = st.text(alphabet=st.sampled_from(WORLD), max_size=16)


@settings(max_examples=3000, deadline=None)
@given(st.lists(LATIN_TEXT) | st.lists(LATIN_TEXT | WORLD_TEXT | ANY_TEXT), st.sampled_from([3, 255]))
def test_a_batch_of_texts_segments_as_each_text_alone(texts: list[str], max_len: int) -> None:
    """The standard tokenizer's batch path (numpy over Latin-1 text) gives each text's UAX#29 words and counts,
    with the general pattern's fallback for other characters and for words longer than max_token_length."""
    from pytest_relevance.engines.embedded.analysis.tokenizers import standard

    tokenizer = standard(max_len)
    each = [[tok.term for tok in tokenizer(text)] for text in texts]
    words, counts = tokenizer.terms_many(texts)  # type: ignore[attr-defined]
    assert words == [word for found in each for word in found]
    assert counts == [len(found) for found in each]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["<b>", "</b>", "&amp;", "&", "a", "B", "the", "&lt;x&gt;", "<!-- c -->", "ph", "2"]),
                max_size=10))  # fmt: skip
def test_the_lists_path_after_char_filters_agrees_with_the_tokens(words: list[str]) -> None:
    """Terms and positions skip the char filters' offset corrections; the tokens (what Lucene checks) keep them."""
    settings = custom(
        "standard", "lowercase", "stop", char_filter=("html_strip", "amp", "ph"),
        char_filter__amp={"type": "mapping", "mappings": ["& => and"]},
        char_filter__ph={"type": "pattern_replace", "pattern": "ph", "replacement": "f"},
    )  # fmt: skip
    analyzer = analysis(settings).analyzer("x", "test")
    text = " ".join(words)
    tokens = analyzer.analyze(text)
    assert analyzer.term_lists(text) == ([t.term for t in tokens], [t.position for t in tokens])


def test_every_code_point_in_context_segments_as_each_text_alone() -> None:
    """Each code point below U+3400 and every seventh above it, alone and between letters or digits: the batch path
    classifies characters by property, so a character it gets wrong shows here."""
    from pytest_relevance.engines.embedded.analysis.tokenizers import standard

    tokenizer = standard()
    points = [*range(0x3400), *range(0x3400, 0x110000, 7)]
    chars = [chr(code) for code in points if not 0xD800 <= code <= 0xDFFF]
    for start in range(0, len(chars), 1024):
        texts = [text for char in chars[start : start + 1024] for text in (char, f"a{char}b", f"1{char}2", f"x{char}")]
        each = [tokenizer.terms(text) for text in texts]  # type: ignore[attr-defined]
        words, counts = tokenizer.terms_many(texts)  # type: ignore[attr-defined]
        assert words == [word for found in each for word in found]
        assert counts == [len(found) for found in each]


SYNONYM_WORDS = ("the", "usa", "u", "s", "a", "united", "states", "ny", "new", "york", "b", "c", "x", "tv", "foo")


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(SYNONYM_WORDS), max_size=12))
def test_the_indexing_path_agrees_with_the_tokens_around_synonyms_and_gaps(words: list[str]) -> None:
    """term_lists skips token objects; the tokens are what the Lucene tests check, so the two must agree."""
    rules = ["united states, usa, u s a", "ny => new york", "a b c => x"]
    settings = custom(
        "standard", "lowercase", "stop", "syn", "porter_stem", filter__syn={"type": "synonym_graph", "synonyms": rules}
    )
    analyzer = analysis(settings).analyzer("x", "test")
    text = " ".join(words)
    tokens = analyzer.analyze(text)
    assert analyzer.term_lists(text) == ([t.term for t in tokens], [t.position for t in tokens])
    values = [text, text]
    assert indexed(analyzer, values) == sorted((t.position, t.term) for t in analyzer.analyze_values(values))


# StandardTokenizer's emoji: tests/lucene_extra/standard_emoji.txt lists every code point real Lucene 9.9.1 makes an
# <EMOJI> token of alone (standard_emoji.py beside it); its tables are an older Unicode's, so today's
# Extended_Pictographic misses some (U+266A, U+2661...) and has the regional indicators, which alone make nothing.


def _lucene_emoji() -> set[int]:
    points: set[int] = set()
    for line in (Path(__file__).parent.parent / "lucene_extra" / "standard_emoji.txt").read_text().split():
        first, _, last = line.partition("-")
        points.update(range(int(first, 16), int(last or first, 16) + 1))
    return points


def test_the_standard_tokenizer_makes_a_token_of_every_emoji_lucene_does_and_of_no_other_pictograph() -> None:
    import regex

    from pytest_relevance.engines.embedded.analysis import tokenizers

    tokenize = tokenizers.standard()
    emoji = _lucene_emoji()
    assert {0x266A, 0x266B, 0x2661, 0x2665, 0x00A9, 0x1F600, 0x1F3FB} <= emoji
    texts = [f" {chr(point)} " for point in sorted(emoji)]
    assert [[tok.term for tok in tokenize(text)] for text in texts] == [[text.strip()] for text in texts]
    assert tokenize.terms_many(texts) == ([text.strip() for text in texts], [1] * len(texts))  # the indexing path
    today = regex.compile(r"[\p{Extended_Pictographic}\p{Emoji_Presentation}]")
    others = [chr(p) for p in range(0x110000) if not 0xD800 <= p <= 0xDFFF and p not in emoji and today.match(chr(p))]
    assert others and all(tokenize(f" {char} ") == [] for char in others)  # the regional indicators, alone
    # between letters each is a token of its own, as Lucene splits x♪♪y
    assert tokenize.terms("x\u266a\u266ay \u2661\u200d\u2661") == ["x", "\u266a", "\u266a", "y", "\u2661\u200d\u2661"]
