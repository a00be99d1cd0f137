"""Reference runs from real Lucene 9.9.1's SimpleQueryParser and classic QueryParser on Cranfield's body field.

    /work/venvs/oracle/bin/python tests/lucene_extra/query_parsers.py --jar anserini-1.7.1-fatjar.jar \
        --cranfield ../shared/data/cranfield/cran.all.1400 --out tests/data/lucene_extra

Cranfield is indexed as test_lucene_bm25.py reads it (title and body, EnglishAnalyzer, BM25 1.2/0.75). Each
query text is parsed as Elasticsearch configures the parsers (default operator OR, leading wildcards allowed,
splitOnWhitespace false) in seven variants: both parsers on the body field, both with default operator AND, both with
`minimum_should_match: 70%` (applied as Elasticsearch applies it, to a BooleanQuery result only), and
SimpleQueryParser over title^2 and body (whose terms Elasticsearch also sums over the fields). The top 20 hits are
kept with their float32 scores, in tests/data/lucene_extra/v_query_parsers.json.gz. Texts are adversarial:
operators, unbalanced quotes and parentheses, escapes, field groups, boosts, fuzzy and slop. Scores are in
Elasticsearch's scale: every BM25 leaf of the parsed query (term, phrase, synonym, fuzzy) is wrapped in
BoostQuery(q, 2.2f), the (k1 + 1) factor Elasticsearch's similarity keeps, while constant-score leaves (prefix,
wildcard, regexp, match_all) keep theirs, so sums of both are Elasticsearch's sums. `error` marks a text Lucene
refuses. Texts whose Elasticsearch query is not Lucene's are left out: a purely negative query (Elasticsearch adds a
match_all filter), a bare `~` in query_string (Elasticsearch's default fuzziness is AUTO, Lucene's 2 edits), phrases
over several fields in simple_query_string (Elasticsearch takes the best field, Lucene sums them).
"""

from __future__ import annotations

import gzip
import json

import jpype
import jpype.imports
from oracle import arguments, cranfield, start_jvm

SIMPLE = [
    "boundary layer", "boundary + layer", "boundary | layer + flow", "boundary -layer", "-layer boundary",
    "--layer boundary", "boundary - layer", '"boundary layer"', '"boundary layer"~3', '"boundary layer',
    'heat "transfer', "(heat transfer", "heat transfer)", "(heat | transfer) + plate", "((heat) (transfer)) plate",
    "heat\\+transfer", "\\-heat transfer", "*on-call*", "?wing", "wing?", "supersonic~1", "supersnic~",
    "supersonic~0", "heat~1 transfer", '"shock wave"~1 | pressure', "()", '""', "heat ()transfer", "a + the",
    "heat+transfer|plate", "aero*", "bound*", "bound\\*", "flow*|heat*", '"flat plate" + (heat | mass) -cylinder',
    "jet~2 + noise", "heat~x", "~heat", "heat~-1", '"heat transfer"~', '"heat transfer"~x', "+heat", "|heat",
    "heat|", "heat +", "-(heat transfer) plate", "-heat -transfer plate", "heat--transfer", "\\\\heat", "heat\\",
    '"heat \\" transfer"', "(heat)(transfer)", "((heat)", "heat))) transfer", "*", " * ", "**", "*heat", "h*t",
    "heat transfer~1 +plate | mass -jet", "heat | transfer | plate + mass + jet | noise", "-heat | transfer",
]  # fmt: skip
CLASSIC = [
    "boundary layer", "boundary AND layer", "boundary OR layer AND flow", "boundary && layer || flow",
    "+boundary layer", "boundary -layer", "boundary NOT layer", "!layer boundary",
    "body:(heat OR transfer) AND -plate", "body:(heat transfer)^2 plate", "(heat transfer)^0.5",
    '"boundary layer"', '"boundary layer"~2', '"boundary layer"^3 flow', "heat^2 transfer", "supersonic~1",
    "supersnic~2 flow", "heat\\:transfer", "heat\\ transfer", "heat + transfer", "heat - transfer", "a AND heat",
    "heat AND (mass OR plate)", "(heat OR mass) AND (plate OR cylinder) -jet", "heat OR (transfer AND NOT plate)",
    "on-call flow", "shock wave pressure", "shock wave^2 pressure", "aero*", "aero* flow*", "*sonic", "s?ock",
    "b*y", "aero\\*", "/shoc?k/", "heat AND", "(heat", '"heat', "heat)", "heat^", "AND heat", "OR heat",
    "*:*", "heat~1^2", "heat^2~1", '"heat transfer"~1^2', "heat OR", "heat AND -transfer", "heat && !transfer",
    "+heat +transfer -plate", "heat OR transfer AND plate OR mass", "a OR the OR heat", "body:heat title:transfer",
    "title:(heat OR transfer) body:plate", "heat\\-transfer", '""', "heat \\\"", 'body:"heat transfer"',
    "title:heat^3 OR body:heat", "heat^0", "(heat)^3 (transfer)", "heat~0", "heat~1.5", "aero*^2",
    "s?ock^3 wave", "b*y OR heat", "body:/shoc?k/ heat", "heat transfer -(plate OR jet)", "heat:", ":heat",
    "heat^2^3", "heat~1~2", "(heat OR (transfer AND (plate OR (mass))))", "heat [", "title:", "heat ) (",
]  # fmt: skip
AND_TEXTS = [
    "heat transfer", "heat OR transfer", "heat transfer OR plate", "+heat transfer -plate",
    "heat AND transfer OR plate", "(heat transfer) plate", "body:(heat OR transfer) AND -plate", "a heat",
    '"heat transfer" plate', "heat | transfer plate", "heat -transfer", "(heat | transfer) plate",
    "heat transfer~1", "heat || transfer mass",
]  # fmt: skip
MSM_TEXTS = [
    "heat transfer plate", "heat transfer plate mass", "heat | transfer | plate", "(heat transfer) plate jet",
    "heat", "+heat transfer plate", "heat transfer -plate jet", '"heat transfer" plate jet', "heat OR transfer OR jet",
]  # fmt: skip
# name: (parser, fields and weights, default operator AND, minimum_should_match percent, texts)
VARIANTS = {
    "simple": ("simple", {"body": 1.0}, False, None, SIMPLE),
    "simple_and": ("simple", {"body": 1.0}, True, None, AND_TEXTS),
    "simple_multi": ("simple", {"title": 2.0, "body": 1.0}, False, None, [t for t in SIMPLE if '"' not in t]),
    "simple_msm": ("simple", {"body": 1.0}, False, 70, MSM_TEXTS),
    "classic": ("classic", {"body": 1.0}, False, None, CLASSIC),
    "classic_and": ("classic", {"body": 1.0}, True, None, AND_TEXTS),
    "classic_msm": ("classic", {"body": 1.0}, False, 70, MSM_TEXTS),
}


