"""Lucene 9.9.1's Snowball stemmers (org.tartarus.snowball.ext), by the class name SnowballFilter takes.

Lucene generated them from Snowball 2.0.0 (commit d8cf01dd, plus Armenian and Estonian from its patch). PyStemmer
2.2 (libstemmer_c) runs the same programs for 29 of the 33 and agrees with real Lucene on every word measured
(tests/lucene_extra/languages.py); German2, Kp and Lovins, which Snowball later dropped, and Estonian, which it
added later, are compiled from Lucene's Snowball sources into the modules beside this one
(tests/lucene_extra/snowball_ports.py).

Java stems UTF-16 units and PyStemmer code points, so a character beyond the BMP counts once in Python and twice in
Lucene (regions, `hop`, lengths), and a half surrogate pair from a truncating tokenizer cannot even reach
libstemmer. Such terms are stemmed with each surrogate stood in for by a private-use character the term lacks (no
Snowball program's letters include either), and the surrogates are put back afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache

import regex
import Stemmer

from pytest_relevance.engines.embedded.analysis.snowball.estonian_stemmer import EstonianStemmer
from pytest_relevance.engines.embedded.analysis.snowball.german2_stemmer import German2Stemmer
from pytest_relevance.engines.embedded.analysis.snowball.kraaij_pohlmann_stemmer import KpStemmer
from pytest_relevance.engines.embedded.analysis.snowball.lovins_stemmer import LovinsStemmer
from pytest_relevance.engines.embedded.java import from_utf16, utf16

# class name -> PyStemmer's algorithm
_PYSTEMMER = {
    name: name.lower()
    for name in [
        "Arabic", "Armenian", "Basque", "Catalan", "Danish", "Dutch", "English", "Finnish", "French", "German",
        "Greek", "Hindi", "Hungarian", "Indonesian", "Irish", "Italian", "Lithuanian", "Nepali", "Norwegian",
        "Porter", "Portuguese", "Romanian", "Russian", "Serbian", "Spanish", "Swedish", "Tamil", "Turkish", "Yiddish",
    ]
}  # fmt: skip
_PORTED = {"Estonian": EstonianStemmer, "German2": German2Stemmer, "Kp": KpStemmer, "Lovins": LovinsStemmer}
LANGUAGES = frozenset(_PYSTEMMER) | frozenset(_PORTED)

_NON_BMP = regex.compile(r"[\U00010000-\U0010FFFF\uD800-\uDFFF]")
_PRIVATE_USE = range(0xE000, 0xF900)


def _utf16(stem: Callable[[str], str], term: str) -> str:
    """`stem` on `term` as Java sees it: by UTF-16 unit."""
    if not _NON_BMP.search(term):
        return stem(term)
    units = utf16(term)
    free = (chr(c) for c in _PRIVATE_USE if chr(c) not in term)
    stand_in = {unit: next(free) for unit in dict.fromkeys(units) if "\ud800" <= unit <= "\udfff"}
    back = {v: k for k, v in stand_in.items()}
    out = "".join(back.get(c, c) for c in stem("".join(stand_in.get(u, u) for u in units)))
    return from_utf16(out)


@cache
def stemmer(name: str) -> Callable[[str], str]:
    """The stemmer Lucene's `org.tartarus.snowball.ext.<name>Stemmer` is, cached per term: a pure function that costs
    microseconds (tens for the ported ones), shared by every analyzer that uses the language."""
    if name in _PORTED:
        program = _PORTED[name]()
        raw = program.stemWord
    else:
        raw = Stemmer.Stemmer(_PYSTEMMER[name], 0).stemWord  # 0: no cache of its own, the lru_cache below is it
    return lru_cache(maxsize=1 << 16)(lambda term: _utf16(raw, term))
