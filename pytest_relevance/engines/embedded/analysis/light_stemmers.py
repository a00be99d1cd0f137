# ruff: noqa: RUF001 (the suffixes are Cyrillic, Greek, Arabic... on purpose)
"""Lucene's non-Snowball stemmers and the character normalizers, ported line by line from Lucene 9.9.1's Java.

Each stemmer is a pure function of one term, so each is wrapped in a bounded cache and run as a `MapFilter`
(`skip_keyword`, as every Lucene stem filter honours KeywordAttribute). The Java works on UTF-16 `char[]` buffers:
`_utf16` gives a term with characters outside the BMP to the port as surrogate halves, so lengths and
`Character.isLetter` (false for a surrogate) see what Java sees. The RSLP stemmers (portuguese_rslp,
minimal_portuguese, galician, minimal_galician) read their rules from light_data.json.gz, which
tests/lucene_extra/light_languages.py generates from the resource files inside the Lucene jar (with CJKAnalyzer's
stop words).
"""

from __future__ import annotations

import gzip
import json
import unicodedata
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from pytest_relevance.engines.embedded.analysis import filters
from pytest_relevance.engines.embedded.analysis.stream import MapFilter
from pytest_relevance.engines.embedded.java import from_utf16, utf16

__all__ = ["LIGHT_FILTERS", "LIGHT_STEMMERS", "STEM_FILTERS", "light_stemmer"]

_DATA = Path(__file__).with_name("light_data.json.gz")


def _utf16(fn: Callable[[list[str]], str]) -> Callable[[str], str]:
    """Run a char[] port on a term's UTF-16 code units (a list of one-character strings)."""

    def run(term: str) -> str:
        if all(ord(c) < 0x10000 for c in term):
            return fn(list(term))
        return from_utf16(fn(list(utf16(term))))

    return run


def _ends(s: list[str], n: int, suffix: str) -> bool:
    """StemmerUtil.endsWith: the first n chars of s end with suffix."""
    k = len(suffix)
    return n >= k and "".join(s[n - k : n]) == suffix


def _letter(c: str) -> bool:
    return c.isalpha()  # Character.isLetter(char): the L categories, false for a surrogate half


def _fold(s: list[str], n: int, table: dict[str, str]) -> None:
    for i in range(n):
        s[i] = table.get(s[i], s[i])


def _table(groups: str) -> dict[str, str]:
    """'àáâ:a ô:o' -> {'à': 'a', ...}: the accent switch statements of the Savoy stemmers."""
    out = {}
    for group in groups.split():
        sources, target = group.split(":")
        out.update(dict.fromkeys(sources, target))
    return out


# French ------------------------------------------------------------------------------------------------------------

_FR_NORM = _table("àáâ:a ô:o èéê:e ùû:u î:i ç:c")


def _french_norm(s: list[str], n: int) -> int:
    if n > 4:
        _fold(s, n, _FR_NORM)
        ch = s[0]
        i = 1
        while i < n:
            if s[i] == ch and _letter(ch):
                del s[i]
                n -= 1
            else:
                ch = s[i]
                i += 1
    if n > 4 and _ends(s, n, "ie"):
        n -= 2
    if n > 4:
        if s[n - 1] == "r":
            n -= 1
        if s[n - 1] == "e":
            n -= 1
        if s[n - 1] == "e":
            n -= 1
        if s[n - 1] == s[n - 2] and _letter(s[n - 1]):
            n -= 1
    return n


def _french_light_len(s: list[str], n: int) -> int:
    if n > 5 and s[n - 1] == "x":
        if s[n - 3] == "a" and s[n - 2] == "u" and s[n - 4] != "e":
            s[n - 2] = "l"
        n -= 1
    if n > 3 and s[n - 1] == "x":
        n -= 1
    if n > 3 and s[n - 1] == "s":
        n -= 1
    if n > 9 and _ends(s, n, "issement"):
        n -= 6
        s[n - 1] = "r"
        return _french_norm(s, n)
    if n > 8 and _ends(s, n, "issant"):
        n -= 4
        s[n - 1] = "r"
        return _french_norm(s, n)
    if n > 6 and _ends(s, n, "ement"):
        n -= 4
        if n > 3 and _ends(s, n, "ive"):
            n -= 1
            s[n - 1] = "f"
        return _french_norm(s, n)
    if n > 11 and _ends(s, n, "ficatrice"):
        n -= 5
        s[n - 2 : n] = ["e", "r"]
        return _french_norm(s, n)
    if n > 10 and _ends(s, n, "ficateur"):
        n -= 4
        s[n - 2 : n] = ["e", "r"]
        return _french_norm(s, n)
    if n > 9 and _ends(s, n, "catrice"):
        n -= 3
        s[n - 4 : n - 1] = ["q", "u", "e"]
        return _french_norm(s, n)
    if n > 8 and _ends(s, n, "cateur"):
        n -= 2
        s[n - 4 : n] = ["q", "u", "e", "r"]
        return _french_norm(s, n)
    if n > 8 and _ends(s, n, "atrice"):
        n -= 4
        s[n - 2 : n] = ["e", "r"]
        return _french_norm(s, n)
    if n > 7 and _ends(s, n, "ateur"):
        n -= 3
        s[n - 2 : n] = ["e", "r"]
        return _french_norm(s, n)
    if n > 6 and _ends(s, n, "trice"):
        n -= 1
        s[n - 3 : n] = ["e", "u", "r"]
    if n > 5 and _ends(s, n, "ième"):
        return _french_norm(s, n - 4)
    if n > 7 and _ends(s, n, "teuse"):
        n -= 2
        s[n - 1] = "r"
        return _french_norm(s, n)
    if n > 6 and _ends(s, n, "teur"):
        n -= 1
        s[n - 1] = "r"
        return _french_norm(s, n)
    if n > 5 and _ends(s, n, "euse"):
        return _french_norm(s, n - 2)
    if n > 8 and _ends(s, n, "ère"):
        n -= 1
        s[n - 2] = "e"
        return _french_norm(s, n)
    if n > 7 and _ends(s, n, "ive"):
        n -= 1
        s[n - 1] = "f"
        return _french_norm(s, n)
    if n > 4 and (_ends(s, n, "folle") or _ends(s, n, "molle")):
        n -= 2
        s[n - 1] = "u"
        return _french_norm(s, n)
    if n > 9 and _ends(s, n, "nnelle"):
        return _french_norm(s, n - 5)
    if n > 9 and _ends(s, n, "nnel"):
        return _french_norm(s, n - 3)
    if n > 4 and _ends(s, n, "ète"):
        n -= 1
        s[n - 2] = "e"
    if n > 8 and _ends(s, n, "ique"):
        n -= 4
    if n > 8 and _ends(s, n, "esse"):
        return _french_norm(s, n - 3)
    if n > 7 and _ends(s, n, "inage"):
        return _french_norm(s, n - 3)
    if n > 9 and _ends(s, n, "isation"):
        n -= 7
        if n > 5 and _ends(s, n, "ual"):
            s[n - 2] = "e"
        return _french_norm(s, n)
    if n > 9 and _ends(s, n, "isateur"):
        return _french_norm(s, n - 7)
    if n > 8 and (_ends(s, n, "ation") or _ends(s, n, "ition")):
        return _french_norm(s, n - 5)
    return _french_norm(s, n)


def _french_light(s: list[str]) -> str:
    """FrenchLightStemmer (Savoy's UniNE light stemmer)."""
    return "".join(s[: _french_light_len(s, len(s))])


def _french_minimal(s: list[str]) -> str:
    """FrenchMinimalStemmer."""
    n = len(s)
    if n < 6:
        return "".join(s)
    if s[n - 1] == "x":
        if s[n - 3] == "a" and s[n - 2] == "u":
            s[n - 2] = "l"
        return "".join(s[: n - 1])
    for c in "sreé":
        if s[n - 1] == c:
            n -= 1
    if s[n - 1] == s[n - 2] and _letter(s[n - 1]):
        n -= 1
    return "".join(s[:n])


# German ------------------------------------------------------------------------------------------------------------

_DE_LIGHT = _table("äàáâ:a öòóô:o ïìíî:i üùúû:u")
_ST_ENDING = frozenset("bdfghklmnt")


def _german_light(s: list[str]) -> str:
    """GermanLightStemmer."""
    n = len(s)
    _fold(s, n, _DE_LIGHT)
    if n > 5 and _ends(s, n, "ern"):
        n -= 3
    elif n > 4 and s[n - 2] == "e" and s[n - 1] in "mnrs":
        n -= 2
    elif (n > 3 and s[n - 1] == "e") or (n > 3 and s[n - 1] == "s" and s[n - 2] in _ST_ENDING):
        n -= 1
    if n > 5 and _ends(s, n, "est"):
        n -= 3
    elif (n > 4 and s[n - 2] == "e" and s[n - 1] in "rn") or (
        n > 4 and s[n - 2] == "s" and s[n - 1] == "t" and s[n - 3] in _ST_ENDING
    ):
        n -= 2
    return "".join(s[:n])


def _german_minimal(s: list[str]) -> str:
    """GermanMinimalStemmer."""
    n = len(s)
    if n < 5:
        return "".join(s)
    _fold(s, n, {"ä": "a", "ö": "o", "ü": "u"})
    if n > 6 and _ends(s, n, "nen"):
        return "".join(s[: n - 3])
    if n > 5 and (s[n - 1], s[n - 2]) in (("n", "e"), ("e", "s"), ("s", "e"), ("r", "e")):
        return "".join(s[: n - 2])
    if s[n - 1] in "nesr":
        n -= 1
    return "".join(s[:n])


def german_normalization(term: str) -> str:
    """GermanNormalizationFilter: German2's umlaut heuristics (ß -> ss, ä -> a, ae -> a, ue -> u after no vowel)."""
    out: list[str] = []
    state = 0  # N = 0 ordinary, V = 1 stops 'u' from entering umlaut state, U = 2 umlaut state
    for c in term:
        if c in "ao":
            state = 2
        elif c == "u":
            state = 2 if state == 0 else 1
        elif c == "e":
            if state == 2:
                state = 1
                continue
            state = 1
        elif c in "iqy":
            state = 1
        elif c in "äöü":
            c = {"ä": "a", "ö": "o", "ü": "u"}[c]
            state = 1
        elif c == "ß":
            out.append("s")
            c = "s"
            state = 0
        else:
            state = 0
        out.append(c)
    return "".join(out)


_DE_DOUBLE_TOKENS = {"*": None, "$": "sch", "§": "ch", "%": "ei", "&": "ie", "#": "ig", "!": "st"}


def _german_strip(b: list[str], subst: int) -> None:
    while len(b) > 3:
        n = len(b)
        tail = b[-2] + b[-1]
        if (n + subst > 5 and tail == "nd") or (n + subst > 4 and tail in ("em", "er")):
            del b[-2:]
        elif b[-1] in "esnt":
            del b[-1]
        else:
            return


