"""A heavy real-world template on the embedded engine: fuzziness AUTO over three fields, a script_score and a rescore.

    python benchmarks/bench_dsl.py            # the demo (165 queries, 1,122 documents), then 5,000 queries on 50,000

Goals (issue 12): the demo under 1 s, 5,000 queries on 50,000 documents under 60 s; every match scored (exact top k).
Printed: index build and search wall time per collection.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_scale import generate  # noqa: E402

from pytest_relevance.engines.base import FixtureIndex  # noqa: E402
from pytest_relevance.engines.embedded import EmbeddedEngine  # noqa: E402
from pytest_relevance.inputs.clock import parse_instant  # noqa: E402
from pytest_relevance.inputs.corpus import load_corpus, load_mapping  # noqa: E402
from pytest_relevance.judgments.model import load_judgments  # noqa: E402

POPULARITY = "doc['popularity'].size() == 0 ? 0 : doc['popularity'].value"
TEMPLATE = {
    "query": {
        "script_score": {
            "query": {
                "multi_match": {
                    "query": "{{query}}",
                    "fields": ["title^3", "description", "brand"],
                    "fuzziness": "AUTO",
                }
            },
            "script": {"source": f"_score * Math.log10(({POPULARITY}) + 2)"},
        }
    },
    "rescore": {
        "window_size": 50,
        "query": {"rescore_query": {"match_phrase": {"title": {"query": "{{query}}", "slop": 2}}}},
    },
}


def run(name: str, folder: Path) -> None:
    corpus, mapping = load_corpus(folder / "corpus.ndjson"), load_mapping(folder / "index.yaml")
    start = time.perf_counter()
    index = EmbeddedEngine().open(corpus, mapping, "id", str(folder / "index.yaml"))
    built = time.perf_counter() - start
    judgments = load_judgments(folder / "judgments.yaml")
    fixture = FixtureIndex(index, TEMPLATE, judgments, parse_instant("2026-01-15T12:00:00Z"), 100, "template")
    bodies = fixture.bodies()
    start = time.perf_counter()
    index.search_many(bodies, 100, "template")
    print(f"{name}: index {built:.1f} s, {len(bodies)} queries {time.perf_counter() - start:.2f} s", flush=True)


def main() -> None:
    run("demo (1,122 documents)", ROOT / "fixtures")
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), 50_000, 5_000)
        run("synthetic (50,000 documents)", Path(tmp))


if __name__ == "__main__":
    main()