def main() -> None:
    args = arguments()
    start_jvm(args.jar)
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

    out: dict[str, dict[str, object]] = {}

    def with_msm(query: object, percent: int | None) -> object:
        """Elasticsearch's Queries.maybeApplyMinimumShouldMatch: only a BooleanQuery, percent of its optional
        clauses rounded down, when that is above 0."""
        if percent is None or not isinstance(query, BooleanQuery):
            return query
        optional = sum(1 for c in query.clauses() if c.getOccur() == BooleanClause.Occur.SHOULD)
        required = optional * percent // 100
        if required <= 0:
            return query
        builder = BooleanQuery.Builder()
        for clause in query.clauses():
            builder.add(clause)
        builder.setMinimumNumberShouldMatch(required)
        return builder.build()

    for name, (kind, fields, and_default, msm, texts) in VARIANTS.items():
        cases = []
        for text in texts:
            try:
                if kind == "simple":
                    weights = HashMap()
                    for field, weight in fields.items():
                        weights.put(field, jpype.JFloat(weight))
                    simple = SimpleQueryParser(analyzer, weights)
                    if and_default:
                        simple.setDefaultOperator(BooleanClause.Occur.MUST)
                    query = simple.parse(text)
                else:
                    classic = QueryParser("body", analyzer)
                    classic.setAllowLeadingWildcard(True)
                    if and_default:
                        classic.setDefaultOperator(QueryParser.Operator.AND)
                    query = classic.parse(text)
            except Exception as exc:  # a ParseException or TokenMgrError: Lucene refuses the text
                cases.append({"text": text, "error": True, "lucene": str(exc).splitlines()[0], "hits": []})
                continue
            query = with_msm(query, msm)
            cases.append({"text": text, "error": False, "lucene": str(query), "hits": hits(query)})
        spec = {"fields": [f"{f}^{w}" for f, w in fields.items()], "and": and_default, "msm": msm, "cases": cases}
        out[name] = spec
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "v_query_parsers.json.gz"
    target.write_bytes(gzip.compress(json.dumps(out, indent=0).encode(), mtime=0))
    print(target, sum(len(v["cases"]) for v in out.values()), "queries")


if __name__ == "__main__":
    main()
