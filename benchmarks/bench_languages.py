"""Index build speed with the `french` and `german` analyzers against `english`, on the same French text.

    python benchmarks/bench_languages.py [--docs N] [--repeat R]

The documents are real French: sentences drawn (seeded) from the French corpus the Lucene BM25 reference indexed
(tests/data/lucene_extra/language_bm25.json.xz: faker's and wordfreq's words, elided articles, capitals,
punctuation), recombined into N documents of a title and a body. Each measurement is the embedded engine's whole
index build from a fresh engine with the stemmers' caches emptied, as a session starts; best of R runs, round robin
(the machine is shared). Printed: seconds and docs/s per analyzer, and french / english and german / english
measured in the same run (goal: french within 1.5x).
"""

from __future__ import annotations

import argparse
import json
import lzma
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_relevance.engines.embedded import EmbeddedEngine
from pytest_relevance.engines.embedded.analysis import filters, light_stemmers

REFERENCE = Path(__file__).resolve().parent.parent / "tests" / "data" / "lucene_extra" / "language_bm25.json.xz"


def documents(count: int, seed: int = 7) -> list[dict[str, str]]:
    corpus = json.loads(lzma.decompress(REFERENCE.read_bytes()))["corpus"]["french"]
    titles = [title for _, title, _ in corpus if title]
    sentences = [s for _, _, body in corpus for s in re.split(r"(?<=[.!?]) ", body)]
    rng = random.Random(seed)
    return [
        {"id": f"d{i}", "title": rng.choice(titles), "body": " ".join(rng.choices(sentences, k=rng.randint(2, 6)))}
        for i in range(count)
    ]


def build(docs: list[dict[str, str]], analyzer: str) -> float:
    """A fresh engine's whole index build (analysis, postings, norms), the stemmers' caches emptied first."""
    filters.porter_cached.cache_clear()
    filters.kstem_cached.cache_clear()
    for name in ("light_french", "light_german"):
        light_stemmers.light_stemmer(name).cache_clear()
    text = {"type": "text", "analyzer": analyzer}
    config = {"mappings": {"properties": {"id": {"type": "keyword"}, "title": text, "body": text}}}
    start = time.perf_counter()
    EmbeddedEngine().open(docs, config, "id", "bench")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best counts")
    args = parser.parse_args()
    docs = documents(args.docs)
    words = sum(len(d["title"].split()) + len(d["body"].split()) for d in docs) / len(docs)
    print(f"{len(docs)} French documents, {words:.0f} words each")
    best = dict.fromkeys(("english", "french", "german"), float("inf"))
    for _ in range(args.repeat):
        for analyzer in best:
            best[analyzer] = min(best[analyzer], build(docs, analyzer))
    for analyzer, elapsed in best.items():
        print(f"{analyzer:8s} index build {elapsed:7.2f} s  {len(docs) / elapsed:9.0f} docs/s")
    print(
        f"ratio to english: french {best['french'] / best['english']:.2f}x (goal 1.5x), "
        f"german {best['german'] / best['english']:.2f}x"
    )


if __name__ == "__main__":
    main()
