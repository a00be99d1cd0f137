"""Generate tests/data/lucene_extra/y_terms_set.json.gz: real Lucene 9.9.1's CoveringQuery, the query
Elasticsearch 8's TermsSetQueryBuilder builds, on Cranfield-based documents.

    /tmp/lucene-oracle/venv/bin/python tests/lucene_extra/terms_set.py --jar anserini-1.7.1-fatjar.jar \
        --cranfield ../shared/data/cranfield/cran.all.1400 --out tests/data/lucene_extra

Each Cranfield document gets `tags`, a keyword field holding the distinct terms EnglishAnalyzer makes of its title
(indexed as Elasticsearch indexes a keyword: one untokenized term per value, documents only, no norms), `title`
itself (text, EnglishAnalyzer) and `required`, a long (the document number modulo 4; absent for every seventh
document). A query is a CoveringQuery of one TermQuery per listed term (TermsSetQueryBuilder.createTermQueries, the
field's termQuery: unanalyzed), each wrapped in BoostQuery(q, 2.2f), the (k1 + 1) Elasticsearch's similarity keeps,
and a LongValuesSource for the number of terms a document must hold (at least 1; a document without a value does not
match): `required`'s doc values for `minimum_should_match_field`; for the scripts, a per-document value the oracle
cannot run Painless for, so the script's value is computed here and indexed as a numeric field of its own; for the
8.10+ `minimum_should_match`, LongValuesSource.constant of Elasticsearch's Queries.calculateMinShouldMatch over the
number of terms. Term lists are seeded samples of a document's tags with a duplicate or a term no document holds
now and then. The top 30 are kept with their float32 scores, and the number of matches.
"""

from __future__ import annotations

import gzip
import json
import random
from typing import Any

import jpype
import jpype.imports
from oracle import arguments, cranfield, min_should_match, start_jvm

N_QUERIES = 60
TOP = 30
SCRIPT_MIN = "doc['required'].size() == 0 ? params.num_terms : Math.min(params.num_terms, doc['required'].value)"
# name: (field, the terms_set options besides `terms`, boost)
SHAPES: dict[str, tuple[str, dict[str, Any], float]] = {
    "field": ("tags", {"minimum_should_match_field": "required"}, 1.0),
    "field_boosted": ("tags", {"minimum_should_match_field": "required"}, 2.0),
    "field_text": ("title", {"minimum_should_match_field": "required"}, 1.0),
    "script_min": ("tags", {"minimum_should_match_script": {"source": SCRIPT_MIN}}, 1.0),
    "script_params": (
        "tags",
        {"minimum_should_match_script": {"source": "params.num_terms - params.slack", "params": {"slack": 1}}},
        1.0,
    ),
    "msm_percent": ("tags", {"minimum_should_match": "60%"}, 1.0),
    "msm_negative": ("tags", {"minimum_should_match": "-1"}, 1.0),
    "msm_too_many": ("tags", {"minimum_should_match": "7"}, 1.0),
}


def required_of(doc_id: str) -> int | None:
    """The `required` value of a document (tests/lucene_reference/test_terms_set_lucene.py makes the same)."""
    number = int(doc_id)
    return None if number % 7 == 0 else number % 4


def main() -> None:
    args = arguments()
    start_jvm(args.jar)
    from java.util import ArrayList
    from org.apache.lucene.analysis.en import EnglishAnalyzer
    from org.apache.lucene.analysis.tokenattributes import CharTermAttribute
    from org.apache.lucene.document import Document, Field, NumericDocValuesField, StringField, TextField
    from org.apache.lucene.index import DirectoryReader, IndexWriter, IndexWriterConfig, Term
    from org.apache.lucene.sandbox.search import CoveringQuery
    from org.apache.lucene.search import BoostQuery, IndexSearcher, LongValuesSource, TermQuery
    from org.apache.lucene.search.similarities import BM25Similarity
    from org.apache.lucene.store import ByteBuffersDirectory

    english = EnglishAnalyzer()

    def analyzed(text: str) -> list[str]:
        stream = english.tokenStream("title", text)
        term = stream.addAttribute(CharTermAttribute)
        stream.reset()
        out = []
        while stream.incrementToken():
            out.append(str(term.toString()))
        stream.end()
        stream.close()
        return out

    docs = cranfield(args.cranfield)
    tags = {doc["id"]: list(dict.fromkeys(analyzed(doc["title"]))) for doc in docs}
    sizes = range(1, 9)
    directory = ByteBuffersDirectory()
    config = IndexWriterConfig(english)
    config.setSimilarity(BM25Similarity(1.2, 0.75))
    writer = IndexWriter(directory, config)
    for doc in docs:
        lucene_doc = Document()
        lucene_doc.add(StringField("id", doc["id"], Field.Store.YES))
        lucene_doc.add(TextField("title", doc["title"], Field.Store.NO))
        for tag in tags[doc["id"]]:
            lucene_doc.add(StringField("tags", tag, Field.Store.NO))
        required = required_of(doc["id"])
        if required is not None:
            lucene_doc.add(NumericDocValuesField("required", required))
        for size in sizes:  # the scripts' values for a query of `size` terms
            lucene_doc.add(NumericDocValuesField(f"min_{size}", size if required is None else min(size, required)))
            lucene_doc.add(NumericDocValuesField(f"slack_{size}", size - 1))
        writer.addDocument(lucene_doc)
    writer.forceMerge(1)
    writer.close()
    searcher = IndexSearcher(DirectoryReader.open(directory))
    searcher.setSimilarity(BM25Similarity(1.2, 0.75))
    stored = searcher.storedFields()

    rng = random.Random(7)
    with_tags = [doc["id"] for doc in docs if len(tags[doc["id"]]) >= 2]
    term_lists = []
    for i in range(N_QUERIES):
        source = tags[rng.choice(with_tags)]
        chosen = rng.sample(source, rng.randint(1, min(5, len(source))))
        if i % 5 == 0:
            chosen.append(chosen[0])
        if i % 7 == 0:
            chosen.append("zzznothing")
        term_lists.append(chosen)

    out: dict[str, Any] = {"terms": term_lists, "shapes": {}}
    for name, (field, options, boost) in SHAPES.items():
        runs = []
        for terms in term_lists:
            queries = ArrayList()
            for term in terms:
                queries.add(BoostQuery(TermQuery(Term(field, term)), jpype.JFloat(2.2)))
            if "minimum_should_match_field" in options:
                source = LongValuesSource.fromLongField("required")
            elif "minimum_should_match" in options:
                source = LongValuesSource.constant(min_should_match(len(terms), options["minimum_should_match"]))
            elif "slack" in options["minimum_should_match_script"]["source"]:
                source = LongValuesSource.fromLongField(f"slack_{len(terms)}")
            else:
                source = LongValuesSource.fromLongField(f"min_{len(terms)}")
            q = CoveringQuery(queries, source)
            if boost != 1.0:
                q = BoostQuery(q, jpype.JFloat(boost))
            top = searcher.search(q, TOP)
            hits = [[str(stored.document(h.doc).get("id")), float(h.score)] for h in top.scoreDocs]
            runs.append({"total": searcher.count(q), "hits": hits})
        out["shapes"][name] = {"field": field, "options": options, "boost": boost, "hits": runs}
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "y_terms_set.json.gz"
    target.write_bytes(gzip.compress(json.dumps(out, separators=(",", ":")).encode(), mtime=0))
    print(target, {k: sum(map(len, v["hits"])) for k, v in out["shapes"].items()})


if __name__ == "__main__":
    main()
