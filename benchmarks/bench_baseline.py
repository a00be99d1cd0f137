"""A 5,000-query baseline with rankings at depth 10: its size, and its load plus compare time.

    python benchmarks/bench_baseline.py [QUERIES]

Budget (issue 13): under 3 MB, load + compare (with the churn of every query) under 0.5 s. The reference measured
in the same run is a bare `json.loads` of the same file: the ratio says what the baseline's own work costs on top.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

from pytest_relevance.config.settings import Tolerance
from pytest_relevance.evaluation.evaluation import evaluate
from pytest_relevance.gate import churn
from pytest_relevance.gate.baseline_file import dumps, load_baseline
from pytest_relevance.gate.compare import compare
from pytest_relevance.gate.entry import make_entry
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import parse_metrics

METRICS = parse_metrics("ndcg@10 mrr@10 recall@100")


def suite(n: int, seed: int) -> tuple[Judgments, dict[str, list[str]]]:
    rnd = random.Random(seed)
    queries, run = [], {}
    for i in range(n):
        docs = [f"doc{rnd.randrange(1_000_000):07d}" for _ in range(120)]
        grades = {d: rnd.randint(0, 3) for d in rnd.sample(docs, 20)}
        queries.append(Query(f"q{i:05d}", f"query {i}", ("head", "torso", "tail")[i % 3], {}, grades))
        run[f"q{i:05d}"] = docs[:100]
    return Judgments(tuple(queries), "v1", "bench"), run


def best(fn, rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    judgments, run = suite(n, 1)
    evaluation = evaluate(run, judgments, METRICS)
    tolerance = Tolerance()
    entry = make_entry(evaluation, "v1", "bench", tolerance, "bench")
    changed = {q: docs[1::-1] + docs[2:] if i % 5 == 0 else docs for i, (q, docs) in enumerate(run.items())}
    current = evaluate(changed, judgments, METRICS)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "relevance-baseline.json"
        path.write_text(dumps({"tests/test_search.py::test_quality": entry}))
        size = path.stat().st_size
        without = len(dumps({"t": {k: v for k, v in entry.items() if k not in ("rankings", "rankings_depth")}}))

        def ours() -> None:
            loaded = load_baseline(path)["tests/test_search.py::test_quality"]
            comparison = compare(loaded, current, tolerance)
            assert comparison.rankings is not None and comparison.depth is not None
            churn.per_stratum(churn.per_query(comparison.rankings, current.run, comparison.depth), judgments.groups)

        reference = best(lambda: json.loads(path.read_text()))
        measured = best(ours)
    lines = len(dumps({"t": entry}).splitlines())
    print(f"{n} queries, rankings at depth {entry['rankings_depth']}")
    print(f"baseline size: {size / 1e6:.2f} MB ({without / 1e6:.2f} MB without rankings); budget 3 MB; {lines} lines")
    print(f"load + compare + churn: {measured * 1000:.0f} ms (best of 3); budget 500 ms")
    print(f"reference json.loads of the same file: {reference * 1000:.0f} ms; ratio {measured / reference:.1f}x")


if __name__ == "__main__":
    main()
