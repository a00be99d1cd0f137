"""Reference runs of real Lucene 9.9.1's CombinedFieldQuery (BM25F) on Cranfield, as combined_fields builds it.

    /tmp/lucene-oracle/venv/bin/python tests/lucene_extra/combined_fields.py \
        --jar /tmp/lucene-oracle/jars/anserini-1.7.1-fatjar.jar \
        --cranfield ../shared/data/cranfield/cran.all.1400 --out tests/data/lucene_extra

Cranfield's title and body are indexed twice: `title`/`body` with EnglishAnalyzer and `title_std`/`body_std` with
StandardAnalyzer (Elasticsearch's `english` and `standard`), BM25 1.2/0.75. Each query text is analyzed as
Elasticsearch's CombinedFieldsQueryBuilder does (the shared search analyzer), and built as its CombinedFieldsBuilder
builds it: one CombinedFieldQuery per position (the terms stacked there, the fields with their weights) in a
BooleanQuery (SHOULD, or MUST for operator AND; one position is the CombinedFieldQuery alone), with
`minimum_should_match` applied as Queries.maybeApplyMinimumShouldMatch applies it (to a BooleanQuery only), and the
query boost around it all. A variant `synonyms` stacks a second term on a position (Elasticsearch's single-word
synonyms) to exercise the terms of one CombinedFieldQuery; `graph` and `graph_no_phrases` are multi-word synonyms,
built by hand as Lucene's QueryBuilder.analyzeGraphBoolean builds them from CombinedFieldsBuilder's leaves (with
and without auto_generate_synonyms_phrase_query). Scores are in Elasticsearch's scale: each CombinedFieldQuery (and
phrase) is wrapped in BoostQuery(q, 2.2f), the (k1 + 1) its BM25 similarity keeps. The top 20 hits are kept with
their float32 scores in tests/data/lucene_extra/w_combined_fields.json.gz.
"""

from __future__ import annotations

import gzip
import json

import jpype
import jpype.imports
from oracle import arguments, cranfield, start_jvm

TEXTS = [
    "boundary layer", "heat transfer", "supersonic flow over a flat plate", "shock wave boundary layer interaction",
    "heat heat transfer", "the", "aeroelastic models of heated high speed aircraft", "laminar", "wing body",
    "pressure distribution on a cone at angle of attack", "buckling of cylindrical shells", "jet noise",
    "hypersonic viscous interaction", "transition reynolds number", "skin friction drag", "mach",
]  # fmt: skip
SHORT = ["boundary layer", "heat transfer plate", "supersonic flow", "shock wave interaction", "wing body flutter"]
MSM = ["boundary layer flow", "heat transfer plate mass", "supersonic flow cone", "jet noise", "shock"]
SYNONYMS = {"aircraft": "airplane", "heat": "thermal", "wing": "airfoil", "flow": "stream"}
# multi-word synonyms (search-time synonym_graph `bl, boundary layer`): each text's graph as Lucene's
# QueryBuilder.analyzeGraphBoolean walks it, a term or a segment of side paths (the terms of each path)
GRAPH_RULE = "bl, boundary layer"
GRAPHS = {
    "bl flow": [[["bl"], ["boundari", "layer"]], "flow"],
    "boundary layer flow": [[["boundari", "layer"], ["bl"]], "flow"],
    "heat bl": ["heat", [["bl"], ["boundari", "layer"]]],
    "bl": [[["bl"], ["boundari", "layer"]]],
    "laminar bl heat transfer": ["laminar", [["bl"], ["boundari", "layer"]], "heat", "transfer"],
}
# name: (fields and weights, analyzer, operator AND, minimum_should_match, query boost, texts)
VARIANTS = {
    "english": ({"title": 1.0, "body": 1.0}, "english", False, None, 1.0, TEXTS),
    "english_title3": ({"title": 3.0, "body": 1.0}, "english", False, None, 1.0, TEXTS),
    "english_fractional": ({"title": 1.2, "body": 2.7}, "english", False, None, 1.0, TEXTS),
    "english_one_field": ({"body": 1.5}, "english", False, None, 1.0, TEXTS[:6]),
    "standard_title2": ({"title_std": 2.0, "body_std": 1.0}, "standard", False, None, 1.0, TEXTS),
    "english_and": ({"title": 2.0, "body": 1.0}, "english", True, None, 1.0, SHORT),
    "english_msm2": ({"title": 1.0, "body": 1.0}, "english", False, 2, 1.0, MSM),
    "english_msm_minus1": ({"title": 1.5, "body": 1.0}, "english", False, -1, 1.0, MSM),
    "english_boost": ({"title": 2.0, "body": 1.0}, "english", False, None, 2.5, TEXTS[:8]),
    "synonyms": ({"title": 2.0, "body": 1.0}, "english", False, None, 1.0, TEXTS[:9]),
}


