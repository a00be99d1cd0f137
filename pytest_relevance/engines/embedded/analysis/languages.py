# ruff: noqa: RUF002 (the Turkish dotless i is the point of a docstring here)
"""Other languages than English: the language lowercase filters, the Snowball names of the `stemmer` filter, and the
built-in language analyzers as a table the registry reads.

Each analyzer is the chain Lucene 9.9.1's `<Language>Analyzer.createComponents` builds, with the arguments
Elasticsearch's `<Language>AnalyzerProvider` gives it: the analyzer's default stop words unless `stopwords` or
`stopwords_path` says otherwise (Analysis.parseStopWords), and a keyword marker for `stem_exclusion` before the
stemmer (Analysis.parseStemExclusion). A language whose chain needs more than the components here is added to
ANALYZERS with them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from pytest_relevance.engines.embedded.analysis import filters, snowball
from pytest_relevance.engines.embedded.analysis.stream import MapFilter, StreamFilter, java_lower

# GreekLowerCaseFilter: these lose their tonos or dialytika, final sigma becomes sigma; the rest as LowerCaseFilter.
_GREEK = str.maketrans(
    {
        "\u03c2": "\u03c3",
        **dict.fromkeys("\u0386\u03ac", "\u03b1"),
        **dict.fromkeys("\u0388\u03ad", "\u03b5"),
        **dict.fromkeys("\u0389\u03ae", "\u03b7"),
        **dict.fromkeys("\u038a\u03aa\u03af\u03ca\u0390", "\u03b9"),
        **dict.fromkeys("\u038e\u03ab\u03cd\u03cb\u03b0", "\u03c5"),
        **dict.fromkeys("\u038c\u03cc", "\u03bf"),
        **dict.fromkeys("\u038f\u03ce", "\u03c9"),
        "\u03a2": "\u03c2",  # a reserved code point, kept from Lucene's older implementation
    }
)
_IRISH_UPPER_VOWELS = frozenset("AEIOU\u00c1\u00c9\u00cd\u00d3\u00da")


def greek_lowercase() -> MapFilter:
    return MapFilter(lambda term: java_lower(term.translate(_GREEK)))


def irish_lowercase() -> MapFilter:
    """IrishLowerCaseFilter: `nAthair` -> `n-athair` (n-eclipsis, t-prothesis), then Character.toLowerCase per
    UTF-16 unit, so characters beyond the BMP keep their case."""

    def run(term: str) -> str:
        if len(term) > 1 and term[0] in "nt" and term[1] in _IRISH_UPPER_VOWELS:
            term = f"{term[0]}-{term[1:]}"
        if term.isascii():
            return term.lower()
        return "".join(java_lower(c) if c <= "\uffff" else c for c in term)

    return MapFilter(run)


def turkish_lowercase() -> MapFilter:
    """TurkishLowerCaseFilter: I is dotless ı unless a combining dot above follows it (through other non-spacing
    marks), in which case it is i and the dot goes; everything else as LowerCaseFilter."""

    def run(term: str) -> str:
        if "I" not in term:
            return java_lower(term)
        out: list[str] = []
        after_i = False
        for index, c in enumerate(term):
            after_i = c == "I" or (after_i and unicodedata.category(c) == "Mn")
            if after_i and c == "\u0307":
                continue
            if c == "I":
                dotted = False
                for mark in term[index + 1 :]:
                    if unicodedata.category(mark) != "Mn":
                        break
                    if mark == "\u0307":
                        dotted = True
                        break
                out.append("i" if dotted else "\u0131")
                after_i = dotted
            else:
                out.append(java_lower(c))
        return "".join(out)

    return MapFilter(run)


# LowerCaseTokenFilterFactory: `language`, compared ignoring case.
LOWERCASE = {"greek": greek_lowercase, "irish": irish_lowercase, "turkish": turkish_lowercase}

# StemmerTokenFilterFactory's names (compared ignoring case) that build a SnowballFilter -> the Snowball class.
SNOWBALL_STEMMERS = {
    "armenian": "Armenian", "basque": "Basque", "catalan": "Catalan", "danish": "Danish", "dutch": "Dutch",
    "dutch_kp": "Kp", "dutchkp": "Kp", "kp": "Kp", "lovins": "Lovins", "porter2": "English", "estonian": "Estonian",
    "finnish": "Finnish", "french": "French", "german": "German", "german2": "German2", "hungarian": "Hungarian",
    "irish": "Irish", "italian": "Italian", "lithuanian": "Lithuanian", "norwegian": "Norwegian",
    "portuguese": "Portuguese", "romanian": "Romanian", "russian": "Russian", "serbian": "Serbian",
    "spanish": "Spanish", "swedish": "Swedish", "turkish": "Turkish",
}  # fmt: skip
# A name the factory matches to nothing else goes to `new SnowballFilter(stream, Strings.capitalize(name))`, which
# loads the class by that exact name: the Snowball classes no other name reaches.
SNOWBALL_FALLBACK = frozenset(["Nepali", "Tamil", "Yiddish"])


def snowball_stemmer(language: str) -> str | None:
    """The Snowball class the `stemmer` filter builds for `language`, None when it builds something else."""
    if language.lower() in SNOWBALL_STEMMERS:
        return SNOWBALL_STEMMERS[language.lower()]
    capitalized = language[:1].upper() + language[1:]
    return capitalized if capitalized in SNOWBALL_FALLBACK else None


def snowball_language(language: str) -> str | None:
    """The class `SnowballFilter(stream, Strings.capitalize(language))` loads (the `snowball` filter), or None."""
    capitalized = language[:1].upper() + language[1:]
    return capitalized if capitalized in snowball.LANGUAGES else None


# DutchAnalyzer's DEFAULT_STEM_DICT, a StemmerOverrideFilter before its stemmer.
_DUTCH_OVERRIDES = {"fiets": "fiets", "bromfiets": "bromfiets", "ei": "eier", "kind": "kinder"}

Factory = Callable[[], MapFilter | StreamFilter]


@dataclass(frozen=True)
class Chain:
    """A language analyzer: the standard tokenizer, `before`, a stop filter (`stop_words` by default), a keyword
    marker when `stem_exclusion` names words, then `stem`."""

    stop_words: str
    stem: tuple[Factory, ...]
    before: tuple[Factory, ...] = (filters.lowercase,)


def _snowball_chain(language: str) -> Chain:
    """The common shape: lowercase, stop, keyword marker, SnowballFilter with the language's stemmer."""
    return Chain(f"_{language.lower()}_", (lambda: filters.snowball(language),))