def german_stem(term: str) -> str:
    """GermanStemmer (Caumanns), the stemmer of the german_stem filter: lowercases (de-DE) and stems words of letters
    only."""
    term = term.lower()
    if not all(_letter(c) and ord(c) < 0x10000 for c in term):  # a surrogate half is no letter in Java
        return term
    b = list(term)
    subst = 0
    c = 0
    while c < len(b):  # substitute()
        if c > 0 and b[c] == b[c - 1]:
            b[c] = "*"
        elif b[c] in "äöü":
            b[c] = {"ä": "a", "ö": "o", "ü": "u"}[b[c]]
        elif b[c] == "ß":
            b[c] = "s"
            b.insert(c + 1, "s")
            subst += 1
        if c < len(b) - 1:
            pair = b[c] + b[c + 1]
            if c < len(b) - 2 and pair == "sc" and b[c + 2] == "h":
                b[c : c + 3] = ["$"]
                subst += 2
            elif pair in ("ch", "ei", "ie", "ig", "st"):
                b[c : c + 2] = [{"ch": "§", "ei": "%", "ie": "&", "ig": "#", "st": "!"}[pair]]
                subst += 1
        c += 1
    _german_strip(b, subst)
    if len(b) > 5 and "".join(b[-5:]) == "erin*":  # optimize()
        del b[-1]
        _german_strip(b, subst)
    if b and b[-1] == "z":
        b[-1] = "x"
    out: list[str] = []  # resubstitute()
    for ch in b:
        if ch == "*":
            out.append(out[-1][-1] if out else ch)
        else:
            out.append(_DE_DOUBLE_TOKENS.get(ch) or ch)
    word = "".join(out)
    if len(word) > 4:  # removeParticleDenotion()
        at = word.find("gege", 0, len(word))
        if at >= 0:
            word = word[:at] + word[at + 2 :]
    return word


# Spanish, Italian, Portuguese -------------------------------------------------------------------------------------

_ES_IT = _table("àáâä:a òóôö:o èéêë:e ùúûü:u ìíîï:i")


def _spanish_light(s: list[str]) -> str:
    """SpanishLightStemmer."""
    n = len(s)
    if n < 5:
        return "".join(s)
    _fold(s, n, _ES_IT)
    last = s[n - 1]
    if last in "oae":
        n -= 1
    elif last == "s":
        if s[n - 2] == "e" and s[n - 3] == "s" and s[n - 4] == "e":
            n -= 2
        elif s[n - 2] == "e" and s[n - 3] == "c":
            s[n - 3] = "z"
            n -= 2
        elif s[n - 2] in "oae":
            n -= 2
    return "".join(s[:n])


def _italian_light(s: list[str]) -> str:
    """ItalianLightStemmer."""
    n = len(s)
    if n < 6:
        return "".join(s)
    _fold(s, n, _ES_IT)
    last, before = s[n - 1], s[n - 2]
    if last == "e":
        n -= 2 if before in "ih" else 1
    elif last == "i":
        n -= 2 if before in "hi" else 1
    elif last in "ao":
        n -= 2 if before == "i" else 1
    return "".join(s[:n])


_PT_LIGHT = _table("àáâäã:a òóôöõ:o èéêë:e ùúûü:u ìíîï:i ç:c")


def _pt_remove_suffix(s: list[str], n: int) -> int:
    if n > 4 and _ends(s, n, "es") and s[n - 3] in "rslz":
        return n - 2
    if n > 3 and _ends(s, n, "ns"):
        s[n - 2] = "m"
        return n - 1
    if n > 4 and (_ends(s, n, "eis") or _ends(s, n, "éis")):
        s[n - 3 : n - 1] = ["e", "l"]
        return n - 1
    if n > 4 and _ends(s, n, "ais"):
        s[n - 2] = "l"
        return n - 1
    if n > 4 and _ends(s, n, "óis"):
        s[n - 3 : n - 1] = ["o", "l"]
        return n - 1
    if n > 4 and _ends(s, n, "is"):
        s[n - 1] = "l"
        return n
    if n > 3 and (_ends(s, n, "ões") or _ends(s, n, "ães")):
        n -= 1
        s[n - 2 : n] = ["ã", "o"]
        return n
    if n > 6 and _ends(s, n, "mente"):
        return n - 5
    if n > 3 and s[n - 1] == "s":
        return n - 1
    return n


def _pt_norm_feminine(s: list[str], n: int) -> int:
    if n > 7 and (_ends(s, n, "inha") or _ends(s, n, "iaca") or _ends(s, n, "eira")):
        s[n - 1] = "o"
        return n
    if n > 6:
        if any(_ends(s, n, x) for x in ("osa", "ica", "ida", "ada", "iva", "ama")):
            s[n - 1] = "o"
            return n
        if _ends(s, n, "ona"):
            s[n - 3 : n - 1] = ["ã", "o"]
            return n - 1
        if _ends(s, n, "ora"):
            return n - 1
        if _ends(s, n, "esa"):
            s[n - 3] = "ê"
            return n - 1
        if _ends(s, n, "na"):
            s[n - 1] = "o"
            return n
    return n


def _portuguese_light(s: list[str]) -> str:
    """PortugueseLightStemmer."""
    n = len(s)
    if n < 4:
        return "".join(s)
    n = _pt_remove_suffix(s, n)
    if n > 3 and s[n - 1] == "a":
        n = _pt_norm_feminine(s, n)
    if n > 4 and s[n - 1] in "eao":
        n -= 1
    _fold(s, n, _PT_LIGHT)
    return "".join(s[:n])


# RSLP (portuguese_rslp, minimal_portuguese, galician, minimal_galician) ------------------------------------------


class _Step:
    """RSLPStemmerBase.Step: the first rule that matches fires; rules are (suffix, min, replacement, exceptions)."""

    __slots__ = ("min", "rules", "suffixes", "whole_word")

    def __init__(self, spec: dict) -> None:
        self.rules = [(r[0], r[1], r[2], frozenset(r[3]) if spec["whole_word"] else tuple(r[3])) for r in spec["rules"]]
        self.whole_word = spec["whole_word"]
        self.min = spec["min"] or min(r[1] + len(r[0]) for r in self.rules)
        self.suffixes = tuple(spec["conditions"])

    def apply(self, s: list[str], n: int) -> int:
        if n < self.min:
            return n
        if self.suffixes and not any(_ends(s, n, x) for x in self.suffixes):
            return n
        for suffix, least, replacement, exceptions in self.rules:
            if n - len(suffix) < least or not _ends(s, n, suffix):
                continue
            if exceptions:
                if self.whole_word:
                    if "".join(s[:n]) in exceptions:
                        continue
                elif any(_ends(s, n, x) for x in exceptions):
                    continue
            n -= len(suffix)
            s[n : n + len(replacement)] = list(replacement)
            return n + len(replacement)
        return n


@cache
def _data() -> dict:
    with gzip.open(_DATA, "rt", encoding="utf-8") as handle:
        return json.load(handle)


@cache
def _steps(language: str) -> dict[str, _Step]:
    return {name: _Step(spec) for name, spec in _data()["rslp"][language].items()}


def cjk_stop_words() -> frozenset[str]:
    """CJKAnalyzer's default stop words (its stopwords.txt: English words and `s`, `t`, `www`)."""
    return frozenset(_data()["cjk_stopwords"])


_RSLP_PT_ACCENTS = _table("àáâãäå:a ç:c èéêë:e ìíîï:i ñ:n òóôõö:o ùúûü:u ýÿ:y")
_RSLP_GL_ACCENTS = _table("á:a éê:e í:i ó:o ú:u")


def _portuguese_rslp(s: list[str]) -> str:
    """PortugueseStemmer (RSLP, Orengo)."""
    steps = _steps("portuguese")
    n = len(s)
    for name in ("Plural", "Adverb", "Feminine", "Augmentative"):
        n = steps[name].apply(s, n)
    old = n
    n = steps["Noun"].apply(s, n)
    if n == old:
        n = steps["Verb"].apply(s, n)
        if n == old:
            n = steps["Vowel"].apply(s, n)
    _fold(s, n, _RSLP_PT_ACCENTS)
    return "".join(s[:n])


def _galician(s: list[str]) -> str:
    """GalicianStemmer ("Regras do lematizador para o galego")."""
    steps = _steps("galician")
    n = len(s)
    for name in ("Plural", "Unification", "Adverb"):
        n = steps[name].apply(s, n)
    while True:
        old = n
        n = steps["Augmentative"].apply(s, n)
        if n == old:
            break
    old = n
    n = steps["Noun"].apply(s, n)
    if n == old:
        n = steps["Verb"].apply(s, n)
    n = steps["Vowel"].apply(s, n)
    _fold(s, n, _RSLP_GL_ACCENTS)
    return "".join(s[:n])


def _plural_only(language: str) -> Callable[[list[str]], str]:
    """PortugueseMinimalStemmer / GalicianMinimalStemmer: the Plural step of the RSLP rules only."""

    def run(s: list[str]) -> str:
        return "".join(s[: _steps(language)["Plural"].apply(s, len(s))])

    return run


# Swedish, Norwegian, Finnish, Hungarian, Russian ---------------------------------------------------------------


def _any(s: list[str], n: int, suffixes: tuple[str, ...]) -> bool:
    return any(_ends(s, n, x) for x in suffixes)


def _swedish_light(s: list[str]) -> str:
    """SwedishLightStemmer."""
    n = len(s)
    if n > 4 and s[n - 1] == "s":
        n -= 1
    if n > 7 and _any(s, n, ("elser", "heten")):
        n -= 5
    elif n > 6 and _any(s, n, ("arne", "erna", "ande", "else", "aste", "orna", "aren")):
        n -= 4
    elif n > 5 and _any(s, n, ("are", "ast", "het")):
        n -= 3
    elif n > 4 and _any(s, n, ("ar", "er", "or", "en", "at", "te", "et")):
        n -= 2
    elif n > 3 and s[n - 1] in "taen":
        n -= 1
    return "".join(s[:n])


def _norwegian_light_len(s: list[str], n: int, bokmaal: bool, nynorsk: bool) -> int:
    if n > 4 and s[n - 1] == "s":
        n -= 1
    if n > 7 and ((bokmaal and _any(s, n, ("heter", "heten"))) or (nynorsk and _ends(s, n, "heita"))):
        return n - 5
    if n > 8 and nynorsk and _any(s, n, ("heiter", "leiken", "leikar")):
        return n - 6
    if n > 5 and (_ends(s, n, "dom") or (bokmaal and _ends(s, n, "het"))):
        return n - 3
    if n > 6 and nynorsk and _any(s, n, ("heit", "semd", "leik")):
        return n - 4
    if n > 7 and _any(s, n, ("elser", "elsen")):
        return n - 5
    if n > 6 and (
        _ends(s, n, "else")
        or (bokmaal and _any(s, n, ("ende", "este", "eren")))
        or (nynorsk and _any(s, n, ("ande", "aste", "aren")))
    ):
        return n - 4
    if n > 5 and (
        _ends(s, n, "ene")
        or (bokmaal and _any(s, n, ("ere", "est")))
        or (nynorsk and _any(s, n, ("are", "ast", "ane")))
    ):
        return n - 3
    if n > 4 and (
        _any(s, n, ("er", "en", "et", "te")) or (nynorsk and _ends(s, n, "ar")) or (bokmaal and _ends(s, n, "st"))
    ):
        return n - 2
    if n > 3 and s[n - 1] in "aen":
        return n - 1
    return n


