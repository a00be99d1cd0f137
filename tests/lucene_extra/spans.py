"""Generate tests/data/lucene_extra/w_spans.json.gz: real Lucene 9.9.1's span queries on Cranfield.

    python tests/lucene_extra/spans.py --jar anserini-1.7.1-fatjar.jar \
        --shared ../shared --out tests/data/lucene_extra

Cranfield is indexed as test_lucene_bm25.py reads it (title and body, EnglishAnalyzer, BM25 1.2/0.75). Each
Cranfield query's first analyzed body terms (distinct, in order: t0, t1, t2) make one query per shape, built from
Lucene's span classes as Elasticsearch's span builders build them (SHAPES below: span_near ordered and unordered
with slops, span_or inside a near, span_first, span_not with dist, span_containing, span_within,
field_masking_span of a title term inside a body near, span_multi of a prefix and of a wildcard, which
Elasticsearch's rewrite makes the span or of every matching term as Lucene's default SCORING_SPAN_QUERY_REWRITE
does), wrapped in BoostQuery(q, 2.2f), the (k1 + 1) factor
Elasticsearch's similarity keeps. The file holds each query's terms and, per shape, Lucene's top 10 and hit count.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import jpype
import jpype.imports
from oracle import cranfield, start_jvm

# shape -> the Elasticsearch query over terms t (the test builds the same from this file's terms)
SHAPES = ("near_ordered_slop0", "near_ordered_slop3", "near_unordered_slop4", "near_of_or", "first_end8",
          "not_dist2", "containing", "within", "masked_title", "multi_prefix_near", "multi_wildcard_first")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    parser.add_argument("--shared", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    start_jvm(args.jar)
    from org.apache.lucene.analysis.en import EnglishAnalyzer
    from org.apache.lucene.analysis.tokenattributes import CharTermAttribute
    from org.apache.lucene.document import Document, Field, StringField, TextField
    from org.apache.lucene.index import DirectoryReader, IndexWriter, IndexWriterConfig, Term
    from org.apache.lucene.queries.spans import (
        FieldMaskingSpanQuery,
        SpanContainingQuery,
        SpanFirstQuery,
        SpanMultiTermQueryWrapper,
        SpanNearQuery,
        SpanNotQuery,
        SpanOrQuery,
        SpanQuery,
        SpanTermQuery,
        SpanWithinQuery,
    )
    from org.apache.lucene.search import BoostQuery, IndexSearcher, PrefixQuery, WildcardQuery
    from org.apache.lucene.search.similarities import BM25Similarity
    from org.apache.lucene.store import ByteBuffersDirectory

    analyzer = EnglishAnalyzer()
    directory = ByteBuffersDirectory()
    config = IndexWriterConfig(analyzer)
    config.setSimilarity(BM25Similarity(1.2, 0.75))
    writer = IndexWriter(directory, config)
    for doc in cranfield(args.shared / "data" / "cranfield" / "cran.all.1400"):
        lucene_doc = Document()
        lucene_doc.add(StringField("id", doc["id"], Field.Store.YES))
        lucene_doc.add(TextField("title", doc["title"], Field.Store.NO))
        lucene_doc.add(TextField("body", doc["body"], Field.Store.NO))
        writer.addDocument(lucene_doc)
    writer.forceMerge(1)
    writer.close()
    searcher = IndexSearcher(DirectoryReader.open(directory))
    searcher.setSimilarity(BM25Similarity(1.2, 0.75))
    stored = searcher.storedFields()

    def analyzed(text: str) -> list[str]:
        stream = analyzer.tokenStream("body", text)
        term = stream.addAttribute(CharTermAttribute)
        stream.reset()
        out: list[str] = []
        while stream.incrementToken():
            if str(term.toString()) not in out:
                out.append(str(term.toString()))
        stream.end()
        stream.close()
        return out

    def term(t: str, field: str = "body"):
        return SpanTermQuery(Term(field, t))

    def near(clauses: list, slop: int, in_order: bool):
        return SpanNearQuery(jpype.JArray(SpanQuery)(clauses), slop, in_order)

    def build(shape: str, t: list[str]):
        if shape == "near_ordered_slop0":
            return near([term(t[0]), term(t[1])], 0, True)
        if shape == "near_ordered_slop3":
            return near([term(t[0]), term(t[1]), term(t[2])], 3, True)
        if shape == "near_unordered_slop4":
            return near([term(t[0]), term(t[1]), term(t[2])], 4, False)
        if shape == "near_of_or":
            return near([SpanOrQuery(jpype.JArray(SpanQuery)([term(t[0]), term(t[1])])), term(t[2])], 2, False)
        if shape == "first_end8":
            return SpanFirstQuery(near([term(t[0]), term(t[1])], 3, False), 8)
        if shape == "not_dist2":
            return SpanNotQuery(near([term(t[0]), term(t[1])], 6, False), term(t[2]), 2, 2)
        if shape == "containing":
            return SpanContainingQuery(near([term(t[0]), term(t[1])], 8, False), term(t[2]))
        if shape == "within":
            return SpanWithinQuery(near([term(t[0]), term(t[1])], 8, False), term(t[2]))
        if shape == "masked_title":
            return near([term(t[0]), FieldMaskingSpanQuery(term(t[1], "title"), "body")], 5, False)
        if shape == "multi_prefix_near":
            return near([SpanMultiTermQueryWrapper(PrefixQuery(Term("body", t[0][:3]))), term(t[1])], 3, False)
        pattern = t[1][:2] + "*" + t[1][-1]
        return SpanFirstQuery(SpanMultiTermQueryWrapper(WildcardQuery(Term("body", pattern))), 20)

    texts: dict[str, list[str]] = {}
    for line in (args.shared / "data" / "lucene" / "cranfield_queries.jsonl").read_text().splitlines():
        query = json.loads(line)
        terms = analyzed(query["text"])
        if len(terms) >= 3:
            texts[query["qid"]] = terms[:3]
    runs: dict[str, dict] = {}
    for shape in SHAPES:
        runs[shape] = {}
        for qid, terms in texts.items():
            lucene = BoostQuery(build(shape, terms), jpype.JFloat(2.2))
            top = searcher.search(lucene, 10)
            runs[shape][qid] = {
                "top": [[str(stored.document(h.doc).get("id")), float(h.score)] for h in top.scoreDocs],
                "count": int(searcher.count(lucene)),
            }
    out = args.out / "w_spans.json.gz"
    with gzip.open(out, "wt", encoding="utf-8") as handle:
        json.dump({"terms": texts, "runs": runs}, handle, separators=(",", ":"))
    print(f"wrote {out}: {len(SHAPES)} shapes x {len(texts)} queries")


if __name__ == "__main__":
    main()
