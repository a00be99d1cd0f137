"""Elasticsearch's built-in language analyzers whose stemmer is one of Lucene's ported (non-Snowball) ones.

Each is the chain Lucene's `*Analyzer.createComponents` builds, with the stop words and stem exclusions
Elasticsearch's `*AnalyzerProvider` reads (`stopwords` / `stopwords_path`, default the language's `_lang_` list, and
`stem_exclusion`), so a built-in and a custom chain share every line of code. Those of the common shape are
`languages.Chain`s, built by the registry as the Snowball languages are; arabic, persian and cjk differ in where
their stop words or exclusions apply and are built here. The registry merges these tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_relevance.engines.embedded.analysis import filters, tokenizers
from pytest_relevance.engines.embedded.analysis.cjk import CJK_ANALYZERS
from pytest_relevance.engines.embedded.analysis.languages import Chain, greek_lowercase
from pytest_relevance.engines.embedded.analysis.light_stemmers import LIGHT_FILTERS, LIGHT_STEMMERS

__all__ = ["LIGHT_ANALYZERS", "LIGHT_ANALYZER_OPTIONS", "LIGHT_CHAINS"]

# ItalianAnalyzer.DEFAULT_ARTICLES (ignoring case); FrenchAnalyzer's are filters.FRENCH_ARTICLES
ITALIAN_ARTICLES = frozenset(
    "c l all dall dell nell sull coll pell gl agl dagl degl negl sugl un m t s v d".split()  # noqa: SIM905
)


def _exclusions(reg: Any, spec: Mapping, path: str) -> list:
    """The keyword marker of `stem_exclusion` (none for `_none_`, Analysis.parseStemExclusion's word for no words)."""
    if spec.get("stem_exclusion") == "_none_":
        return []
    exclusions = reg.word_list(spec, "stem_exclusion", path, None)
    return [filters.keyword_marker(exclusions.__contains__)] if exclusions else []


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


def _indic(language: str) -> Callable[[Any, Mapping, str], tuple[Callable, list]]:
    """HindiAnalyzer and BengaliAnalyzer: lowercase, decimal digits, stem exclusions, Indic and the language's
    normalization, then the stop words (normalized like the text), then the language's stemmer."""

    def build(reg: Any, spec: Mapping, path: str) -> tuple[Callable, list]:
        words = reg.word_list(spec, "stopwords", path, f"_{language}_", named=True) or frozenset()
        chain = [filters.lowercase(), filters.decimal_digit(), *_exclusions(reg, spec, path)]
        chain += [LIGHT_FILTERS["indic_normalization"](), LIGHT_FILTERS[f"{language}_normalization"]()]
        return tokenizers.standard(), [*chain, filters.stop(words), LIGHT_STEMMERS[language]()]

    return build


def _greek(reg: Any, spec: Mapping, path: str) -> tuple[Callable, list]:
    """GreekAnalyzer (Elasticsearch's provider reads stopwords only): Greek lowercase, stop, the Greek stemmer."""
    words = reg.word_list(spec, "stopwords", path, "_greek_", named=True) or frozenset()
    return tokenizers.standard(), [greek_lowercase(), filters.stop(words), LIGHT_STEMMERS["greek"]()]


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


def _elision(articles: frozenset[str]) -> Callable[[], Any]:
    return lambda: filters.elision(articles, ignore_case=True)


# the analyzers of the common shape (languages.Chain: standard tokenizer, `before`, stop, stem exclusions, `stem`)
LIGHT_CHAINS: dict[str, Chain] = {
    "french": Chain(
        "_french_", (LIGHT_STEMMERS["light_french"],), (_elision(filters.FRENCH_ARTICLES), filters.lowercase)
    ),
    "german": Chain("_german_", (LIGHT_FILTERS["german_normalization"], LIGHT_STEMMERS["light_german"])),
    "spanish": Chain("_spanish_", (LIGHT_STEMMERS["light_spanish"],)),
    "italian": Chain("_italian_", (LIGHT_STEMMERS["light_italian"],), (_elision(ITALIAN_ARTICLES), filters.lowercase)),
    "portuguese": Chain("_portuguese_", (LIGHT_STEMMERS["light_portuguese"],)),
    "galician": Chain("_galician_", (LIGHT_STEMMERS["galician"],)),
    "czech": Chain("_czech_", (LIGHT_STEMMERS["czech"],)),
    "bulgarian": Chain("_bulgarian_", (LIGHT_STEMMERS["bulgarian"],)),
    "latvian": Chain("_latvian_", (LIGHT_STEMMERS["latvian"],)),
    "indonesian": Chain("_indonesian_", (LIGHT_STEMMERS["indonesian"],)),
    "brazilian": Chain("_brazilian_", (LIGHT_STEMMERS["brazilian"],)),
    "sorani": Chain(
        "_sorani_",
        (LIGHT_STEMMERS["sorani"],),
        (LIGHT_FILTERS["sorani_normalization"], filters.lowercase, filters.decimal_digit),
    ),
    "serbian": Chain("_serbian_", (lambda: filters.snowball("Serbian"), LIGHT_FILTERS["serbian_normalization"])),
}
# the others, built here: (registry, definition, key path) -> (tokenizer, filters), and the options they read
LIGHT_ANALYZERS: dict[str, Callable[[Any, Mapping, str], tuple[Callable, list]]] = {
    "arabic": _arabic,
    "persian": _persian,
    "hindi": _indic("hindi"),
    "bengali": _indic("bengali"),
    "greek": _greek,
    **CJK_ANALYZERS,
}
LIGHT_ANALYZER_OPTIONS = {
    "arabic": ("stem_exclusion", "stopwords", "stopwords_path"),
    "hindi": ("stem_exclusion", "stopwords", "stopwords_path"),
    "bengali": ("stem_exclusion", "stopwords", "stopwords_path"),
    "persian": ("stopwords", "stopwords_path"),
    "greek": ("stopwords", "stopwords_path"),
    "cjk": ("stopwords", "stopwords_path"),
}