def _norwegian_minimal_len(s: list[str], n: int, nynorsk: bool) -> int:
    if n > 4 and s[n - 1] == "s":
        n -= 1
    if n > 5 and (_ends(s, n, "ene") or (nynorsk and _ends(s, n, "ane"))):
        return n - 3
    if n > 4 and (_any(s, n, ("er", "en", "et")) or (nynorsk and _ends(s, n, "ar"))):
        return n - 2
    if n > 3 and s[n - 1] in "ae":
        return n - 1
    return n


def _norwegian(minimal: bool, nynorsk: bool) -> Callable[[list[str]], str]:
    """NorwegianLightStemmer / NorwegianMinimalStemmer with the Bokmål flag (Elasticsearch's `*_norwegian`) or the
    Nynorsk one (`*_nynorsk`, the factories' variant `nn`)."""

    def run(s: list[str]) -> str:
        if minimal:
            return "".join(s[: _norwegian_minimal_len(s, len(s), nynorsk)])
        return "".join(s[: _norwegian_light_len(s, len(s), not nynorsk, nynorsk)])

    return run


def _fi_vowel(c: str) -> bool:
    return c in "aeiouy"


def _fi_step1(s: list[str], n: int) -> int:
    while True:
        if n > 8 and _ends(s, n, "kin"):
            n -= 3
        elif n > 8 and _ends(s, n, "ko"):
            n -= 2
        else:
            break
    if n > 11:
        if _ends(s, n, "dellinen"):
            return n - 8
        if _ends(s, n, "dellisuus"):
            return n - 9
    return n


def _fi_step2(s: list[str], n: int) -> int:
    if n > 5:
        if _any(s, n, ("lla", "tse", "sti")):
            return n - 3
        if _ends(s, n, "ni"):
            return n - 2
        if _ends(s, n, "aa"):
            return n - 1
    return n


def _fi_step3(s: list[str], n: int) -> int:
    if n > 8:
        if _ends(s, n, "nnen"):
            s[n - 4] = "s"
            return n - 3
        if _ends(s, n, "ntena"):
            s[n - 5] = "s"
            return n - 4
        if _ends(s, n, "tten"):
            return n - 4
        if _ends(s, n, "eiden"):
            return n - 5
    if n > 6:
        if _any(s, n, ("neen", "niin", "seen", "teen", "inen")):
            return n - 4
        if s[n - 3] == "h" and _fi_vowel(s[n - 2]) and s[n - 1] == "n":
            return n - 3
        if _ends(s, n, "den"):
            s[n - 3] = "s"
            return n - 2
        if _ends(s, n, "ksen"):
            s[n - 4] = "s"
            return n - 3
        if _any(s, n, ("ssa", "sta", "lla", "lta", "tta", "ksi", "lle")):
            return n - 3
    if n > 5:
        if _any(s, n, ("na", "ne")):
            return n - 2
        if _ends(s, n, "nei"):
            return n - 3
    if n > 4:
        if _any(s, n, ("ja", "ta")):
            return n - 2
        if s[n - 1] == "a":
            return n - 1
        if s[n - 1] == "n" and _fi_vowel(s[n - 2]):
            return n - 2
        if s[n - 1] == "n":
            return n - 1
    return n


def _fi_norm1(s: list[str], n: int) -> int:
    if n > 5 and _ends(s, n, "hde"):
        s[n - 3 : n] = ["k", "s", "i"]
    if n > 4 and _any(s, n, ("ei", "at")):
        return n - 2
    if n > 3 and s[n - 1] in "tsjeai":
        return n - 1
    return n


def _fi_norm2(s: list[str], n: int) -> int:
    if n > 8 and s[n - 1] in "eou":
        n -= 1
    if n > 4:
        if s[n - 1] == "i":
            n -= 1
        if n > 4:
            ch = s[0]
            i = 1
            while i < n:
                if s[i] == ch and ch in "kpt":
                    del s[i]
                    n -= 1
                else:
                    ch = s[i]
                    i += 1
    return n


def _finnish_light(s: list[str]) -> str:
    """FinnishLightStemmer."""
    n = len(s)
    if n < 4:
        return "".join(s)
    _fold(s, n, {"ä": "a", "å": "a", "ö": "o"})
    for step in (_fi_step1, _fi_step2, _fi_step3, _fi_norm1, _fi_norm2):
        n = step(s, n)
    return "".join(s[:n])


_HU_FOLD = _table("á:a ëé:e í:i óőõö:o úűũûü:u")


def _hu_remove_case(s: list[str], n: int) -> int:
    v = _fi_vowel
    if n > 6 and _ends(s, n, "kent"):
        return n - 4
    if n > 5:
        cases = ("nak", "nek", "val", "vel", "ert", "rol", "ban", "ben", "bol", "nal", "nel", "hoz", "hez", "tol")
        if _any(s, n, cases):
            return n - 3
        if _any(s, n, ("al", "el")) and not v(s[n - 3]) and s[n - 3] == s[n - 4]:
            return n - 3
    if n > 4:
        if _any(s, n, ("at", "et", "ot", "va", "ve", "ra", "re", "ba", "be", "ul", "ig")):
            return n - 2
        if _any(s, n, ("on", "en")) and not v(s[n - 3]):
            return n - 2
        if s[n - 1] in "tn":
            return n - 1
        if s[n - 1] in "ae" and s[n - 2] == s[n - 3] and not v(s[n - 2]):
            return n - 2
    return n


def _hu_remove_possessive(s: list[str], n: int) -> int:
    v = _fi_vowel
    if n > 6:
        if not v(s[n - 5]) and _any(s, n, ("atok", "otok", "etek")):
            return n - 4
        if _any(s, n, ("itek", "itok")):
            return n - 4
    if n > 5:
        if not v(s[n - 4]) and _any(s, n, ("unk", "tok", "tek")):
            return n - 3
        if v(s[n - 4]) and _ends(s, n, "juk"):
            return n - 3
        if _ends(s, n, "ink"):
            return n - 3
    if n > 4:
        if not v(s[n - 3]) and _any(s, n, ("am", "em", "om", "ad", "ed", "od", "uk")):
            return n - 2
        if v(s[n - 3]) and _any(s, n, ("nk", "ja", "je")):
            return n - 2
        if _any(s, n, ("im", "id", "ik")):
            return n - 2
    if n > 3:
        last = s[n - 1]
        if (last in "ae" and not v(s[n - 2])) or (last in "md" and v(s[n - 2])) or last == "i":
            return n - 1
    return n


def _hungarian_light(s: list[str]) -> str:
    """HungarianLightStemmer."""
    n = len(s)
    _fold(s, n, _HU_FOLD)
    n = _hu_remove_case(s, n)
    n = _hu_remove_possessive(s, n)
    if n > 3 and s[n - 1] == "k":  # removePlural
        n -= 2 if s[n - 2] in "aoe" and n > 4 else 1
    if n > 3 and s[n - 1] in "aeio":  # normalize
        n -= 1
    return "".join(s[:n])


_RU_CASES_3 = (
    "иям", "иях", "оях", "ями", "оям", "оьв", "ами", "его", "ему", "ери", "ими", "ого", "ому", "ыми", "оев",
)  # fmt: skip
_RU_CASES_2 = (
    "ая", "яя", "ях", "юю", "ах", "ею", "их", "ия", "ию", "ьв", "ою", "ую", "ям", "ых", "ея", "ам", "ем", "ей", "ём",
    "ев", "ий", "им", "ое", "ой", "ом", "ов", "ые", "ый", "ым", "ми",
)  # fmt: skip


def _russian_light(s: list[str]) -> str:
    """RussianLightStemmer (Dolamic and Savoy)."""
    n = len(s)
    if n > 6 and _any(s, n, ("иями", "оями")):
        n -= 4
    elif n > 5 and _any(s, n, _RU_CASES_3):
        n -= 3
    elif n > 4 and _any(s, n, _RU_CASES_2):
        n -= 2
    elif n > 3 and s[n - 1] in "аеиоуйыяь":
        n -= 1
    if n > 3 and (s[n - 1] in "ьи" or (s[n - 1] == "н" and s[n - 2] == "н")):
        n -= 1
    return "".join(s[:n])


# Arabic, Persian, Hindi ------------------------------------------------------------------------------------------


def arabic_normalization(term: str) -> str:
    """ArabicNormalizer: hamza-seated alefs -> alef, alef maksura -> yeh, teh marbuta -> heh, no harakat or tatweel."""
    return term.translate(_ARABIC_NORM)


_ARABIC_NORM = str.maketrans(
    {"\u0622": "\u0627", "\u0623": "\u0627", "\u0625": "\u0627", "\u0649": "\u064a", "\u0629": "\u0647"}
    | dict.fromkeys("\u0640\u064b\u064c\u064d\u064e\u064f\u0650\u0651\u0652")
)
_AR_PREFIXES = (
    "\u0627\u0644",
    "\u0648\u0627\u0644",
    "\u0628\u0627\u0644",
    "\u0643\u0627\u0644",
    "\u0641\u0627\u0644",
    "\u0644\u0644",
    "\u0648",
)
_AR_SUFFIXES = (
    "\u0647\u0627", "\u0627\u0646", "\u0627\u062a", "\u0648\u0646", "\u064a\u0646", "\u064a\u0647", "\u064a\u0629",
    "\u0647", "\u0629", "\u064a",
)  # fmt: skip


def _arabic(s: list[str]) -> str:
    """ArabicStemmer: one prefix (al-, wal-, bal-, kal-, fal-, lil-, wa-), then every suffix in turn that leaves
    two characters."""
    word = "".join(s)
    for prefix in _AR_PREFIXES:
        if len(word) >= (4 if len(prefix) == 1 else len(prefix) + 2) and word.startswith(prefix):
            word = word[len(prefix) :]
            break
    for suffix in _AR_SUFFIXES:
        if len(word) >= len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
    return word


def persian_normalization(term: str) -> str:
    """PersianNormalizer: farsi yeh and yeh barree -> yeh, keheh -> kaf, heh yeh and heh goal -> heh, no hamza above."""
    return term.translate(_PERSIAN_NORM)


_PERSIAN_NORM = str.maketrans(
    {"\u06cc": "\u064a", "\u06d2": "\u064a", "\u06a9": "\u0643", "\u06c0": "\u0647", "\u06c1": "\u0647", "\u0654": None}
)
_FA_SUFFIXES = (
    "\u0627\u062a",
    "\u0627\u0646",
    "\u062a\u0631\u064a\u0646",
    "\u062a\u0631",
    "\u064a\u064a",
    "\u064a",
    "\u0647\u0627",
    "\u200c",
)


def _persian(s: list[str]) -> str:
    """PersianStemmer: every suffix in turn that leaves two characters."""
    word = "".join(s)
    for suffix in _FA_SUFFIXES:
        if len(word) >= len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
    return word


