"""Generate tests/data/lucene_extra/zz_intervals.json.gz: real Lucene 9.9.1's IntervalQuery for the intervals shapes
the embedded engine runs, built as Elasticsearch 8's IntervalQueryBuilder builds them, on Cranfield bodies.

    /tmp/lucene-oracle/venv/bin/python tests/lucene_extra/intervals.py --jar anserini-1.7.1-fatjar.jar \
        --cranfield ../shared/data/cranfield/cran.all.1400 --out tests/data/lucene_extra

The body is indexed with StandardAnalyzer (Elasticsearch's `standard`: no stop words, so no position gaps). A
`match` source is Elasticsearch's IntervalBuilder over the analyzed text: one term is Intervals.term; several are
Intervals.phrase when ordered with max_gaps 0, else Intervals.ordered or Intervals.unordered, inside
Intervals.maxgaps unless max_gaps is -1 (the default; `ordered` defaults to false). `prefix` and `wildcard` are
Intervals.prefix / Intervals.wildcard (Lucene's default 128 expansions, which no pattern here reaches), `fuzzy`
Intervals.multiterm over the FuzzyQuery automaton (AUTO edits, prefix_length 0, transpositions); `any_of` is
Intervals.or of its sources, `all_of` Elasticsearch's IntervalBuilder.combineSources of its match sources (a phrase
for ordered max_gaps 0, Intervals.ordered or unordered, maxgaps). The query is IntervalQuery(field, source): a
document scores boost x (1 - 1 / (1 + f)), f the sum over its intervals of 1 / (length - minExtent + 1). Texts are
the first 1 to 4 words of Cranfield queries (those without a repeated word). Every hit is kept (top 50) with its
float32 score.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

from oracle import arguments, cranfield, start_jvm

N_QUERIES = 25
TOP = 50
MATCH_SHAPES: dict[str, dict[str, Any]] = {
    "match_unordered": {},
    "match_ordered": {"ordered": True},
    "match_phrase": {"ordered": True, "max_gaps": 0},
    "match_ordered_gaps3": {"ordered": True, "max_gaps": 3},
    "match_unordered_gaps5": {"max_gaps": 5},
}
PREFIXES = ["bound", "supers", "heat", "aero", "flo", "shock", "lamin", "vel"]
WILDCARDS = ["bound*y", "h?at", "*sonic", "flo?", "s*k", "lamina?"]
FUZZY = ["boundery", "supersonik", "heet", "presure", "laminar", "shok"]


def texts(path: Path) -> list[str]:
    stop = {"what", "how", "the", "of", "a", "an", "and", "in", "on", "for", "to", "is", "are", "be", "can", "has"}
    out: list[str] = []
    for block in path.read_text(encoding="latin-1").split(".I ")[1 : N_QUERIES + 1]:
        words = [w for w in re.findall(r"[a-z]+", block.partition(".W")[2].lower()) if w not in stop]
        for k in range(1, 5):
            if len(words) >= k and len(set(words[:k])) == k:
                out.append(" ".join(words[:k]))
    return list(dict.fromkeys(out))


def main() -> None:
    args = arguments()
    start_jvm(args.jar)
    from org.apache.lucene.analysis.standard import StandardAnalyzer
    from org.apache.lucene.analysis.tokenattributes import CharTermAttribute
    from org.apache.lucene.document import Document, Field, StringField, TextField
    from org.apache.lucene.index import DirectoryReader, IndexWriter, IndexWriterConfig, Term
    from org.apache.lucene.queries.intervals import IntervalQuery, Intervals
    from org.apache.lucene.search import FuzzyQuery, IndexSearcher
    from org.apache.lucene.store import ByteBuffersDirectory
    from org.apache.lucene.util import BytesRef

    standard = StandardAnalyzer()
    directory = ByteBuffersDirectory()
    writer = IndexWriter(directory, IndexWriterConfig(standard))
    for doc in cranfield(args.cranfield):
        lucene_doc = Document()
        lucene_doc.add(StringField("id", doc["id"], Field.Store.YES))
        lucene_doc.add(TextField("body", doc["body"], Field.Store.NO))
        writer.addDocument(lucene_doc)
    writer.forceMerge(1)
    writer.close()
    searcher = IndexSearcher(DirectoryReader.open(directory))
    stored = searcher.storedFields()

    def analyzed(text: str) -> list[str]:
        stream = standard.tokenStream("body", text)
        term = stream.addAttribute(CharTermAttribute)
        stream.reset()
        out = []
        while stream.incrementToken():
            out.append(str(term.toString()))
        stream.end()
        stream.close()
        return out

    def match_source(text: str, options: dict[str, Any]) -> Any:
        terms = [Intervals.term(t) for t in analyzed(text)]
        if len(terms) == 1:
            return terms[0]
        ordered, gaps = options.get("ordered", False), options.get("max_gaps", -1)
        if ordered and gaps == 0:
            return Intervals.phrase(*terms)
        inner = Intervals.ordered(*terms) if ordered else Intervals.unordered(*terms)
        return inner if gaps == -1 else Intervals.maxgaps(gaps, inner)

    def run(source: Any) -> list[list[Any]]:
        top = searcher.search(IntervalQuery("body", source), TOP)
        return [[str(stored.document(h.doc).get("id")), float(h.score)] for h in top.scoreDocs]

    def auto_edits(term: str) -> int:
        return 0 if len(term) < 3 else 1 if len(term) < 6 else 2

    out: dict[str, Any] = {"texts": texts(args.cranfield.with_name("cran.qry")), "shapes": {}}
    for name, options in MATCH_SHAPES.items():
        runs = [run(match_source(text, options)) for text in out["texts"]]
        out["shapes"][name] = {"source": {"match": options}, "values": out["texts"], "hits": runs}
    out["shapes"]["prefix"] = {"source": {"prefix": {}}, "values": PREFIXES,
                               "hits": [run(Intervals.prefix(BytesRef(p), 128)) for p in PREFIXES]}  # fmt: skip
    out["shapes"]["wildcard"] = {"source": {"wildcard": {}}, "values": WILDCARDS,
                                 "hits": [run(Intervals.wildcard(BytesRef(w), 128)) for w in WILDCARDS]}  # fmt: skip

    def fuzzy_source(term: str) -> Any:
        automaton = FuzzyQuery(Term("body", term), auto_edits(term), 0, 50, True).getAutomata()
        return Intervals.multiterm(automaton, 128, term)

    fuzzy_runs = []
    for term in FUZZY:
        fuzzy_runs.append(run(fuzzy_source(term)))
    out["shapes"]["fuzzy"] = {"source": {"fuzzy": {}}, "values": FUZZY, "hits": fuzzy_runs}

    # any_of: Intervals.or of the sources, for the texts of two words or more (their first word w)
    several = [t for t in out["texts"] if " " in t]
    combos = {
        "any_of_phrase_word": (
            lambda t: [{"match": {"query": t, "ordered": True}}, {"match": {"query": t.split()[0]}}],
            lambda t: [match_source(t, {"ordered": True}), match_source(t.split()[0], {})],
        ),
        "any_of_prefix_match": (
            lambda t: [{"prefix": {"prefix": t.split()[-1][:4]}}, {"match": {"query": t, "max_gaps": 2}}],
            lambda t: [Intervals.prefix(BytesRef(t.split()[-1][:4]), 128), match_source(t, {"max_gaps": 2})],
        ),
        "any_of_fuzzy_unordered": (
            lambda t: [{"fuzzy": {"term": t.split()[0]}}, {"match": {"query": t}}, {"match": {"query": t.split()[1]}}],
            lambda t: [fuzzy_source(t.split()[0]), match_source(t, {}), match_source(t.split()[1], {})],
        ),
    }
    # all_of: IntervalBuilder.combineSources over the match sources, for the texts of three words or more
    three = [t.split() for t in out["texts"] if len(t.split()) >= 3]
    combos_all = {
        "all_of_ordered": (
            {"ordered": True},
            lambda w: [{"match": {"query": w[0]}}, {"match": {"query": f"{w[1]} {w[2]}", "ordered": True}}],
            lambda w: Intervals.ordered(match_source(w[0], {}), match_source(f"{w[1]} {w[2]}", {"ordered": True})),
        ),
        "all_of_unordered_gaps": (
            {"max_gaps": 4},
            lambda w: [{"match": {"query": f"{w[0]} {w[1]}"}}, {"match": {"query": w[2]}}],
            lambda w: Intervals.maxgaps(
                4, Intervals.unordered(match_source(f"{w[0]} {w[1]}", {}), match_source(w[2], {}))
            ),
        ),
        "all_of_phrase": (
            {"ordered": True, "max_gaps": 0},
            lambda w: [{"match": {"query": w[0]}}, {"match": {"query": w[1]}}],
            lambda w: Intervals.phrase(match_source(w[0], {}), match_source(w[1], {})),
        ),
        "all_of_phrase_of_ordered": (
            {"ordered": True, "max_gaps": 0},
            lambda w: [{"match": {"query": f"{w[0]} {w[1]}", "ordered": True}}, {"match": {"query": w[2]}}],
            lambda w: Intervals.phrase(match_source(f"{w[0]} {w[1]}", {"ordered": True}), match_source(w[2], {})),
        ),
        "all_of_unordered_of_phrase": (
            {},
            lambda w: [
                {"match": {"query": f"{w[0]} {w[1]}", "ordered": True, "max_gaps": 0}},
                {"match": {"query": w[2]}},
            ],
            lambda w: Intervals.unordered(
                match_source(f"{w[0]} {w[1]}", {"ordered": True, "max_gaps": 0}), match_source(w[2], {})
            ),
        ),
    }
    for name, (options, dsl_all, lucene_all) in combos_all.items():
        values = [dsl_all(w) for w in three]
        hits = [run(lucene_all(w)) for w in three]
        out["shapes"][name] = {"source": {"all_of": options}, "values": values, "hits": hits}
    for name, (dsl, lucene) in combos.items():
        values = [dsl(t) for t in several]
        hits = [run(Intervals.or_(*lucene(t))) for t in several]
        out["shapes"][name] = {"source": {"any_of": {}}, "values": values, "hits": hits}
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "zz_intervals.json.gz"
    target.write_bytes(gzip.compress(json.dumps(out, separators=(",", ":")).encode(), mtime=0))
    print(target, len(out["texts"]), {k: sum(map(len, v["hits"])) for k, v in out["shapes"].items()})


if __name__ == "__main__":
    main()
