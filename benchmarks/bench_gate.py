"""The demo gate and Cranfield: whole `pytest -m relevance` wall time, and where the time goes.

    python benchmarks/bench_gate.py

For each collection: the wall time of a real pytest process running the gate, then the same steps timed one by one
in this process, split into the engine's share (building the index, answering the queries) and ours (loading files,
rendering templates, evaluation, comparison, baseline entry).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "engines"))

from test_embedded import CRANFIELD, DEMO_TEST, cranfield_to  # noqa: E402

from pytest_relevance.config.settings import Tolerance  # noqa: E402
from pytest_relevance.engines.base import FixtureIndex  # noqa: E402
from pytest_relevance.engines.embedded import EmbeddedEngine  # noqa: E402
from pytest_relevance.engines.embedded.analysis import filters  # noqa: E402
from pytest_relevance.evaluation.evaluation import evaluate  # noqa: E402
from pytest_relevance.gate.compare import compare  # noqa: E402
from pytest_relevance.gate.entry import make_entry  # noqa: E402
from pytest_relevance.inputs.clock import parse_instant  # noqa: E402
from pytest_relevance.inputs.corpus import load_corpus, load_mapping  # noqa: E402
from pytest_relevance.inputs.templates import load_template  # noqa: E402
from pytest_relevance.judgments.model import load_judgments  # noqa: E402
from pytest_relevance.metrics.ranking import depth, parse_metrics  # noqa: E402

METRICS = "ndcg@10 mrr@10 recall@100"


def split(folder: Path) -> dict[str, float]:
    times: dict[str, float] = {}

    def step(name: str, fn, *args):
        start = time.perf_counter()
        out = fn(*args)
        times[name] = times.get(name, 0.0) + time.perf_counter() - start
        return out

    corpus = step("ours: load files", load_corpus, folder / "corpus.ndjson")
    mapping = step("ours: load files", load_mapping, folder / "index.yaml")
    judgments = step("ours: load files", load_judgments, folder / "judgments.yaml")
    template = step("ours: load files", load_template, folder / "query.yaml")
    metrics = parse_metrics(METRICS)
    # a session starts with the stemmers' process-wide caches empty
    filters.porter_cached.cache_clear()
    filters.kstem_cached.cache_clear()
    index = step("engine: build index", EmbeddedEngine().open, corpus, mapping, "id")
    fixture = FixtureIndex(index, template, judgments, parse_instant("2026-01-15T12:00:00Z"), depth(metrics), "q")
    bodies = step("ours: render templates", fixture.bodies)
    hits = step("engine: answer queries", index.search_many, bodies, depth(metrics), "q")
    run = {qid: [doc for doc, _ in ranked] for qid, ranked in hits.items()}
    evaluation = step("ours: evaluate", evaluate, run, judgments, metrics)
    entry = step("ours: compare + entry", make_entry, evaluation, judgments.version, index.identity, Tolerance(), "")
    step("ours: compare + entry", compare, entry, evaluation, Tolerance())
    return times


def wall(folder: Path) -> float:
    """A warm second run, with bytecode caching on as in any installed environment."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "relevance"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([*command, "--relevance-update"], cwd=folder, check=True, capture_output=True, env=env)
    start = time.perf_counter()
    subprocess.run(command, cwd=folder, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def report(name: str, folder: Path) -> None:
    (folder / "pytest.ini").write_text(
        f"[pytest]\nrelevance_judgments = judgments.yaml\nrelevance_corpus = corpus.ndjson\n"
        f"relevance_index_config = index.yaml\nrelevance_query = query.yaml\nrelevance_metrics = {METRICS}\n"
    )
    (folder / "test_gate.py").write_text(DEMO_TEST)
    seconds = wall(folder)
    rounds = [split(folder) for _ in range(3)]  # best of three per step: one garbage collection is not our cost
    times = {step: min(r[step] for r in rounds) for step in rounds[0]}
    total = sum(times.values())
    ours = sum(v for k, v in times.items() if k.startswith("ours"))
    print(f"{name}: `pytest -m relevance` wall time {seconds:.2f} s (goal < 3 s)")
    for key, value in times.items():
        print(f"  {key:<26} {value * 1000:8.1f} ms")
    print(f"  our share of the gate's work: {ours / total:.1%} (goal < 20%)")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        demo = Path(folder) / "demo"
        shutil.copytree(ROOT / "fixtures", demo)
        report("demo (1,122 docs, 165 queries)", demo)
        if CRANFIELD.is_dir():
            cran = Path(folder) / "cranfield"
            cran.mkdir()
            cranfield_to(cran)
            report("cranfield (1,400 docs, 225 queries)", cran)
        else:
            print("cranfield: ../shared/data/cranfield not present, skipped")


if __name__ == "__main__":
    main()
