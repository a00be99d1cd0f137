"""What the cost counters say about time, and what counting costs, on Cranfield (1,400 documents, 225 queries).

    python benchmarks/bench_cost.py [--repeats 7] [--shapes or,and,fuzzy,phrase]

For each query shape the embedded engine runs every Cranfield query `--repeats` times with counting on
(`profile`), then `--repeats` times with it off (`search_many`, the reference measured in the same run). Printed:
- the Spearman rank correlation (scipy.stats.spearmanr) between each counter and the query's median wall-clock,
  over the queries of all shapes together and per shape: how far a count stands in for time;
- whether the counts were identical on every repeat and on a second, loaded-from-cache index;
- the cost of counting: median total time with counting against without.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "engines"))

from test_embedded import CRANFIELD, cranfield_to  # noqa: E402

SHAPES: dict[str, dict[str, Any]] = {
    "or": {"query": {"multi_match": {"query": "{q}", "fields": ["title^2", "text"], "type": "most_fields"}}},
    "and": {"query": {"match": {"text": {"query": "{q}", "operator": "and"}}}},
    "fuzzy": {"query": {"match": {"text": {"query": "{q}", "fuzziness": "AUTO"}}}},
    "phrase": {"query": {"bool": {"should": [{"match": {"text": "{q}"}}, {"match_phrase": {"text": {"query": "{q}",
               "slop": 2}}}]}}},
}  # fmt: skip


def cranfield(folder: Path) -> tuple[Path, list[str]]:
    """The corpus file and the judged queries' texts, as the tests write Cranfield (`test_embedded.cranfield_to`)."""
    cranfield_to(folder)
    judged = yaml.safe_load((folder / "judgments.yaml").read_text())["queries"]
    return folder / "corpus.ndjson", [query["text"] for query in judged]


def bodies(shape: str, queries: list[str]) -> dict[str, dict[str, Any]]:
    text = json.dumps(SHAPES[shape])
    return {f"{shape}-{i:03d}": json.loads(text.replace("{q}", json.dumps(q)[1:-1])) for i, q in enumerate(queries)}


def main(repeats: int, shapes: list[str]) -> None:
    if not CRANFIELD.is_dir():
        print(f"skipped: {CRANFIELD} is not present")
        return
    from scipy.stats import spearmanr

    from pytest_relevance.engines.embedded import EmbeddedEngine
    from pytest_relevance.evaluation.cost import COUNTERS
    from pytest_relevance.inputs.corpus import CorpusFile, load_mapping

    with tempfile.TemporaryDirectory() as tmp:
        corpus, queries = cranfield(Path(tmp))
        config = load_mapping(Path(tmp) / "index.yaml")
        index = EmbeddedEngine(Path(tmp) / "cache").open(CorpusFile(corpus), config, "id", "index.yaml")
        loaded = EmbeddedEngine(Path(tmp) / "cache").open(CorpusFile(corpus), config, "id", "index.yaml")
        costs: dict[str, Any] = {}
        counted_s, plain_s = [], []
        identical = True
        for shape in shapes:
            batch = bodies(shape, queries)
            index.search_many(batch, 10, "query.yaml")  # warm: expansions and caches, as in a session
            for _ in range(repeats):
                start = time.perf_counter()
                index.search_many(batch, 10, "query.yaml")
                plain_s.append(time.perf_counter() - start)
            start = time.perf_counter()
            measured = index.profile(batch, 10, "query.yaml", repeats)
            counted_s.append((time.perf_counter() - start) / repeats)
            again = loaded.profile(batch, 10, "query.yaml", 1)
            identical &= all(again[q].counters == measured[q].counters for q in batch)
            costs.update(measured)
    documents = len(index.ids)
    print(f"Cranfield: {documents} documents, {len(queries)} queries x {len(shapes)} shapes ({', '.join(shapes)}), "
          f"{repeats} repeats")  # fmt: skip
    print(f"counts identical on every repeat and on the loaded index: {'yes' if identical else 'NO'}")
    median = {q: statistics.median(c.seconds) for q, c in costs.items()}
    print("\nSpearman rho between each counter and the median wall-clock of its query:")
    print(f"  {'counter':<15}{'all shapes':>12}" + "".join(f"{s:>10}" for s in shapes))
    for counter in COUNTERS:
        cells = []
        for group in [None, *shapes]:
            ids = [q for q in costs if group is None or q.startswith(f"{group}-")]
            values = [costs[q].counters[counter] for q in ids]
            if len(set(values)) < 2:
                cells.append("constant")
                continue
            rho = spearmanr(values, [median[q] for q in ids]).statistic
            cells.append(f"{rho:.3f}")
        print(f"  {counter:<15}{cells[0]:>12}" + "".join(f"{c:>10}" for c in cells[1:]))
    plain = statistics.median(plain_s) * len(shapes)
    counted = sum(counted_s)
    print(f"\ncounting on: {counted:.3f} s a pass over every shape, off: {plain:.3f} s ({counted / plain:.2f}x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    args = parser.parse_args()
    main(args.repeats, args.shapes.split(","))