_HINDI_NORM = str.maketrans(
    {
        "\u0901": "\u0902", "\u093c": None, "\u0929": "\u0928", "\u0931": "\u0930", "\u0934": "\u0933",
        "\u0958": "\u0915", "\u0959": "\u0916", "\u095a": "\u0917", "\u095b": "\u091c", "\u095c": "\u0921",
        "\u095d": "\u0922", "\u095e": "\u092b", "\u095f": "\u092f", "\u200d": None, "\u200c": None,
        "\u094d": None, "\u0945": "\u0947", "\u0946": "\u0947", "\u0949": "\u094b", "\u094a": "\u094b",
        "\u090d": "\u090f", "\u090e": "\u090f", "\u0911": "\u0913", "\u0912": "\u0913", "\u0972": "\u0905",
        "\u0906": "\u0905", "\u0908": "\u0907", "\u090a": "\u0909", "\u0960": "\u090b", "\u0961": "\u090c",
        "\u0910": "\u090f", "\u0914": "\u0913", "\u0940": "\u093f", "\u0942": "\u0941", "\u0944": "\u0943",
        "\u0963": "\u0962", "\u0948": "\u0947", "\u094c": "\u094b",
    }
)  # fmt: skip


def hindi_normalization(term: str) -> str:
    """HindiNormalizer: dead n (na + virama) -> anusvara first, then the one-character rules in one pass."""
    out: list[str] = []
    i = 0
    while i < len(term):
        c = term[i]
        if c == "\u0928" and term[i + 1 : i + 2] == "\u094d":
            out.append("\u0902")
            i += 2
            continue
        out.append(c.translate(_HINDI_NORM))
        i += 1
    return "".join(out)


# Czech, Bulgarian ------------------------------------------------------------------------------------------------

_CS_CASES_3 = (
    "ech", "ich", "ích", "ého", "ěmi", "emi", "ému", "ěte", "ete", "ěti", "eti", "ího", "iho", "ími", "ímu", "imu",
    "ách", "ata", "aty", "ých", "ama", "ami", "ové", "ovi", "ými",
)  # fmt: skip
_CS_CASES_2 = ("em", "es", "ém", "ím", "ům", "at", "ám", "os", "us", "ým", "mi", "ou")


def _czech(s: list[str]) -> str:
    """CzechStemmer (Dolamic and Savoy's light stemmer): case endings, possessives, then consonant normalization."""
    n = len(s)
    if n > 7 and _ends(s, n, "atech"):
        n -= 5
    elif n > 6 and _any(s, n, ("ětem", "etem", "atům")):
        n -= 4
    elif n > 5 and _any(s, n, _CS_CASES_3):
        n -= 3
    elif n > 4 and _any(s, n, _CS_CASES_2):
        n -= 2
    elif n > 3 and s[n - 1] in "aeiouůyáéíýě":
        n -= 1
    if n > 5 and _any(s, n, ("ov", "in", "ův")):
        n -= 2
    if n > 0:
        if _ends(s, n, "čt") or _ends(s, n, "št"):
            s[n - 2 : n] = ["c" if s[n - 2] == "č" else "s", "k"]
        elif s[n - 1] in "cč":
            s[n - 1] = "k"
        elif s[n - 1] in "zž":
            s[n - 1] = "h"
        elif n > 1 and s[n - 2] == "e":
            s[n - 2] = s[n - 1]
            n -= 1
        elif n > 2 and s[n - 2] == "ů":
            s[n - 2] = "o"
    return "".join(s[:n])


def _bg_remove_article(s: list[str], n: int) -> int:
    if n > 6 and _ends(s, n, "ият"):
        return n - 3
    if n > 5 and _any(s, n, ("ът", "то", "те", "та", "ия")):
        return n - 2
    if n > 4 and _ends(s, n, "ят"):
        return n - 2
    return n


def _bg_remove_plural(s: list[str], n: int) -> int:
    if n > 6:
        if _any(s, n, ("овци", "ове")):
            return n - 3
        if _ends(s, n, "еве"):
            s[n - 3] = "й"
            return n - 2
    if n > 5:
        if _ends(s, n, "ища"):
            return n - 3
        if _ends(s, n, "та"):
            return n - 2
        if _ends(s, n, "ци"):
            s[n - 2] = "к"
            return n - 1
        if _ends(s, n, "зи"):
            s[n - 2] = "г"
            return n - 1
        if s[n - 3] == "е" and s[n - 1] == "и":
            s[n - 3] = "я"
            return n - 1
    if n > 4:
        if _ends(s, n, "си"):
            s[n - 2] = "х"
            return n - 1
        if _ends(s, n, "и"):
            return n - 1
    return n


def _bulgarian(s: list[str]) -> str:
    """BulgarianStemmer (Savoy's light stemmer)."""
    n = len(s)
    if n < 4:
        return "".join(s)
    if n > 5 and _ends(s, n, "ища"):
        return "".join(s[: n - 3])
    n = _bg_remove_plural(s, _bg_remove_article(s, n))
    if n > 3:
        if _ends(s, n, "я"):
            n -= 1
        if _any(s, n, ("а", "о", "е")):
            n -= 1
    if n > 4 and _ends(s, n, "ен"):
        s[n - 2] = "н"
        n -= 1
    if n > 5 and s[n - 2] == "ъ":
        s[n - 2] = s[n - 1]
        n -= 1
    return "".join(s[:n])


# Latvian, Indonesian ---------------------------------------------------------------------------------------------

# (suffix, vowels the word needs beyond it, whether removing it unpalatalizes) in LatvianStemmer's order
_LV_AFFIXES = [
    ("ajiem", 3, False), ("ajai", 3, False), ("ajam", 2, False), ("ajām", 2, False), ("ajos", 2, False),
    ("ajās", 2, False), ("iem", 2, True), ("ajā", 2, False), ("ais", 2, False), ("ai", 2, False), ("ei", 2, False),
    ("ām", 1, False), ("am", 1, False), ("ēm", 1, False), ("īm", 1, False), ("im", 1, False), ("um", 1, False),
    ("us", 1, True), ("as", 1, False), ("ās", 1, False), ("es", 1, False), ("os", 1, True), ("ij", 1, False),
    ("īs", 1, False), ("ēs", 1, False), ("is", 1, False), ("ie", 1, False), ("u", 1, True), ("a", 1, True),
    ("i", 1, True), ("e", 1, False), ("ā", 1, False), ("ē", 1, False), ("ī", 1, False), ("ū", 1, False),
    ("o", 1, False), ("s", 0, False), ("š", 0, False),
]  # fmt: skip
_LV_PAIRS = {"šņ": "sn", "žņ": "zn", "šļ": "sl", "žļ": "zl", "ļņ": "ln", "ļļ": "ll"}


def _lv_unpalatalize(s: list[str], n: int) -> int:
    if s[n] == "u":  # the removed suffix began with u: genitive plural of declensions II, V and VI
        if _ends(s, n, "kš"):
            s[n - 1 : n + 1] = ["s", "t"]
            return n + 1
        if _ends(s, n, "ņņ"):
            s[n - 2 : n] = ["n", "n"]
            return n
    if _any(s, n, ("pj", "bj", "mj", "vj")):
        return n - 1
    for pair, plain in _LV_PAIRS.items():
        if _ends(s, n, pair):
            s[n - 2 : n] = list(plain)
            return n
    if n > 0 and s[n - 1] in "čļņ":
        s[n - 1] = {"č": "c", "ļ": "l", "ņ": "n"}[s[n - 1]]
    return n


def _latvian(s: list[str]) -> str:
    """LatvianStemmer (a light version of Kreslins' algorithm)."""
    n = len(s)
    vowels = sum(1 for c in s if c in "aeiouāīēū")
    for suffix, needed, palatalizes in _LV_AFFIXES:
        if vowels > needed and n >= len(suffix) + 3 and _ends(s, n, suffix):
            n -= len(suffix)
            if palatalizes:
                n = _lv_unpalatalize(s, n)
            break
    return "".join(s[:n])


class _Indonesian:
    """IndonesianStemmer (Tala), with derivational stemming as IndonesianStemFilter's default."""

    KE, PENG, DI, MENG, TER, BER, PE = 1, 2, 4, 8, 16, 32, 64

    def __init__(self, word: str) -> None:
        self.w = word
        self.flags = 0
        self.syllables = sum(1 for c in word if c in "aeiou")

    def cut_end(self, k: int) -> None:
        self.syllables -= 1
        self.w = self.w[:-k]

    def cut_start(self, k: int, flag: int = 0) -> None:
        self.flags |= flag
        self.syllables -= 1
        self.w = self.w[k:]

    def stem(self) -> str:
        if self.syllables > 2 and self.w.endswith(("kah", "lah", "pun")):
            self.cut_end(3)
        if self.syllables > 2:
            if self.w.endswith(("ku", "mu")):
                self.cut_end(2)
            elif self.w.endswith("nya"):
                self.cut_end(3)
        old = len(self.w)
        if self.syllables > 2:
            self.first_order_prefix()
        if old != len(self.w):
            old = len(self.w)
            if self.syllables > 2:
                self.suffix()
            if old != len(self.w) and self.syllables > 2:
                self.second_order_prefix()
        else:
            if self.syllables > 2:
                self.second_order_prefix()
            if self.syllables > 2:
                self.suffix()
        return self.w

    def first_order_prefix(self) -> None:
        w = self.w
        vowel4 = len(w) > 4 and w[4] in "aeiou"
        if w.startswith("meng"):
            self.cut_start(4, self.MENG)
        elif w.startswith("meny") and vowel4:
            self.w = "s" + w[4:]
            self.flags |= self.MENG
            self.syllables -= 1
        elif w.startswith(("men", "mem")):
            self.cut_start(3, self.MENG)
        elif w.startswith("me"):
            self.cut_start(2, self.MENG)
        elif w.startswith("peng"):
            self.cut_start(4, self.PENG)
        elif w.startswith("peny") and vowel4:
            self.w = "s" + w[4:]
            self.flags |= self.PENG
            self.syllables -= 1
        elif w.startswith("peny"):
            self.cut_start(4, self.PENG)
        elif w.startswith("pen") and len(w) > 3 and w[3] in "aeiou":
            self.w = "t" + w[3:]
            self.flags |= self.PENG
            self.syllables -= 1
        elif w.startswith(("pen", "pem")):
            self.cut_start(3, self.PENG)
        elif w.startswith("di"):
            self.cut_start(2, self.DI)
        elif w.startswith("ter"):
            self.cut_start(3, self.TER)
        elif w.startswith("ke"):
            self.cut_start(2, self.KE)

    def second_order_prefix(self) -> None:
        w = self.w
        if w.startswith("ber") or (len(w) == 7 and w.startswith("belajar")):
            self.cut_start(3, self.BER)
        elif w.startswith("be") and len(w) > 4 and w[2] not in "aeiou" and w[3] == "e" and w[4] == "r":
            self.cut_start(2, self.BER)
        elif w.startswith("per") or (len(w) == 7 and w.startswith("pelajar")):
            self.cut_start(3)
        elif w.startswith("pe"):
            self.cut_start(2, self.PE)

    def suffix(self) -> None:
        w, f = self.w, self.flags
        if w.endswith("kan") and not f & (self.KE | self.PENG | self.PE):
            self.cut_end(3)
        elif w.endswith("an") and not f & (self.DI | self.MENG | self.TER):
            self.cut_end(2)
        elif w.endswith("i") and not w.endswith("si") and not f & (self.BER | self.KE | self.PENG):
            self.cut_end(1)


def _indonesian(s: list[str]) -> str:
    return _Indonesian("".join(s)).stem()