def main() -> None:
    args = arguments()
    start_jvm(args.jar)
    from java.util import HashMap
    from org.apache.lucene.analysis.en import EnglishAnalyzer
    from org.apache.lucene.analysis.miscellaneous import PerFieldAnalyzerWrapper
    from org.apache.lucene.analysis.standard import StandardAnalyzer
    from org.apache.lucene.analysis.tokenattributes import CharTermAttribute, PositionIncrementAttribute
    from org.apache.lucene.document import Document, Field, StringField, TextField
    from org.apache.lucene.index import DirectoryReader, IndexWriter, IndexWriterConfig
    from org.apache.lucene.sandbox.search import CombinedFieldQuery
    from org.apache.lucene.search import BooleanClause, BooleanQuery, BoostQuery, IndexSearcher, PhraseQuery
    from org.apache.lucene.search.similarities import BM25Similarity
    from org.apache.lucene.store import ByteBuffersDirectory
    from org.apache.lucene.util import BytesRef

    analyzers = {"english": EnglishAnalyzer(), "standard": StandardAnalyzer()}
    per_field = HashMap()
    per_field.put("title_std", analyzers["standard"])
    per_field.put("body_std", analyzers["standard"])
    directory = ByteBuffersDirectory()
    config = IndexWriterConfig(PerFieldAnalyzerWrapper(analyzers["english"], per_field))
    config.setSimilarity(BM25Similarity(1.2, 0.75))
    writer = IndexWriter(directory, config)
    for doc in cranfield(args.cranfield):
        lucene_doc = Document()
        lucene_doc.add(StringField("id", doc["id"], Field.Store.YES))
        for name, text in (("title", doc["title"]), ("body", doc["body"])):
            lucene_doc.add(TextField(name, text, Field.Store.NO))
            lucene_doc.add(TextField(f"{name}_std", text, Field.Store.NO))
        writer.addDocument(lucene_doc)
    writer.forceMerge(1)
    writer.close()
    searcher = IndexSearcher(DirectoryReader.open(directory))
    searcher.setSimilarity(BM25Similarity(1.2, 0.75))
    stored = searcher.storedFields()

    stemmed: dict[str, str] = {}

    def positions(analyzer: object, text: str, synonyms: bool) -> list[list[str]]:
        """The analyzed terms grouped by position (a synonym stacked on its word when `synonyms`)."""
        stream = analyzer.tokenStream("title", text)
        term, increment = stream.addAttribute(CharTermAttribute), stream.addAttribute(PositionIncrementAttribute)
        stream.reset()
        groups: list[list[str]] = []
        while stream.incrementToken():
            if increment.getPositionIncrement() > 0 or not groups:
                groups.append([])
            groups[-1].append(str(term.toString()))
        stream.end()
        stream.close()
        if synonyms:
            for group in groups:
                if group[0] in stemmed:
                    group.append(stemmed[group[0]])
        return groups

    english = analyzers["english"]  # the synonym pairs as the english analyzer leaves them
    for word, other in SYNONYMS.items():
        stemmed[positions(english, word, False)[0][0]] = positions(english, other, False)[0][0]

    def combined(fields: dict[str, float], terms: list[str]) -> object:
        builder = CombinedFieldQuery.Builder()
        for term in terms:
            builder.addTerm(BytesRef(term))
        for field, weight in fields.items():
            builder.addField(field, jpype.JFloat(weight))
        return BoostQuery(builder.build(), jpype.JFloat(2.2))

    def build(fields: dict[str, float], groups: list[list[str]], conjunction: bool, msm: int | None) -> object:
        if len(groups) == 1:
            return combined(fields, groups[0])
        builder = BooleanQuery.Builder()
        occur = BooleanClause.Occur.MUST if conjunction else BooleanClause.Occur.SHOULD
        for group in groups:
            builder.add(combined(fields, group), occur)
        if msm is not None and not conjunction:
            required = msm if msm >= 0 else len(groups) + msm
            if required > 0:
                builder.setMinimumNumberShouldMatch(required)
        return builder.build()

    def graph(fields: dict[str, float], segments: list[object], phrases: bool) -> object:
        """analyzeGraphBoolean with CombinedFieldsBuilder's leaves: a side path of several terms is a phrase per
        field (boosted by the field's weight) when `phrases` (auto_generate_synonyms_phrase_query), else a
        conjunction of its terms."""
        top = BooleanQuery.Builder()
        for segment in segments:
            if isinstance(segment, str):
                top.add(combined(fields, [segment]), BooleanClause.Occur.SHOULD)
                continue
            side = BooleanQuery.Builder()
            for path in segment:
                if len(path) == 1:
                    query = combined(fields, path)
                elif phrases:
                    per_field = BooleanQuery.Builder()
                    for field, weight in fields.items():
                        phrase = BoostQuery(PhraseQuery(field, *path), jpype.JFloat(2.2))
                        if weight != 1.0:
                            phrase = BoostQuery(phrase, jpype.JFloat(weight))
                        per_field.add(phrase, BooleanClause.Occur.SHOULD)
                    query = per_field.build()
                else:
                    conjunction = BooleanQuery.Builder()
                    for term in path:
                        conjunction.add(combined(fields, [term]), BooleanClause.Occur.MUST)
                    query = conjunction.build()
                side.add(query, BooleanClause.Occur.SHOULD)
            top.add(side.build(), BooleanClause.Occur.SHOULD)
        return top.build()

    out: dict[str, dict[str, object]] = {}
    for name, (fields, analyzer, conjunction, msm, boost, texts) in VARIANTS.items():
        cases = []
        for text in texts:
            groups = positions(analyzers[analyzer], text, name == "synonyms")
            if not groups:
                cases.append({"text": text, "groups": [], "lucene": "", "hits": []})
                continue
            query = build(fields, groups, conjunction, msm)
            if boost != 1.0:
                query = BoostQuery(query, jpype.JFloat(boost))
            top = searcher.search(query, 20)
            hits = [[str(stored.document(h.doc).get("id")), float(h.score)] for h in top.scoreDocs]
            cases.append({"text": text, "groups": groups, "lucene": str(query), "hits": hits})
        out[name] = {"fields": [f"{f}^{w}" for f, w in fields.items()], "and": conjunction, "msm": msm,
                     "boost": boost, "cases": cases}  # fmt: skip
    out["synonyms"]["pairs"] = stemmed
    for name, phrases in (("graph", True), ("graph_no_phrases", False)):
        fields = {"title": 2.0, "body": 1.0}
        cases = []
        for text, segments in GRAPHS.items():
            query = graph(fields, segments, phrases)
            top = searcher.search(query, 20)
            hits = [[str(stored.document(h.doc).get("id")), float(h.score)] for h in top.scoreDocs]
            cases.append({"text": text, "groups": segments, "lucene": str(query), "hits": hits})
        out[name] = {"fields": [f"{f}^{w}" for f, w in fields.items()], "and": False, "msm": None, "boost": 1.0,
                     "phrases": phrases, "rule": GRAPH_RULE, "cases": cases}  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "w_combined_fields.json.gz"
    target.write_bytes(gzip.compress(json.dumps(out, indent=0).encode(), mtime=0))
    print(target, sum(len(v["cases"]) for v in out.values()), "queries")


if __name__ == "__main__":
    main()
