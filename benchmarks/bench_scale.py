"""The embedded gate at scale, against a hand-written script doing the same work.

    python benchmarks/bench_scale.py                 # every size: 1k/150, 10k/1k, 50k/5k, 200k/20k
    python benchmarks/bench_scale.py 1k 10k          # some sizes

Each size is a seeded synthetic catalogue (title and description of 5-60 Zipfian words, a brand keyword, a release
date, a popularity) with judged queries, in a generated project whose template is the demo's: multi_match
best_fields title^3 + description, a gauss decay on the date and field_value_factor on popularity. Measured per size:
the real gate (`pytest -m relevance`, first with --relevance-update, then the check), and the reference, a plain
script: tantivy for the text, the same decay and popularity factor in Python over every match, pytrec_eval for the
metrics. Printed: wall time and peak memory of each process, the baseline's size, and the ratio check / reference;
and the floor, the same pytest command on one empty test importing numpy: what any pytest gate pays before work
(at 1k it is about the reference's whole time, so the ratio there cannot reach 1.5).
Goals (issue 10): ratio <= 1.5 at every size, 200k/20k under 2 minutes and 2 GiB.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

STOP = [
    "the",
    "of",
    "and",
    "a",
    "to",
    "in",
    "is",
    "it",
    "that",
    "was",
    "for",
    "on",
    "are",
    "with",
    "as",
    "be",
    "at",
    "by",
    "this",
    "an",
    "not",
    "or",
    "but",
    "if",
    "no",
    "such",
    "then",
]
SIZES = {"1k": (1_000, 150), "10k": (10_000, 1_000), "50k": (50_000, 5_000), "200k": (200_000, 20_000)}
METRICS = "ndcg@10 mrr@10 recall@100"
NOW = "2026-01-15T12:00:00Z"
TEMPLATE = """query:
  function_score:
    query:
      multi_match:
        query: "{{query}}"
        fields: ["title^3", "description"]
        type: best_fields
        tie_breaker: 0.3
    functions:
      - gauss:
          released: {origin: now, scale: 365d, offset: 30d, decay: 0.5}
      - field_value_factor: {field: popularity, modifier: ln2p, missing: 0}
    score_mode: multiply
    boost_mode: multiply
"""
INDEX = """mappings:
  properties:
    id: {type: keyword}
    title: {type: text, analyzer: english}
    description: {type: text, analyzer: english}
    brand: {type: keyword}
    released: {type: date}
    popularity: {type: integer}
"""
GATE_TEST = (
    "def test_gate(relevance_index, relevance_snapshot):\n    assert relevance_snapshot == relevance_index.run()\n"
)

# the reference: what a team would write by hand for the same ranking and metrics
REFERENCE = r"""
import json, math, sys, time
from datetime import datetime, timezone
import pytrec_eval, tantivy, yaml

folder = sys.argv[1]
docs = [json.loads(line) for line in open(f"{folder}/corpus.ndjson")]
judged = yaml.load(open(f"{folder}/judgments.yaml"), Loader=yaml.CSafeLoader)["queries"]
builder = tantivy.SchemaBuilder()
builder.add_text_field("title", tokenizer_name="english")
builder.add_text_field("description", tokenizer_name="english")
builder.add_integer_field("ord", fast=True, indexed=False)
schema = builder.build()
index = tantivy.Index(schema)
english = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.lowercase())
english = english.filter(tantivy.Filter.stopword("english")).filter(tantivy.Filter.stemmer("english")).build()
index.register_tokenizer("english", english)
writer = index.writer(heap_size=500_000_000, num_threads=1)
for o, d in enumerate(docs):
    writer.add_document(tantivy.Document(title=d["title"], description=d["description"], ord=o))
writer.commit()
index.reload()
searcher = index.searcher()
origin = datetime.fromisoformat("2026-01-15T12:00:00+00:00").timestamp() * 1000
released = [datetime.fromisoformat(d["released"]).replace(tzinfo=timezone.utc).timestamp() * 1000 for d in docs]
popularity = [math.log(d.get("popularity", 0) + 2) for d in docs]
scale, offset = 365 * 86_400_000, 30 * 86_400_000
sigma = 0.5 * scale**2 / math.log(0.5)
run = {}
for q in judged:
    try:
        title = index.parse_query(q["text"], ["title"], field_boosts={"title": 3.0})
        description = index.parse_query(q["text"], ["description"])
    except ValueError:  # only stop words
        run[q["id"]] = {}
        continue
    query = tantivy.Query.disjunction_max_query([title, description], 0.3)
    hits = searcher.search(query, limit=len(docs)).hits
    ords = searcher.fast_field_values("ord", [a for _, a in hits]) if hits else []
    scored = []
    for (score, _), o in zip(hits, ords):
        distance = max(0.0, abs(released[o] - origin) - offset)
        scored.append((-score * math.exp(0.5 * distance * distance / sigma) * popularity[o], docs[o]["id"]))
    scored.sort()
    run[q["id"]] = {doc: 1000.0 - rank for rank, (_, doc) in enumerate(scored[:100])}
