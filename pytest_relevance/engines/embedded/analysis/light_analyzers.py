"""Elasticsearch's built-in language analyzers whose stemmer is one of Lucene's ported (non-Snowball) ones.

Each is the chain Lucene's `*Analyzer.createComponents` builds, with the stop words and stem exclusions
Elasticsearch's `*AnalyzerProvider` reads (`stopwords` / `stopwords_path`, default the language's `_lang_` list, and
`stem_exclusion`), so a built-in and a custom chain share every line of code. The registry merges these tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_relevance.engines.embedded.analysis import filters, tokenizers
from pytest_relevance.engines.embedded.analysis.cjk import CJK_ANALYZERS
from pytest_relevance.engines.embedded.analysis.light_stemmers import LIGHT_FILTERS, LIGHT_STEMMERS

__all__ = ["LIGHT_ANALYZERS", "LIGHT_ANALYZER_OPTIONS"]

# ItalianAnalyzer.DEFAULT_ARTICLES (ignoring case); FrenchAnalyzer's are filters.FRENCH_ARTICLES
ITALIAN_ARTICLES = frozenset(
    "c l all dall dell nell sull coll pell gl agl dagl degl negl sugl un m t s v d".split()  # noqa: SIM905
)


def _language(
    stop_list: str,
    stemmer: Callable[[], Any],
    before: tuple[Callable[[], Any], ...] = (),
    elision: frozenset = frozenset(),
    pre_stop: tuple[Callable[[], Any], ...] = (),
) -> Callable[[Any, Mapping, str], tuple[Callable, list]]:
    """standard tokenizer, [elision], lowercase, `pre_stop`, stop, [stem exclusions], `before`, stemmer."""

    def build(reg: Any, spec: Mapping, path: str) -> tuple[Callable, list]:
        words = reg.word_list(spec, "stopwords", path, stop_list, named=True) or frozenset()
        chain: list = [filters.elision(elision, ignore_case=True)] if elision else []
        chain += [filters.lowercase(), *(make() for make in pre_stop), filters.stop(words)]
        exclusions = reg.word_list(spec, "stem_exclusion", path, None)
        if exclusions:
            chain.append(filters.keyword_marker(exclusions.__contains__))
        chain += [make() for make in before]
        chain.append(stemmer())
        return tokenizers.standard(), chain

    return build


def _arabic(reg: Any, spec: Mapping, path: str) -> tuple[Callable, list]:
    """ArabicAnalyzer: the stop words are matched before normalization (Lucene's own comment: they are not
    normalized), the stem exclusions after it."""
    words = reg.word_list(spec, "stopwords", path, "_arabic_", named=True) or frozenset()
    chain: list = [
        filters.lowercase(),
        filters.decimal_digit(),
        filters.stop(words),
        LIGHT_FILTERS["arabic_normalization"](),
    ]
    exclusions = reg.word_list(spec, "stem_exclusion", path, None)
    if exclusions:
        chain.append(filters.keyword_marker(exclusions.__contains__))
    return tokenizers.standard(), [*chain, LIGHT_STEMMERS["arabic"]()]


def _zwnj_as_space(tokenize: Callable) -> Callable:
    """PersianAnalyzer's PersianCharFilter: a zero-width non-joiner reads as a space (one character for one, so every
    offset stays)."""

    def run(text: str) -> list:
        return tokenize(text.replace("\u200c", " "))

    run.terms = lambda text: tokenize.terms(text.replace("\u200c", " "))  # type: ignore[attr-defined]
    return run


def _persian(reg: Any, spec: Mapping, path: str) -> tuple[Callable, list]:
    """PersianAnalyzer (Elasticsearch's provider reads stopwords only): lowercase, decimal digits, Arabic and Persian
    normalization, then the stop words (normalized like the text). Lucene 9.9.1's has no stemmer (persian_stem is
    a filter of its own)."""
    words = reg.word_list(spec, "stopwords", path, "_persian_", named=True) or frozenset()
    chain = [
        filters.lowercase(),
        filters.decimal_digit(),
        LIGHT_FILTERS["arabic_normalization"](),
        LIGHT_FILTERS["persian_normalization"](),
        filters.stop(words),
    ]
    return _zwnj_as_space(tokenizers.standard()), chain


LIGHT_ANALYZERS: dict[str, Callable[[Any, Mapping, str], tuple[Callable, list]]] = {
    "french": _language("_french_", LIGHT_STEMMERS["light_french"], elision=filters.FRENCH_ARTICLES),
    "german": _language("_german_", LIGHT_STEMMERS["light_german"], (LIGHT_FILTERS["german_normalization"],)),
    "spanish": _language("_spanish_", LIGHT_STEMMERS["light_spanish"]),
    "italian": _language("_italian_", LIGHT_STEMMERS["light_italian"], elision=ITALIAN_ARTICLES),
    "portuguese": _language("_portuguese_", LIGHT_STEMMERS["light_portuguese"]),
    "galician": _language("_galician_", LIGHT_STEMMERS["galician"]),
    "czech": _language("_czech_", LIGHT_STEMMERS["czech"]),
    "bulgarian": _language("_bulgarian_", LIGHT_STEMMERS["bulgarian"]),
    "latvian": _language("_latvian_", LIGHT_STEMMERS["latvian"]),
    "indonesian": _language("_indonesian_", LIGHT_STEMMERS["indonesian"]),
    "arabic": _arabic,
    "persian": _persian,
}
# the options each provider reads
LIGHT_ANALYZER_OPTIONS = dict.fromkeys(LIGHT_ANALYZERS, ("stem_exclusion", "stopwords", "stopwords_path"))
LIGHT_ANALYZERS.update(CJK_ANALYZERS)
LIGHT_ANALYZER_OPTIONS["cjk"] = ("stopwords", "stopwords_path")
LIGHT_ANALYZER_OPTIONS["persian"] = ("stopwords", "stopwords_path")