# Brazilian -------------------------------------------------------------------------------------------------------

# BrazilianStemmer.step1, in its order: (CT length it needs, suffix, region it must end, replacement or None for a
# rule that fires without changing the term ("logias", as Lucene has it), suffix the rest must end in)
_BR_STEP1 = [
    (0, "uciones", "R2", "u", ""),
    *[(6, x, "R2", "", "") for x in ("imentos", "amentos", "adores", "adoras")],
    (6, "logias", "R2", None, ""),
    (6, "encias", "R2", "ente", ""),
    (6, "amente", "R1", "", ""),
    (6, "idades", "R2", "", ""),
    *[(5, x, "R2", "", "") for x in ("acoes", "imento", "amento", "adora", "ismos", "istas")],
    (5, "logia", "R2", "log", ""),
    (5, "ucion", "R2", "u", ""),
    (5, "encia", "R2", "ente", ""),
    (5, "mente", "R2", "", ""),
    (5, "idade", "R2", "", ""),
    *[
        (4, x, "R2", "", "")
        for x in (
            "acao",
            "ezas",
            "icos",
            "icas",
            "ismo",
            "avel",
            "ivel",
            "ista",
            "osos",
            "osas",
            "ador",
            "ivas",
            "ivos",
        )
    ],
    (4, "iras", "RV", "ir", "e"),
    *[(3, x, "R2", "", "") for x in ("eza", "ico", "ica", "oso", "osa", "iva", "ivo")],
    (3, "ira", "RV", "ir", "e"),
]
# step2: verb endings in RV, by the RV length each group needs; ("ira", "ava") removes "ava", which a term ending in
# "ira" does not end with, so it fires without a change, as Lucene has it
_BR_STEP2: list[tuple[int, list[str | tuple[str, str]]]] = [
    (7, ["issemos", "essemos", "assemos", "ariamos", "eriamos", "iriamos"]),
    (6, ["iremos", "eremos", "aremos", "avamos", "iramos", "eramos", "aramos", "asseis", "esseis", "isseis", "arieis",
         "erieis", "irieis"]),
    (5, ["irmos", "iamos", "armos", "ermos", "areis", "ereis", "ireis", "asses", "esses", "isses", "astes", "assem",
         "essem", "issem", "ardes", "erdes", "irdes", "ariam", "eriam", "iriam", "arias", "erias", "irias", "estes",
         "istes", "areis", "aveis"]),
    (4, ["aria", "eria", "iria", "asse", "esse", "isse", "aste", "este", "iste", "arei", "erei", "irei", "aram",
         "eram", "iram", "avam", "arem", "erem", "irem", "ando", "endo", "indo", "arao", "erao", "irao", "adas", "idas",
         "aras", "eras", "iras", "avas", "ares", "eres", "ires", "ados", "idos", "amos", "emos", "imos", "iras",
         "ieis"]),
    (3, ["ada", "ida", "ara", "era", ("ira", "ava"), "iam", "ado", "ido", "ias", "ais", "eis", "ira", "ear"]),
    (2, ["ia", "ei", "am", "em", "ar", "er", "ir", "as", "es", "is", "eu", "iu", "iu", "ou"]),
]  # fmt: skip
_BR_CHANGE = _table("áâã:a éê:e í:i óôõ:o úü:u ç:c ñ:n")


def _br_vowel(c: str) -> bool:
    return c in "aeiou"


def _br_r1(value: str | None) -> str | None:
    if value is None:
        return None
    last, j = len(value) - 1, 0
    while j < last and not _br_vowel(value[j]):
        j += 1
    if j >= last:
        return None
    while j < last and _br_vowel(value[j]):
        j += 1
    return value[j + 1 :] if j < last else None


def _br_rv(value: str) -> str | None:
    last = len(value) - 1
    if last > 0 and not _br_vowel(value[1]):
        j = 2
        while j < last and not _br_vowel(value[j]):
            j += 1
        if j < last:
            return value[j + 1 :]
    if last > 1 and _br_vowel(value[0]) and _br_vowel(value[1]):
        j = 2
        while j < last and _br_vowel(value[j]):
            j += 1
        if j < last:
            return value[j + 1 :]
    return value[3:] if last > 2 else None


def _ends_in(value: str | None, suffix: str) -> bool:
    return value is not None and value.endswith(suffix)


def _cut(value: str, suffix: str) -> str:
    """removeSuffix: the value without the suffix, when it ends with it."""
    return value[: -len(suffix)] if suffix and value.endswith(suffix) else value


def _preceded(value: str | None, suffix: str, before: str) -> bool:
    return value is not None and value.endswith(suffix) and _cut(value, suffix).endswith(before)


def brazilian_stem(term: str) -> str:
    """BrazilianStemmer (BrazilianStemFilter): lowercase (pt-BR), accents off, one leading and one trailing
    punctuation mark off, then the RSLP-like steps on words of letters of 3 to 29 characters; a term of another
    length stays as it was."""
    ct = "".join(_BR_CHANGE.get(c, c) for c in term.lower())
    if len(ct) >= 2 and ct[0] in "\"'-,;.?!":
        ct = ct[1:]
    if len(ct) >= 2 and ct[-1] in "-,;.?!'\"":
        ct = ct[:-1]
    if not 2 < len(ct) < 30:
        return term
    if not all(_letter(c) and ord(c) < 0x10000 for c in ct):
        return ct
    regions = {"R1": _br_r1(ct), "RV": _br_rv(ct)}
    regions["R2"] = _br_r1(regions["R1"])
    rv = regions["RV"]
    altered = False
    for least, suffix, region, replacement, before in _BR_STEP1:
        if len(ct) >= least and ct.endswith(suffix) and _ends_in(regions[region], suffix):
            if before and not _preceded(ct, suffix, before):
                continue
            if replacement is not None:
                ct = ct[: -len(suffix)] + replacement
            altered = True
            break
    if not altered and rv is not None:
        for least, suffixes in _BR_STEP2:
            if len(rv) < least:
                continue
            for entry in suffixes:
                suffix, removed = entry if isinstance(entry, tuple) else (entry, entry)
                if rv.endswith(suffix):
                    ct = _cut(ct, removed)
                    altered = True
                    break
            if altered:
                break
    if rv is not None:
        if altered:
            if _preceded(rv, "i", "c"):
                ct = _cut(ct, "i")
        else:
            for suffix in ("os", "a", "i", "o"):
                if rv.endswith(suffix):
                    ct = _cut(ct, suffix)
                    break
        if rv.endswith("e"):
            if _preceded(rv, "e", "gu"):
                ct = _cut(_cut(ct, "e"), "u")
            elif _preceded(rv, "e", "ci"):
                ct = _cut(_cut(ct, "e"), "i")
            else:
                ct = _cut(ct, "e")
    return ct


# Serbian, Sorani -------------------------------------------------------------------------------------------------

_SERBIAN = str.maketrans(
    {
        "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "ђ": "dj", "đ": "dj", "е": "e", "ж": "z", "з": "z", "ž": "z",
        "и": "i", "ј": "j", "к": "k", "л": "l", "љ": "lj", "м": "m", "н": "n", "њ": "nj", "о": "o", "п": "p", "р": "r",
        "с": "s", "т": "t", "ћ": "c", "ц": "c", "ч": "c", "č": "c", "ć": "c", "у": "u", "ф": "f", "х": "h", "џ": "dz",
        "ш": "s", "š": "s",
    }
)  # fmt: skip


def serbian_normalization(term: str) -> str:
    """SerbianNormalizationFilter ("bald"): Cyrillic to Latin, diacritics off, đ (and ђ) to dj."""
    return term.translate(_SERBIAN)


_SORANI_HARAKAT = frozenset("\u0640\u064b\u064c\u064d\u064e\u064f\u0650\u0651\u0652")


def sorani_normalization(term: str) -> str:
    """SoraniNormalizer: yeh forms -> farsi yeh, kaf -> keheh, heh before a non-joiner or at the end and teh marbuta
    -> ae, heh doachashmee -> heh, initial reh and reh with v above -> rreh; harakat, tatweel and format characters
    go. Positions are those of the buffer as the loop has left it, as in Java."""
    s = list(term)
    i = 0
    while i < len(s):
        c = s[i]
        if c in "\u064a\u0649":
            s[i] = "\u06cc"
        elif c == "\u0643":
            s[i] = "\u06a9"
        elif c == "\u200c":
            if i > 0 and s[i - 1] == "\u0647":
                s[i - 1] = "\u06d5"
            del s[i]
            continue
        elif c == "\u0647":
            if i == len(s) - 1:
                s[i] = "\u06d5"
        elif c == "\u0629":
            s[i] = "\u06d5"
        elif c == "\u06be":
            s[i] = "\u0647"
        elif c == "\u0631":
            if i == 0:
                s[i] = "\u0695"
        elif c == "\u0692":
            s[i] = "\u0695"
        elif c in _SORANI_HARAKAT or unicodedata.category(c) == "Cf":
            del s[i]
            continue
        i += 1
    return "".join(s)


# SoraniStemmer's endings after the postposition and possessive steps: (length the word needs, ending), the first
# that matches goes
_CKB_ENDINGS = [
    (6, "ێکی"), (7, "یەکی"), (5, "ێک"), (6, "یەک"), (6, "ەکە"), (5, "کە"), (7, "ەکان"), (6, "کان"), (7, "یانی"),
    (6, "انی"), (6, "یان"), (5, "ان"), (7, "یانە"), (6, "انە"),
]  # fmt: skip


def _sorani(s: list[str]) -> str:
    """SoraniStemmer (light)."""
    n = len(s)
    if n > 5 and _ends(s, n, "دا"):
        n -= 2
    elif n > 4 and _ends(s, n, "نا"):
        n -= 1
    elif n > 6 and _ends(s, n, "ەوە"):
        n -= 3
    if n > 6 and _any(s, n, ("مان", "یان", "تان")):
        n -= 3
    for least, ending in _CKB_ENDINGS:
        if n > least and _ends(s, n, ending):
            return "".join(s[: n - len(ending)])
    if n > 5 and _any(s, n, ("ایە", "ەیە")):
        n -= 2
    elif n > 4 and (_ends(s, n, "ە") or _ends(s, n, "ی")):
        n -= 1
    return "".join(s[:n])


# Indic, Hindi ----------------------------------------------------------------------------------------------------

# IndicNormalizer's scripts: flag by block base (each block is base .. base + 0x7F)
_INDIC_FLAGS = {
    0x0900: 1,
    0x0980: 2,
    0x0A00: 4,
    0x0A80: 8,
    0x0B00: 16,
    0x0B80: 32,
    0x0C00: 64,
    0x0C80: 128,
    0x0D00: 256,
}


def _indic_block(c: str) -> int | None:
    base = ord(c) & ~0x7F
    return base if base in _INDIC_FLAGS else None


@cache
def _indic_rules() -> dict[tuple[int, int], list[tuple[int, int, int]]]:
    """(block base, first character offset) -> [(second, third or -1, result)] in the table's order."""
    rules: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for first, second, third, result, flags in _data()["indic_decompositions"]:
        for base, flag in _INDIC_FLAGS.items():
            if flags & flag:
                rules.setdefault((base, first), []).append((second, third, result))
    return rules


