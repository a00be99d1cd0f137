"""Generate tests/data/lucene_extra/z_more_like_this.json.gz: real Lucene 9.9.1's MoreLikeThis on Cranfield bodies,
for the more_like_this shapes where Elasticsearch 8's fork (XMoreLikeThis, MoreLikeThisQuery) selects the same terms.

    /tmp/lucene-oracle/venv/bin/python tests/lucene_extra/more_like_this.py --jar anserini-1.7.1-fatjar.jar \
        --cranfield ../shared/data/cranfield/cran.all.1400 --out tests/data/lucene_extra

The corpus is Cranfield without its two documents that have no body, so that every document holds the one field
searched, `body` (EnglishAnalyzer, with term vectors): Lucene's MoreLikeThis takes the number of documents for its
ClassicSimilarity idf from the field's docCount, Elasticsearch's fork from the reader's numDocs, equal here. On one
field the two select terms alike: the term frequencies of the like texts (or of the liked documents' field, which
Elasticsearch reads from term vectors made with the same analyzer), the noise-word filters, tf x idf in float, a
PriorityQueue of max_query_terms fed in Java HashMap order, the term boosts of `boost_terms`. The HashMap's order
among terms of one bucket is their insertion order, which is the token order for a text but term order for term
vectors: the liked documents are therefore handed to Lucene as the terms of their Lucene term vectors, each repeated
by its frequency, through a whitespace analyzer. `unlike` texts are Elasticsearch's skip terms, which on one field
act as stop words, so they are given to Lucene as such. The query Lucene makes is then built as Elasticsearch
finishes it: each TermQuery boosted by its term boost x 2.2 (the (k1 + 1) of Elasticsearch's similarity),
`minimum_should_match` (30% by default) applied by Queries.applyMinimumShouldMatch per part (the like texts, the
liked documents), the parts as SHOULD clauses of one BooleanQuery, and the liked documents excluded unless
`include`. The top 20 per case are kept with their float32 scores and the query Lucene ran.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import jpype
import jpype.imports
from oracle import arguments, f32, min_should_match, start_jvm

TOP = 20
N_CASES = 24
# name: (more_like_this options besides like / unlike, what `like` holds: text, doc, docs or mixed, unlike text)
SHAPES: dict[str, tuple[dict[str, Any], str, bool]] = {
    "text_defaults": ({}, "text", False),
    "text_params": (
        {
            "min_term_freq": 1,
            "max_query_terms": 12,
            "min_doc_freq": 2,
            "max_doc_freq": 300,
            "min_word_length": 4,
            "max_word_length": 10,
            "stop_words": ["flow", "pressur", "result"],
            "minimum_should_match": "50%",
        },
        "text",
        False,
    ),
    "text_boost_terms": ({"min_term_freq": 1, "max_query_terms": 15, "boost_terms": 1.5}, "text", False),
    "text_unlike": ({"min_term_freq": 1, "minimum_should_match": 2}, "text", True),
    "doc_defaults": ({}, "doc", False),
    "doc_include": ({"min_term_freq": 1, "include": True, "minimum_should_match": "-60%"}, "doc", False),
    "docs_two": ({"min_term_freq": 1, "max_query_terms": 30}, "docs", False),
    "doc_unlike": ({"min_term_freq": 1, "max_query_terms": 20}, "doc", True),
    "mixed": ({"min_term_freq": 1, "max_query_terms": 10, "minimum_should_match": 1}, "mixed", False),
}


def cranfield(path: Path) -> list[dict[str, str]]:
    """cran.all.1400 as tests/lucene_reference/test_lucene_bm25.py reads it, without the documents that have no body."""
    docs: list[dict[str, Any]] = []
    current = None
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(".I "):
            docs.append({"id": line[3:].strip(), "_": {}})
            current = None
        elif len(line) == 2 and line[0] == "." and line[1] in "TABW":
            current = line[1]
            docs[-1]["_"][current] = []
        elif current is not None:
            docs[-1]["_"][current].append(line)
    for doc in docs:
        parts = doc.pop("_")
        doc["body"] = "\n".join(parts.get("W", [])).strip()
    return [doc for doc in docs if doc["body"]]


def main() -> None:
    args = arguments()
    start_jvm(args.jar)
    from java.io import StringReader
    from java.util import HashSet
    from org.apache.lucene.analysis.core import WhitespaceAnalyzer
    from org.apache.lucene.analysis.en import EnglishAnalyzer
    from org.apache.lucene.analysis.tokenattributes import CharTermAttribute
    from org.apache.lucene.document import Document, Field, FieldType, StringField, TextField
    from org.apache.lucene.index import DirectoryReader, IndexWriter, IndexWriterConfig, Term
    from org.apache.lucene.queries.mlt import MoreLikeThis
    from org.apache.lucene.search import BooleanClause, BooleanQuery, BoostQuery, IndexSearcher, TermQuery
    from org.apache.lucene.search.similarities import BM25Similarity
    from org.apache.lucene.store import ByteBuffersDirectory

    english = EnglishAnalyzer()
    docs = cranfield(args.cranfield)
    body_of = {doc["id"]: doc["body"] for doc in docs}
    directory = ByteBuffersDirectory()
    config = IndexWriterConfig(english)
    config.setSimilarity(BM25Similarity(1.2, 0.75))
    writer = IndexWriter(directory, config)
    with_vectors = FieldType(TextField.TYPE_STORED)
    with_vectors.setStoreTermVectors(True)
    for doc in docs:
        lucene_doc = Document()
        lucene_doc.add(StringField("id", doc["id"], Field.Store.YES))
        lucene_doc.add(Field("body", doc["body"], with_vectors))
        writer.addDocument(lucene_doc)
    writer.forceMerge(1)
    writer.close()
    reader = DirectoryReader.open(directory)
    searcher = IndexSearcher(reader)
    searcher.setSimilarity(BM25Similarity(1.2, 0.75))
    stored = searcher.storedFields()
    occur = BooleanClause.Occur

    def analyzed(text: str) -> list[str]:
        stream = english.tokenStream("body", text)
        term = stream.addAttribute(CharTermAttribute)
        stream.reset()
        out = []
        while stream.incrementToken():
            out.append(str(term.toString()))
        stream.end()
        stream.close()
        return out

    def vector_text(ids: list[str]) -> str:
        """The liked documents' term vectors as a text the whitespace analyzer gives back term by term: each
        document's terms in term order, each as often as its frequency, so that Lucene's HashMap of term
        frequencies is filled in the order Elasticsearch fills it from the term vectors."""
        words = []
        for doc_id in ids:
            hits = searcher.search(TermQuery(Term("id", doc_id)), 1).scoreDocs
            terms_enum = reader.termVectors().get(hits[0].doc).terms("body").iterator()
            while (term := terms_enum.next()) is not None:
                words += [term.utf8ToString()] * int(terms_enum.totalTermFreq())
        return " ".join(words)

    def lucene_part(options: dict[str, Any], texts: list[str], unlike: str | None, vectors: bool) -> Any:
        """Lucene's MoreLikeThis query for these texts, finished as Elasticsearch finishes its part."""
        mlt = MoreLikeThis(reader)
        mlt.setAnalyzer(WhitespaceAnalyzer() if vectors else english)
        mlt.setMaxNumTokensParsed(2**31 - 1 if vectors else 5000)
        mlt.setFieldNames(["body"])
        mlt.setMinTermFreq(options.get("min_term_freq", 2))
        mlt.setMinDocFreq(options.get("min_doc_freq", 5))
        mlt.setMaxDocFreq(options.get("max_doc_freq", 2**31 - 1))
        mlt.setMinWordLen(options.get("min_word_length", 0))
        mlt.setMaxWordLen(options.get("max_word_length", 0))
        mlt.setMaxQueryTerms(options.get("max_query_terms", 25))
        stop = set(options.get("stop_words", [])) | (set(analyzed(unlike)) if unlike else set())
        if stop:
            words = HashSet()
            for word in stop:
                words.add(word)
            mlt.setStopWords(words)
        if options.get("boost_terms"):
            mlt.setBoost(True)
            mlt.setBoostFactor(jpype.JFloat(options["boost_terms"]))
        made = mlt.like("body", *[StringReader(t) for t in texts])
        builder = BooleanQuery.Builder()
        clauses = list(made.clauses())
        for clause in clauses:
            q, boost = clause.getQuery(), 1.0
            if isinstance(q, BoostQuery):
                q, boost = q.getQuery(), float(q.getBoost())
            builder.add(BoostQuery(q, jpype.JFloat(f32(boost * f32(2.2)))), occur.SHOULD)
        required = min_should_match(len(clauses), options.get("minimum_should_match", "30%"))
        if required > 0:
            builder.setMinimumNumberShouldMatch(required)
        return builder.build()

    rng = random.Random(11)
    ids = [doc["id"] for doc in docs if len(doc["body"]) > 400]
    out: dict[str, Any] = {"shapes": {}}
    for name, (options, kind, with_unlike) in SHAPES.items():
        cases = []
        for _ in range(N_CASES):
            liked = rng.sample(ids, 2)
            text = body_of[rng.choice(ids)]
            unlike = body_of[rng.choice(ids)][:300] if with_unlike else None
            like: list[Any]
            if kind == "text":
                like, parts = [text], [([text], False)]
            elif kind == "doc":
                like, parts = [{"_id": liked[0]}], [([vector_text(liked[:1])], True)]
            elif kind == "docs":
                like, parts = [{"_id": liked[0]}, {"_id": liked[1]}], [([vector_text(liked)], True)]
            else:
                like, parts = [text, {"_id": liked[0]}], [([vector_text(liked[:1])], True), ([text], False)]
            outer = BooleanQuery.Builder()
            for texts, vectors in parts:
                outer.add(lucene_part(options, texts, unlike, vectors), occur.SHOULD)
            if kind != "text" and not options.get("include"):
                for item in like:
                    if isinstance(item, dict):
                        outer.add(TermQuery(Term("id", item["_id"])), occur.MUST_NOT)
            q = outer.build()
            top = searcher.search(q, TOP)
            hits = [[str(stored.document(h.doc).get("id")), float(h.score)] for h in top.scoreDocs]
            case: dict[str, Any] = {"like": like, "lucene": str(searcher.rewrite(q))[:600], "hits": hits}
            if unlike is not None:
                case["unlike"] = unlike
            cases.append(case)
        out["shapes"][name] = {"options": options, "cases": cases}
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "z_more_like_this.json.gz"
    target.write_bytes(gzip.compress(json.dumps(out, separators=(",", ":")).encode(), mtime=0))
    print(target, {k: sum(len(c["hits"]) for c in v["cases"]) for k, v in out["shapes"].items()})


if __name__ == "__main__":
    main()
