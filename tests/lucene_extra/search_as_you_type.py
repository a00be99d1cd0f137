"""Generate tests/data/lucene_extra/w_search_as_you_type.json.gz: real Lucene 9.9.1's tokens and hits for the
fields and queries Elasticsearch 8's SearchAsYouTypeFieldMapper makes, on Cranfield's first titles.

    /tmp/lucene-oracle/venv/bin/python tests/lucene_extra/search_as_you_type.py --jar anserini-1.7.1-fatjar.jar \
        --cranfield ../shared/data/cranfield/cran.all.1400 --out tests/data/lucene_extra

Two search_as_you_type fields hold each title: `title` (the `standard` analyzer, max_shingle_size 3) and `stop4`
(the `stop` analyzer, whose removed stop words leave gaps, max_shingle_size 4). Each is indexed as Elasticsearch
indexes it: the root field; `._Ngram` for N = 2..max, the analyzer + FixedShingleFilter(N, " ", "") with norms;
`._index_prefix`, the analyzer + TrailingShingleTokenFilter(max - 1) + FixedShingleFilter(max, " ", "") +
EdgeNGramTokenFilter(1, 20, preserveOriginal) without norms. Elasticsearch's TrailingShingleTokenFilter (only sets
the end position increment) is not in Lucene: sentinel words appended to the text and removed by a stop filter
right before the shingles give the same end increment (more, after a trailing stop word, which fills the same
shingles: FixedShingleFilter pads to the shingle size at most).

Queries are built as Elasticsearch builds them for each shape (the texts analyzed by the Lucene analyzers of the
field searched, as Elasticsearch's search analyzers are): multi_match bool_prefix over the root and shingle fields
(a dis_max, tie 1, of per-field term clauses plus the last token's ConstantScoreQuery on `._index_prefix`),
match_phrase_prefix and match_phrase on the root (SearchAsYouTypeFieldType: the shingle field of as many positions,
a SynonymQuery on `._index_prefix` or an ordered SpanNearQuery whose last clause is a FieldMaskingSpanQuery of the
prefix term), match_phrase and match on a shingle field, match on `._index_prefix`, prefix on the root. BM25 leaves
are wrapped in BoostQuery(q, 2.2f), the (k1 + 1) Elasticsearch's similarity keeps. Shapes Elasticsearch answers
with classes that are not Lucene's (a root phrase prefix of one position, or with a gap: MultiPhrasePrefixQuery)
are left out. Every hit is kept, with its float32 score.
"""

from __future__ import annotations

import argparse
import gzip
import json
import tempfile
from pathlib import Path

import jpype
import jpype.imports
from oracle import start_jvm

N_DOCS = 400
SENTINEL = "zzsentinelzz"
FIELDS = {"title": ("standard", 3), "stop4": ("stop", 4)}
TEXTS = [
    "boundary layer", "boundary lay", "boundary layer f", "heat transfer in", "the effect of", "b", "bo",
    "supersonic flow over a", "flow of heat", "shock wave boun", "on the theory of", "laminar boundary layer flow pa",
    "theory of aerodynamic heating at supe", "experimental investigation of the aerodynamics of a wi",
    "a", "the", "simple shear flow past a flat plate in an incompressible fluid of small viscosity",
    "flat plate", "flat pl", "pressure distribution", "in an", "wing body interference", "jet", "jet flow",
    "investigation of the boundary layer transition", "approximate solutions of the incompressible laminar",
    "heat transfer to bodies", "the boundary layer in simple shear flow past a flat plate",
    "axisymmetric flow of a", "hypersonic viscous flow over a slender cone at zero angle of att",
]  # fmt: skip
PREFIXES = ["b", "bou", "boundary l", "flat plate", "heat transfer to", "x", "the ", "supersonicflowoverawing"]
TOKEN_SAMPLES = 40


