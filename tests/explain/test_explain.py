"""Score explanations of the embedded engine: recorded from the ranking itself, so the root is the hit's score bit
for bit (the demo, Cranfield), the BM25 leaves are Lucene's explanation numbers, and each kind of node says how its
parent combines it."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from pytest_relevance.engines.base import FixtureIndex
from pytest_relevance.engines.embedded import EmbeddedEngine, EmbeddedIndex
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.explain.tree import KINDS, Node, as_dict, flatten, from_dict, line, render
from pytest_relevance.inputs.corpus import load_corpus, load_mapping
from pytest_relevance.inputs.templates import render_all
from pytest_relevance.judgments.model import load_judgments

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "fixtures"
SHARED = ROOT.parent / "shared" / "data"
CRANFIELD, LUCENE = SHARED / "cranfield", SHARED / "lucene"
needs_cranfield = pytest.mark.skipif(
    not (CRANFIELD / "cran.all.1400").is_file() or not (LUCENE / "explain.txt").is_file(),
    reason="../shared/data/cranfield or ../shared/data/lucene is absent",
)
F32 = np.float32
NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def demo_index() -> EmbeddedIndex:
    return EmbeddedEngine().open(load_corpus(FIXTURES / "corpus.ndjson"), load_mapping(FIXTURES / "index.yaml"), "id")


@pytest.fixture(scope="module")
def demo(demo_index: EmbeddedIndex) -> FixtureIndex:
    template = yaml.safe_load((FIXTURES / "query.yaml").read_text())
    judgments = load_judgments(FIXTURES / "judgments.yaml")
    return FixtureIndex(demo_index, template, judgments, NOW, 100, "fixtures/query.yaml")


def _exact(a: float, b: float) -> bool:
    return np.float32(a).tobytes() == np.float32(b).tobytes()


def test_every_demo_hit_is_explained_to_its_score_bit_for_bit(demo: FixtureIndex) -> None:
    bodies = render_all(demo.template, demo.judgments.queries, NOW)
    runs = demo.index.search_many(bodies, 100, "t")
    checked = 0
    for query in demo.judgments.queries:
        hits = runs[query.id]
        trees = demo.explain(query.id, [doc for doc, _ in hits])
        for doc, score in hits:
            root = trees[doc]
            assert root.matched and _exact(root.value, score), (query.id, doc, root.value, score)
            assert root.path == "query.function_score" and root.kind == "function_score"
            checked += 1
    assert checked > 5000


def test_the_demo_tree_names_each_clause_of_the_template(demo: FixtureIndex) -> None:
    root = demo.explain("hiking boots", ["p0569"])["p0569"]
    nodes = flatten(root)
    assert list(nodes)[:3] == [
        "query.function_score",
        "query.function_score.query.multi_match",
        "query.function_score.query.multi_match[title]",
    ]
    title = nodes["query.function_score.query.multi_match[title:boot]"]
    assert title.kind == "bm25" and title.details["field"] == "title" and title.details["boost"] == 3.0
    assert set(title.details) >= {"term", "freq", "docFreq", "docCount", "dl", "avgdl", "idf", "tf", "k1", "b"}
    gauss = nodes["query.function_score.functions[0].gauss"]
    assert gauss.kind == "decay" and gauss.details["decay"] == 0.5 and gauss.details["field"] == "released"
    assert gauss.details["scale"] == "365d" and gauss.details["offset"] == "30d"  # as the template writes them
    assert gauss.details["origin"] == "2026-01-15T12:00:00Z"  # now, frozen
    popularity = nodes["query.function_score.functions[1].field_value_factor"]
    assert popularity.details["modifier"] == "ln2p" and popularity.details["input"] > 0
    assert popularity.value == pytest.approx(np.log(popularity.details["input"] + 2), rel=1e-6)
    # function_score multiply/multiply: the query's score times the product of the functions, in float32
    query = nodes["query.function_score.query.multi_match"]
    assert _exact(root.value, F32(float(query.value) * gauss.value * popularity.value)) or root.value == pytest.approx(
        query.value * gauss.value * popularity.value, rel=1e-6
    )
    assert root.details["factor"] == pytest.approx(gauss.value * popularity.value, rel=1e-6)


def test_a_tree_round_trips_through_json(demo: FixtureIndex) -> None:
    import json

    root = demo.explain("hiking boots", ["p0569"])["p0569"]
    again = from_dict(json.loads(json.dumps(as_dict(root))))
    assert again == root and _exact(again.value, root.value)


def test_a_judged_query_id_renders_that_query(demo: FixtureIndex) -> None:
    by_id = demo.explain("q022", ["p0569"])["p0569"]
    by_text = demo.explain("hiking boots", ["p0569"])["p0569"]
    assert by_id == by_text


def test_an_engine_without_explain_says_so(demo: FixtureIndex) -> None:
    class Plain:  # a plugin's engine written before explanations: search only
        identity = "plain 1.0"

    view = FixtureIndex(Plain(), demo.template, demo.judgments, NOW, 10, "t")  # type: ignore[arg-type]
    with pytest.raises(RelevanceInputError, match=r"^relevance_engine: the plain 1.0 engine cannot explain scores"):
        view.explain("boots", ["p0001"])


def test_an_unknown_document_names_the_id_and_the_corpus(demo_index: EmbeddedIndex) -> None:
    with pytest.raises(RelevanceInputError, match=r"corpus\.ndjson: no document with the id 'p9999'"):
        demo_index.explain({"query": {"match_all": {}}}, ["p0001", "p9999"], 10, "t", "x")


def test_a_document_that_does_not_match_says_which_required_clause_failed(demo_index: EmbeddedIndex) -> None:
    body = {"query": {"bool": {"must": [{"match": {"title": "boots"}}], "filter": [{"term": {"category": "audio"}}],
                               "must_not": [{"term": {"color": "black"}}]}}}  # fmt: skip
    boots = [d for d, _ in demo_index.search_many({"q": {"query": {"match": {"title": "boots"}}}}, 5, "t")["q"]]
    trees = demo_index.explain(body, boots[:1], 10, "t", "q")
    root = trees[boots[0]]
    assert not root.matched and root.value == 0.0 and root.kind == "sum"
    assert root.details["failed"] == "query.bool.filter[0].term"
    assert line(root) == "query.bool no match (failed: query.bool.filter[0].term)"
    assert flatten(root)["query.bool.must[0].match"].matched  # the must clause did match
    filt = flatten(root)["query.bool.filter[0].term"]
    assert filt.kind == "filter" and filt.details["matched"] == 0.0


def test_min_score_collapse_and_post_filter_remove_a_hit_with_the_reason(demo_index: EmbeddedIndex) -> None:
    body = {"query": {"match": {"title": "boots"}}, "min_score": 1000}
    doc = demo_index.search_many({"q": {"query": {"match": {"title": "boots"}}}}, 1, "t")["q"][0][0]
    root = demo_index.explain(body, [doc], 10, "t", "q")[doc]
    assert not root.matched and root.details["failed"] == "min_score"
    assert flatten(root)["query.match[title:boot]"].value > 0  # the clause still says what it scored
    body = {"query": {"match": {"title": "boots"}}, "collapse": {"field": "brand"}}
    hits = [d for d, _ in demo_index.search_many({"q": body}, 100, "t")["q"]]
    all_boots = [d for d, _ in demo_index.search_many({"q": {"query": body["query"]}}, 100, "t")["q"]]
    collapsed = next(d for d in all_boots if d not in hits)  # a second boot of a brand already shown
    root = demo_index.explain(body, [collapsed], 100, "t", "q")[collapsed]
    assert not root.matched and root.details["failed"] == "collapse"
    body = {"query": {"match": {"title": "boots"}}, "post_filter": {"term": {"brand": "no-such-brand"}}}
    root = demo_index.explain(body, [doc], 10, "t", "q")[doc]
    assert root.path == "search" and not root.matched and root.details["failed"] == "post_filter.term"


# ---------------------------------------------------------------- a test per node kind, on a small index

DOCS = [
    {"id": "a", "title": "red boots", "body": "red hiking boots for the trail", "pop": 10, "day": "2025-12-01",
     "tag": "shoe"},
    {"id": "b", "title": "boots", "body": "boots boots and more boots", "pop": 3, "day": "2024-01-01", "tag": "shoe"},
    {"id": "c", "title": "blue tent", "body": "a tent for two", "pop": 7, "day": "2025-06-01", "tag": "camp"},
    {"id": "d", "title": "red tent", "body": "red tent with boots pocket", "pop": 0, "day": "2023-01-01",
     "tag": "camp"},
]  # fmt: skip
CONFIG = {"mappings": {"properties": {
    "title": {"type": "text", "analyzer": "english"}, "body": {"type": "text", "analyzer": "english"},
    "pop": {"type": "integer"}, "day": {"type": "date"}, "tag": {"type": "keyword"}}}}  # fmt: skip


@pytest.fixture(scope="module")
def small() -> EmbeddedIndex:
    return EmbeddedEngine().open(DOCS, CONFIG, "id")


def explained(index: EmbeddedIndex, query: dict[str, Any], **body: Any) -> dict[str, Node]:
    """Every document's tree, after checking that each hit's root is its score bit for bit."""
    full = {"query": query, **body}
    hits = dict(index.search_many({"q": full}, 10, "t")["q"])
    trees = index.explain(full, [d["id"] for d in DOCS], 10, "t", "q")
    for doc, tree in trees.items():
        assert tree.matched == (doc in hits), doc
        if doc in hits:
            assert _exact(tree.value, hits[doc]), (doc, tree.value, hits[doc])
    return trees


def summed(values: list[float]) -> float:
    total = 0.0
    for value in values:
        total += value
    return float(F32(total))


def test_bm25_and_sum(small: EmbeddedIndex) -> None:
    trees = explained(small, {"match": {"body": "red boots"}})
    root = trees["a"]
    assert root.kind == "sum" and root.path == "query.match"
    leaves = {c.path: c for c in root.children}
    assert set(leaves) == {"query.match[body:red]", "query.match[body:boot]"}
    assert _exact(root.value, summed([c.value for c in root.children]))  # in double, then float, as Lucene
    boot = leaves["query.match[body:boot]"]
    assert boot.kind == "bm25" and boot.details["freq"] == 1.0 and boot.details["docFreq"] == 3.0
    assert boot.details["docCount"] == 4.0 and boot.details["dl"] == 4.0  # red hike boot trail: stop words do not count
    # value = boost x (k1 + 1) x idf x tf, in float32
    expected = F32(2.2) * F32(boot.details["idf"]) * F32(boot.details["tf"])
    assert boot.value == pytest.approx(float(expected), rel=1e-6)
    assert trees["c"].matched is False and all(not c.matched for c in trees["c"].children)
    assert trees["b"].children[1].details["freq"] == 3.0  # "boots boots and more boots"
    assert not trees["b"].children[0].matched and trees["b"].children[0].value == 0.0  # no "red" in b


def test_max_and_dis_max(small: EmbeddedIndex) -> None:
    for tie, kind in ((0.0, "max"), (0.3, "dis_max")):
        trees = explained(small, {"multi_match": {"query": "red boots", "fields": ["title^2", "body"],
                                                  "tie_breaker": tie}})  # fmt: skip
        root = trees["a"]
        assert root.kind == kind and root.details["tie_breaker"] == tie
        fields = [c.value for c in root.children]
        assert [c.path for c in root.children] == ["query.multi_match[title]", "query.multi_match[body]"]
        assert root.children[0].details["boost"] == 2.0
        top = max(fields)
        assert _exact(root.value, F32(top + (sum(fields) - top) * float(F32(tie))))


def test_dis_max_query(small: EmbeddedIndex) -> None:
    trees = explained(small, {"dis_max": {"queries": [{"match": {"title": "boots"}}, {"match": {"body": "boots"}}],
                                          "tie_breaker": 0.5}})  # fmt: skip
    root = trees["b"]
    assert root.kind == "dis_max" and [c.path for c in root.children] == [
        "query.dis_max.queries[0].match",
        "query.dis_max.queries[1].match",
    ]


def test_function_score_decay_field_value_factor_weight(small: EmbeddedIndex) -> None:
    query = {"function_score": {
        "query": {"match": {"body": "boots"}},
        "functions": [{"gauss": {"day": {"origin": "2026-01-01", "scale": "100d", "decay": 0.5}}},
                      {"field_value_factor": {"field": "pop", "modifier": "ln2p"}},
                      {"filter": {"term": {"tag": "shoe"}}, "weight": 3}],
        "score_mode": "multiply", "boost_mode": "sum", "max_boost": 50}}  # fmt: skip
    trees = explained(small, query)
    nodes = flatten(trees["d"])
    root = trees["d"]
    assert root.kind == "function_score" and root.details["boost_mode"] == "sum" and root.details["max_boost"] == 50
    gauss = nodes["query.function_score.functions[0].gauss"]
    assert gauss.kind == "decay" and gauss.details["scale"] == "100d" and gauss.details["offset"] == "0"
    assert gauss.details["origin"] == "2026-01-01T00:00:00Z" and gauss.details["input"] == "2023-01-01T00:00:00Z"
    # Elasticsearch's gauss: exp(ln(decay) x (max(0, |input - origin| - offset) / scale)^2)
    days = (datetime(2026, 1, 1, tzinfo=UTC) - datetime(2023, 1, 1, tzinfo=UTC)).days
    assert gauss.value == pytest.approx(float(F32(np.exp(np.log(0.5) * (days / 100) ** 2))), rel=1e-6)
    factor = nodes["query.function_score.functions[1].field_value_factor"]
    assert factor.kind == "field_value_factor" and factor.details["input"] == 0.0
    assert factor.value == pytest.approx(np.log(2.0))
    weight = nodes["query.function_score.functions[2].weight"]
    assert weight.kind == "weight" and not weight.matched  # d is no shoe: the function does not apply
    shoe = nodes["query.function_score.functions[2].filter.term"]
    assert shoe.kind == "filter" and shoe.details["matched"] == 0.0
    assert flatten(trees["a"])["query.function_score.functions[2].weight"].value == 3.0
    match = nodes["query.function_score.query.match"]
    assert root.value == pytest.approx(match.value + gauss.value * factor.value, rel=1e-6)


def test_function_score_min_score_is_named(small: EmbeddedIndex) -> None:
    query = {"function_score": {"query": {"match": {"body": "boots"}}, "field_value_factor": {"field": "pop"},
                                "min_score": 2}}  # fmt: skip
    trees = explained(small, query)
    assert trees["a"].matched and not trees["b"].matched  # pop 10 and 3
    assert trees["b"].details["failed"] == "min_score" and trees["b"].children[0].matched


def test_other(small: EmbeddedIndex) -> None:
    query = {"function_score": {"query": {"match": {"body": "boots"}}, "random_score": {"seed": 7, "field": "pop"}}}
    node = flatten(explained(small, query)["a"])["query.function_score.random_score"]
    assert node.kind == "other" and node.details["function"] == "random_score" and 0 <= node.value < 1


def test_filter_and_constant(small: EmbeddedIndex) -> None:
    trees = explained(small, {"bool": {"filter": [{"range": {"pop": {"gte": 5}}}],
                                       "should": [{"constant_score": {"filter": {"term": {"tag": "shoe"}},
                                                                      "boost": 2}}]}})  # fmt: skip
    nodes = flatten(trees["a"])
    assert nodes["query.bool.filter[0].range"].kind == "filter"
    constant = nodes["query.bool.should[0].constant_score"]
    assert constant.kind == "constant" and constant.value == 2.0 and constant.details["boost"] == 2.0
    assert trees["a"].value == 2.0
    assert not trees["b"].matched and trees["b"].details["failed"] == "query.bool.filter[0].range"


def test_product(small: EmbeddedIndex) -> None:
    trees = explained(small, {"boosting": {"positive": {"match": {"body": "boots"}},
                                           "negative": {"term": {"tag": "camp"}}, "negative_boost": 0.5}})  # fmt: skip
    root = trees["d"]
    assert root.kind == "product" and root.details["negative_boost"] == 0.5 and root.details["negative"] == 1.0
    positive = flatten(root)["query.boosting.positive.match"]
    assert _exact(root.value, F32(positive.value) * F32(0.5))


def test_script(small: EmbeddedIndex) -> None:
    query = {"function_score": {"query": {"match": {"body": "boots"}},
                                "script_score": {"script": {"source": "doc['pop'].value + 1"}}}}  # fmt: skip
    trees = explained(small, query)
    script = flatten(trees["a"])["query.function_score.script_score"]
    assert script.kind == "script" and script.value == 11.0


def test_rescore(small: EmbeddedIndex) -> None:
    rescore = {"window_size": 2, "query": {"rescore_query": {"match": {"title": "red"}}, "query_weight": 0.5,
                                           "rescore_query_weight": 2}}  # fmt: skip
    trees = explained(small, {"match": {"body": "boots"}}, rescore=rescore)
    root = trees["a"]
    assert root.path == "search" and root.kind == "rescore"
    assert [c.path for c in root.children] == ["query.match", "rescore"]
    rescorer = root.children[1]
    assert rescorer.details["query_weight"] == 0.5 and rescorer.details["rescore_query_weight"] == 2.0
    assert rescorer.children[0].path == "rescore.query.rescore_query.match"
    # d is past the window of 2: query_weight x its score only
    d = trees["d"]
    assert d.children[1].details["in_window"] == 0.0
    assert _exact(d.value, F32(d.children[0].value) * F32(0.5))


def test_knn_and_a_hybrid_search() -> None:
    config = {
        "mappings": {
            "properties": {"title": {"type": "text"}, "v": {"type": "dense_vector", "dims": 2, "similarity": "cosine"}}
        }
    }
    docs = [{"id": "a", "title": "red boots", "v": [1, 0]}, {"id": "b", "title": "boots", "v": [0.6, 0.8]},
            {"id": "c", "title": "tent", "v": [0, 1]}]  # fmt: skip
    index = EmbeddedEngine().open(docs, config, "id")
    knn = {"field": "v", "query_vector": [1, 0], "k": 2, "num_candidates": 3}
    body = {"knn": knn, "query": {"match": {"title": "boots"}}}
    hits = dict(index.search_many({"q": body}, 10, "t")["q"])
    trees = index.explain(body, ["a", "b", "c"], 10, "t", "q")
    root = trees["a"]
    assert root.path == "search" and root.kind == "sum" and _exact(root.value, hits["a"])
    assert [c.path for c in root.children] == ["knn", "query.match"]
    assert root.children[0].kind == "knn" and root.children[0].details["field"] == "v"
    assert _exact(root.value, summed([c.value for c in root.children]))
    assert not trees["c"].children[0].matched  # not among the 2 nearest


def test_nested_is_one_node_over_the_documents() -> None:
    posts = [{"id": "a", "comments": [{"text": "great red shoe"}, {"text": "bad"}]},
             {"id": "b", "comments": [{"text": "shoe shoe"}]}, {"id": "c"}]  # fmt: skip
    config = {"mappings": {"properties": {"comments": {"type": "nested", "properties": {"text": {"type": "text"}}}}}}
    index = EmbeddedEngine().open(posts, config, "id")
    body = {"query": {"nested": {"path": "comments", "query": {"match": {"comments.text": "shoe"}},
                                 "score_mode": "max"}}}  # fmt: skip
    hits = dict(index.search_many({"q": body}, 10, "t")["q"])
    trees = index.explain(body, ["a", "b", "c"], 10, "t", "q")
    assert _exact(trees["a"].value, hits["a"]) and _exact(trees["b"].value, hits["b"]) and not trees["c"].matched
    # the inner query scores nested objects, whose ordinals are not the documents': it is left out, not misread
    assert trees["a"].children == () and trees["a"].details == {"query": "nested", "score_mode": "max",
                                                                 "nested_path": "comments"}  # fmt: skip


def test_no_match(small: EmbeddedIndex) -> None:
    trees = explained(small, {"bool": {"should": [{"match_none": {}}, {"match": {"title": "boots"}}]}})
    assert flatten(trees["a"])["query.bool.should[0].match_none"].kind == "no_match"
    assert trees["c"].details["failed"] == "should (no clause matched)"


def test_phrase_and_synonym_leaves(small: EmbeddedIndex) -> None:
    trees = explained(small, {"match_phrase": {"body": "hiking boots"}})
    leaf = trees["a"].children[0]
    assert leaf.path == 'query.match_phrase[body:"hike boot"]' and leaf.kind == "bm25" and leaf.details["freq"] == 1


def test_a_path_reached_twice_is_numbered_and_keeps_its_own_details() -> None:
    from pytest_relevance.engines.embedded.recorder import Recorder
    from pytest_relevance.engines.embedded.scores import Scores

    recorder = Recorder(np.array([1]))
    for tie in (0.0, 0.3):  # one clause evaluated at two places of a token graph: the same path twice
        recorder.open()
        recorder.note("query.x", tie_breaker=tie)
        recorder.close("query.x", "sum", Scores.of(3, np.array([1]), np.array([tie], dtype=F32)))
    recorder.settle(np.array([1]), np.array([1.0], dtype=F32), "min_score")
    root = recorder.trees(rescored=False)[0]
    assert [(c.path, c.details["tie_breaker"]) for c in root.children] == [("query.x", 0.0), ("query.x#2", 0.3)]
    assert root.path == "search" and len(flatten(root)) == 3


def test_render_indents_children_under_their_parent(small: EmbeddedIndex) -> None:
    root = explained(small, {"match": {"body": "red boots"}})["a"]
    lines = render(root).splitlines()
    assert re.fullmatch(r"query\.match \S+ sum", lines[0])
    # each child shown after the part of its path its parent already says
    assert lines[1].startswith("  [body:red] ") and "bm25 boost=1 freq=1 docFreq=2 docCount=4 dl=4" in lines[1]
    assert line(root.children[0]).startswith("query.match[body:red] ")
    assert len(lines) == len(flatten(root)) == 3


# ---------------------------------------------------------------- Cranfield and Lucene's own explanations


@pytest.fixture(scope="module")
def cranfield() -> EmbeddedIndex:
    from test_lucene_bm25 import cranfield_docs

    mapping = {"mappings": {"properties": {"title": {"type": "text", "analyzer": "english"},
                                           "body": {"type": "text", "analyzer": "english"}}}}  # fmt: skip
    return EmbeddedEngine().open(cranfield_docs(), mapping, "id")


def cranfield_texts(kind: str = "text") -> dict[str, str]:
    """The 225 query texts, or one derived text per query (the first two analyzed tokens, for phrases)."""
    import json

    name = "cranfield_queries.jsonl" if kind == "text" else "derived_queries.jsonl"
    return {q["qid"]: q[kind] for q in map(json.loads, (LUCENE / name).read_text().splitlines()) if kind in q}


CRANFIELD_SHAPES = {
    "match": lambda t: {"match": {"body": t}},
    "best_fields": lambda t: {"multi_match": {"query": t, "fields": ["title^3", "body"], "tie_breaker": 0.3}},
    "bool": lambda t: {"bool": {"must": {"match": {"body": t}}, "should": {"match": {"title": {"query": t,
                                                                                               "boost": 2}}}}},
    "phrase_slop2": lambda t: {"match_phrase": {"body": {"query": t, "slop": 2}}},
}  # fmt: skip


@needs_cranfield
@pytest.mark.parametrize("shape", sorted(CRANFIELD_SHAPES))
def test_every_cranfield_top_10_is_explained_to_its_score_bit_for_bit(cranfield: EmbeddedIndex, shape: str) -> None:
    texts = cranfield_texts("x_phrase_first2_slop2" if shape == "phrase_slop2" else "text")
    assert len(texts) == 225
    checked = 0
    for qid, text in texts.items():
        body = {"query": CRANFIELD_SHAPES[shape](text)}
        hits = cranfield.search_many({qid: body}, 10, "t")[qid]
        trees = cranfield.explain(body, [doc for doc, _ in hits], 10, "t", qid)
        for doc, score in hits:
            assert trees[doc].matched and _exact(trees[doc].value, score), (qid, doc)
            checked += 1
    assert checked > (300 if shape == "phrase_slop2" else 2000)


def lucene_explanations() -> list[dict[str, Any]]:
    """(query id, document, Lucene's score, per term: its explanation numbers) of each pair in explain.txt."""
    pairs = []
    for block in (LUCENE / "explain.txt").read_text().split("\nqid=")[1:]:
        qid, doc = re.match(r"(\d+) .*? docid=(\d+)", block).groups()
        score = float(re.search(r"^score: (\S+)", block, re.M).group(1))
        terms = {}
        for clause in re.split(r"\n  (?=\S+ = weight\()", block)[1:]:

            def number(label: str, clause: str = clause) -> float:
                return float(re.search(rf"^\s+(\S+) = {label}", clause, re.M).group(1))

            term = re.match(r"\S+ = weight\(body:(\S+) in", clause).group(1)
            terms[term] = {
                "value": float(re.match(r"(\S+) = weight", clause).group(1)),
                "idf": number("idf, computed"),
                "tf": number("tf, computed"),
                "freq": number("freq, occurrences"),
                "docFreq": number("n, number of documents"),
                "docCount": number("N, total number"),
                "dl": number("dl, length of field"),
                "avgdl": number("avgdl, average length"),
                "boost": float(b.group(1)) if (b := re.search(r"^\s+(\S+) = boost$", clause, re.M)) else 1.0,
            }
        pairs.append({"qid": qid, "doc": doc, "score": score, "terms": terms})
    return pairs


@needs_cranfield
def test_bm25_leaves_are_lucenes_explanation(cranfield: EmbeddedIndex) -> None:
    texts = cranfield_texts()
    pairs = lucene_explanations()
    assert len(pairs) == 15 and sum(len(p["terms"]) for p in pairs) == 91
    for pair in pairs:
        body = {"query": {"match": {"body": texts[pair["qid"]]}}}
        root = cranfield.explain(body, [pair["doc"]], 10, "t", pair["qid"])[pair["doc"]]
        # Elasticsearch's scores are 2.2 x Lucene 9's (its similarity keeps BM25's k1 + 1)
        assert root.value == pytest.approx(2.2 * pair["score"], rel=1e-5)
        leaves = {c.details["term"]: c for c in root.children if c.matched}
        assert set(leaves) == set(pair["terms"])
        for term, lucene in pair["terms"].items():
            details = leaves[term].details
            for key in ("idf", "tf", "freq", "docFreq", "docCount", "dl", "avgdl"):
                # Lucene prints float32 values with Java's shortest repr: equal as float32
                assert F32(details[key]) == F32(lucene[key]), (pair["qid"], pair["doc"], term, key)
            assert F32(details["boost"]) == F32(lucene["boost"])
            assert leaves[term].value == pytest.approx(2.2 * lucene["value"], rel=1e-6)


FIXTURE_TEST = """\
from pytest_relevance.explain.tree import flatten

def test_explain(relevance_index):
    hits = dict(relevance_index.search("hiking boots"))
    trees = relevance_index.explain("q022", ["p0569", "p0001"])
    assert trees["p0569"].value == hits["p0569"]
    assert "query.function_score.query.multi_match[title:boot]" in flatten(trees["p0569"])
    assert not trees["p0001"].matched
"""


def test_relevance_index_explains_through_the_plugin(pytester: pytest.Pytester) -> None:
    shutil.copytree(FIXTURES, pytester.path / "fixtures")
    pytester.makepyfile(test_gate=FIXTURE_TEST)
    result = pytester.runpytest_inprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


BODIES = {  # a construct each: the root is the score whatever the query, and each names its clause
    "fuzzy match": {"query": {"match": {"title": {"query": "hikr boats", "fuzziness": "AUTO"}}}},
    "fuzzy": {"query": {"fuzzy": {"title": {"value": "boots"}}}},
    "cross_fields": {"query": {"multi_match": {"query": "hiking boots", "type": "cross_fields",
                                               "fields": ["title^2", "description"]}}},
    "most_fields": {"query": {"multi_match": {"query": "hiking boots", "type": "most_fields",
                                              "fields": ["title", "description"]}}},
    "phrase multi_match": {"query": {"multi_match": {"query": "hiking boots", "type": "phrase",
                                                     "fields": ["title", "description"]}}},
    "match_bool_prefix": {"query": {"match_bool_prefix": {"title": "hiking bo"}}},
    "match_phrase_prefix": {"query": {"match_phrase_prefix": {"title": "hiking bo"}}},
    "query_string": {"query": {"query_string": {"query": "title:boots OR description:hiking~1"}}},
    "simple_query_string": {"query": {"simple_query_string": {"query": "boots +hiking", "fields": ["title"]}}},
    "terms and range": {"query": {"bool": {"should": [{"terms": {"brand": ["Acme", "Dunmore"]}},
                                                      {"range": {"price": {"lte": 50}}}]}}},
    "prefix wildcard regexp": {"query": {"bool": {"should": [{"prefix": {"title": "boo"}},
                                                             {"wildcard": {"title": "hik*"}},
                                                             {"regexp": {"title": "tent.*"}}]}}},
    "exists and ids": {"query": {"bool": {"must": [{"exists": {"field": "popularity"}}],
                                          "should": [{"ids": {"values": ["p0001", "p0569"]}}]}}},
    "script_score": {"query": {"script_score": {"query": {"match": {"title": "boots"}},
                                                "script": {"source": "_score * 2 + doc['popularity'].value"}}}},
    "function_score sum/avg": {"query": {"function_score": {
        "query": {"match": {"title": "boots"}}, "score_mode": "avg", "boost_mode": "sum",
        "functions": [{"exp": {"price": {"origin": 0, "scale": 100}}, "weight": 2},
                      {"linear": {"released": {"origin": "2026-01-01", "scale": "700d"}}},
                      {"random_score": {"seed": 3, "field": "id"}}]}}},
    "rescore list": {"query": {"match": {"description": "boots"}},
                     "rescore": [{"window_size": 5, "query": {"rescore_query": {"match": {"title": "hiking"}},
                                                              "score_mode": "multiply"}},
                                 {"window_size": 3, "query": {"rescore_query": {"match_all": {}},
                                                              "score_mode": "max"}}]},
    "collapse": {"query": {"match": {"title": "boots"}}, "collapse": {"field": "brand"}},
    "min_score": {"query": {"match": {"title": "boots"}}, "min_score": 3.5},
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(BODIES))
def test_every_construct_explains_to_the_score(demo_index: EmbeddedIndex, name: str) -> None:
    body = BODIES[name]
    hits = demo_index.search_many({"q": body}, 20, "t")["q"]
    assert hits, name
    extra = ["p0001", "p0569"]
    docs = list(dict.fromkeys([d for d, _ in hits] + extra))
    trees = demo_index.explain(body, docs, 20, "t", "q")
    scores = dict(hits)
    for doc in docs:
        root = trees[doc]
        if doc in scores:
            assert root.matched and _exact(root.value, scores[doc]), (name, doc)
        nodes = flatten(root)
        assert len(nodes) == sum(1 for _ in root.walk())  # every path names one node
        assert all(node.kind in KINDS for node in nodes.values())


def test_fuzzy_and_cross_fields_leaves_are_bm25(demo_index: EmbeddedIndex) -> None:
    body = BODIES["fuzzy match"]
    doc = demo_index.search_many({"q": body}, 1, "t")["q"][0][0]
    leaves = [n for n in flatten(demo_index.explain(body, [doc], 10, "t", "q")[doc]).values() if n.kind == "bm25"]
    assert {n.details["term"] for n in leaves if n.matched} >= {"hike", "boot"}  # reached from "hikr", "boat"
    body = BODIES["cross_fields"]
    doc = demo_index.search_many({"q": body}, 1, "t")["q"][0][0]
    root = demo_index.explain(body, [doc], 10, "t", "q")[doc]
    nodes = flatten(root)
    group = nodes["query.multi_match[title+description]"]
    assert group.kind == "sum" and _exact(root.value, group.value)  # one group: the dis_max over groups is it
    term = nodes["query.multi_match[title+description][boot]"]
    assert term.kind == "max" and [c.path for c in term.children] == [
        "query.multi_match[title:boot]",
        "query.multi_match[description:boot]",
    ]
    # blended: the term is as rare in each field as in the group (BlendedTermQuery's document frequencies)
    assert {c.details["docFreq"] for c in term.children} == {30.0}
    assert _exact(term.value, max(c.value for c in term.children))
    assert _exact(group.value, summed([c.value for c in group.children]))