def indic_normalization(term: str) -> str:
    """IndicNormalizer: the graphical decompositions of the nine Indic scripts composed (Unicode 5.2, chapter 6)."""
    if all(_indic_block(c) is None for c in term):
        return term
    rules = _indic_rules()
    s = list(term)
    i = 0
    while i < len(s):
        base = _indic_block(s[i])
        candidates = rules.get((base, ord(s[i]) - base)) if base is not None else None
        if candidates and base is not None and i + 1 < len(s) and _indic_block(s[i + 1]) == base:
            second = ord(s[i + 1]) - base
            third = -1
            if i + 2 < len(s):
                third = 0xFF if s[i + 2] == "\u200d" else ord(s[i + 2]) - base if _indic_block(s[i + 2]) == base else -1
            for want_second, want_third, result in candidates:
                if want_second == second and (want_third < 0 or want_third == third):
                    s[i] = chr(base + result)
                    del s[i + 1 : i + (3 if want_third >= 0 else 2)]
                    break
        i += 1
    return "".join(s)


_HI_SUFFIXES = [
    (6, 5, ("ाएंगी", "ाएंगे", "ाऊंगी", "ाऊंगा", "ाइयाँ", "ाइयों", "ाइयां")),
    (5, 4, ("ाएगी", "ाएगा", "ाओगी", "ाओगे", "एंगी", "ेंगी", "एंगे", "ेंगे", "ूंगी", "ूंगा", "ातीं", "नाओं", "नाएं", "ताओं",
            "ताएं", "ियाँ", "ियों", "ियां")),
    (4, 3, ("ाकर", "ाइए", "ाईं", "ाया", "ेगी", "ेगा", "ोगी", "ोगे", "ाने", "ाना", "ाते", "ाती", "ाता", "तीं", "ाओं", "ाएं",
            "ुओं", "ुएं", "ुआं")),
    (3, 2, ("कर", "ाओ", "िए", "ाई", "ाए", "ने", "नी", "ना", "ते", "ीं", "ती", "ता", "ाँ", "ां", "ों", "ें")),
    (2, 1, ("ो", "े", "ू", "ु", "ी", "ि", "ा")),
]  # fmt: skip


def _hindi(s: list[str]) -> str:
    """HindiStemmer (Ramanathan and Rao's light stemmer): the longest listed ending, if enough remains."""
    n = len(s)
    for above, cut, suffixes in _HI_SUFFIXES:
        if n > above and _any(s, n, suffixes):
            return "".join(s[: n - cut])
    return "".join(s)


# Bengali ---------------------------------------------------------------------------------------------------------


def bengali_normalization(term: str) -> str:
    """BengaliNormalizer (UzZaman and Khan): chandrabindu off, long vowel signs short, khio, nga -> anusvara, ja
    and ba phala, visarga, the sh/na/ra/khanda-ta variants; index moves as in the Java loop."""
    s = list(term)
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\u0981":
            del s[i]
            continue
        if c == "\u09c0":
            s[i] = "\u09bf"
        elif c == "\u09c2":
            s[i] = "\u09c1"
        elif c == "\u0995":
            if i + 2 < len(s) and s[i + 1] == "\u09cd" and s[i + 2] == "\u09bf":
                if i == 0:
                    s[i] = "\u0996"
                    del s[i + 1 : i + 3]
                else:
                    s[i + 1] = "\u0996"
                    del s[i + 2]
        elif c == "\u0999":
            s[i] = "\u0982"
        elif c == "\u09af":
            if i == 2 and s[i - 1] == "\u09cd":
                s[i - 1] = "\u09c7"
                if i + 1 < len(s) and s[i + 1] == "\u09be":
                    del s[i + 1]
                del s[i]
                continue
            if i >= 1 and s[i - 1] == "\u09cd":
                del s[i - 1 : i + 1]
                i -= 1
                continue
        elif c == "\u09ac":
            if i >= 1 and s[i - 1] == "\u09cd":
                if i == 2 or (i >= 5 and s[i - 3] == "\u09cd"):
                    del s[i - 1 : i + 1]
                    i -= 1
                    continue
                if i >= 2:
                    s[i - 1] = s[i - 2]
                    del s[i]
                    continue
        elif c == "\u0983":
            if i == len(s) - 1:
                if len(s) <= 3:
                    s[i] = "\u09b9"
                else:
                    del s[i]
            else:
                s[i] = s[i + 1]
        elif c in "\u09b6\u09b7":
            s[i] = "\u09b8"
        elif c == "\u09a3":
            s[i] = "\u09a8"
        elif c in "\u09dc\u09dd":
            s[i] = "\u09b0"
        elif c == "\u09ce":
            s[i] = "\u09a4"
        i += 1
    return "".join(s)


# BengaliStemmer: (length the word must exceed, characters cut, endings); the cut is the group's, as in Java, and
# yya is the precomposed U+09DF the Java source writes (NFC text has it decomposed, so those endings rarely match)
_BN_SUFFIXES = [
    (9, 8, ("ি\u09dfাছিলাম", "িতেছিলাম", "িতেছিলেন", "ইতেছিলেন", "ি\u09dfাছিলেন", "ই\u09dfাছিলেন")),
    (8, 7, ("িতেছিলি", "িতেছিলে", "ি\u09dfাছিলা", "ি\u09dfাছিলে", "িতেছিলা", "ি\u09dfাছিলি", "\u09dfেদেরকে")),
    (7, 6, ("িতেছিস", "িতেছেন", "ি\u09dfাছিস", "ি\u09dfাছেন", "েছিলাম", "েছিলেন", "েদেরকে")),
    (6, 5, ("িতেছি", "িতেছা", "িতেছে", "ছিলাম", "ছিলেন",
            "ি\u09dfাছি", "ি\u09dfাছা", "ি\u09dfাছে", "েছিলে", "েছিলা", "\u09dfেদের", "দেরকে")),
    (5, 4, ("িলাম", "িলেন", "িতাম", "িতেন", "িবেন", "ছিলি", "ছিলে", "ছিলা", "তেছে", "িতেছ", "খানা", "খানি", "গুলো", "গুলি",
            "\u09dfেরা", "েদের")),
    (4, 3, ("লাম", "িলি", "ইলি", "িলে", "ইলে", "লেন", "িলা", "ইলা", "তাম", "িতি", "ইতি", "িতে", "ইতে", "তেন", "িতা", "িবা",
            "ইবা", "িবি", "ইবি", "বেন", "িবে", "ইবে", "ছেন", "\u09dfোন", "\u09dfের", "েরা", "দের")),
    (3, 2, ("িস", "েন", "লি", "লে", "লা", "তি", "তে", "তা", "বি", "বে", "বা", "ছি", "ছা", "ছে", "ুন", "ুক", "টা", "টি", "নি",
            "ের", "তে", "রা", "কে")),
    (2, 1, ("ি", "ী", "া", "ো", "ে", "ব", "ত")),
]  # fmt: skip


def _bengali(s: list[str]) -> str:
    """BengaliStemmer (Sengupta and Chaudhuri, with Savoy's light criteria)."""
    n = len(s)
    for above, cut, suffixes in _BN_SUFFIXES:
        if n > above and _any(s, n, suffixes):
            return "".join(s[: n - cut])
    return "".join(s)


# Greek -----------------------------------------------------------------------------------------------------------

_EL_VOWELS = frozenset("αεηιουω")
_EL_EXC4 = frozenset(["θ", "δ", "ελ", "γαλ", "ν", "π", "ιδ", "παρ"])
_EL_EXC6 = frozenset(
    ["αλ", "αδ", "ενδ", "αμαν", "αμμοχαλ", "ηθ", "ανηθ", "αντιδ", "φυσ", "βρωμ", "γερ", "εξωδ", "καλπ", "καλλιν",
     "καταδ", "μουλ", "μπαν", "μπαγιατ", "μπολ", "μποσ", "νιτ", "ξικ", "συνομηλ", "πετσ", "πιτσ", "πικαντ", "πλιατσ",
     "ποστελν", "πρωτοδ", "σερτ", "συναδ", "τσαμ", "υποδ", "φιλον", "φυλοδ", "χασ"]
)  # fmt: skip
_EL_EXC7 = frozenset(["αναπ", "αποθ", "αποκ", "αποστ", "βουβ", "ξεθ", "ουλ", "πεθ", "πικρ", "ποτ", "σιχ", "χ"])
_EL_EXC8A = frozenset(["τρ", "τσ"])
_EL_EXC8B = frozenset(
    ["βετερ", "βουλκ", "βραχμ", "γ", "δραδουμ", "θ", "καλπουζ", "καστελ", "κορμορ", "λαοπλ", "μωαμεθ", "μ", "μουσουλμ",
     "ν", "ουλ", "π", "πελεκ", "πλ", "πολισ", "πορτολ", "σαρακατσ", "σουλτ", "τσαρλατ", "ορφ", "τσιγγ", "τσοπ",
     "φωτοστεφ", "χ", "ψυχοπλ", "αγ", "ορφ", "γαλ", "γερ", "δεκ", "διπλ", "αμερικαν", "ουρ", "πιθ", "πουριτ", "σ",
     "ζωντ", "ικ", "καστ", "κοπ", "λιχ", "λουθηρ", "μαιντ", "μελ", "σιγ", "σπ", "στεγ", "τραγ", "τσαγ", "φ", "ερ",
     "αδαπ", "αθιγγ", "αμηχ", "ανικ", "ανοργ", "απηγ", "απιθ", "ατσιγγ", "βασ", "βασκ", "βαθυγαλ", "βιομηχ", "βραχυκ",
     "διατ", "διαφ", "ενοργ", "θυσ", "καπνοβιομηχ", "καταγαλ", "κλιβ", "κοιλαρφ", "λιβ", "μεγλοβιομηχ", "μικροβιομηχ",
     "νταβ", "ξηροκλιβ", "ολιγοδαμ", "ολογαλ", "πενταρφ", "περηφ", "περιτρ", "πλατ", "πολυδαπ", "πολυμηχ", "στεφ",
     "ταβ", "τετ", "υπερηφ", "υποκοπ", "χαμηλοδαπ", "ψηλοταβ"]
)  # fmt: skip
_EL_EXC9 = frozenset(
    ["αβαρ", "βεν", "εναρ", "αβρ", "αδ", "αθ", "αν", "απλ", "βαρον", "ντρ", "σκ", "κοπ", "μπορ", "νιφ", "παγ",
     "παρακαλ", "σερπ", "σκελ", "συρφ", "τοκ", "υ", "δ", "εμ", "θαρρ", "θ"]
)  # fmt: skip
_EL_END9 = (
    "οδ", "αιρ", "φορ", "ταθ", "διαθ", "σχ", "ενδ", "ευρ", "τιθ", "υπερθ", "ραθ", "ενθ", "ροθ", "σθ", "πυρ", "αιν",
    "συνδ", "συν", "συνθ", "χωρ", "πον", "βρ", "καθ", "ευθ", "εκθ", "νετ", "ρον", "αρκ", "βαρ", "βολ", "ωφελ",
)  # fmt: skip
_EL_EXC12A = frozenset(["π", "απ", "συμπ", "ασυμπ", "ακαταπ", "αμεταμφ"])
_EL_EXC12B = frozenset(["αλ", "αρ", "εκτελ", "ζ", "μ", "ξ", "παρακαλ", "αρ", "προ", "νισ"])
_EL_EXC13 = frozenset(["διαθ", "θ", "παρακαταθ", "προσθ", "συνθ"])
_EL_EXC14 = frozenset(
    ["φαρμακ", "χαδ", "αγκ", "αναρρ", "βρομ", "εκλιπ", "λαμπιδ", "λεχ", "μ", "πατ", "ρ", "λ", "μεδ", "μεσαζ",
     "υποτειν", "αμ", "αιθ", "ανηκ", "δεσποζ", "ενδιαφερ", "δε", "δευτερευ", "καθαρευ", "πλε", "τσα"]
)  # fmt: skip
_EL_EXC15A = frozenset(
    ["αβαστ", "πολυφ", "αδηφ", "παμφ", "ρ", "ασπ", "αφ", "αμαλ", "αμαλλι", "ανυστ", "απερ", "ασπαρ", "αχαρ", "δερβεν",
     "δροσοπ", "ξεφ", "νεοπ", "νομοτ", "ολοπ", "ομοτ", "προστ", "προσωποπ", "συμπ", "συντ", "τ", "υποτ", "χαρ",
     "αειπ", "αιμοστ", "ανυπ", "αποτ", "αρτιπ", "διατ", "εν", "επιτ", "κροκαλοπ", "σιδηροπ", "λ", "ναυ", "ουλαμ",
     "ουρ", "π", "τρ", "μ"]
)  # fmt: skip
_EL_EXC15B = frozenset(["ψοφ", "ναυλοχ"])
_EL_EXC16 = frozenset(["ν", "χερσον", "δωδεκαν", "ερημον", "μεγαλον", "επταν"])
_EL_EXC17 = frozenset(["ασβ", "σβ", "αχρ", "χρ", "απλ", "αειμν", "δυσχρ", "ευχρ", "κοινοχρ", "παλιμψ"])
_EL_EXC18 = frozenset(["ν", "ρ", "σπι", "στραβομουτσ", "κακομουτσ", "εξων"])
_EL_EXC19 = frozenset(["παρασουσ", "φ", "χ", "ωριοπλ", "αζ", "αλλοσουσ", "ασουσ"])
# rule21, the "long list": (length the word must exceed, endings), each group cuts its ending's length
_EL_LONG = [
    (9, ("ιοντουσαν",)),
    (8, ("ιομασταν", "ιοσασταν", "ιουμαστε", "οντουσαν")),
    (7, ("ιεμαστε", "ιεσαστε", "ιομουνα", "ιοσαστε", "ιοσουνα", "ιουνται", "ιουνταν", "ηθηκατε", "ομασταν", "οσασταν",
         "ουμαστε")),
    (6, ("ιομουν", "ιονταν", "ιοσουν", "ηθειτε", "ηθηκαν", "ομουνα", "οσαστε", "οσουνα", "ουνται", "ουνταν", "ουσατε")),
    (5, ("αγατε", "ιεμαι", "ιεται", "ιεσαι", "ιοταν", "ιουμα", "ηθεισ", "ηθουν", "ηκατε", "ησατε", "ησουν", "ομουν",
         "ονται", "ονταν", "οσουν", "ουμαι", "ουσαν")),
    (4, ("αγαν", "αμαι", "ασαι", "αται", "ειτε", "εσαι", "εται", "ηδεσ", "ηδων", "ηθει", "ηκαν", "ησαν", "ησει", "ησεσ",
         "ομαι", "οταν")),
    (3, ("αει", "εισ", "ηθω", "ησω", "ουν", "ουσ")),
    (2, ("αν", "ασ", "αω", "ει", "εσ", "ησ", "οι", "οσ", "ου", "υσ", "ων")),
]  # fmt: skip