def cranfield_titles(path: Path) -> list[tuple[str, str]]:
    """(id, title) of the first documents, the title as test_lucene_bm25.py reads it (its lines joined by
    newlines, stripped)."""
    docs: list[tuple[str, list[str]]] = []
    reading = False
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(".I "):
            docs.append((line[3:].strip(), []))
            reading = False
        elif len(line) == 2 and line[0] == "." and line[1] in "TABW":
            reading = line[1] == "T"
        elif reading:
            docs[-1][1].append(line)
    return [(doc_id, "\n".join(lines).strip()) for doc_id, lines in docs[:N_DOCS]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jar", required=True)
    ap.add_argument("--cranfield", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args()
    start_jvm(args.jar)
    from java.nio.file import Paths
    from java.util import ArrayList, HashMap
    from org.apache.lucene.analysis.custom import CustomAnalyzer
    from org.apache.lucene.analysis.miscellaneous import PerFieldAnalyzerWrapper
    from org.apache.lucene.analysis.tokenattributes import CharTermAttribute, PositionIncrementAttribute
    from org.apache.lucene.document import Document, Field, FieldType, StringField, TextField
    from org.apache.lucene.index import DirectoryReader, IndexWriter, IndexWriterConfig, Term
    from org.apache.lucene.queries.spans import FieldMaskingSpanQuery, SpanNearQuery, SpanTermQuery
    from org.apache.lucene.search import (
        BooleanClause,
        BooleanQuery,
        BoostQuery,
        ConstantScoreQuery,
        DisjunctionMaxQuery,
        IndexSearcher,
        PhraseQuery,
        PrefixQuery,
        SynonymQuery,
        TermQuery,
    )
    from org.apache.lucene.search.similarities import BM25Similarity
    from org.apache.lucene.store import ByteBuffersDirectory

    config_dir = tempfile.mkdtemp()
    Path(config_dir, "sentinel.txt").write_text(SENTINEL + "\n")

    def chain(base: str, shingle: int | None = None, prefix: bool = False) -> object:
        builder = CustomAnalyzer.builder(Paths.get(config_dir))
        if base == "standard":
            builder.withTokenizer("standard").addTokenFilter("lowercase")
        else:  # Elasticsearch's `stop` analyzer: StopAnalyzer (letters, lowercased, English stop words)
            builder.withTokenizer("letter").addTokenFilter("lowercase").addTokenFilter("stop")
        if prefix:
            builder.addTokenFilter("stop", "words", "sentinel.txt")
        if shingle is not None:
            builder.addTokenFilter("fixedShingle", "shingleSize", str(shingle), "tokenSeparator", " ",
                                   "fillerToken", "")  # fmt: skip
        if prefix:
            builder.addTokenFilter("edgeNGram", "minGramSize", "1", "maxGramSize", "20", "preserveOriginal", "true")
        return builder.build()

    index_analyzers, search_analyzers = HashMap(), {}
    for name, (base, top) in FIELDS.items():
        index_analyzers.put(name, chain(base))
        search_analyzers[name] = chain(base)
        for n in range(2, top + 1):
            index_analyzers.put(f"{name}._{n}gram", chain(base, n))
            search_analyzers[f"{name}._{n}gram"] = chain(base, n)
        index_analyzers.put(f"{name}._index_prefix", chain(base, top, prefix=True))
        search_analyzers[f"{name}._index_prefix"] = chain(base, top)
    analyzer = PerFieldAnalyzerWrapper(chain("standard"), index_analyzers)

    def tokens(field: str, text: str, analyzers: object) -> list[list[object]]:
        stream = analyzers.tokenStream(field, text)
        term = stream.addAttribute(CharTermAttribute)
        inc = stream.addAttribute(PositionIncrementAttribute)
        stream.reset()
        out, position = [], -1
        while stream.incrementToken():
            position += inc.getPositionIncrement()
            out.append([str(term.toString()), position])
        stream.end()
        stream.close()
        return out

    no_norms = FieldType(TextField.TYPE_NOT_STORED)
    no_norms.setOmitNorms(True)
    no_norms.freeze()
    docs = cranfield_titles(args.cranfield)
    directory = ByteBuffersDirectory()
    config = IndexWriterConfig(analyzer)
    config.setSimilarity(BM25Similarity(1.2, 0.75))
    writer = IndexWriter(directory, config)
    for doc_id, title in docs:
        lucene_doc = Document()
        lucene_doc.add(StringField("id", doc_id, Field.Store.YES))
        for name, (_, top) in FIELDS.items():
            lucene_doc.add(TextField(name, title, Field.Store.NO))
            for n in range(2, top + 1):
                lucene_doc.add(TextField(f"{name}._{n}gram", title, Field.Store.NO))
            tail = f" {SENTINEL}" * (top - 1)  # the end increment of TrailingShingleTokenFilter(top - 1)
            lucene_doc.add(Field(f"{name}._index_prefix", title + tail, no_norms))
        writer.addDocument(lucene_doc)
    writer.forceMerge(1)
    writer.close()
    reader = DirectoryReader.open(directory)
    searcher = IndexSearcher(reader)
    searcher.setSimilarity(BM25Similarity(1.2, 0.75))
    stored = searcher.storedFields()

    def scaled(query: object) -> object:
        return BoostQuery(query, jpype.JFloat(2.2))

    def on_prefix(field: str, value: str) -> object:
        """SearchAsYouTypeFieldType / ShingleFieldType.prefixQuery with no rewrite method: a constant-score term
        of `._index_prefix` when the prefix has 1 to 20 characters, else a prefix query on the field itself."""
        root = field.split("._")[0]
        if 0 < len(value) <= 20:
            return ConstantScoreQuery(TermQuery(Term(f"{root}._index_prefix", value)))
        return ConstantScoreQuery(PrefixQuery(Term(field, value)))

    def bool_prefix(field: str, text: str) -> object | None:
        found = [t for t, _ in tokens(field, text, search_analyzers[field])]
        if not found:
            return None
        builder = BooleanQuery.Builder()
        for term in found[:-1]:
            builder.add(scaled(TermQuery(Term(field, term))), BooleanClause.Occur.SHOULD)
        builder.add(on_prefix(field, found[-1]), BooleanClause.Occur.SHOULD)
        return builder.build()

    def shingled(root: str, text: str) -> tuple[str, list[list[object]]] | None:
        """The shingle field and shingles SearchAsYouTypeFieldType's phrase queries use, None for the root."""
        found = tokens(root, text, search_analyzers[root])
        positions = [p for _, p in found]
        if (
            not found
            or positions[-1] + 1 <= 1
            or any(b - a > 1 for a, b in zip([-1, *positions], positions, strict=False))
        ):
            return None
        top = FIELDS[root][1]
        field = f"{root}._{min(positions[-1] + 1, top)}gram"
        return field, tokens(field, text, search_analyzers[field])

    def phrase(field: str, found: list[list[object]]) -> object:
        if len(found) == 1:
            return scaled(TermQuery(Term(field, found[0][0])))
        builder = PhraseQuery.Builder()
        for term, position in found:
            builder.add(Term(field, term), position)
        return scaled(builder.build())

    def phrase_prefix(root: str, text: str) -> object | None:
        found = shingled(root, text)
        if found is None:
            return None
        field, shingles = found
        last = shingles[-1][0]
        prefix_field = f"{root}._index_prefix"
        if len(last) > 20:
            return None
        if len(shingles) == 1:
            return scaled(SynonymQuery.Builder(prefix_field).addTerm(Term(prefix_field, last)).build())
        near = SpanNearQuery.Builder(field, True)
        near.setSlop(0)
        for term, _ in shingles[:-1]:
            near.addClause(SpanTermQuery(Term(field, term)))
        near.addClause(FieldMaskingSpanQuery(SpanTermQuery(Term(prefix_field, last)), field))
        return scaled(near.build())

    def hits(query: object) -> list[list[object]]:
        top = searcher.search(query, N_DOCS)
        return [[str(stored.document(h.doc).get("id")), float(h.score)] for h in top.scoreDocs]

    cases = []
    for root, (_, top) in FIELDS.items():
        shingle_fields = [f"{root}._{n}gram" for n in range(2, top + 1)]
        for text in TEXTS:
            parts = [q for q in (bool_prefix(f, text) for f in [root, *shingle_fields]) if q is not None]
            if parts:
                disjuncts = ArrayList()
                for part in parts:
                    disjuncts.add(part)
                query = DisjunctionMaxQuery(disjuncts, jpype.JFloat(1.0))
                body = {"multi_match": {"query": text, "type": "bool_prefix", "fields": [root, *shingle_fields]}}
                cases.append({"query": body, "lucene": str(query), "hits": hits(query)})
            found = phrase_prefix(root, text)
            if found is not None:
                cases.append({"query": {"match_phrase_prefix": {root: text}}, "lucene": str(found),
                              "hits": hits(found)})  # fmt: skip
            on_shingles = shingled(root, text)
            root_tokens = tokens(root, text, search_analyzers[root])
            if on_shingles is not None or root_tokens:
                query = phrase(*on_shingles) if on_shingles is not None else phrase(root, root_tokens)
                cases.append({"query": {"match_phrase": {root: text}}, "lucene": str(query), "hits": hits(query)})
            for field in shingle_fields:
                found_shingles = tokens(field, text, search_analyzers[field])
                if not found_shingles:
                    continue
                query = phrase(field, found_shingles)
                cases.append({"query": {"match_phrase": {field: text}}, "lucene": str(query), "hits": hits(query)})
                builder = BooleanQuery.Builder()
                for term, _ in found_shingles:
                    builder.add(scaled(TermQuery(Term(field, term))), BooleanClause.Occur.SHOULD)
                query = builder.build()
                cases.append({"query": {"match": {field: text}}, "lucene": str(query), "hits": hits(query)})
            prefix_field = f"{root}._index_prefix"
            found_prefix = tokens(prefix_field, text, search_analyzers[prefix_field])
            if found_prefix:
                builder = BooleanQuery.Builder()
                for term, _ in found_prefix:
                    builder.add(scaled(TermQuery(Term(prefix_field, term))), BooleanClause.Occur.SHOULD)
                query = builder.build()
                cases.append({"query": {"match": {prefix_field: text}}, "lucene": str(query), "hits": hits(query)})
        for value in PREFIXES:
            for field in [root, shingle_fields[0]]:
                query = on_prefix(field, value)
                cases.append({"query": {"prefix": {field: value}}, "lucene": str(query), "hits": hits(query)})
    samples = {}
    for name, (_, top) in FIELDS.items():
        for field in [name, *(f"{name}._{n}gram" for n in range(2, top + 1)), f"{name}._index_prefix"]:
            tail = f" {SENTINEL}" * (top - 1) if field.endswith("_index_prefix") else ""
            samples[field] = [
                tokens(field, title + tail, index_analyzers.get(field)) for _, title in docs[:TOKEN_SAMPLES]
            ]
    out = {"ids": [doc_id for doc_id, _ in docs], "cases": cases, "tokens": samples, "sentinel": SENTINEL}
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "w_search_as_you_type.json.gz"
    target.write_bytes(gzip.compress(json.dumps(out, indent=0).encode(), mtime=0))
    print(target, len(cases), "queries", sum(len(c["hits"]) for c in cases), "hits")


if __name__ == "__main__":
    main()
