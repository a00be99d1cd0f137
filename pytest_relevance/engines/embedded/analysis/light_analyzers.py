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
) -> Callable[[Any, Mapping, str], tuple[Callable, list]]:
    """standard tokenizer, [elision], lowercase, stop, [stem exclusions], `before` (normalizers), stemmer."""

    def build(reg: Any, spec: Mapping, path: str) -> tuple[Callable, list]:
        words = reg.word_list(spec, "stopwords", path, stop_list, named=True) or frozenset()
        chain: list = [filters.elision(elision, ignore_case=True)] if elision else []
        chain += [filters.lowercase(), filters.stop(words)]
        exclusions = reg.word_list(spec, "stem_exclusion", path, None)
        if exclusions:
            chain.append(filters.keyword_marker(exclusions.__contains__))
        chain += [make() for make in before]
        chain.append(stemmer())
        return tokenizers.standard(), chain

    return build


LIGHT_ANALYZERS: dict[str, Callable[[Any, Mapping, str], tuple[Callable, list]]] = {
    "french": _language("_french_", LIGHT_STEMMERS["light_french"], elision=filters.FRENCH_ARTICLES),
    "german": _language("_german_", LIGHT_STEMMERS["light_german"], (LIGHT_FILTERS["german_normalization"],)),
    "spanish": _language("_spanish_", LIGHT_STEMMERS["light_spanish"]),
    "italian": _language("_italian_", LIGHT_STEMMERS["light_italian"], elision=ITALIAN_ARTICLES),
    "portuguese": _language("_portuguese_", LIGHT_STEMMERS["light_portuguese"]),
    "galician": _language("_galician_", LIGHT_STEMMERS["galician"]),
}
# the options each provider reads
LIGHT_ANALYZER_OPTIONS = dict.fromkeys(LIGHT_ANALYZERS, ("stem_exclusion", "stopwords", "stopwords_path"))
LIGHT_ANALYZERS.update(CJK_ANALYZERS)
LIGHT_ANALYZER_OPTIONS["cjk"] = ("stopwords", "stopwords_path")
