"""The Elasticsearch engine against a real server over HTTP: osmem-server, started by this test session.

osmem is OpenSearch-compatible but its scores are not Lucene's: these tests assert behaviour (index built, every
query answered, deterministic order, cleanup, errors), never exact scores.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

osmem_server = pytest.importorskip("osmem_server", reason="osmem-server is not installed (pip install -e '.[dev]')")

from pytest_relevance.engines.elasticsearch.engine import ElasticsearchEngine, check_url, make_client, redact  # noqa: E402
from pytest_relevance.errors import RelevanceInputError  # noqa: E402
from pytest_relevance.inputs.clock import parse_instant  # noqa: E402
from pytest_relevance.inputs.templates import render  # noqa: E402

pytestmark = pytest.mark.elasticsearch
ROOT = Path(__file__).resolve().parent.parent.parent

# The official client sends `application/vnd.elasticsearch+json; compatible-with=N`, which osmem answers with 406.
# In the tests only, this node class sends plain JSON. It is source text because generated projects need it too.
PLAIN_JSON_NODE = """
from elastic_transport import Urllib3HttpNode

class PlainJSONNode(Urllib3HttpNode):
    def perform_request(self, method, target, body=None, headers=None, **kwargs):
        if headers is not None:
            headers = type(headers)({k: v.split(";")[0].replace("vnd.elasticsearch+", "") for k, v in headers.items()})
        return super().perform_request(method, target, body=body, headers=headers, **kwargs)
"""
namespace: dict[str, Any] = {}
exec(PLAIN_JSON_NODE, namespace)
PlainJSONNode = namespace["PlainJSONNode"]

CONFTEST = (
    PLAIN_JSON_NODE
    + """
import os
import pytest
from elasticsearch import Elasticsearch

@pytest.fixture(scope="session")
def relevance_es_client():
    client = Elasticsearch(os.environ["OSMEM_URL"], node_class=PlainJSONNode)
    yield client
    client.close()