class _Greek:
    """GreekStemmer (Ntais): rules 0-20 in turn, the long list when none changed the length, then rule 22. `n` is
    the stem's length in `s`; a rule that adds an ending back raises `n` over characters still in `s`, as in Java."""

    def __init__(self, s: list[str]) -> None:
        self.s = s
        self.n = len(s)

    def ends(self, *suffixes: str) -> bool:
        return _any(self.s, self.n, suffixes)

    def word(self) -> str:
        return "".join(self.s[: self.n])

    def vowel(self, no_y: bool = False) -> bool:
        return self.n > 0 and self.s[self.n - 1] in _EL_VOWELS and not (no_y and self.s[self.n - 1] == "υ")

    def put(self, text: str) -> None:
        """Write `text` as the last len(text) characters of the stem."""
        self.s[self.n - len(text) : self.n] = list(text)

    def stem(self) -> str:
        if self.n < 4:
            return self.word()
        original = self.n
        for rule in (self.rule0, self.rule1, self.rule2, self.rule3, self.rule4, self.rule5, self.rule6, self.rule7,
                     self.rule8, self.rule9, self.rule10, self.rule11, self.rule12, self.rule13, self.rule14,
                     self.rule15, self.rule16, self.rule17, self.rule18, self.rule19, self.rule20):  # fmt: skip
            rule()
        if self.n == original:
            self.rule21()
        if self.ends("εστερ", "εστατ"):
            self.n -= 5
        elif self.ends("οτερ", "οτατ", "υτερ", "υτατ", "ωτερ", "ωτατ"):
            self.n -= 4
        return self.word()

    def rule0(self) -> None:
        n, e = self.n, self.ends
        if (n > 9 and e("καθεστωτοσ", "καθεστωτων")) or (n > 8 and e("γεγονοτοσ", "γεγονοτων")):
            self.n -= 4
        elif n > 8 and e("καθεστωτα"):
            self.n -= 3
        elif n > 7 and e("τατογιου", "τατογιων"):
            self.n -= 4
        elif n > 7 and e("γεγονοτα"):
            self.n -= 3
        elif n > 7 and e("καθεστωσ"):
            self.n -= 2
        elif (n > 6 and e("σκαγιου")) or e(
            "σκαγιων", "ολογιου", "ολογιων", "κρεατοσ", "κρεατων", "περατοσ", "περατων", "τερατοσ", "τερατων"
        ):  # Lucene's parentheses: only the first ending needs the length
            self.n -= 4
        elif n > 6 and e("τατογια"):
            self.n -= 3
        elif n > 6 and e("γεγονοσ"):
            self.n -= 2
        elif n > 5 and e("φαγιου", "φαγιων", "σογιου", "σογιων"):
            self.n -= 4
        elif (n > 5 and e("σκαγια", "ολογια", "κρεατα", "περατα", "τερατα")) or (
            n > 4 and e("φαγια", "σογια", "φωτοσ", "φωτων")
        ):
            self.n -= 3
        elif (n > 4 and e("κρεασ", "περασ", "τερασ")) or (n > 3 and e("φωτα")):
            self.n -= 2
        elif n > 2 and e("φωσ"):
            self.n -= 1

    def rule1(self) -> None:
        if self.n > 4 and self.ends("αδεσ", "αδων"):
            self.n -= 4
            if not self.ends("οκ", "μαμ", "μαν", "μπαμπ", "πατερ", "γιαγι", "νταντ", "κυρ", "θει", "πεθερ"):
                self.n += 2

    def rule2(self) -> None:
        if self.n > 4 and self.ends("εδεσ", "εδων"):
            self.n -= 4
            if self.ends("οπ", "ιπ", "εμπ", "υπ", "γηπ", "δαπ", "κρασπ", "μιλ"):
                self.n += 2

    def rule3(self) -> None:
        if self.n > 5 and self.ends("ουδεσ", "ουδων"):
            self.n -= 5
            if self.ends("αρκ", "καλιακ", "πεταλ", "λιχ", "πλεξ", "σκ", "σ", "φλ", "φρ", "βελ", "λουλ", "χν", "σπ",
                         "τραγ", "φε"):  # fmt: skip
                self.n += 3

    def rule4(self) -> None:
        if self.n > 3 and self.ends("εωσ", "εων"):
            self.n -= 3
            if self.word() in _EL_EXC4:
                self.n += 1

    def rule5(self) -> None:
        if self.n > 2 and self.ends("ια"):
            self.n -= 2
            if self.vowel():
                self.n += 1
        elif self.n > 3 and self.ends("ιου", "ιων"):
            self.n -= 3
            if self.vowel():
                self.n += 1

    def rule6(self) -> None:
        removed = True
        if self.n > 3 and self.ends("ικα", "ικο"):
            self.n -= 3
        elif self.n > 4 and self.ends("ικου", "ικων"):
            self.n -= 4
        else:
            removed = False
        if removed and (self.vowel() or self.word() in _EL_EXC6):
            self.n += 2

    def rule7(self) -> None:
        if self.n == 5 and self.ends("αγαμε"):
            self.n -= 1
            return
        if self.n > 7 and self.ends("ηθηκαμε"):
            self.n -= 7
        elif self.n > 6 and self.ends("ουσαμε"):
            self.n -= 6
        elif self.n > 5 and self.ends("αγαμε", "ησαμε", "ηκαμε"):
            self.n -= 5
        if self.n > 3 and self.ends("αμε"):
            self.n -= 3
            if self.word() in _EL_EXC7:
                self.n += 2

    def rule8(self) -> None:
        n, e = self.n, self.ends
        removed = True
        if n > 8 and e("ιουντανε"):
            self.n -= 8
        elif (n > 7 and e("ιοντανε")) or e("ουντανε", "ηθηκανε"):  # Lucene's precedence
            self.n -= 7
        elif (n > 6 and e("ιοτανε")) or e("οντανε", "ουσανε"):
            self.n -= 6
        elif (n > 5 and e("αγανε")) or e("ησανε", "οτανε", "ηκανε"):
            self.n -= 5
        else:
            removed = False
        if removed and self.word() in _EL_EXC8A:
            self.n += 4
            self.put("αγαν")
        if self.n > 3 and self.ends("ανε"):
            self.n -= 3
            if self.vowel(no_y=True) or self.word() in _EL_EXC8B:
                self.n += 2

    def rule9(self) -> None:
        if self.n > 5 and self.ends("ησετε"):
            self.n -= 5
        if self.n > 3 and self.ends("ετε"):
            self.n -= 3
            if self.word() in _EL_EXC9 or self.vowel(no_y=True) or self.ends(*_EL_END9):
                self.n += 2

    def rule10(self) -> None:
        if self.n > 5 and self.ends("οντασ", "ωντασ"):
            self.n -= 5
            if self.n == 3 and self.ends("αρχ"):
                self.n += 3
                self.s[self.n - 3] = "ο"
            if self.ends("κρε"):
                self.n += 3
                self.s[self.n - 3] = "ω"

    def rule11(self) -> None:
        if self.n > 6 and self.ends("ομαστε"):
            self.n -= 6
            if self.n == 2 and self.ends("ον"):
                self.n += 5
        elif self.n > 7 and self.ends("ιομαστε"):
            self.n -= 7
            if self.n == 2 and self.ends("ον"):
                self.n += 5
                self.put("ομαστ")

    def rule12(self) -> None:
        if self.n > 5 and self.ends("ιεστε"):
            self.n -= 5
            if self.word() in _EL_EXC12A:
                self.n += 4
        if self.n > 4 and self.ends("εστε"):
            self.n -= 4
            if self.word() in _EL_EXC12B:
                self.n += 3

    def rule13(self) -> None:
        if self.n > 6 and self.ends("ηθηκεσ"):
            self.n -= 6
        elif self.n > 5 and self.ends("ηθηκα", "ηθηκε"):
            self.n -= 5
        removed = True
        if self.n > 4 and self.ends("ηκεσ"):
            self.n -= 4
        elif self.n > 3 and self.ends("ηκα", "ηκε"):
            self.n -= 3
        else:
            removed = False
        if removed and (self.word() in _EL_EXC13 or self.ends("σκωλ", "σκουλ", "ναρθ", "σφ", "οθ", "πιθ")):
            self.n += 2

    def rule14(self) -> None:
        removed = True
        if self.n > 5 and self.ends("ουσεσ"):
            self.n -= 5
        elif self.n > 4 and self.ends("ουσα", "ουσε"):
            self.n -= 4
        else:
            removed = False
        if removed and (
            self.word() in _EL_EXC14
            or self.vowel()
            or self.ends(
                "ποδαρ", "βλεπ", "πανταχ", "φρυδ", "μαντιλ", "μαλλ", "κυματ", "λαχ", "ληγ", "φαγ", "ομ", "πρωτ"
            )
        ):
            self.n += 3

    def rule15(self) -> None:
        removed = True
        if self.n > 4 and self.ends("αγεσ"):
            self.n -= 4
        elif self.n > 3 and self.ends("αγα", "αγε"):
            self.n -= 3
        else:
            removed = False
        if removed:
            word = self.word()
            first = word in _EL_EXC15A or self.ends("οφ", "πελ", "χορτ", "λλ", "σφ", "ρπ", "φρ", "πρ", "λοχ", "σμην")
            if first and not (word in _EL_EXC15B or self.ends("κολλ")):
                self.n += 2

    def rule16(self) -> None:
        removed = True
        if self.n > 4 and self.ends("ησου"):
            self.n -= 4
        elif self.n > 3 and self.ends("ησε", "ησα"):
            self.n -= 3
        else:
            removed = False
        if removed and self.word() in _EL_EXC16:
            self.n += 2

    def rule17(self) -> None:
        if self.n > 4 and self.ends("ηστε"):
            self.n -= 4
            if self.word() in _EL_EXC17:
                self.n += 3

    def rule18(self) -> None:
        self._ending(("ησουνε", "ηθουνε"), "ουνε", _EL_EXC18, "ουν")

    def rule19(self) -> None:
        self._ending(("ησουμε", "ηθουμε"), "ουμε", _EL_EXC19, "ουμ")

    def _ending(self, long: tuple[str, str], short: str, exceptions: frozenset[str], back: str) -> None:
        removed = True
        if self.n > 6 and self.ends(*long):
            self.n -= 6
        elif self.n > 4 and self.ends(short):
            self.n -= 4
        else:
            removed = False
        if removed and self.word() in exceptions:
            self.n += 3
            self.put(back)

    def rule20(self) -> None:
        if self.n > 5 and self.ends("ματων", "ματοσ"):
            self.n -= 3
        elif self.n > 4 and self.ends("ματα"):
            self.n -= 2

    def rule21(self) -> None:
        for above, endings in _EL_LONG:
            if self.n > above and self.ends(*endings):
                self.n -= len(endings[0])
                return
        if self.n > 1 and self.vowel():
            self.n -= 1


