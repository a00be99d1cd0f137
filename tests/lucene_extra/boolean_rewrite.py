"""Generate tests/data/lucene_extra/x_boolean_rewrite.json.gz: real Lucene 9.9.1's exact float32 scores for
multi_match most_fields and nested bool shapes on Cranfield, whose sums depend on BooleanQuery.rewrite.

    /tmp/lucene-oracle/venv/bin/python tests/lucene_extra/boolean_rewrite.py --jar anserini-1.7.1-fatjar.jar \
        --cranfield ../shared/data/cranfield/cran.all.1400 --out tests/data/lucene_extra

Cranfield is indexed with three fields: `title` and `body` (EnglishAnalyzer) and `body_std` (the body again,
StandardAnalyzer, which has no stop words in Lucene 9 as Elasticsearch's `standard`), BM25 1.2/0.75. Query texts
are the first 1 to 4 words of the first Cranfield queries that are not English stop words. Each shape is built as
Elasticsearch builds it: a match is Lucene's QueryBuilder.createBooleanQuery (MatchQueryParser), with
`minimum_should_match` as Queries.maybeApplyMinimumShouldMatch applies it; multi_match most_fields is
MultiMatchQueryParser's DisjunctionMaxQuery (tie 1) of per-field queries, a field boost a BoostQuery around its
query; bool is a BooleanQuery, dis_max a DisjunctionMaxQuery, a query's own boost a BoostQuery (AbstractQueryBuilder).
Lucene then rewrites: a tie-1 dis_max becomes a BooleanQuery, and a BooleanQuery whose minimumNumberShouldMatch is at
most 1 takes in the clauses of every SHOULD clause that is an unboosted pure disjunction (a BooleanQuery of SHOULD
clauses only, minimumNumberShouldMatch at most 1), recursively, so their scores are summed once in double instead of
being rounded to float32 per sub-query. The rewritten query of each shape's first three-word text is kept for
reference. BM25 leaves are wrapped in BoostQuery(q, 2.2f), the (k1 + 1) Elasticsearch's similarity keeps. The top 5
per text are kept with their float32 scores; the test compares them for equality.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import jpype
import jpype.imports
from oracle import arguments, cranfield, f32, start_jvm

N_QUERIES = 30
TOP = 5
# name: the Elasticsearch query with {text} for the query text
SHAPES: dict[str, Any] = {
    "most_fields": {"multi_match": {"query": "{text}", "type": "most_fields", "fields": ["title", "body", "body_std"]}},
    "most_fields_boosts": {
        "multi_match": {"query": "{text}", "type": "most_fields", "fields": ["title^2", "body", "body_std^0.5"]}
    },
    "most_fields_two": {"multi_match": {"query": "{text}", "type": "most_fields", "fields": ["title", "body"]}},
    "most_fields_and": {
        "multi_match": {
            "query": "{text}",
            "type": "most_fields",
            "fields": ["title", "body^1.5", "body_std"],
            "operator": "and",
        }
    },
    "most_fields_msm50": {
        "multi_match": {
            "query": "{text}",
            "type": "most_fields",
            "fields": ["title", "body", "body_std"],
            "minimum_should_match": "50%",
        }
    },
    "most_fields_boosted": {
        "multi_match": {"query": "{text}", "type": "most_fields", "fields": ["title", "body"], "boost": 3}
    },
    "bool_should": {
        "bool": {
            "should": [{"match": {"title": "{text}"}}, {"match": {"body": "{text}"}}, {"match": {"body_std": "{text}"}}]
        }
    },
    "bool_nested": {
        "bool": {
            "should": [
                {"bool": {"should": [{"match": {"title": "{text}"}}, {"match": {"body": "{text}"}}]}},
                {"match": {"body_std": {"query": "{text}", "boost": 2}}},
            ]
        }
    },
    "bool_nested_boosted": {
        "bool": {
            "should": [
                {"bool": {"should": [{"match": {"title": "{text}"}}, {"match": {"body": "{text}"}}], "boost": 2}},
                {"match": {"body_std": "{text}"}},
            ]
        }
    },
    "bool_must_should": {
        "bool": {
            "must": [{"match": {"body": "{text}"}}],
            "should": [{"match": {"title": "{text}"}}, {"match": {"body_std": "{text}"}}],
        }
    },
    "bool_msm1": {
        "bool": {"should": [{"match": {"title": "{text}"}}, {"match": {"body": "{text}"}}], "minimum_should_match": 1}
    },
    "bool_msm2": {
        "bool": {
            "should": [
                {"match": {"title": "{text}"}},
                {"match": {"body": "{text}"}},
                {"match": {"body_std": "{text}"}},
            ],
            "minimum_should_match": 2,
        }
    },
    "bool_single_must": {
        "bool": {"should": [{"bool": {"must": [{"match": {"title": "{text}"}}]}}, {"match": {"body": "{text}"}}]}
    },
    "bool_inner_msm": {
        "bool": {
            "should": [
                {"match": {"title": {"query": "{text}", "minimum_should_match": "75%"}}},
                {"match": {"body": "{text}"}},
            ]
        }
    },
    "bool_most_fields": {
        "bool": {
            "should": [
                {"multi_match": {"query": "{text}", "type": "most_fields", "fields": ["title", "body"]}},
                {"match": {"body_std": "{text}"}},
            ]
        }
    },
    "dis_max_tie1": {
        "dis_max": {"queries": [{"match": {"title": "{text}"}}, {"match": {"body": "{text}"}}], "tie_breaker": 1}
    },
}


def query_texts(path: Path, stop: set[str]) -> list[str]:
    """The first 1..4 non-stop words of the first Cranfield queries (cran.qry beside cran.all.1400)."""
    texts: list[str] = []
    blocks = path.read_text(encoding="latin-1").split(".I ")[1:]
    extra = {"what", "how", "can", "has", "have", "do", "does", "been", "which", "when", "why", "any", "so", "far"}
    for block in blocks[:N_QUERIES]:
        words = [w for w in re.findall(r"[a-z]+", block.partition(".W")[2].lower()) if w not in stop | extra]
        texts.extend(" ".join(words[:k]) for k in range(1, 5) if len(words) >= k)
    return list(dict.fromkeys(texts))


def main() -> None:
    args = arguments()
    start_jvm(args.jar)
    from java.util import ArrayList, HashMap
    from org.apache.lucene.analysis.en import EnglishAnalyzer
    from org.apache.lucene.analysis.miscellaneous import PerFieldAnalyzerWrapper
    from org.apache.lucene.analysis.standard import StandardAnalyzer
    from org.apache.lucene.document import Document, Field, StringField, TextField
    from org.apache.lucene.index import DirectoryReader, IndexWriter, IndexWriterConfig
    from org.apache.lucene.search import (
        BooleanClause,
        BooleanQuery,
        BoostQuery,
        DisjunctionMaxQuery,
        IndexSearcher,
        TermQuery,
    )
    from org.apache.lucene.search.similarities import BM25Similarity
    from org.apache.lucene.store import ByteBuffersDirectory
    from org.apache.lucene.util import QueryBuilder

    english, standard = EnglishAnalyzer(), StandardAnalyzer()
    per_field = HashMap()
    per_field.put("body_std", standard)
    analyzer = PerFieldAnalyzerWrapper(english, per_field)
    directory = ByteBuffersDirectory()
    config = IndexWriterConfig(analyzer)
    config.setSimilarity(BM25Similarity(1.2, 0.75))
    writer = IndexWriter(directory, config)
    for doc in cranfield(args.cranfield):
        lucene_doc = Document()
        lucene_doc.add(StringField("id", doc["id"], Field.Store.YES))
        lucene_doc.add(TextField("title", doc["title"], Field.Store.NO))
        lucene_doc.add(TextField("body", doc["body"], Field.Store.NO))
        lucene_doc.add(TextField("body_std", doc["body"], Field.Store.NO))
        writer.addDocument(lucene_doc)
    writer.forceMerge(1)
    writer.close()
    searcher = IndexSearcher(DirectoryReader.open(directory))
    searcher.setSimilarity(BM25Similarity(1.2, 0.75))
    stored = searcher.storedFields()
    builders = {"body_std": QueryBuilder(standard)}
    occur = BooleanClause.Occur

    def scaled(q: Any) -> Any:
        """BM25 leaves in Elasticsearch's scale."""
        if isinstance(q, BooleanQuery):
            b = BooleanQuery.Builder()
            b.setMinimumNumberShouldMatch(q.getMinimumNumberShouldMatch())
            for clause in q.clauses():
                b.add(BooleanClause(scaled(clause.getQuery()), clause.getOccur()))
            return b.build()
        if isinstance(q, TermQuery):
            return BoostQuery(q, jpype.JFloat(2.2))
        return q

    def msm(optional: int, spec: Any) -> int:
        """Queries.calculateMinShouldMatch for the integer and plain percentage forms used here."""
        text = str(spec)
        if text.endswith("%"):  # (count * percent) * (1 / 100f), in float32
            return int(f32(optional * int(text[:-1]) * f32(1 / 100)))
        return int(text)

    def with_msm(q: Any, spec: Any) -> Any:
        if spec is None or not isinstance(q, BooleanQuery):
            return q
        optional = sum(1 for c in q.clauses() if c.getOccur() == occur.SHOULD)
        required = msm(optional, spec)
        if required <= 0:
            return q
        b = BooleanQuery.Builder()
        for clause in q.clauses():
            b.add(clause)
        b.setMinimumNumberShouldMatch(required)
        return b.build()

    def boosted(q: Any, boost: Any) -> Any:
        return q if q is None or float(boost) == 1.0 else BoostQuery(q, jpype.JFloat(float(boost)))

    def match(field: str, options: dict[str, Any]) -> Any:
        builder = builders.get(field, QueryBuilder(english))
        kind = occur.MUST if options.get("operator") == "and" else occur.SHOULD
        q = builder.createBooleanQuery(field, options["query"], kind)
        if q is None:
            return None
        return with_msm(scaled(q), options.get("minimum_should_match"))

    def build(node: dict[str, Any]) -> Any:
        ((kind, spec),) = node.items()
        if kind == "match":
            ((field, options),) = spec.items()
            options = options if isinstance(options, dict) else {"query": options}
            return boosted(match(field, options), options.get("boost", 1))
        if kind == "multi_match":
            parts = ArrayList()
            for entry in spec["fields"]:
                field, _, weight = entry.partition("^")
                per = {k: spec[k] for k in ("query", "operator", "minimum_should_match") if k in spec}
                q = boosted(match(field, per), weight or 1)
                if q is not None:
                    parts.add(q)
            combined = parts.get(0) if parts.size() == 1 else DisjunctionMaxQuery(parts, jpype.JFloat(1.0))
            return boosted(combined, spec.get("boost", 1))
        if kind == "dis_max":
            parts = ArrayList()
            for sub in spec["queries"]:
                q = build(sub)
                if q is not None:
                    parts.add(q)
            return boosted(DisjunctionMaxQuery(parts, jpype.JFloat(float(spec["tie_breaker"]))), spec.get("boost", 1))
        if kind == "bool":
            b = BooleanQuery.Builder()
            should = 0
            for key, clause_occur in (("must", occur.MUST), ("should", occur.SHOULD)):
                for sub in spec.get(key, []):
                    q = build(sub)
                    if q is not None:
                        b.add(q, clause_occur)
                        should += key == "should"
            if "minimum_should_match" in spec and msm(should, spec["minimum_should_match"]) > 0:
                b.setMinimumNumberShouldMatch(msm(should, spec["minimum_should_match"]))
            return boosted(b.build(), spec.get("boost", 1))
        raise ValueError(kind)

    def fill(node: Any, text: str) -> Any:
        if isinstance(node, dict):
            return {k: fill(v, text) for k, v in node.items()}
        if isinstance(node, list):
            return [fill(v, text) for v in node]
        return text if node == "{text}" else node

    stop = {str(w) for w in EnglishAnalyzer.ENGLISH_STOP_WORDS_SET}
    texts = query_texts(args.cranfield.with_name("cran.qry"), stop)
    out: dict[str, Any] = {"texts": texts, "shapes": {}}
    for name, template in SHAPES.items():
        runs = []
        rewritten = ""
        for text in texts:
            q = build(fill(template, text))
            if q is None:
                runs.append([])
                continue
            if len(text.split()) == 3 and not rewritten:
                rewritten = f"{text}: {searcher.rewrite(q)}"
            top = searcher.search(q, TOP)
            runs.append([[str(stored.document(h.doc).get("id")), float(h.score)] for h in top.scoreDocs])
        out["shapes"][name] = {"query": template, "lucene_first": rewritten, "hits": runs}
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "x_boolean_rewrite.json.gz"
    target.write_bytes(gzip.compress(json.dumps(out, separators=(",", ":")).encode(), mtime=0))
    print(target, len(texts), "texts", len(SHAPES), "shapes")


if __name__ == "__main__":
    main()
