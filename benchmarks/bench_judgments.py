"""Loading judgments against the plain parsers, on the same files, in the same run.

    python benchmarks/bench_judgments.py [--queries 200000] [--grades 20]

Writes seeded YAML (the demo's flow style), CSV and TREC qrels + topics files of QUERIES x GRADES judgments, then
times, each in a fresh process (so that each peak memory is its own): `load_judgments` against
`yaml.load(..., Loader=yaml.CSafeLoader)` for YAML, a `csv.reader` pass that keeps the rows for CSV, and a
`str.split` pass that keeps the rows for TREC. Prints seconds, peak RSS and the ratio ours / reference.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

MEASURE = """
import json, resource, sys, time
kind, path, topics = sys.argv[1], sys.argv[2], sys.argv[3]
start = time.perf_counter()
if kind == "ours":
    from pytest_relevance.judgments.model import load_judgments
    result = load_judgments(path, topics or None)
    count = sum(len(q.grades) for q in result.queries)
elif kind == "yaml":
    import yaml
    with open(path, encoding="utf-8") as handle:
        result = yaml.load(handle.read(), Loader=yaml.CSafeLoader)
    count = sum(len(q.get("grades") or {}) for q in result["queries"])
elif kind == "csv":
    import csv
    with open(path, newline="", encoding="utf-8") as handle:
        result = list(csv.reader(handle))
    count = len(result) - 1
else:
    with open(path, encoding="utf-8") as handle:
        result = [line.split() for line in handle]
    count = len(result)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "peak": peak, "count": count}))
"""


def write_files(folder: Path, queries: int, grades: int, seed: int = 11) -> dict[str, Path]:
    rnd = random.Random(seed)
    words = ["usb", "cable", "wireless", "headphones", "laptop", "stand", "coffee", "grinder", "red", "shoe", "4k"]
    paths = {name: folder / name for name in ("j.yaml", "j.csv", "j.qrels", "topics.tsv")}
    with (
        paths["j.yaml"].open("w") as yml,
        paths["j.csv"].open("w") as csv_out,
        paths["j.qrels"].open("w") as qrels,
        paths["topics.tsv"].open("w") as topics,
    ):
        yml.write("version: bench\nqueries:\n")
        csv_out.write("query_id,query,stratum,doc_id,grade\n")
        for q in range(queries):
            qid, text = f"q{q:06d}", " ".join(rnd.choices(words, k=rnd.randint(1, 4)))
            stratum = rnd.choice(("head", "torso", "tail"))
            docs = {f"p{rnd.randrange(1_000_000):07d}": rnd.choice((0, 1, 1, 2, 3)) for _ in range(grades)}
            flow = ", ".join(f"{doc}: {grade}" for doc, grade in docs.items())
            yml.write(f'  - {{id: {qid}, text: "{text}", stratum: {stratum}, grades: {{{flow}}}}}\n')
            csv_out.writelines(f"{qid},{text},{stratum},{doc},{grade}\n" for doc, grade in docs.items())
            qrels.writelines(f"{qid} 0 {doc} {grade}\n" for doc, grade in docs.items())
            topics.write(f"{qid}\t{text}\t{stratum}\n")
    return paths


def measure(kind: str, path: Path, topics: Path | None = None) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, kind, str(path), str(topics or "")], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=200_000)
    parser.add_argument("--grades", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        paths = write_files(Path(folder), args.queries, args.grades)
        size = {name: path.stat().st_size / 1e6 for name, path in paths.items()}
        print(f"{args.queries} queries x {args.grades} grades")
        print(
            f"{'format':<6} {'MB':>6} {'reference':<22} {'ref s':>7} {'ours s':>7} {'ratio':>6} "
            f"{'ref MiB':>8} {'ours MiB':>8}"
        )
        for name, fmt, reference, topics in (
            ("j.yaml", "yaml", "yaml.load CSafeLoader", None),
            ("j.csv", "csv", "list(csv.reader)", None),
            ("j.qrels", "trec", "[line.split() ...]", paths["topics.tsv"]),
        ):
            ref = measure(fmt, paths[name])
            ours = measure("ours", paths[name], topics)
            assert ours["count"] == ref["count"]  # the same judgments read
            print(
                f"{fmt:<6} {size[name]:>6.1f} {reference:<22} {ref['seconds']:>7.2f} {ours['seconds']:>7.2f} "
                f"{ours['seconds'] / ref['seconds']:>6.2f} {ref['peak'] / 2**20:>8.0f} {ours['peak'] / 2**20:>8.0f}"
            )


if __name__ == "__main__":
    main()
