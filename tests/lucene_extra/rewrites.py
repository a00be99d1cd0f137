"""Reference runs of real Lucene 9.9.1's MultiTermQuery rewrite methods, as Elasticsearch's `rewrite` names them.

    /tmp/lucene-oracle/venv/bin/python tests/lucene_extra/rewrites.py \
        --jar /tmp/lucene-oracle/jars/anserini-1.7.1-fatjar.jar \
        --cranfield ../shared/data/cranfield/cran.all.1400 --out tests/data/lucene_extra

Cranfield is indexed as test_lucene_bm25.py reads it (title and body, EnglishAnalyzer, BM25 1.2/0.75). Each
case is an Elasticsearch query (prefix, wildcard, regexp, fuzzy, match with fuzziness and `fuzzy_rewrite`,
query_string with `rewrite` and `fuzzy_rewrite`) and the Lucene query Elasticsearch builds for it, with the rewrite
method QueryParsers.parseRewriteMethod maps the name to (`constant_score` CONSTANT_SCORE_REWRITE, `scoring_boolean`
SCORING_BOOLEAN_REWRITE, `constant_score_boolean`, `top_terms_N` TopTermsScoringBooleanQueryRewrite,
`top_terms_boost_N` TopTermsBoostOnlyBooleanQueryRewrite, `top_terms_blended_freqs_N`
TopTermsBlendedFreqScoringRewrite; no name: the query's default). Scores are in Elasticsearch's scale: the query is
rewritten by Lucene first (so its boolean queries are flattened and merged as Lucene does) and then every term
leaf is wrapped in BoostQuery(q, 2.2f), the (k1 + 1) Elasticsearch's similarity keeps; constant-score leaves keep
their scores. query_string's `fuzzy_rewrite` changes nothing in Elasticsearch 8 (its parser builds fuzzy terms
with FuzzyQuery's default rewrite), which the reference records. The top 20 hits are kept with their float32
scores in tests/data/lucene_extra/x_rewrites.json.gz.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import jpype
import jpype.imports
from oracle import arguments, cranfield, start_jvm

REWRITES = [None, "constant_score", "constant_score_boolean", "scoring_boolean", "top_terms_3", "top_terms_boost_3",
            "top_terms_blended_freqs_3", "top_terms_50"]  # fmt: skip
# (Elasticsearch query without its rewrite, the key the rewrite goes to)
SHAPES: list[tuple[dict[str, Any], str]] = [
    ({"prefix": {"body": {"value": "aero"}}}, "rewrite"),
    ({"wildcard": {"body": {"value": "super*c"}}}, "rewrite"),
    ({"regexp": {"body": {"value": "hea[a-z]+"}}}, "rewrite"),
    ({"fuzzy": {"body": {"value": "suprsonic", "fuzziness": 2}}}, "rewrite"),
    ({"fuzzy": {"body": {"value": "flw", "fuzziness": 1}}}, "rewrite"),
    ({"fuzzy": {"title": {"value": "presure", "fuzziness": "AUTO", "max_expansions": 5}}}, "rewrite"),
    ({"match": {"body": {"query": "suprsonic flw flo", "fuzziness": "AUTO"}}}, "fuzzy_rewrite"),
    ({"match": {"body": {"query": "heet transfr", "fuzziness": 1, "operator": "and"}}}, "fuzzy_rewrite"),
    ({"query_string": {"query": "aero* heat", "default_field": "body"}}, "rewrite"),
    ({"query_string": {"query": "suprsonic~2 flw~1 plate", "default_field": "body"}}, "fuzzy_rewrite"),
]


def auto_edits(term: str) -> int:
    """Elasticsearch's Fuzziness AUTO (3, 6) by the term's length."""
    return 0 if len(term) < 3 else 1 if len(term) < 6 else 2


def main() -> None:
    args = arguments()
    start_jvm(args.jar)
    from java.util import ArrayList
    from org.apache.lucene.analysis.en import EnglishAnalyzer
    from org.apache.lucene.analysis.tokenattributes import CharTermAttribute
    from org.apache.lucene.document import Document, Field, StringField, TextField
    from org.apache.lucene.index import DirectoryReader, IndexWriter, IndexWriterConfig, Term
    from org.apache.lucene.queryparser.classic import QueryParser
    from org.apache.lucene.search import (
        BooleanClause,
        BooleanQuery,
        BoostQuery,
        DisjunctionMaxQuery,
        FuzzyQuery,
        IndexSearcher,
        MultiTermQuery,
        PrefixQuery,
        RegexpQuery,
        TermQuery,
        WildcardQuery,
    )
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
    searcher = IndexSearcher(DirectoryReader.open(directory))
    searcher.setSimilarity(BM25Similarity(1.2, 0.75))
    stored = searcher.storedFields()

    def method(name: str | None) -> object:
        """QueryParsers.parseRewriteMethod."""
        if name in ("constant_score", None):
            return MultiTermQuery.CONSTANT_SCORE_REWRITE
        if name == "constant_score_boolean":
            return MultiTermQuery.CONSTANT_SCORE_BOOLEAN_REWRITE
        if name == "scoring_boolean":
            return MultiTermQuery.SCORING_BOOLEAN_REWRITE
        size = int(name.rsplit("_", 1)[1])
        if name.startswith("top_terms_boost_"):
            return MultiTermQuery.TopTermsBoostOnlyBooleanQueryRewrite(size)
        if name.startswith("top_terms_blended_freqs_"):
            return MultiTermQuery.TopTermsBlendedFreqScoringRewrite(size)
        return MultiTermQuery.TopTermsScoringBooleanQueryRewrite(size)

    def analyzed(text: str) -> list[str]:
        stream = analyzer.tokenStream("body", text)
        term = stream.addAttribute(CharTermAttribute)
        stream.reset()
        out = []
        while stream.incrementToken():
            out.append(str(term.toString()))
        stream.end()
        stream.close()
        return out

    def fuzzy(field: str, text: str, edits: int, expansions: int, rewrite: str | None) -> object:
        query = FuzzyQuery(Term(field, text), edits, 0, expansions, True)
        if rewrite is not None:  # FuzzyQuery's own default (blended top max_expansions) unless one is named
            query.setRewriteMethod(method(rewrite))
        return query

    def lucene(shape: dict[str, Any], rewrite: str | None) -> object:
        ((kind, spec),) = shape.items()
        if kind == "query_string":
            classic = QueryParser(spec["default_field"], analyzer)
            classic.setMultiTermRewriteMethod(method(rewrite))
            # QueryStringQueryParser.getFuzzyQuerySingle passes no rewrite to fieldType.fuzzyQuery: `fuzzy_rewrite`
            # is parsed (a bad name is an error) but its fuzzy terms keep FuzzyQuery's default
            return classic.parse(spec["query"])
        ((field, options),) = spec.items()
        if kind == "match":
            occur = BooleanClause.Occur.MUST if options.get("operator") == "and" else BooleanClause.Occur.SHOULD
            builder = BooleanQuery.Builder()
            for token in analyzed(options["query"]):
                edits = auto_edits(token) if options["fuzziness"] == "AUTO" else int(options["fuzziness"])
                builder.add(fuzzy(field, token, edits, 50, options.get("fuzzy_rewrite")), occur)
            return builder.build()
        value = options["value"]
        if kind == "fuzzy":
            edits = auto_edits(value) if options["fuzziness"] == "AUTO" else int(options["fuzziness"])
            return fuzzy(field, value, edits, options.get("max_expansions", 50), rewrite)
        query = {"prefix": PrefixQuery, "wildcard": WildcardQuery, "regexp": RegexpQuery}[kind](Term(field, value))
        query.setRewriteMethod(method(rewrite))
        return query

    def es_scale(query: object) -> object:
        """Every term leaf of the rewritten query boosted by (k1 + 1), the factor Elasticsearch's BM25 keeps."""
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
        if isinstance(query, TermQuery):
            return BoostQuery(query, jpype.JFloat(2.2))
        return query  # constant-score leaves

    cases = []
    for shape, key in SHAPES:
        for rewrite in REWRITES:
            if rewrite is not None and key == "fuzzy_rewrite" and rewrite == "constant_score_boolean":
                continue  # as constant_score
            body = json.loads(json.dumps(shape))
            ((kind, spec),) = body.items()
            target = spec if kind == "query_string" else next(iter(spec.values()))
            if rewrite is not None:
                target[key] = rewrite
            query = es_scale(searcher.rewrite(lucene(body, rewrite if key == "rewrite" else None)))
            top = searcher.search(query, 20)
            hits = [[str(stored.document(h.doc).get("id")), float(h.score)] for h in top.scoreDocs]
            cases.append({"query": body, "lucene": str(query)[:2000], "hits": hits})
    args.out.mkdir(parents=True, exist_ok=True)
    target_file = args.out / "x_rewrites.json.gz"
    target_file.write_bytes(gzip.compress(json.dumps(cases, indent=0).encode(), mtime=0))
    print(target_file, len(cases), "queries")


if __name__ == "__main__":
    main()
