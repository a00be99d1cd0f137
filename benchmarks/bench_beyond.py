"""The demo gate with four metrics beyond relevance against the same gate without them (issue 27: within 1.2x).

    python benchmarks/bench_beyond.py

Whole warm pytest runs of the demo (a fresh copy of fixtures/, the index cached, baseline written first), the median
of a few each way, then the evaluation alone in this process, where the extra metrics' cost is not hidden by the
session's start-up.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = "ndcg@10 mrr@10 recall@100"
BEYOND = "distinct@10(field=brand) age@10(field=released) exposure_gini@10(field=brand) novelty@10"
ROUNDS = 5
GATE = "def test_demo(relevance_index, relevance_snapshot):\n    assert relevance_snapshot == relevance_index.run()\n"


def wall(folder: Path, metrics: str) -> float:
    """The median wall time of warm runs of the gate with these metrics (baseline written, index cached)."""
    (folder / "pytest.ini").write_text(f"[pytest]\nrelevance_metrics = {metrics}\n")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    subprocess.run([*command, "--relevance-update"], cwd=folder, check=True, capture_output=True, env=env)
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        subprocess.run(command, cwd=folder, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def evaluation_only() -> tuple[float, float]:
    """Seconds to evaluate the demo's run without and with the four metrics (the corpus read once, as a session
    does), best of ROUNDS."""
    sys.path.insert(0, str(ROOT))
    from pytest_relevance.engines.base import FixtureIndex
    from pytest_relevance.engines.embedded import EmbeddedEngine
    from pytest_relevance.evaluation.diversity import CorpusFields
    from pytest_relevance.evaluation.evaluation import evaluate
    from pytest_relevance.inputs.clock import parse_instant
    from pytest_relevance.inputs.corpus import load_corpus, load_mapping
    from pytest_relevance.inputs.templates import load_template
    from pytest_relevance.judgments.model import load_judgments
    from pytest_relevance.metrics.ranking import depth, parse_metrics

    folder = ROOT / "fixtures"
    corpus = load_corpus(folder / "corpus.ndjson")
    judgments = load_judgments(folder / "judgments.yaml")
    now = parse_instant("2026-01-15T12:00:00Z")
    index = EmbeddedEngine().open(corpus, load_mapping(folder / "index.yaml"), "id")
    base, more = parse_metrics(BASE), parse_metrics(f"{BASE} {BEYOND}")
    fixture = FixtureIndex(index, load_template(folder / "query.yaml"), judgments, now, depth(more), "q")
    hits = index.search_many(fixture.bodies(), depth(more), "q")
    run = {qid: [doc for doc, _ in ranked] for qid, ranked in hits.items()}
    fields = CorpusFields(corpus, "id", corpus.path, corpus.lines)
    out = []
    for metrics in (base, more):
        best = float("inf")
        for _ in range(ROUNDS):
            start = time.perf_counter()
            evaluate(run, judgments, metrics, fields, now)
            best = min(best, time.perf_counter() - start)
        out.append(best)
    return out[0], out[1]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shutil.copytree(ROOT / "fixtures", folder / "fixtures")
        (folder / "test_gate.py").write_text(GATE)
        without = wall(folder, BASE)
        with_them = wall(folder, f"{BASE} {BEYOND}")
    print(f"demo gate, warm, median of {ROUNDS}: without {without:.3f} s, with {BEYOND}: {with_them:.3f} s")
    print(f"ratio {with_them / without:.3f}x (issue 27 asks for <= 1.2x)")
    base, more = evaluation_only()
    print(f"evaluation alone, best of {ROUNDS}: {base * 1000:.1f} ms -> {more * 1000:.1f} ms ({more / base:.2f}x)")


if __name__ == "__main__":
    main()