"""
)
DEMO_TEST = (
    "def test_demo(relevance_index, relevance_snapshot, request):\n"
    "    (request.config.rootpath / f'index-{relevance_index.index.name}').write_text('')\n"
    "    assert relevance_snapshot == relevance_index.run()\n"
)


@pytest.fixture(scope="module")
def server() -> Any:
    server = osmem_server.OsmemServer.start(seed=[], freeze=False, japanese=False)
    yield server
    server.close()


@pytest.fixture
def es(server: Any) -> Any:
    from elasticsearch import Elasticsearch

    client = Elasticsearch(server.url, node_class=PlainJSONNode)
    yield client
    client.close()


def relevance_indices(es: Any) -> list[str]:
    return sorted(name for name in es.indices.get(index="*").body if name.startswith("relevance-"))


DOCS = [{"id": f"d{i}", "title": title} for i, title in enumerate(["red shoe", "blue shoe", "red hat", "shoe"])]
CONFIG = {"mappings": {"properties": {"id": {"type": "keyword"}, "title": {"type": "text"}}}}


def test_index_created_answered_and_deleted_leaving_others(es: Any) -> None:
    es.indices.create(index="keep-me", mappings={"properties": {"x": {"type": "keyword"}}})
    index = ElasticsearchEngine(es, "relevance-unit-main", "http://x").open(DOCS, CONFIG, "id")
    assert index.identity.startswith("opensearch ")
    assert es.indices.exists(index="relevance-unit-main")
    hits = index.search_many({"q1": {"query": {"match": {"title": "shoe"}}}}, 10, "query.yaml")["q1"]
    assert sorted(doc for doc, _ in hits) == ["d0", "d1", "d3"]
    again = index.search_many({"q1": {"query": {"match": {"title": "shoe"}}}}, 10, "query.yaml")["q1"]
    assert again == hits  # deterministic
    index.close()
    assert not es.indices.exists(index="relevance-unit-main")
    assert es.indices.exists(index="keep-me")
    es.indices.delete(index="keep-me")


def test_an_existing_index_of_that_name_is_refused_and_kept(es: Any) -> None:
    es.indices.create(index="relevance-taken-main")
    with pytest.raises(RelevanceInputError, match="already exists; refusing to touch"):
        ElasticsearchEngine(es, "relevance-taken-main", "http://x").open(DOCS, CONFIG, "id")
    assert es.indices.exists(index="relevance-taken-main")
    es.indices.delete(index="relevance-taken-main")


def test_through_opensearch_py(server: Any) -> None:
    from opensearchpy import OpenSearch

    client = OpenSearch(hosts=[server.url])
    index = ElasticsearchEngine(client, "relevance-os-main", server.url, batch=2).open(DOCS, CONFIG, "id")
    bodies = {f"q{i}": {"query": {"match": {"title": word}}} for i, word in enumerate(["shoe", "red", "hat"])}
    hits = index.search_many(bodies, 10, "query.yaml")
    assert set(hits) == {"q0", "q1", "q2"}
    assert [doc for doc, _ in hits["q2"]] == ["d2"]
    index.close()
    assert not client.indices.exists(index="relevance-os-main")


def test_request_bodies_are_pinned(server: Any) -> None:
    from elasticsearch import Elasticsearch

    sent: list[tuple[str, str, bytes]] = []

    class Recording(PlainJSONNode):  # type: ignore[misc,valid-type]
        def perform_request(self, method, target, body=None, headers=None, **kwargs):  # type: ignore[no-untyped-def]
            sent.append((method, target, body or b""))
            return super().perform_request(method, target, body=body, headers=headers, **kwargs)

    client = Elasticsearch(server.url, node_class=Recording)
    index = ElasticsearchEngine(client, "relevance-rec-main", server.url).open(DOCS, CONFIG, "id")
    template = {
        "query": {
            "bool": {"must": {"match": {"title": "{{query}}"}}, "filter": {"range": {"released": {"gte": "now-7d/d"}}}}
        }
    }
    body = render(template, "shoe", {}, parse_instant("2026-01-15T12:00:00Z"), "q1")
    sent.clear()
    index.search_many({"q1": body}, 25, "query.yaml")
    ((method, _, payload),) = [s for s in sent if "_msearch" in s[1]]
    header, request = (json.loads(line) for line in payload.decode().splitlines() if line.strip())
    assert method == "POST"
    assert header == {"index": "relevance-rec-main"}
    assert request["size"] == 25
    assert request["_source"] is False
    assert request["sort"] == [{"_score": {"order": "desc"}}, {"id": {"order": "asc"}}]
    assert request["query"]["bool"]["filter"]["range"]["released"]["gte"] == "2026-01-15T12:00:00Z||-7d/d"
    bulk = [s for s in sent if "_bulk" in s[1]]
    assert not bulk  # indexing happened before the recording window
    index.close()
    client.close()


def test_profile_asks_the_server_for_its_profile_and_counts_over_http(server: Any) -> None:
    from elasticsearch import Elasticsearch

    sent: list[bytes] = []

    class Recording(PlainJSONNode):  # type: ignore[misc,valid-type]
        def perform_request(self, method, target, body=None, headers=None, **kwargs):  # type: ignore[no-untyped-def]
            if "_msearch" in target:
                sent.append(body or b"")
            return super().perform_request(method, target, body=body, headers=headers, **kwargs)

    client = Elasticsearch(server.url, node_class=Recording)
    index = ElasticsearchEngine(client, "relevance-prof-main", server.url).open(DOCS, CONFIG, "id")
    costs = index.profile({"q1": {"query": {"match": {"title": "red shoe"}}}}, 10, "query.yaml", 2)
    assert len(sent) == 2  # one profiled msearch a repeat
    _, request = (json.loads(line) for line in sent[0].decode().splitlines() if line.strip())
    assert (request["profile"], request["track_total_hits"]) == (True, True)
    cost = costs["q1"]
    # the documents matching red or shoe: d0, d1, d2, d3 (osmem's profile counts nothing else: zeros, but present)
    assert cost.counters["docs_matched"] == 4
    assert set(cost.counters) == {"docs_matched", "docs_scored", "postings_read"}
    assert len(cost.seconds) == 2
    assert index.search_many({"q1": {"query": {"match": {"title": "red"}}}}, 10, "query.yaml")["q1"]  # unchanged
    index.close()
    client.close()


def test_the_id_tiebreak_follows_the_templates_sort_and_a_rescore_is_sent_without_one(es: Any, server: Any) -> None:
    index = ElasticsearchEngine(es, "relevance-sort-main", server.url).open(DOCS, CONFIG, "id")
    query = {"match": {"title": "shoe"}}
    tiebreak = {"id": {"order": "asc"}}
    assert index.request_body({"query": query}, 5)["sort"] == [{"_score": {"order": "desc"}}, tiebreak]
    by_date = index.request_body({"query": query, "sort": {"released": "desc"}}, 5)
    assert by_date["sort"] == [{"released": "desc"}, tiebreak]
    rescore = {"window_size": 10, "query": {"rescore_query": {"match_phrase": {"title": "shoe"}}}}
    rescored = index.request_body({"query": query, "rescore": rescore}, 5)
    assert "sort" not in rescored and rescored["rescore"] == rescore
    retriever = {"standard": {"query": query}}
    assert "sort" not in index.request_body({"retriever": retriever}, 5)
    level = {"window_size": 10, "query": {"rescore_query": {"match_all": {}}, "rescore_query_weight": 0}}
    tied = {"query": {"constant_score": {"filter": {"match": {"title": "shoe"}}}}, "rescore": level}
    assert index.search_many({"q": tied}, 5, "query.yaml")["q"] == [("d0", 1.0), ("d1", 1.0), ("d3", 1.0)]
    index.close()


def test_bulk_is_ndjson_with_ids(server: Any) -> None:
    from elasticsearch import Elasticsearch

    sent: list[bytes] = []

    class Recording(PlainJSONNode):  # type: ignore[misc,valid-type]
        def perform_request(self, method, target, body=None, headers=None, **kwargs):  # type: ignore[no-untyped-def]
            if "_bulk" in target:
                sent.append(body)
            return super().perform_request(method, target, body=body, headers=headers, **kwargs)

    client = Elasticsearch(server.url, node_class=Recording)
    index = ElasticsearchEngine(client, "relevance-bulk-main", server.url).open(DOCS, CONFIG, "id")
    lines = [json.loads(line) for line in b"".join(sent).decode().splitlines() if line.strip()]
    assert lines[0] == {"index": {"_index": "relevance-bulk-main", "_id": "d0"}}
    assert lines[1] == {"id": "d0", "title": "red shoe"}
    index.close()
    client.close()


def test_errors_say_what_happened(es: Any) -> None:
    with pytest.raises(RelevanceInputError, match=r"index\.yaml: the server rejected the index config"):
        bad = {"mappings": {"properties": {"id": {"type": "keyword"}, "title": {"type": "no_such_type"}}}}
        ElasticsearchEngine(es, "relevance-bad-main", "http://x").open(DOCS, bad, "id", "index.yaml")
    assert not es.indices.exists(index="relevance-bad-main")
    index = ElasticsearchEngine(es, "relevance-err-main", "http://x").open(DOCS, CONFIG, "id")
    good = {"query": {"match": {"title": "shoe"}}}
    bodies = {"q1": good, "q2": {"query": {"no_such_query": {}}}, "q3": good}
    with pytest.raises(RelevanceInputError, match=r"query\.yaml: the server rejected 1 of 3 queries: query 'q2': "):
        index.search_many(bodies, 10, "query.yaml")
    index.close()
    from elasticsearch import Elasticsearch

    closed = Elasticsearch("http://user:secret@127.0.0.1:9", node_class=PlainJSONNode, max_retries=0)
    with pytest.raises(RelevanceInputError) as error:
        ElasticsearchEngine(closed, "relevance-x-main", "http://user:secret@127.0.0.1:9").open(DOCS, CONFIG, "id")
    assert "cannot connect to Elasticsearch here" in str(error.value)
    assert "secret" not in str(error.value)


# ---------------------------------------------------------------- the gate, end to end


@pytest.fixture
def project(pytester: pytest.Pytester, server: Any, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    shutil.copytree(ROOT / "fixtures", pytester.path / "fixtures")
    pytester.makeini("[pytest]\nrelevance_engine = elasticsearch\nrelevance_metrics = ndcg@10 mrr@10 recall@100\n")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_gate=DEMO_TEST)
    monkeypatch.setenv("OSMEM_URL", server.url)
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:osmem", *args)


@pytest.mark.parametrize("mode", [[], ["-n", "2"]], ids=["no-xdist", "xdist"])
def test_the_gate_passes_fails_on_match_all_and_always_cleans_up(project, es, mode: list[str]) -> None:
    if mode:  # two tests, so both workers build an index
        project.makepyfile(test_gate=DEMO_TEST + DEMO_TEST.replace("test_demo", "test_demo_again"))
    result = run(project, *mode, "--relevance-update")
    assert result.ret == 0, result.stdout.str()
    entries = json.loads((project.path / "relevance-baseline.json").read_text())["entries"]
    assert all(entry["engine"].startswith("opensearch ") for entry in entries.values())
    assert all(entry["strata"]["all"]["n"] == 165 for entry in entries.values())
    assert run(project, *mode).ret == 0
    (project.path / "fixtures" / "query.yaml").write_text("query:\n  match_all: {}\n")
    result = run(project, *mode)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*relevance regression in relevance-baseline.json*"])
    names = {p.name.removeprefix("index-") for p in project.path.glob("index-relevance-*")}
    assert len(names) == (2 * 3 if mode else 3)  # one index per session and worker
    assert relevance_indices(es) == []  # every one deleted, also after the failing run


def test_an_unreachable_url_is_one_clear_message(pytester: pytest.Pytester) -> None:
    shutil.copytree(ROOT / "fixtures", pytester.path / "fixtures")
    pytester.makeini("[pytest]\nrelevance_engine = elasticsearch\n")
    pytester.makepyfile(test_gate=DEMO_TEST)
    result = pytester.runpytest_subprocess(
        "-p", "no:osmem", "-p", "no:hypothesispytest", "--relevance-es-url", "http://elastic:hunter2@127.0.0.1:9"
    )
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*http://***@127.0.0.1:9: cannot connect to Elasticsearch here*"])
    assert "hunter2" not in result.stdout.str()
    assert "pytest_relevance/" not in result.stdout.str()  # our own code raises no traceback
    # nor do the client libraries' retry logs (each with a traceback) reach the report
    assert "Captured log" not in result.stdout.str()
    assert "Traceback" not in result.stdout.str()
    assert len(result.stdout.lines) < 20


def test_url_comes_from_the_environment(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELEVANCE_ES_URL", "http://127.0.0.1:9")
    shutil.copytree(ROOT / "fixtures", pytester.path / "fixtures")
    pytester.makeini("[pytest]\nrelevance_engine = elasticsearch\n")
    pytester.makepyfile(test_gate=DEMO_TEST)
    result = pytester.runpytest_subprocess("-p", "no:osmem", "-p", "no:hypothesispytest")
    result.stdout.fnmatch_lines(["*http://127.0.0.1:9: cannot connect to Elasticsearch here*"])
    assert os.environ["RELEVANCE_ES_URL"] == "http://127.0.0.1:9"


def test_rejected_documents_are_named_and_the_index_is_removed(es: Any) -> None:
    config = {"mappings": {"properties": {"id": {"type": "keyword"}, "n": {"type": "integer"}}}}
    docs = [{"id": "a", "n": 1}, {"id": "b", "n": "not a number"}]
    with pytest.raises(RelevanceInputError, match=r"1 documents were rejected: b: mapper_parsing_exception"):
        ElasticsearchEngine(es, "relevance-docs-main", "http://x").open(docs, config, "id")
    assert not es.indices.exists(index="relevance-docs-main")


def test_an_interrupted_run_still_deletes_its_index(project: pytest.Pytester, es: Any) -> None:
    project.makepyfile(
        test_gate="def test_interrupted(relevance_index, request):\n"
        "    (request.config.rootpath / f'index-{relevance_index.index.name}').write_text('')\n"
        "    raise KeyboardInterrupt\n"
    )
    result = run(project)
    assert result.ret == 2  # pytest's exit status for an interrupted session
    assert len(list(project.path.glob("index-relevance-*"))) == 1  # the index was built
    assert relevance_indices(es) == []  # and deleted on the way out


# ---------------------------------------------------------------- URLs, secrets, a server that goes away


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "localhost:9200",
            "relevance_es_url: not an http(s) URL: write it as http://HOST:PORT or https://HOST[:PORT], "
            "e.g. http://localhost:9200",
        ),
        (
            "ftp://u:secret@host:21",
            "relevance_es_url: not an http(s) URL: write it as http://HOST:PORT or https://HOST[:PORT], "
            "e.g. http://localhost:9200",
        ),
        ("http://u:secret@host", "relevance_es_url: http://***@host has no port: write it as http://host:9200"),
        (
            "http://host:notaport",
            "relevance_es_url: not an http(s) URL: write it as http://HOST:PORT or https://HOST[:PORT], "
            "e.g. http://localhost:9200",
        ),
    ],
)
def test_a_url_the_client_cannot_use_is_one_message(url: str, message: str) -> None:
    with pytest.raises(RelevanceInputError) as error:
        make_client(url)
    assert str(error.value) == message


def test_good_urls_pass() -> None:
    assert check_url(" https://search.example.com ") == "https://search.example.com"
    assert check_url("http://127.0.0.1:9200") == "http://127.0.0.1:9200"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://user:p@secret@host:9200: boom", "http://***@host:9200: boom"),
        ("https://user:pw@host/x and http://a:b@c:1", "https://***@host/x and http://***@c:1"),
        ("http://host:9200/index", "http://host:9200/index"),
    ],
)
def test_redaction_hides_the_whole_userinfo(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_a_closed_port_logs_nothing_and_answers_at_once(caplog: pytest.LogCaptureFixture) -> None:
    from elasticsearch import Elasticsearch

    closed = Elasticsearch("http://127.0.0.1:9", node_class=PlainJSONNode)  # the default retries
    caplog.set_level("DEBUG")
    with pytest.raises(RelevanceInputError) as error:
        ElasticsearchEngine(closed, "relevance-x-main", "http://127.0.0.1:9").open(DOCS, CONFIG, "id")
    assert str(error.value).startswith("http://127.0.0.1:9: cannot connect to Elasticsearch here (ConnectionError)")
    assert [r for r in caplog.records if r.levelname != "DEBUG"] == []
    assert logging_levels_restored()


def logging_levels_restored() -> bool:
    import logging

    return all(logging.getLogger(name).level == logging.NOTSET for name in ("elastic_transport", "urllib3"))


def test_a_teardown_after_the_server_died_is_one_line(caplog: pytest.LogCaptureFixture) -> None:
    from elasticsearch import Elasticsearch

    doomed = osmem_server.OsmemServer.start(seed=[], freeze=False, japanese=False)
    client = Elasticsearch(doomed.url, node_class=PlainJSONNode)
    index = ElasticsearchEngine(client, "relevance-doomed-main", doomed.url).open(DOCS, CONFIG, "id")
    doomed.close()
    caplog.set_level("INFO")
    with pytest.raises(RelevanceInputError) as error:
        index.close()
    assert str(error.value) == (
        f"{doomed.url}: could not delete index 'relevance-doomed-main' at the end of the session (ConnectionError: "
        "the server stopped answering); if it comes back with its data, delete that index by hand"
    )
    assert error.value.__cause__ is None and error.value.__suppress_context__
    assert caplog.records == []
    index.close()  # a second close does nothing
    client.close()


def test_analyze_asks_the_server(es: Any) -> None:
    index = ElasticsearchEngine(es, "relevance-analyze-main", "http://x").open(DOCS, CONFIG, "id")
    try:
        tokens = index.analyze(["Red Shoes"], None, "title")
    finally:
        index.close()
    assert [t["token"] for t in tokens] == ["red", "shoes"]
    assert tokens[1] == {"token": "shoes", "start_offset": 4, "end_offset": 9, "position": 1}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_failure_explains_its_movers_on_a_second_index_and_deletes_both(project, es) -> None:
    """The index config changed since the committed baseline: its inputs, read back from git, go into a second
    index of the plugin's own on the same server, which is deleted with the first."""
    import subprocess

    assert run(project, "--relevance-update").ret == 0
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "baseline"]):
        subprocess.run(["git", *args], cwd=project.path, env=env, check=True, capture_output=True)
    index = project.path / "fixtures" / "index.yaml"
    text_title = "      type: text\n      analyzer: english\n"
    index.write_text(index.read_text().replace(text_title, "      type: keyword\n", 1))
    result = run(project)
    assert result.ret == 1, result.stdout.str()
    text = result.stdout.str()
    assert "index config changed" in text
    assert any(line.strip().startswith("why ") for line in result.stdout.lines), text
    assert "today's score trees only" not in text and "not explained" not in text
    assert relevance_indices(es) == []