ANALYZERS: dict[str, Chain] = {
    "armenian": _snowball_chain("Armenian"),
    "basque": _snowball_chain("Basque"),
    "catalan": Chain(
        "_catalan_",
        (lambda: filters.snowball("Catalan"),),
        (lambda: filters.elision(["d", "l", "m", "n", "s", "t"], ignore_case=True), filters.lowercase),
    ),
    "danish": _snowball_chain("Danish"),
    "dutch": Chain("_dutch_", (lambda: filters.stemmer_override(_DUTCH_OVERRIDES), lambda: filters.snowball("Dutch"))),
    "estonian": _snowball_chain("Estonian"),
    "finnish": _snowball_chain("Finnish"),
    "hungarian": _snowball_chain("Hungarian"),
    "irish": Chain(
        "_irish_",
        (lambda: filters.snowball("Irish"),),
        (
            # HYPHENATIONS: the standard tokenizer splits t-athair into t, athair, and the t goes
            lambda: filters.stop(["h", "n", "t"], ignore_case=True),
            lambda: filters.elision(["d", "m", "b"], ignore_case=True),
            irish_lowercase,
        ),
    ),
    "lithuanian": _snowball_chain("Lithuanian"),
    "norwegian": _snowball_chain("Norwegian"),
    "romanian": _snowball_chain("Romanian"),
    "russian": _snowball_chain("Russian"),
    "swedish": _snowball_chain("Swedish"),
    "turkish": Chain("_turkish_", (lambda: filters.snowball("Turkish"),), (filters.apostrophe, turkish_lowercase)),
}
