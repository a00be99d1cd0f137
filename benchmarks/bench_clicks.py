"""`pytest-relevance clicks` on a large synthetic UBI log: seconds and peak memory, against a 30 s / 1 GiB goal.

    python benchmarks/bench_clicks.py [--events 1000000] [--model coec]

Writes a seeded bulk body (ubi_queries and ubi_events, as the UBI generator writes them: 20 impressions a search,
clicks drawn from a position-biased model, some add_to_cart), then runs the command in a fresh process, so that the
peak RSS is its own, and prints the wall time, the peak and the summary line.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

MEASURE = """
import resource, sys, time
from pytest_relevance.cli.commands import main
start = time.perf_counter()
code = main(sys.argv[1:])
used = resource.getrusage(resource.RUSAGE_SELF)
cpu = used.ru_utime + used.ru_stime
print(f"seconds {time.perf_counter() - start:.2f} cpu {cpu:.2f} peak MiB {used.ru_maxrss / 1024:.0f}")
sys.exit(code)
"""


def write_log(path: Path, events: int, seed: int = 5) -> int:
    """About `events` events; returns how many were written."""
    rnd = random.Random(seed)
    words = ["usb", "cable", "wireless", "headphones", "laptop", "stand", "coffee", "grinder", "red", "shoe", "4k"]
    texts = [" ".join(rnd.choices(words, k=rnd.randint(1, 3))) + f" {n}" for n in range(5000)]
    weights = [1 / (rank + 1) for rank in range(len(texts))]  # Zipf traffic: a head, a torso, a long tail
    written = 0
    with path.open("w", encoding="utf-8") as out:
        while written < events:
            text = rnd.choices(texts, weights)[0]
            qid = str(uuid.UUID(int=rnd.getrandbits(128)))
            stamp = f"2024-12-{rnd.randint(1, 28):02d}T{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:00.000Z"
            out.write(json.dumps({"index": {"_index": "ubi_queries", "_id": qid}}) + "\n")
            out.write(json.dumps({"query_id": qid, "user_query": text, "timestamp": stamp}) + "\n")
            docs = rnd.sample(range(200), 20)
            for rank, doc in enumerate(docs):
                for action in ("impression", "click", "add_to_cart"):
                    chance = {"impression": 1, "click": 0.6 / (rank + 1), "add_to_cart": 0.1 / (rank + 1)}[action]
                    if rnd.random() >= chance:
                        break
                    event = {
                        "action_name": action,
                        "query_id": qid,
                        "session_id": qid,
                        "timestamp": stamp,
                        "user_query": text,
                        "event_attributes": {
                            "object": {"object_id": f"P{hash((text, doc)) % 100000:05d}", "object_id_field": "sku"},
                            "position": {"ordinal": rank},
                        },
                    }
                    out.write(json.dumps({"index": {"_index": "ubi_events", "_id": f"e{written}"}}) + "\n")
                    out.write(json.dumps(event) + "\n")
                    written += 1
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--model", default="coec", choices=("coec", "srw", "pbm"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "ubi.ndjson"
        count = write_log(log, args.events)
        print(f"{count} events, {log.stat().st_size / 1e6:.0f} MB")
        command = ["clicks", str(log), "--model", args.model, "--max-rank", "20", "-o", f"{folder}/j.yaml"]
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", MEASURE, *command], capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        print(done.stdout.strip())
        print(done.stderr.strip()[-2000:])
        print(f"wall {wall:.2f} s (goal < 30 s, < 1024 MiB peak)")


if __name__ == "__main__":
    main()