def _greek(s: list[str]) -> str:
    return _Greek(s).stem()


# Scandinavian ------------------------------------------------------------------------------------------------------


def scandinavian_normalization(term: str) -> str:
    """ScandinavianNormalizationFilter with every folding (aa, ao, ae, oe, oo): æÆäÄöÖøØ and folded pairs become
    åÅæÆøØ."""
    s = list(term)
    i = 0
    while i < len(s):
        c = s[i]
        if c in "äÄöÖ":
            s[i] = {"ä": "æ", "Ä": "Æ", "ö": "ø", "Ö": "Ø"}[c]
        elif len(s) - 1 > i:
            nxt = s[i + 1]
            if c in "aA" and nxt in "aAoO":
                del s[i + 1]
                s[i] = "å" if c == "a" else "Å"
            elif c in "aA" and nxt in "eE":
                del s[i + 1]
                s[i] = "æ" if c == "a" else "Æ"
            elif c in "oO" and nxt in "eEoO":
                del s[i + 1]
                s[i] = "ø" if c == "o" else "Ø"
        i += 1
    return "".join(s)


def scandinavian_folding(term: str) -> str:
    """ScandinavianFoldingFilter: åæäöø and their capitals fold to a/o, and aa, ae, ao, oe, oo to one letter."""
    s = list(term)
    i = 0
    while i < len(s):
        c = s[i]
        if c in "åäæ":
            s[i] = "a"
        elif c in "ÅÄÆ":
            s[i] = "A"
        elif c in "øö":
            s[i] = "o"
        elif c in "ØÖ":
            s[i] = "O"
        elif len(s) - 1 > i and ((c in "aA" and s[i + 1] in "aAeEoO") or (c in "oO" and s[i + 1] in "eEoO")):
            del s[i + 1]
        i += 1
    return "".join(s)


# tables the registry merges ----------------------------------------------------------------------------------------

_PORTS: dict[str, Callable[[list[str]], str]] = {
    "light_french": _french_light,
    "minimal_french": _french_minimal,
    "light_german": _german_light,
    "minimal_german": _german_minimal,
    "light_spanish": _spanish_light,
    "light_italian": _italian_light,
    "light_portuguese": _portuguese_light,
    "minimal_portuguese": _plural_only("portuguese"),
    "portuguese_rslp": _portuguese_rslp,
    "galician": _galician,
    "minimal_galician": _plural_only("galician"),
    "light_swedish": _swedish_light,
    "light_norwegian": _norwegian(minimal=False, nynorsk=False),
    "minimal_norwegian": _norwegian(minimal=True, nynorsk=False),
    "light_nynorsk": _norwegian(minimal=False, nynorsk=True),
    "minimal_nynorsk": _norwegian(minimal=True, nynorsk=True),
    "light_finnish": _finnish_light,
    "light_hungarian": _hungarian_light,
    "light_russian": _russian_light,
    "arabic": _arabic,
    "persian": _persian,
    "czech": _czech,
    "bulgarian": _bulgarian,
    "latvian": _latvian,
    "indonesian": _indonesian,
    "sorani": _sorani,
    "hindi": _hindi,
    "bengali": _bengali,
    "greek": _greek,
}


@cache
def light_stemmer(name: str) -> Callable[[str], str]:
    """The cached stemming function of a ported stemmer (one cache per stemmer, shared by every analyzer)."""
    if name in ("german_stem", "brazilian"):
        return lru_cache(maxsize=1 << 18)(german_stem if name == "german_stem" else brazilian_stem)
    return lru_cache(maxsize=1 << 18)(_utf16(_PORTS[name]))


def _stemmer_filter(name: str) -> Callable[[], MapFilter]:
    return lambda: MapFilter(light_stemmer(name), skip_keyword=True)


# `stemmer` language names (lowercased, as StemmerTokenFilterFactory compares them) -> filter factory
LIGHT_STEMMERS: dict[str, Callable[[], MapFilter]] = {name: _stemmer_filter(name) for name in [*_PORTS, "brazilian"]}
for _alias, _name in (
    ("lightfrench", "light_french"), ("minimalfrench", "minimal_french"), ("lightgerman", "light_german"),
    ("minimalgerman", "minimal_german"), ("lightspanish", "light_spanish"), ("lightitalian", "light_italian"),
    ("lightportuguese", "light_portuguese"), ("minimalportuguese", "minimal_portuguese"),
    ("lightswedish", "light_swedish"), ("lightnorwegian", "light_norwegian"), ("lightnynorsk", "light_nynorsk"),
    ("minimalnorwegian", "minimal_norwegian"),
    ("minimalnynorsk", "minimal_nynorsk"), ("light_finish", "light_finnish"), ("lightfinish", "light_finnish"),
    ("lightfinnish", "light_finnish"), ("lighthungarian", "light_hungarian"), ("lightrussian", "light_russian"),
):  # fmt: skip
    LIGHT_STEMMERS[_alias] = LIGHT_STEMMERS[_name]

# token filter types -> filter factory (they read no option)
LIGHT_FILTERS: dict[str, Callable[[], MapFilter]] = {
    "german_normalization": lambda: MapFilter(lru_cache(maxsize=1 << 16)(german_normalization)),
    "scandinavian_normalization": lambda: MapFilter(lru_cache(maxsize=1 << 16)(scandinavian_normalization)),
    "scandinavian_folding": lambda: MapFilter(lru_cache(maxsize=1 << 16)(scandinavian_folding)),
    "arabic_normalization": lambda: MapFilter(lru_cache(maxsize=1 << 16)(arabic_normalization)),
    "persian_normalization": lambda: MapFilter(lru_cache(maxsize=1 << 16)(persian_normalization)),
    "hindi_normalization": lambda: MapFilter(lru_cache(maxsize=1 << 16)(hindi_normalization)),
    "indic_normalization": lambda: MapFilter(lru_cache(maxsize=1 << 16)(indic_normalization)),
    "bengali_normalization": lambda: MapFilter(lru_cache(maxsize=1 << 16)(bengali_normalization)),
    "serbian_normalization": lambda: MapFilter(lru_cache(maxsize=1 << 16)(serbian_normalization)),
    "sorani_normalization": lambda: MapFilter(lru_cache(maxsize=1 << 16)(sorani_normalization)),
    "arabic_stem": _stemmer_filter("arabic"),
    "persian_stem": _stemmer_filter("persian"),
    "czech_stem": _stemmer_filter("czech"),
}


def _with_exclusions(make: Callable[[], MapFilter]) -> Callable[[Any, Mapping, str], MapFilter]:
    """The `*_stem` filters whose factory reads `stem_exclusion` (a SetKeywordMarkerFilter before the stemmer): one
    filter that marks the listed terms, so later stemmers spare them too, and stems the rest."""

    def build(reg: Any, spec: Mapping, path: str) -> MapFilter:
        stemmer = make()
        words = None if spec.get("stem_exclusion") == "_none_" else reg.word_list(spec, "stem_exclusion", path, None)
        if not words:
            return stemmer
        stem = stemmer.fn
        assert stem is not None
        return MapFilter(
            lambda term: term if term in words else stem(term), keyword=words.__contains__, skip_keyword=True
        )

    return build


# token filter types that read `stem_exclusion` -> (registry, definition, key path) -> filter
STEM_FILTERS: dict[str, Callable[[Any, Mapping, str], MapFilter]] = {
    "german_stem": _with_exclusions(_stemmer_filter("german_stem")),
    "french_stem": _with_exclusions(lambda: filters.snowball("French")),
    "dutch_stem": _with_exclusions(lambda: filters.snowball("Dutch")),
    "russian_stem": _with_exclusions(lambda: filters.snowball("Russian")),
    "brazilian_stem": _with_exclusions(LIGHT_STEMMERS["brazilian"]),
}
