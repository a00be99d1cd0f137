"""The embedded engine and the demo gate: real pytest sessions on copies of this repository's fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.inputs.clock import anchor, parse_instant, resolve_date
from pytest_relevance.inputs.templates import render

ROOT = Path(__file__).resolve().parent.parent.parent
CRANFIELD = ROOT.parent / "shared" / "data" / "cranfield"
DEMO_TEST = (
    "def test_demo(relevance_index, relevance_snapshot):\n    assert relevance_snapshot == relevance_index.run()\n"
)
NOW = parse_instant("2026-01-15T12:00:00Z")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """In process (the demo gate under xdist: test_index_cache's runs with -n 2)."""
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_the_gate_catches_real_breaks_and_passes_when_restored(demo: pytest.Pytester) -> None:
    assert run(demo, "--relevance-update").ret == 0
    query, index = demo.path / "fixtures" / "query.yaml", demo.path / "fixtures" / "index.yaml"
    original_query, original_index = query.read_text(), index.read_text()
    query.write_text("query:\n  match_all: {}\n")
    result = run(demo)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*relevance regression in relevance-baseline.json*", "*head.ndcg@10: 0.* -> 0.0*"])
    query.write_text(original_query.replace("title^3", "title"))
    result = run(demo)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*head.ndcg@10: 0.8665 -> 0.8390 (-0.0275, p=*)"])
    query.write_text(original_query)
    edit(index, "analyzer: english", "analyzer: whitespace")
    result = run(demo)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*tail.recall@100: 0.8624 -> 0.8084 (-0.0540, p=*)"])
    index.write_text(original_index)
    assert run(demo).ret == 0


def test_same_rankings_on_two_real_dates(demo: pytest.Pytester) -> None:
    # the frozen instant, not the wall clock, anchors the recency decay: travel the real clock, nothing changes
    demo.makeconftest(
        "import time_machine, pytest\n"
        "@pytest.fixture(scope='session', autouse=True, params=['2026-03-01', '2031-07-19'])\n"
        "def real_date(request):\n"
        "    with time_machine.travel(request.param, tick=False):\n"
        "        yield\n"
    )
    demo.makepyfile(
        test_gate="import json\n"
        "def test_demo(relevance_index, request):\n"
        "    name = request.node.callspec.id\n"
        "    (request.config.rootpath / f'run-{name}.json').write_text(json.dumps(relevance_index.run()))\n"
    )
    assert run(demo).ret == 0
    runs = [json.loads(p.read_text()) for p in sorted(demo.path.glob("run-*.json"))]
    assert len(runs) == 2
    assert runs[0] == runs[1]
    assert runs[0]["q001"]  # something was ranked


def test_repeat_runs_every_query_n_times(demo: pytest.Pytester) -> None:
    assert run(demo, "--relevance-update").ret == 0
    assert run(demo, "--relevance-repeat", "3").ret == 0


def test_an_unsupported_construct_names_itself_and_the_template(demo: pytest.Pytester) -> None:
    (demo.path / "fixtures" / "query.yaml").write_text("query:\n  percolate: {field: '{{query}}'}\n")
    result = run(demo, "--relevance-update")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*fixtures/query.yaml: query 'q001': 'percolate' at query is not supported by the embedded engine*"
            "the elasticsearch engine supports it"
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_missing_param_names_the_query_and_the_placeholder(demo: pytest.Pytester) -> None:
    edit(demo.path / "fixtures" / "query.yaml", "tie_breaker: 0.3", "tie_breaker: 0.3\n        boost: '{{weight}}'")
    result = run(demo, "--relevance-update")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*query 'q001': the template uses {{weight}} but the query has no param 'weight'*"])


def test_bad_corpus_line_is_named(demo: pytest.Pytester) -> None:
    corpus = demo.path / "fixtures" / "corpus.ndjson"
    lines = corpus.read_text().splitlines()
    lines[2] = lines[2][:-5]
    corpus.write_text("\n".join(lines) + "\n")
    result = run(demo, "--relevance-update")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*fixtures/corpus.ndjson:3: not a JSON document*"])


# ---------------------------------------------------------------- units: templates, clock, engine


def test_template_rendering_keeps_types_and_escapes_nothing_by_hand() -> None:
    template = {"query": {"match": {"title": "{{query}}"}}, "size": "{{n}}", "x": "in {{category}} now"}
    body = render(template, 'say "hi" \\ there', {"n": 5, "category": "audio"}, NOW, "q1")
    assert body == {"query": {"match": {"title": 'say "hi" \\ there'}}, "size": 5, "x": "in audio now"}
    assert render({"q": "{{query}}", "since": "{{since}}"}, "now-7d", {"since": "now-7d"}, NOW, "q1") == {
        "q": "now-7d",  # the user's text is left alone
        "since": "2026-01-15T12:00:00Z||-7d",  # a param holding date math is anchored
    }
    with pytest.raises(RelevanceInputError, match=r"query 'q1': the template uses \{\{n\}\}"):
        render(template, "x", {}, NOW, "q1")


def test_date_math_is_anchored_to_the_frozen_instant() -> None:
    body = anchor({"range": {"released": {"gte": "now-7d/d", "lte": "now"}}, "t": "nowhere"}, NOW)
    assert body == {
        "range": {"released": {"gte": "2026-01-15T12:00:00Z||-7d/d", "lte": "2026-01-15T12:00:00Z"}},
        "t": "nowhere",
    }
    assert resolve_date("2026-01-15T12:00:00Z||-7d/d").isoformat() == "2026-01-08T00:00:00+00:00"


DOCS = [
    {"id": "d1", "title": "Wireless Headphones", "released": "2026-01-01", "popularity": 10, "tag": "audio"},
    {"id": "d2", "title": "wired headphones", "released": "2020-01-01", "popularity": 1000, "tag": "audio"},
    {"id": "d3", "title": "headphone stand", "released": "2025-12-01", "popularity": 5, "tag": "home"},
    {"id": "d0", "title": "wired headphones", "released": "2020-01-01", "popularity": 1000, "tag": "audio"},
]
MAPPING = {
    "mappings": {
        "properties": {
            "title": {"type": "text", "analyzer": "english"},
            "released": {"type": "date"},
            "popularity": {"type": "integer"},
            "tag": {"type": "keyword"},
        }
    }
}


def search(query: dict, size: int = 10) -> list[str]:
    index = EmbeddedEngine().open(DOCS, MAPPING, "id")
    return [doc for doc, _ in index.search_many({"q": {"query": query}}, size, "query.yaml")["q"]]


def test_engine_semantics() -> None:
    # english analyzer: "headphone" and "headphones" share a stem, so the stand matches too
    assert set(search({"match": {"title": "headphones"}})) == {"d0", "d1", "d2", "d3"}
    assert search({"match": {"title": {"query": "wired headphones", "operator": "and"}}}) == ["d0", "d2"]  # tie: id asc
    assert search({"match_phrase": {"title": "wireless headphones"}}) == ["d1"]
    assert search({"bool": {"must": [{"match": {"title": "headphones"}}], "filter": [{"term": {"tag": "home"}}]}}) == [
        "d3"
    ]
    assert search({"bool": {"should": [{"term": {"tag": "home"}}], "must_not": [{"match": {"title": "stand"}}]}}) == []
    assert search({"range": {"released": {"gte": "2026-01-15T12:00:00Z||-30d/d"}}}) == ["d1"]
    recency = {
        "function_score": {
            "query": {"match": {"title": "headphones"}},
            "gauss": {"released": {"origin": "2026-01-15", "scale": "30d"}},
            "boost_mode": "replace",
        }
    }
    assert search(recency)[:2] == ["d1", "d3"]
    popular = {
        "function_score": {
            "query": {"match_all": {}},
            "field_value_factor": {"field": "popularity"},
            "boost_mode": "replace",
        }
    }
    assert search(popular) == ["d0", "d2", "d1", "d3"]


def test_engine_errors_name_the_construct() -> None:
    with pytest.raises(RelevanceInputError, match="'percolate' at query is not supported by the embedded engine"):
        search({"percolate": {"field": "query"}})
    with pytest.raises(RelevanceInputError, match=r"'regexp\.flags_value' at query\.regexp is not supported"):
        search({"regexp": {"title": {"value": "head.*", "flags_value": 255}}})
    # removed in Elasticsearch 7: its parser's refusal, not a construct the Elasticsearch engine runs
    with pytest.raises(RelevanceInputError, match=r"\[query_string\] query does not support \[split_on_whitespace\]"):
        search({"query_string": {"query": "x", "split_on_whitespace": False}})
    addresses = EmbeddedEngine().open(DOCS, {"mappings": {"properties": {"g": {"type": "ip"}}}}, "id")
    with pytest.raises(RelevanceInputError, match=r"a query on the ip field 'g' at query\.exists is not"):
        addresses.search_many({"q": {"query": {"exists": {"field": "g"}}}}, 10, "query.yaml")


# ---------------------------------------------------------------- Cranfield, end to end


def cranfield_to(folder: Path) -> None:
    """The Cranfield collection as a corpus, judgments (grades 1-4 where 1 is best -> 4..1) and a template."""
    docs, current, field = [], None, None
    for line in (CRANFIELD / "cran.all.1400").read_text().splitlines():
        if line.startswith(".I "):
            current = {"id": line.split()[1], "title": "", "text": ""}
            docs.append(current)
        elif line[:2] in (".T", ".A", ".B", ".W"):
            field = {".T": "title", ".W": "text"}.get(line[:2])
        elif field and current is not None:
            current[field] += line + " "
    queries, text = [], None
    for line in (CRANFIELD / "cran.qry").read_text().splitlines():
        if line.startswith(".I "):
            queries.append("")
            text = None
        elif line.startswith(".W"):
            text = True
        elif text:
            queries[-1] += line + " "
    grades: dict[int, dict[str, int]] = {}
    for line in (CRANFIELD / "cranqrel").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3 and 1 <= int(parts[2]) <= 4:
            grades.setdefault(int(parts[0]), {})[parts[1]] = 5 - int(parts[2])  # qrels number queries in file order
    (folder / "corpus.ndjson").write_text("".join(json.dumps(d) + "\n" for d in docs))
    judged = [
        {"id": f"c{n:03d}", "text": " ".join(queries[n - 1].split()), "grades": grades[n]}
        for n in sorted(grades)
        if n <= len(queries)
    ]
    import yaml

    (folder / "judgments.yaml").write_text(yaml.safe_dump({"version": "cranfield", "queries": judged}))
    (folder / "index.yaml").write_text(
        "mappings:\n  properties:\n    title: {type: text, analyzer: english}\n"
        "    text: {type: text, analyzer: english}\n"
    )
    (folder / "query.yaml").write_text(
        "query:\n  multi_match: {query: '{{query}}', fields: ['title^2', 'text'], type: most_fields}\n"
    )


@pytest.mark.skipif(not CRANFIELD.is_dir(), reason="../shared/data/cranfield is not present")
def test_cranfield_end_to_end(pytester: pytest.Pytester) -> None:
    cranfield_to(pytester.path)
    pytester.makeini(
        "[pytest]\nrelevance_judgments = judgments.yaml\nrelevance_corpus = corpus.ndjson\n"
        "relevance_index_config = index.yaml\nrelevance_query = query.yaml\n"
        "relevance_metrics = ndcg@10 map recall@100\n"
    )
    pytester.makepyfile(test_cran=DEMO_TEST)
    result = run(pytester, "--relevance-update")
    assert result.ret == 0
    entry = json.loads((pytester.path / "relevance-baseline.json").read_text())["entries"]["test_cran.py::test_demo"]
    assert entry["strata"]["all"]["n"] == 225
    assert 0.25 < entry["strata"]["all"]["ndcg@10"] < 0.6  # BM25 on Cranfield lands here in the literature
    assert run(pytester).ret == 0


def test_search_one_query_through_the_template() -> None:
    from pytest_relevance.engines.base import FixtureIndex
    from pytest_relevance.judgments.model import Judgments, Query

    index = EmbeddedEngine().open(DOCS, MAPPING, "id")
    template = {"query": {"bool": {"must": {"match": {"title": "{{query}}"}}, "filter": {"term": {"tag": "{{tag}}"}}}}}
    judgments = Judgments((Query("q1", "headphones", None, {"tag": "home"}, {"d3": 1}),), "v", "j")
    fixture = FixtureIndex(index, template, judgments, NOW, 10, "query.yaml", corpus_size=len(DOCS))
    assert [doc for doc, _ in fixture.search("headphones", tag="audio")] == ["d0", "d1", "d2"]
    run = fixture.run()
    assert run == {"q1": ["d3"]}
    assert (run.engine, run.corpus_size) == (index.identity, 4)


def test_a_third_party_engine_through_the_hook(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", judgments="queries:\n  - {id: q1, text: hello, grades: {b: 1}}\n")
    pytester.makefile(".ndjson", corpus='{"id": "a"}\n{"id": "b"}\n')
    pytester.makefile(".yaml", index="mappings: {properties: {id: {type: keyword}}}\n")
    pytester.makefile(".yaml", query="query: {match_all: {}}\n")
    pytester.makeini(
        "[pytest]\nrelevance_engine = reverse\nrelevance_judgments = judgments.yaml\nrelevance_corpus = corpus.ndjson\n"
        "relevance_index_config = index.yaml\nrelevance_query = query.yaml\nrelevance_metrics = mrr\n"
    )
    pytester.makeconftest(
        "class Reverse:\n"
        "    identity = 'reverse 1.0'\n"
        "    def __init__(self, corpus): self.ids = [d['id'] for d in corpus]\n"
        "    def search_many(self, bodies, size, source):\n"
        "        return {q: [(d, 1.0) for d in reversed(self.ids)][:size] for q in bodies}\n"
        "    def close(self): pass\n"
        "class Engine:\n"
        "    def open(self, corpus, config, id_field, source): return Reverse(corpus)\n"
        "def pytest_relevance_make_engine(name, config):\n"
        "    return Engine() if name == 'reverse' else None\n"
    )
    pytester.makepyfile(test_gate=DEMO_TEST)
    result = run(pytester, "--relevance-update")
    assert result.ret == 0
    entry = json.loads((pytester.path / "relevance-baseline.json").read_text())["entries"]["test_gate.py::test_demo"]
    assert entry["engine"] == "reverse 1.0"
    assert entry["strata"]["all"]["mrr"] == 1.0  # b comes first
