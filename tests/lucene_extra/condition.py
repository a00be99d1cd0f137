"""Lucene 9.9.1's ConditionalTokenFilter on real chains, for the embedded engine's `condition` token filter.

    python tests/lucene_extra/condition.py --jar anserini-1.7.1-fatjar.jar

Lucene has no Painless, and JPype cannot subclass the abstract ConditionalTokenFilter, so the reference runs its
concrete subclass ProtectedTermFilter, whose shouldFilter() is "the term is not in the protected set", with the
wrapped chain given as a Python implementation of java.util.function.Function. For a predicate of the term alone
that is the same filter: the protected set is every input term the predicate rejects (the input stream is run once
through the same Lucene chain to collect them). Each case pairs the Elasticsearch settings the embedded engine
reads with the same chain built from Lucene's classes as Elasticsearch's factories build them, and its predicate
written in Python (Java's String.length() counts UTF-16 units). It writes condition.json.gz beside this file:
`{"cases": [{"name", "settings", "texts", "tokens": [[[term, position, start, end, position_length], ...], ...]}]}`
where each text's last entry is `["", end position increment, final offset]` (what end() leaves, which places the
next value of a multi-valued field),
which tests/engines/test_condition_filter.py compares. Runs in the Lucene oracle's environment
(../shared/tools/lucene-oracle/make_golden.sh sets it up).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import jpype
import jpype.imports
from oracle import start_jvm

HERE = Path(__file__).resolve().parent
OUT = HERE / "condition.json.gz"
SHARED = HERE.parents[2] / "shared"

SENTENCES = [
    "THE QUICK BROWN FOX jumps over the lazy dog",
    "the quick the a brown fox the",
    "a b c d e f",
    "Experimental investigation of the aerodynamics of a wing in a slipstream",
    "the boundary layer of a flat plate at high speed and the heat transfer of the plate",
    "Wi-Fi PowerShot SD500 and O'Neil's iPhone5 x-ray",
    "of the and a",
    "",
    "simple shear flow past a flat plate in an incompressible fluid of small viscosity",
    "the flow past the plate is in the",
    "flows in the",
    "the plate in",
]


def utf16_length(term: str) -> int:
    return len(term.encode("utf-16-le", "surrogatepass")) // 2


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    parser.add_argument("--shared", default=str(SHARED))
    args = parser.parse_args()
    sys.path.insert(0, str(Path(args.shared) / "tools" / "lucene-oracle"))
    from tricky_strings import TRICKY

    start_jvm(args.jar)
    from java.io import StringReader
    from java.util import Arrays
    from org.apache.lucene.analysis import CharArraySet
    from org.apache.lucene.analysis.core import LowerCaseFilter, StopFilter, WhitespaceTokenizer
    from org.apache.lucene.analysis.en import EnglishAnalyzer, PorterStemFilter
    from org.apache.lucene.analysis.miscellaneous import (
        ProtectedTermFilter,
        WordDelimiterGraphFilter,
        WordDelimiterIterator,
    )
    from org.apache.lucene.analysis.ngram import EdgeNGramTokenFilter
    from org.apache.lucene.analysis.shingle import ShingleFilter
    from org.apache.lucene.analysis.standard import StandardTokenizer
    from org.apache.lucene.analysis.tokenattributes import (
        CharTermAttribute,
        OffsetAttribute,
        PositionIncrementAttribute,
        PositionLengthAttribute,
    )

    @jpype.JImplements("java.util.function.Function")
    class Chain:
        def __init__(self, make):
            self.make = make

        @jpype.JOverride
        def apply(self, stream):
            return self.make(stream)

    english_stop = EnglishAnalyzer.ENGLISH_STOP_WORDS_SET
    small_stop = CharArraySet(Arrays.asList(["the", "a", "of", "and", "in"]), False)
    wd_flags = (
        WordDelimiterGraphFilter.GENERATE_WORD_PARTS
        | WordDelimiterGraphFilter.GENERATE_NUMBER_PARTS
        | WordDelimiterGraphFilter.SPLIT_ON_CASE_CHANGE
        | WordDelimiterGraphFilter.SPLIT_ON_NUMERICS
        | WordDelimiterGraphFilter.STEM_ENGLISH_POSSESSIVE
        | WordDelimiterGraphFilter.PRESERVE_ORIGINAL
    )

    def tokenizer(kind: str, text: str):
        made = StandardTokenizer() if kind == "standard" else WhitespaceTokenizer()
        made.setReader(StringReader(text))
        return made

    def drain(stream) -> list[list]:
        term = stream.addAttribute(CharTermAttribute)
        offset = stream.addAttribute(OffsetAttribute)
        increment = stream.addAttribute(PositionIncrementAttribute)
        length = stream.addAttribute(PositionLengthAttribute)
        stream.reset()
        out, position = [], -1
        while stream.incrementToken():
            position += increment.getPositionIncrement()
            out.append(
                [str(term.toString()), position, offset.startOffset(), offset.endOffset(), length.getPositionLength()]
            )
        stream.end()
        out.append(["", increment.getPositionIncrement(), offset.endOffset()])
        stream.close()
        return out

    # name: (tokenizer, filters before (settings names, Lucene), wrapped (settings names, Lucene), script, predicate)
    definitions = {
        "stop_small": {"type": "stop", "stopwords": ["the", "a", "of", "and", "in"]},
        "shingle": {"type": "shingle"},
        "edge3": {"type": "edge_ngram", "min_gram": 1, "max_gram": 3},
        "wdg": {"type": "word_delimiter_graph", "preserve_original": True},
    }
    cases = [
        ("docs_lowercase_short", "standard", [], lambda s: s, ["lowercase"], lambda s: LowerCaseFilter(s),
         "token.getTerm().length() < 5", lambda t: utf16_length(t) < 5),
        ("stop_inside_accepting_stopwords", "standard", ["lowercase"], lambda s: LowerCaseFilter(s), ["stop_small"],
         lambda s: StopFilter(s, small_stop), "token.getTerm().length() <= 3", lambda t: utf16_length(t) <= 3),
        ("stop_inside_protecting_some", "standard", ["lowercase"], lambda s: LowerCaseFilter(s), ["stop_small"],
         lambda s: StopFilter(s, small_stop),
         "String t = token.getTerm().toString(); return !(t == 'quick' || t == 'fox' || t == 'plate');",
         lambda t: t not in ("quick", "fox", "plate")),
        ("shingles_within_runs", "standard", ["lowercase"], lambda s: LowerCaseFilter(s), ["shingle"],
         lambda s: ShingleFilter(s, 2, 2), "token.term.length() > 2", lambda t: utf16_length(t) > 2),
        ("stem_then_stop_after_stop", "standard", ["lowercase", "stop"],
         lambda s: StopFilter(LowerCaseFilter(s), english_stop), ["porter_stem", "stop_small"],
         lambda s: StopFilter(PorterStemFilter(s), small_stop), "token.getTerm().length() > 4",
         lambda t: utf16_length(t) > 4),
        ("stacked_input_edge_ngrams", "whitespace", ["wdg", "lowercase"],
         lambda s: LowerCaseFilter(WordDelimiterGraphFilter(s, True, WordDelimiterIterator.DEFAULT_WORD_DELIM_TABLE,
                                                            wd_flags, None)),
         ["edge3"], lambda s: EdgeNGramTokenFilter(s, 1, 3, False), "token.getTerm().length() < 5",
         lambda t: utf16_length(t) < 5),
        ("stacked_input_stop", "whitespace", ["wdg", "lowercase"],
         lambda s: LowerCaseFilter(WordDelimiterGraphFilter(s, True, WordDelimiterIterator.DEFAULT_WORD_DELIM_TABLE,
                                                            wd_flags, None)),
         ["stop_small", "shingle"], lambda s: ShingleFilter(StopFilter(s, small_stop), 2, 2),
         "def n = token.getTerm().length(); n < 4 || n > 6", lambda t: utf16_length(t) < 4 or utf16_length(t) > 6),
    ]  # fmt: skip
    texts = SENTENCES + TRICKY[:120]
    out = []
    for name, kind, before, before_lucene, wrapped, wrapped_lucene, script, predicate in cases:
        settings = {
            "analysis": {
                "filter": {
                    **{key: value for key, value in definitions.items() if key in before or key in wrapped},
                    "cond": {"type": "condition", "filter": wrapped, "script": {"source": script}},
                },
                "analyzer": {"a": {"tokenizer": kind, "filter": [*before, "cond"]}},
            }
        }
        tokens = []
        for text in texts:
            rejected = {term for term, *_ in drain(before_lucene(tokenizer(kind, text)))[:-1] if not predicate(term)}
            protected = CharArraySet(Arrays.asList(sorted(rejected)), False)
            stream = ProtectedTermFilter(protected, before_lucene(tokenizer(kind, text)), Chain(wrapped_lucene))
            tokens.append(drain(stream))
        out.append({"name": name, "settings": settings, "texts": texts, "tokens": tokens})
    with gzip.open(OUT, "wt", encoding="utf-8") as handle:
        json.dump({"cases": out}, handle, ensure_ascii=False, separators=(",", ":"))
    print(f"wrote {OUT}: {len(out)} cases of {len(texts)} texts")


if __name__ == "__main__":
    main()
