"""What explaining costs: the movers of a failing demo gate, and `pytest-relevance diff` against one gate run.

    python benchmarks/bench_explain.py [--rounds 5]

A copy of the demo is baselined and committed in a temporary git repository, then its template's title boost goes
from 3 to 1 (the demo's head stratum regresses). Measured in the same run, medians of `--rounds`:
- the failing gate (a real pytest process, which explains its movers) and, in this process, the explanation alone
  (rebuilding the baseline's state from its blob ids and explaining two documents of each mover on both states);
  the ratio is the explanation's share over the rest of the gate;
- `pytest-relevance diff` (a real process: both revisions measured, movers explained) against the gate's process.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
    subprocess.run(["git", *args], cwd=root, env={**env, "GIT_COMMITTER_EMAIL": "b@b"}, check=True, capture_output=True)


def _project(root: Path) -> None:
    shutil.copytree(ROOT / "fixtures", root / "fixtures")
    (root / "pytest.ini").write_text("[pytest]\nrelevance_metrics = ndcg@10 mrr@10 recall@100\n")
    (root / "test_gate.py").write_text(
        "def test_demo(relevance_index, relevance_snapshot):\n    assert relevance_snapshot == relevance_index.run()\n"
    )
    _pytest(root, "--relevance-update", "--relevance-reason", "baseline")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "baseline")
    query = root / "fixtures" / "query.yaml"
    query.write_text(query.read_text().replace('"title^3"', '"title^1"'))


def _pytest(root: Path, *args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *args], cwd=root, capture_output=True)
    return time.perf_counter() - start


def _diff(root: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest_relevance.cli.commands", "diff"], cwd=root, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    return time.perf_counter() - start


def _explanation(root: Path) -> float:
    """The explanation step of the failing gate, in this process: the gate's own functions on the same inputs."""
    from pytest_relevance.config.settings import read
    from pytest_relevance.engines.base import FixtureIndex
    from pytest_relevance.engines.embedded import EmbeddedEngine
    from pytest_relevance.evaluation.evaluation import evaluate
    from pytest_relevance.explain.why import DEFAULT_DOCUMENTS, baseline_state, explain_movers
    from pytest_relevance.gate.baseline_file import load_baseline
    from pytest_relevance.gate.verdict import decide
    from pytest_relevance.inputs.clock import parse_instant
    from pytest_relevance.inputs.corpus import CorpusFile, load_mapping
    from pytest_relevance.inputs.templates import load_template
    from pytest_relevance.judgments.model import load_judgments
    from pytest_relevance.util.fingerprints import index_inputs

    fixtures = root / "fixtures"
    values = {"relevance_metrics": "ndcg@10 mrr@10 recall@100"}
    from pytest_relevance.config.keys import SETTINGS

    settings = read(lambda key: values.get(key, SETTINGS[key][1]))
    corpus, config = CorpusFile(fixtures / "corpus.ndjson"), load_mapping(fixtures / "index.yaml")
    judgments = load_judgments(fixtures / "judgments.yaml")
    engine = EmbeddedEngine()
    index = engine.open(corpus, config, "id", str(fixtures / "index.yaml"))
    inputs = index_inputs(corpus.fingerprint, fixtures / "index.yaml", config, fixtures / "query.yaml")
    template = load_template(fixtures / "query.yaml")
    fixture = FixtureIndex(index, template, judgments, parse_instant("2026-01-15T12:00:00Z"), 100, "q", 1, None, inputs)
    evaluation = evaluate(fixture.run(), judgments, settings.metrics)
    entry = load_baseline(root / "relevance-baseline.json")["test_gate.py::test_demo"]
    verdict = decide("test_gate.py::test_demo", entry, evaluation, judgments, index.identity, settings)
    assert verdict.status == "regressed", verdict.status
    paths = {"corpus": corpus.path, "index config": fixtures / "index.yaml", "query template": fixtures / "query.yaml"}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        old, reason, _ = baseline_state(entry.get("inputs"), fixture, paths, engine, "id", Path(scratch))
        assert reason is None, reason
        explain_movers(verdict.movers["lost"] + verdict.movers["gained"], old, fixture, DEFAULT_DOCUMENTS)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        _project(root)
        _pytest(root)  # the index cache warm, as on every run after the first
        gate, explained, diff = [], [], []
        for _ in range(rounds):
            gate.append(_pytest(root))
            explained.append(_explanation(root))
            diff.append(_diff(root))
    g, e, d = statistics.median(gate), statistics.median(explained), statistics.median(diff)
    print(f"failing demo gate (pytest process, explains its movers): {g:.3f} s")
    print(f"  of which explaining the movers: {e:.3f} s = {e / (g - e):.1%} added to the rest of the gate (goal < 20%)")
    print(
        f"pytest-relevance diff (both revisions, movers explained): {d:.3f} s = {d / g:.2f}x one gate run (goal < 2x)"
    )


if __name__ == "__main__":
    main()