qrels = {q["id"]: {d: int(g) for d, g in q["grades"].items()} for q in judged}
measures = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "recip_rank", "recall_100"}).evaluate(run)
print(json.dumps({"queries": len(measures)}))
"""


def generate(folder: Path, n_docs: int, n_queries: int, seed: int = 7) -> None:
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnoprstuvwy"))
    invented = sorted({"".join(rng.choice(letters, rng.integers(3, 10))) for _ in range(40_000)} - set(STOP))
    # as in English text, the most frequent words are stop words (which the english analyzer drops)
    words = np.array(STOP + [invented[i] for i in rng.permutation(len(invented))])
    weights = 1.0 / np.arange(1, len(words) + 1) ** 1.05
    weights /= weights.sum()
    title_len, body_len = rng.integers(5, 61, n_docs), rng.integers(5, 61, n_docs)
    stream = words[rng.choice(len(words), int(title_len.sum() + body_len.sum()), p=weights)]
    brands = [f"brand{i}" for i in range(60)]
    days = rng.integers(0, 11 * 365, n_docs)
    popularity = rng.lognormal(3, 1.5, n_docs).astype(int)
    at = 0
    titles = []
    with open(folder / "corpus.ndjson", "w") as out:
        for i in range(n_docs):
            title = stream[at : at + title_len[i]]
            at += title_len[i]
            description = stream[at : at + body_len[i]]
            at += body_len[i]
            titles.append(title)
            day = np.datetime64("2015-01-01") + int(days[i])
            doc = {"id": f"d{i:06d}", "title": " ".join(title), "description": " ".join(description)}
            doc.update(brand=brands[i % len(brands)], released=str(day), popularity=int(popularity[i]))
            if i % 50 == 0:
                del doc["popularity"]
            out.write(json.dumps(doc) + "\n")
    lines = ["version: scale", "queries:"]
    for q in range(n_queries):
        source = int(rng.integers(n_docs))
        take = rng.choice(len(titles[source]), min(len(titles[source]), int(rng.integers(1, 4))), replace=False)
        text = " ".join(titles[source][sorted(take)])
        grades = {f"d{source:06d}": 3}
        for other in rng.integers(0, n_docs, 9):
            grades[f"d{int(other):06d}"] = int(rng.integers(0, 3))
        stratum = ("head", "torso", "tail")[q % 3]
        grades_text = ", ".join(f"{d}: {g}" for d, g in grades.items())
        lines.append(f"  - {{id: q{q:05d}, text: '{text}', stratum: {stratum}, grades: {{{grades_text}}}}}")
    (folder / "judgments.yaml").write_text("\n".join(lines) + "\n")
    (folder / "index.yaml").write_text(INDEX)
    (folder / "query.yaml").write_text(TEMPLATE)
    (folder / "pytest.ini").write_text(
        "[pytest]\nrelevance_judgments = judgments.yaml\nrelevance_corpus = corpus.ndjson\n"
        f"relevance_index_config = index.yaml\nrelevance_query = query.yaml\nrelevance_metrics = {METRICS}\n"
        f"relevance_now = {NOW}\n"
    )
    (folder / "test_gate.py").write_text(GATE_TEST)
    (folder / "reference.py").write_text(REFERENCE)


def measure(command: list[str], folder: Path) -> tuple[float, float]:
    """Wall seconds and peak resident memory (GiB) of one child process."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = process.stdout.read() if process.stdout else b""
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed in {folder}:\n{output.decode()[-3000:]}")
    return seconds, usage.ru_maxrss / 2**20


def main() -> None:
    chosen = sys.argv[1:] or list(SIZES)
    # a project with pytest and this plugin only (other plugins installed here are not the gate's cost)
    gate = [sys.executable, "-m", "pytest", "-q", "-p", "pytest_relevance.plugin.hooks", "-p", "no:cacheprovider"]
    gate += ["-m", "relevance"]
    for name in chosen:
        n_docs, n_queries = SIZES[name]
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            generate(folder, n_docs, n_queries)
            update, update_memory = measure([*gate, "--relevance-update"], folder)
            print(f"{name}/{n_queries}: gate --relevance-update {update:.1f} s, {update_memory:.2f} GiB", flush=True)
            check, check_memory = measure(gate, folder)
            size = (folder / "relevance-baseline.json").stat().st_size
            print(f"{name}/{n_queries}: gate check {check:.2f} s, {check_memory:.2f} GiB, baseline {size / 1e6:.1f} MB",
                  flush=True)  # fmt: skip
            reference, reference_memory = measure([sys.executable, "reference.py", str(folder)], folder)
            print(f"{name}/{n_queries}: reference {reference:.2f} s, {reference_memory:.2f} GiB; "
                  f"ratio check / reference {check / reference:.2f}", flush=True)  # fmt: skip
            # the least any pytest gate can take: the same command on one empty test, no relevance work at all
            (folder / "test_gate.py").write_text("import numpy\n\ndef test_gate():\n    pass\n")
            floor, _ = measure(gate[:-2], folder)  # without `-m relevance`
            print(f"{name}/{n_queries}: floor (pytest, this plugin and numpy, one empty test) {floor:.2f} s, "
                  f"ratio floor / reference {floor / reference:.2f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
