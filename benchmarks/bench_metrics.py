"""Our metric core against pytrec_eval, on the same in-memory data, in the same process.

    python benchmarks/bench_metrics.py [--sizes 10000 100000] [--process-sizes 20000 100000]

Both sides get the same scored run ({qid: {doc: score}}) and both sort it themselves (trec_eval's order), then
score 9 metrics. Then, for each process size, the whole `pytest-relevance evaluate` process is timed against a whole
Python process that splits the same TREC files line by line and calls pytrec_eval (the reference script below).
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytrec_eval

from pytest_relevance.metrics.ranking import parse_metrics, score_scored_run

OURS = parse_metrics("ndcg@3 ndcg@10 map map@10 mrr p@10 recall@100 rprec hit@10")
THEIRS = {"ndcg_cut.3,10", "map", "map_cut.10", "recip_rank", "P.10", "recall.100", "Rprec", "success.10"}


def generate(queries: int, docs: int = 100, seed: int = 7) -> tuple[dict, dict]:
    rnd = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(queries):
        pool = [f"d{rnd.randrange(5000)}" for _ in range(docs + 50)]
        qrels[f"q{q}"] = {doc: rnd.choice((0, 0, 1, 1, 2, 3)) for doc in pool[:40]}
        run[f"q{q}"] = {doc: round(rnd.random() * 20, 1) for doc in pool[20 : 20 + docs]}  # rounded: real ties
    return qrels, run


def ours(qrels: dict, run: dict) -> dict:
    return score_scored_run(qrels, run, OURS)


def theirs(qrels: dict, run: dict) -> dict:
    return pytrec_eval.RelevanceEvaluator(qrels, THEIRS).evaluate(run)


def timed(fn, *args) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def write_trec(qrels: dict, run: dict, folder: Path) -> tuple[Path, Path]:
    qrels_path, run_path = folder / "bench.qrels", folder / "bench.run"
    with qrels_path.open("w") as out:
        for qid, grades in qrels.items():
            out.writelines(f"{qid} 0 {doc} {grade}\n" for doc, grade in grades.items())
    with run_path.open("w") as out:
        for qid, scores in run.items():
            out.writelines(f"{qid} Q0 {doc} {i} {score} bench\n" for i, (doc, score) in enumerate(scores.items(), 1))
    return qrels_path, run_path


SCRIPT = """
import sys, pytrec_eval
qrels = {}
for line in open(sys.argv[1]):
    qid, _, doc, rel = line.split()
    qrels.setdefault(qid, {})[doc] = int(rel)
run = {}
for line in open(sys.argv[2]):
    qid, _, doc, _, score, _ = line.split()
    run.setdefault(qid, {})[doc] = float(score)
results = pytrec_eval.RelevanceEvaluator(qrels, set(sys.argv[3].split("|"))).evaluate(run)
measures = sorted(next(iter(results.values())))
print({m: sum(r[m] for r in results.values()) / len(results) for m in measures})
"""


def process_time(command: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one process: on a shared machine CPU time is the steadier of the two."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--process-sizes", type=int, nargs="*", default=[20_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3, help="process runs per side, alternating; the best is kept")
    args = parser.parse_args()
    print(f"{'queries':>8} {'pytrec_eval s':>14} {'ours s':>8} {'ours/pytrec':>12}")
    for size in args.sizes:
        qrels, run = generate(size)
        t_theirs, reference = timed(theirs, qrels, run)
        t_ours, result = timed(ours, qrels, run)
        check = next(iter(run))
        assert abs(result[check]["ndcg@10"] - reference[check]["ndcg_cut_10"]) < 1e-9  # same numbers, not just fast
        print(f"{size:>8} {t_theirs:>14.3f} {t_ours:>8.3f} {t_ours / t_theirs:>12.2f}")
    print("whole processes on TREC files (x 100 docs per query):")
    print(
        f"{'queries':>8} {'split+pytrec_eval s':>20} {'evaluate s':>11} {'ratio':>6} "
        f"{'CPU s (ref/ours)':>17} {'ratio':>6}"
    )
    for size in args.process_sizes:
        with tempfile.TemporaryDirectory() as folder:
            qrels_path, run_path = write_trec(*generate(size), Path(folder))
            command = [
                sys.executable,
                "-m",
                "pytest_relevance.cli.commands",
                "evaluate",
                str(qrels_path),
                str(run_path),
            ]
            for spec in OURS:
                command += ["-m", spec.spec]
            script = [sys.executable, "-c", SCRIPT, str(qrels_path), str(run_path), "|".join(THEIRS)]
            reference, evaluate = (float("inf"), float("inf")), (float("inf"), float("inf"))
            for _ in range(args.repeat):  # alternating, so that a busy moment of a shared machine hits both sides
                reference = min(reference, process_time(script))
                evaluate = min(evaluate, process_time(command))
            cpu = f"{reference[1]:.1f}/{evaluate[1]:.1f}"
            print(
                f"{size:>8} {reference[0]:>20.2f} {evaluate[0]:>11.2f} {evaluate[0] / reference[0]:>6.2f} "
                f"{cpu:>17} {evaluate[1] / reference[1]:>6.2f}"
            )


if __name__ == "__main__":
    main()
