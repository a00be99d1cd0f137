"""The Elasticsearch engine against a naive loop, on osmem-server (an in-memory OpenSearch-compatible server).

    python benchmarks/bench_elasticsearch.py [--docs 5000] [--queries 1000]

Builds the index with our engine (bulk, one refresh) and reports documents/second; then runs every judged query
through our path (render, msearch in batches with bounded concurrency, evaluate, compare) and through a naive loop of
one `client.search` per query, in the same run, on the same index. Prints both and the ratio, and our own overhead
(rendering, evaluation, comparison) as a share of our total.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from osmem_server import OsmemServer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "engines"))

from test_elasticsearch import PlainJSONNode

from pytest_relevance.config.settings import Tolerance
from pytest_relevance.engines.base import FixtureIndex
from pytest_relevance.engines.elasticsearch.engine import ElasticsearchEngine
from pytest_relevance.evaluation.evaluation import evaluate
from pytest_relevance.gate.compare import compare
from pytest_relevance.gate.entry import make_entry
from pytest_relevance.inputs.clock import parse_instant
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import parse_metrics

WORDS = [f"w{i}" for i in range(2000)]
CONFIG = {"mappings": {"properties": {"id": {"type": "keyword"}, "title": {"type": "text"}, "body": {"type": "text"}}}}
TEMPLATE = {"query": {"multi_match": {"query": "{{query}}", "fields": ["title^2", "body"]}}}


def data(docs: int, queries: int) -> tuple[list[dict], Judgments]:
    rnd = random.Random(5)
    corpus = [
        {"id": f"d{i}", "title": " ".join(rnd.choices(WORDS, k=5)), "body": " ".join(rnd.choices(WORDS, k=40))}
        for i in range(docs)
    ]
    judged = []
    for q in range(queries):
        doc = rnd.choice(corpus)
        text = " ".join(doc["title"].split()[:2])
        grades = {doc["id"]: 3, **{rnd.choice(corpus)["id"]: rnd.randint(0, 2) for _ in range(5)}}
        judged.append(Query(f"q{q}", text, ("head", "torso", "tail")[q % 3], {}, grades))
    return corpus, Judgments(tuple(judged), "bench", "bench")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=1000)
    args = parser.parse_args()
    from elasticsearch import Elasticsearch

    corpus, judgments = data(args.docs, args.queries)
    metrics = parse_metrics("ndcg@10 mrr@10 recall@100")
    with OsmemServer.start(seed=[], freeze=False, japanese=False) as server:
        client = Elasticsearch(server.url, node_class=PlainJSONNode, request_timeout=120)
        start = time.perf_counter()
        index = ElasticsearchEngine(client, "relevance-bench-main", server.url).open(corpus, CONFIG, "id")
        build = time.perf_counter() - start
        fixture = FixtureIndex(index, TEMPLATE, judgments, parse_instant("2026-01-15T12:00:00Z"), 100, "bench")
        timings = {}
        start = time.perf_counter()
        bodies = fixture.bodies()
        timings["render"] = time.perf_counter() - start
        start = time.perf_counter()
        hits = index.search_many(bodies, 100, "bench")
        timings["msearch"] = time.perf_counter() - start
        start = time.perf_counter()
        evaluation = evaluate({q: [d for d, _ in h] for q, h in hits.items()}, judgments, metrics)
        compare(make_entry(evaluation, "bench", index.identity, Tolerance(), ""), evaluation, Tolerance())
        timings["evaluate+compare"] = time.perf_counter() - start
        start = time.perf_counter()
        for body in bodies.values():
            client.search(index="relevance-bench-main", body={**body, "size": 100})
        naive = time.perf_counter() - start
        index.close()
        client.close()
    ours = sum(timings.values())
    print(f"index build: {args.docs} docs in {build:.2f} s = {args.docs / build:,.0f} docs/s")
    print(
        f"gate, {args.queries} queries: ours {ours:.2f} s (render {timings['render']:.3f}, msearch "
        f"{timings['msearch']:.2f}, evaluate+compare {timings['evaluate+compare']:.3f})"
    )
    print(f"naive loop of client.search: {naive:.2f} s; ours/naive = {ours / naive:.2f} (goal <= 1.0)")
    overhead = timings["render"] + timings["evaluate+compare"]
    print(f"our overhead (render, evaluate, compare): {overhead / ours:.1%} of our total (goal < 10%)")


if __name__ == "__main__":
    main()
