"""The Elasticsearch (and OpenSearch) engine: the real gate for teams that run it.

One index per session and xdist worker (`relevance-<run id>-<worker>`), created from the index config, refused if the
name exists, filled with the bulk helper, refreshed once. Queries are rendered client side (not every server has
search templates) and sent with msearch in batches, a few batches at a time, each body with `size` = the needed
depth, `_source` off and a sort tiebreak on the id keyword so that ties are deterministic. Only the index this
session created is ever deleted, by its exact name.
"""

from __future__ import annotations

import importlib
import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from pytest_relevance.engines.base import Hits
from pytest_relevance.engines.elasticsearch.profile import counted
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation.cost import QueryCost
from pytest_relevance.explain.tree import Node

_CREDENTIALS = re.compile(r"(?<=://)\S*@")  # up to the last @: a password may hold an @ of its own
_CLIENT_LOGGERS = ("elastic_transport", "elasticsearch", "opensearch", "urllib3")
_UNSORTED = frozenset(("rescore", "retriever"))  # body keys beside which Elasticsearch refuses a top-level sort


def redact(text: object) -> str:
    """Credentials never reach an error message or a log line: the whole userinfo becomes ***."""
    return _CREDENTIALS.sub("***@", str(text))


@contextmanager
def _quiet() -> Iterator[None]:
    """The client libraries log each failed attempt at WARNING, with a traceback: about 170 lines in a report for one
    closed port, repeating what our one-line error says. Their loggers are raised to CRITICAL while we call."""
    loggers = [logging.getLogger(name) for name in _CLIENT_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _once(client: Any) -> Any:
    """The client without retries, for calls where a retry only delays the message (connect, the final delete)."""
    options = getattr(client, "options", None)
    return options(max_retries=0) if options is not None else client


def check_url(url: str) -> str:
    """An http(s) URL with a host (and for http a port, which the client requires); otherwise one message that does
    not repeat the URL (it may hold a password)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise RelevanceInputError(
            "relevance_es_url",
            "not an http(s) URL: write it as http://HOST:PORT or https://HOST[:PORT], e.g. http://localhost:9200",
        )
    if parts.scheme == "http" and port is None:
        raise RelevanceInputError(
            "relevance_es_url", f"{redact(url.strip())} has no port: write it as http://{parts.hostname}:9200"
        )
    return url.strip()


def _is_opensearch_client(client: Any) -> bool:
    return type(client).__module__.startswith("opensearchpy")


def _reason(error: Any) -> str:
    """The server's own words for an error object, an exception or an msearch item."""
    info = getattr(error, "info", None) or getattr(error, "body", None) or error
    if isinstance(info, Mapping):
        inner = info.get("error", info)
        if isinstance(inner, Mapping):
            root = (inner.get("root_cause") or [inner])[0]
            return redact(f"{root.get('type', 'error')}: {root.get('reason', inner.get('reason', inner))}")
        return redact(inner)
    return redact(getattr(error, "message", None) or error)


class ElasticsearchEngine:
    """Opens a fixture index on a live server through an `elasticsearch.Elasticsearch` or `opensearchpy.OpenSearch`."""

    def __init__(self, client: Any, name: str, url: str, batch: int = 100, concurrency: int = 4) -> None:
        self.client, self.name, self.url = client, name, redact(url)
        self.batch, self.concurrency = max(1, batch), max(1, concurrency)

    def sibling(self, suffix: str) -> ElasticsearchEngine:
        """An engine that opens a second index of the plugin's own (`<name>-<suffix>`, created and deleted as the
        first) on the same cluster: the baseline's inputs, to explain a failure."""
        return ElasticsearchEngine(self.client, f"{self.name}-{suffix}", self.url, self.batch, self.concurrency)

    def open(
        self, corpus: Sequence[dict[str, Any]], index_config: dict[str, Any], id_field: str, source: str = "index"
    ) -> ElasticsearchIndex:
        with _quiet():
            return ElasticsearchIndex(self, corpus, index_config, id_field, source)


class ElasticsearchIndex:
    def __init__(
        self,
        engine: ElasticsearchEngine,
        corpus: Sequence[dict[str, Any]],
        config: dict[str, Any],
        id_field: str,
        source: str,
    ) -> None:
        self.engine, self.client, self.name = engine, engine.client, engine.name
        self.opensearch = _is_opensearch_client(self.client)
        self.created = False
        info = self._call("connect to", lambda: _once(self.client).info())
        distribution = (info.get("version") or {}).get("distribution") or "elasticsearch"
        self.identity = f"{distribution} {(info.get('version') or {}).get('number', '?')}"
        self.id_field = id_field
        self.corpus_source = str(getattr(corpus, "path", "the corpus"))
        self.ids: set[str] = set()
        config = _with_id_keyword(config, id_field, source)
        if self._call("check", lambda: self.client.indices.exists(index=self.name)):
            raise RelevanceInputError(
                self.engine.url,
                f"index {self.name!r} already exists; refusing to touch an index this session did not create",
            )
        try:
            if self.opensearch:
                self.client.indices.create(index=self.name, body=config)
            else:
                self.client.indices.create(index=self.name, **config)
        except Exception as exc:
            if _status(exc) == 400:
                raise RelevanceInputError(source, f"the server rejected the index config: {_reason(exc)}") from None
            raise self._connection_error(exc) from None
        self.created = True
        try:
            self._index(corpus)
        except BaseException:
            self.close()
            raise

    def _index(self, corpus: Sequence[dict[str, Any]]) -> None:
        helpers = importlib.import_module("opensearchpy.helpers" if self.opensearch else "elasticsearch.helpers")
        self.ids = {str(doc[self.id_field]) for doc in corpus}
        actions = ({"_index": self.name, "_id": str(doc[self.id_field]), "_source": doc} for doc in corpus)
        _, errors = helpers.bulk(self.client, actions, raise_on_error=False, raise_on_exception=False, chunk_size=500)
        if errors:
            shown = []
            for item in errors[:5]:
                detail = next(iter(item.values()))  # {"index": {...}}
                shown.append(f"{detail.get('_id')}: {_reason(detail.get('error', detail))}")
            more = f" and {len(errors) - 5} more" if len(errors) > 5 else ""
            raise RelevanceInputError(
                self.engine.url, f"{len(errors)} documents were rejected: " + "; ".join(shown) + more
            )
        self.client.indices.refresh(index=self.name)

    def _call(self, what: str, fn: Any) -> Any:
        try:
            result = fn()
        except Exception as exc:
            raise self._connection_error(exc, what) from None
        return getattr(result, "body", result)

    def _connection_error(self, exc: Exception, what: str = "use") -> RelevanceInputError:
        status = _status(exc)
        if status in (401, 403):
            return RelevanceInputError(
                self.engine.url,
                f"authentication failed ({status}): set relevance_es_api_key, or relevance_es_user and "
                "relevance_es_password (or RELEVANCE_ES_API_KEY / RELEVANCE_ES_USER / RELEVANCE_ES_PASSWORD)",
            )
        if status is None:
            return RelevanceInputError(
                self.engine.url,
                f"cannot {what} Elasticsearch here ({type(exc).__name__}): start it (in CI, an elasticsearch service "
                "container) or point relevance_es_url / RELEVANCE_ES_URL at a running cluster",
            )
        return RelevanceInputError(self.engine.url, f"the server answered {status}: {_reason(exc)}")

    def search_many(self, bodies: Mapping[str, dict[str, Any]], size: int, source: str) -> dict[str, Hits]:
        return self._answered(bodies, size, source, profiled=False)

    def profile(
        self, bodies: Mapping[str, dict[str, Any]], size: int, source: str, repeats: int
    ) -> dict[str, QueryCost]:
        """Each body's counts from the server's profile (`profile`), and the profiled time of each of `repeats`."""
        runs = [self._answered(bodies, size, source, profiled=True) for _ in range(repeats)]
        costs = {}
        for qid in bodies:
            parsed = [counted(run[qid]) for run in runs]
            counters, clauses, _ = parsed[0]
            costs[qid] = QueryCost(counters, clauses, tuple(seconds for _, _, seconds in parsed))
        return costs

    def _answered(self, bodies: Mapping[str, dict[str, Any]], size: int, source: str, profiled: bool) -> dict[str, Any]:
        items = list(bodies.items())
        batches = [items[i : i + self.engine.batch] for i in range(0, len(items), self.engine.batch)]
        with _quiet(), ThreadPoolExecutor(self.engine.concurrency) as pool:
            answers = list(pool.map(lambda batch: self._msearch(batch, size, source, profiled), batches))
        results: dict[str, Any] = {}
        failures: list[str] = []
        for batch_results, batch_failures in answers:
            results.update(batch_results)
            failures += batch_failures
        if failures:
            raise RelevanceInputError(
                source, f"the server rejected {len(failures)} of {len(items)} queries: " + "; ".join(failures[:5])
            )
        return results

    def request_body(self, body: dict[str, Any], size: int) -> dict[str, Any]:
        """What is sent for one query: the rendered body plus depth, no _source, scores and the id tiebreak.

        The tiebreak follows the template's own sort (by score unless it has one). A body with a rescore or a
        retriever is sent without a top-level sort, which Elasticsearch refuses beside either; its ties are broken
        by id on arrival."""
        request = {**body, "size": size, "_source": False, "track_scores": True, "track_total_hits": False}
        if not _UNSORTED.intersection(body):
            own = body.get("sort") or [{"_score": {"order": "desc"}}]
            request["sort"] = [*(own if isinstance(own, list) else [own]), {self.id_field: {"order": "asc"}}]
        return request

    def _msearch(
        self, batch: list[tuple[str, dict[str, Any]]], size: int, source: str, profiled: bool = False
    ) -> tuple[dict[str, Any], list[str]]:
        """query id -> its hits (`profiled`: the whole response, with its profile and total), and the failures."""
        lines: list[dict[str, Any]] = []
        for _, body in batch:
            request = self.request_body(body, size)
            if profiled:
                request.update(profile=True, track_total_hits=True)
            lines += [{"index": self.name}, request]
        try:
            search = self.client.msearch
            response = search(body=lines) if self.opensearch else search(searches=lines)
        except Exception as exc:
            if _status(exc) == 400 and len(batch) > 1:  # some servers reject the whole request for one bad query
                halves = [batch[: len(batch) // 2], batch[len(batch) // 2 :]]
                parts = [self._msearch(half, size, source, profiled) for half in halves]
                return {**parts[0][0], **parts[1][0]}, parts[0][1] + parts[1][1]
            if _status(exc) == 400:
                return {}, [f"query {batch[0][0]!r}: {_reason(exc)}"]
            raise self._connection_error(exc, "search") from None
        answers = getattr(response, "body", response)["responses"]
        results, failures = {}, []
        for (qid, body), answer in zip(batch, answers, strict=True):
            if "error" in answer:
                failures.append(f"query {qid!r}: {_reason(answer)}")
                continue
            if profiled:
                results[qid] = answer
                continue
            hits = [(hit["_id"], float(hit.get("_score") or 0.0)) for hit in answer["hits"]["hits"]]
            results[qid] = sorted(hits, key=lambda hit: (-hit[1], hit[0])) if _UNSORTED.intersection(body) else hits
        return results, failures

    def explain(
        self, body: dict[str, Any], doc_ids: Sequence[str], size: int, source: str, query_id: str
    ) -> dict[str, Node]:
        """The server's explanations mapped onto the embedded engine's tree shape (elasticsearch_explain). The
        documents among the body's top `size` are explained by the search itself with `explain: true`, so
        everything the body does (rescore, min_score, function_score) is in the root, which is the hit's score;
        any other document by the `_explain` API of its query (a document the query does not match is a root
        that did not match, and says why)."""
        from pytest_relevance.engines.elasticsearch.explain import from_elasticsearch

        missing = [doc for doc in doc_ids if doc not in self.ids]
        if missing:
            raise RelevanceInputError(self.corpus_source, f"no document with the id {missing[0]!r} (asked to explain)")
        request = {**self.request_body(body, size), "explain": True}
        with _quiet():
            answer = self._call("search", lambda: self._search(request))
            hits = {hit["_id"]: hit for hit in answer["hits"]["hits"] if "_explanation" in hit}
            trees = {}
            for doc in doc_ids:
                if doc in hits:
                    trees[doc] = from_elasticsearch(hits[doc]["_explanation"])
                    continue
                query = body.get("query") or {"match_all": {}}
                found = self._call("explain with", lambda doc=doc, query=query: self._explain(doc, query))
                trees[doc] = from_elasticsearch(found.get("explanation") or {}, bool(found.get("matched")))
        return trees

    def _search(self, request: dict[str, Any]) -> Any:
        if self.opensearch:
            return self.client.search(index=self.name, body=request)
        return self.client.search(index=self.name, **request)

    def _explain(self, doc: str, query: dict[str, Any]) -> Any:
        if self.opensearch:
            return self.client.explain(index=self.name, id=doc, body={"query": query})
        return self.client.explain(index=self.name, id=doc, query=query)

    def analyze(self, texts: Sequence[str], analyzer: str | None, field: str | None) -> list[dict[str, Any]]:
        """The server's own `_analyze` on this session's index (so the index config's custom analyzers apply)."""
        body: dict[str, Any] = {"text": list(texts)}
        body.update({"analyzer": analyzer} if analyzer is not None else {"field": field})
        if self.opensearch:
            answer = self._call("analyze with", lambda: self.client.indices.analyze(index=self.name, body=body))
        else:
            answer = self._call("analyze with", lambda: self.client.indices.analyze(index=self.name, **body))
        keys = ("token", "start_offset", "end_offset", "position")
        tokens = []
        for token in answer.get("tokens", []):
            out = {key: token[key] for key in keys if key in token}
            if token.get("positionLength", 1) > 1:
                out["positionLength"] = token["positionLength"]
            tokens.append(out)
        return tokens

    def close(self) -> None:
        """Delete the index this session created, by its exact name; never a pattern, never another index."""
        if not self.created:
            return
        self.created = False
        try:
            with _quiet():
                _once(self.client).indices.delete(index=self.name)
        except Exception as exc:
            status = _status(exc)
            if status is None:  # the server went away during the run: nothing left to do but say so, in one line
                raise RelevanceInputError(
                    self.engine.url,
                    f"could not delete index {self.name!r} at the end of the session ({type(exc).__name__}: the "
                    "server stopped answering); if it comes back with its data, delete that index by hand",
                ) from None
            if status != 404:
                raise self._connection_error(exc, f"delete index {self.name!r} on") from None


def _status(exc: BaseException) -> int | None:
    for attribute in ("status_code", "status"):
        value = getattr(exc, attribute, None)
        if isinstance(value, int):
            return value
    meta = getattr(exc, "meta", None)
    return getattr(meta, "status", None)


def _with_id_keyword(config: dict[str, Any], id_field: str, source: str) -> dict[str, Any]:
    """The tiebreak sorts on the id: it must be a keyword field; an unmapped id is added as one."""
    mappings = dict(config.get("mappings") or {})
    properties = dict(mappings.get("properties") or {})
    mapped = properties.get(id_field)
    if mapped is None:
        properties[id_field] = {"type": "keyword"}
    elif mapped.get("type") != "keyword":
        raise RelevanceInputError(
            source,
            f"field {id_field!r} must be mapped as keyword: the sort tiebreak that makes ties deterministic uses it",
        )
    return {**config, "mappings": {**mappings, "properties": properties}}


def make_client(url: str, api_key: str = "", user: str = "", password: str = "", ca_certs: str = "") -> Any:
    """An `elasticsearch.Elasticsearch` from the relevance_es_* settings."""
    from elasticsearch import Elasticsearch

    url = check_url(url)
    options: dict[str, Any] = {"request_timeout": 60}
    if api_key:
        options["api_key"] = api_key
    elif user:
        options["basic_auth"] = (user, password)
    if ca_certs:
        options["ca_certs"] = ca_certs
    return Elasticsearch(url, **options)
