"""The Elasticsearch engine's explanations: real server explanation JSON mapped onto the embedded engine's tree
shape (tests/data/elasticsearch_explain.json names where each sample was published), and the HTTP path against
osmem-server, whose explanations are flat (one description, no details) but whose root is the hit's score."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_relevance.engines.elasticsearch.explain import from_elasticsearch
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.explain.tree import Node, flatten, render

SAMPLES = {
    s["name"]: s
    for s in json.loads((Path(__file__).parent.parent / "data" / "elasticsearch_explain.json").read_text())["samples"]
}


def tree(name: str) -> Node:
    sample = SAMPLES[name]
    return from_elasticsearch(sample["explanation"], sample["matched"])


@pytest.mark.parametrize(
    ("name", "field", "term", "expected"),
    [
        ("elasticsearch_match", "message", "elasticsearch",
         {"boost": 2.2, "idf": 1.3862944, "docFreq": 1, "docCount": 5, "tf": 0.5555556, "freq": 1.0, "k1": 1.2,
          "b": 0.75, "dl": 3.0, "avgdl": 5.4}),
        ("opensearch_match", "customer_first_name", "mary",
         {"boost": 2.2, "idf": 3.4100041, "docFreq": 154, "docCount": 4675, "tf": 0.47548598, "freq": 1.0,
          "dl": 1.0, "avgdl": 1.1206417}),
    ],
)  # fmt: skip
def test_a_bm25_leaf_has_lucenes_numbers(name: str, field: str, term: str, expected: dict[str, float]) -> None:
    root = tree(name)
    assert root.kind == "bm25" and root.path == f"query[{field}:{term}]"
    assert root.value == SAMPLES[name]["explanation"]["value"]
    assert root.details["field"] == field and root.details["term"] == term
    assert {key: root.details[key] for key in expected} == expected


def test_function_score_with_scripts_and_a_date_decay() -> None:
    root = tree("opensearch_function_score_script_decay")
    assert root.kind == "function_score" and root.value == 23.570526 and root.details["boost_mode"] == "multiply"
    nodes = flatten(root)
    assert [path for path in nodes if nodes[path].kind != "other"] == [
        "query",
        "query.sum[0]",
        "query.sum[0].constant",
        "query.sum[0].script",
        "query.sum[0].script.other[0].sum[0]",
        "query.sum[0].script.other[0].sum[0][full_text:test]",
        "query.sum[0].script.other[0].sum[0][abstract:test]",
        "query.sum[0].script#2",
        "query.function_score[0]",
        "query.function_score[0].decay(publication_date)",
    ]
    scripts = [n for n in nodes.values() if n.kind == "script"]
    assert [n.details["source"] for n in scripts] == ["_score * 1.7", "_score * 1.5"]
    leaves = {n.details["field"]: n for n in nodes.values() if n.kind == "bm25"}
    assert leaves["full_text"].details["dl"] == 856 and leaves["full_text"].details["boost"] == 2.75
    assert leaves["abstract"].details["docFreq"] == 1 and leaves["abstract"].value == 7.5608864
    (decay,) = [n for n in nodes.values() if n.kind == "decay"]
    assert decay.details == {"field": "publication_date", "function": "gauss", "input": 1.7064864e12,
                             "origin": 1.713818582102e12, "offset": 2.592e9}  # fmt: skip
    (maximum,) = [n for n in nodes.values() if n.details.get("max_boost")]
    assert maximum.kind == "function_score" and maximum.details["max_boost"] == pytest.approx(3.4028235e38)


def test_weighted_functions_fold_the_weight_into_the_function() -> None:
    root = tree("opensearch_function_score_weights")
    nodes = flatten(root)
    kinds = {n.kind: n for n in nodes.values() if n.kind in ("script", "field_value_factor", "decay")}
    assert kinds["script"].value == 180 and kinds["script"].details["weight"] == 0.6
    assert kinds["script"].details["source"] == "return doc['likes'].value * 2;"
    assert kinds["field_value_factor"].details == {"field": "views", "modifier": "log1p", "factor": 1.5,
                                                    "missing": 1.0, "weight": 0.3}  # fmt: skip
    assert kinds["field_value_factor"].value == 0.9766541
    assert kinds["decay"].details["weight"] == 0.1 and kinds["decay"].details["origin"] == 1000.0
    assert kinds["decay"].path == "query.function_score[0].function_score[0].decay(comments)"
    mode = nodes["query.function_score[0].function_score[0]"]
    assert mode.details == {"score_mode": "multiply"} and mode.value == 6.1600614


def test_dis_max_and_sum() -> None:
    root = tree("multi_match_tie_breaker")
    assert root.kind == "dis_max" and root.details["tie_breaker"] == 0.5 and root.value == 0.8630463
    assert [c.path for c in root.children] == ["query.sum[0]", "query.sum[1]", "query.sum[2]"]
    assert [c.path for c in root.children[2].children] == ["query.sum[2][field1:foo]", "query.sum[2][field1:bar]"]
    top = max(c.value for c in root.children)
    others = sum(c.value for c in root.children) - top
    assert root.value == pytest.approx(top + 0.5 * others, rel=1e-6)


def test_a_rescore_in_elasticsearchs_query_rescorer_form() -> None:
    # the descriptions of QueryRescorer.explain: `<score mode> of:` over the two weighted passes
    first = {
        "value": 2.0,
        "description": "sum of:",
        "details": [
            {"value": 2.0, "description": "weight(title:boot in 3) [PerFieldSimilarity], result of:", "details": []}
        ],
    }
    second = {"value": 1.5, "description": "weight(title:hike in 3) [PerFieldSimilarity], result of:", "details": []}
    answer = {"value": 4.0, "description": "product of:", "details": [
        {"value": 1.0, "description": "product of:", "details": [first, {"value": 0.5, "description": "primaryWeight",
                                                                          "details": []}]},
        {"value": 3.0, "description": "product of:", "details": [second, {"value": 2.0,
                                                                           "description": "secondaryWeight",
                                                                           "details": []}]}]}  # fmt: skip
    root = from_elasticsearch(answer)
    assert root.kind == "rescore" and root.details == {"score_mode": "multiply"}
    query, rescore = root.children
    assert query.kind == "sum" and query.details == {"query_weight": 0.5} and query.value == 1.0
    assert rescore.kind == "bm25" and rescore.details["rescore_query_weight"] == 2.0 and rescore.value == 3.0


def test_a_document_that_does_not_match() -> None:
    answer = {"value": 0.0, "description": "no matching term", "details": []}
    root = from_elasticsearch(answer, matched=False)
    assert not root.matched and root.kind == "no_match" and root.value == 0.0
    nested = {"value": 0.0, "description": "Failure to meet condition(s) of required/prohibited clause(s)",
              "details": [{"value": 0.0, "description": "no match on required clause (title:boot)", "details": [
                  {"value": 0.0, "description": "no matching term", "details": []}]}]}  # fmt: skip
    root = from_elasticsearch(nested, matched=False)
    assert not root.matched and root.details["failed"] == "no match on required clause (title:boot)"
    assert root.children[0].kind == "no_match" and not root.children[0].matched


def test_an_unknown_description_is_kept_whole() -> None:
    answer = {"value": 0.5, "description": "within top 20", "details": []}
    root = from_elasticsearch(answer)
    assert root.kind == "other" and root.details["description"] == "within top 20" and root.value == 0.5
    assert render(root) == "query 0.5 other description=within top 20"


# ---------------------------------------------------------------- the HTTP path, on osmem-server

DOCS = [{"id": f"d{i}", "title": title} for i, title in enumerate(["red shoe", "blue shoe", "red hat", "shoe"])]
CONFIG = {"mappings": {"properties": {"id": {"type": "keyword"}, "title": {"type": "text"}}}}


@pytest.fixture(scope="module")
def server() -> Any:
    # only these tests need the server: the mapper's above run without it
    osmem_server = pytest.importorskip("osmem_server", reason="osmem-server is not installed (pip install -e '.[dev]')")
    server = osmem_server.OsmemServer.start(seed=[], freeze=False, japanese=False)
    yield server
    server.close()


@pytest.fixture
def index(server: Any) -> Any:
    from elasticsearch import Elasticsearch
    from test_elasticsearch import PlainJSONNode

    from pytest_relevance.engines.elasticsearch.engine import ElasticsearchEngine

    client = Elasticsearch(server.url, node_class=PlainJSONNode)
    opened = ElasticsearchEngine(client, "relevance-explain-main", server.url).open(DOCS, CONFIG, "id")
    yield opened
    opened.close()
    client.close()


@pytest.mark.elasticsearch
def test_the_server_explains_hits_and_misses(index: Any) -> None:
    body = {"query": {"match": {"title": "red shoe"}}}
    hits = dict(index.search_many({"q": body}, 2, "query.yaml")["q"])
    trees = index.explain(body, ["d0", "d1", "d2", "d3"], 2, "query.yaml", "q")
    for doc, score in hits.items():  # the top 2: explained by the search, the root is the score
        assert trees[doc].matched and trees[doc].value == score
    outside = [doc for doc in trees if doc not in hits]
    assert outside and all(trees[doc].matched for doc in outside)  # past the top 2, by _explain: still matching
    body = {"query": {"match": {"title": "hat"}}}
    trees = index.explain(body, ["d0", "d2"], 10, "query.yaml", "q")
    assert trees["d2"].matched and not trees["d0"].matched and trees["d0"].value == 0.0


@pytest.mark.elasticsearch
def test_an_unknown_document_is_refused_before_asking(index: Any) -> None:
    with pytest.raises(RelevanceInputError, match=r"no document with the id 'd9' \(asked to explain\)"):
        index.explain({"query": {"match_all": {}}}, ["d0", "d9"], 10, "query.yaml", "q")
