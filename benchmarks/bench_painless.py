"""Painless script_score against field_value_factor on the synthetic catalogue (issue 20, item 3).

    python benchmarks/bench_painless.py            # 10k and 50k documents, 300 queries each
    python benchmarks/bench_painless.py 10000      # some sizes

The same multi_match query under five scorings: field_value_factor on popularity; a one-expression script; the same
expression as statements (`long p = ...; return ...`); an if/else of statements (`if (...) { return _score; } ...`),
these three run as arrays over every match at once; and a loop over params lists (brand weights), run per matching
document. Printed: ms per query, matches per query, and each script's ratio to field_value_factor.
Goal: the expression and the statements within 2x of field_value_factor at 50k.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_scale import generate  # noqa: E402

from pytest_relevance.engines.embedded import EmbeddedEngine  # noqa: E402
from pytest_relevance.engines.embedded.queries import evaluate  # noqa: E402
from pytest_relevance.inputs.corpus import load_corpus, load_mapping  # noqa: E402
from pytest_relevance.judgments.model import load_judgments  # noqa: E402

QUERIES = 300
EXPRESSION = "_score * Math.log10((doc['popularity'].size() == 0 ? 0 : doc['popularity'].value) + 2)"
STATEMENTS = "long p = doc['popularity'].size() == 0 ? 0 : doc['popularity'].value; return _score * Math.log10(p + 2);"
IF_ELSE = (
    "if (doc['popularity'].size() == 0) { return _score; } double s = _score;"
    " if (doc['popularity'].value > 100) { s *= Math.log10(doc['popularity'].value + 2); }"
    " else { s *= 1 + doc['popularity'].value / 50; } return s;"
)
LOOP = (
    "double boost = 1; String b = doc['brand'].value;"
    "for (int i = 0; i < params.brands.size(); ++i) { if (b == params.brands[i]) { boost += params.w[i]; break; } }"
    "return _score * boost;"
)
BRANDS = {"brands": [f"brand{i}" for i in range(0, 60, 6)], "w": [0.1 * i for i in range(10)]}


def bodies(texts: list[str], scoring: str) -> dict[str, dict]:
    out = {}
    for i, text in enumerate(texts):
        match = {"multi_match": {"query": text, "fields": ["title^3", "description"]}}
        if scoring == "field_value_factor":
            factor = {"field_value_factor": {"field": "popularity", "modifier": "log2p", "missing": 0}}
            query = {"function_score": {"query": match, "functions": [factor], "boost_mode": "multiply"}}
        else:
            source = {"expression": EXPRESSION, "statements": STATEMENTS, "if_else": IF_ELSE, "loop": LOOP}[scoring]
            script = {"source": source, "params": BRANDS if scoring == "loop" else {}}
            query = {"script_score": {"query": match, "script": script}}
        out[f"q{i}"] = {"query": query}
    return out


def run(n_docs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        generate(folder, n_docs, QUERIES)
        index = EmbeddedEngine().open(load_corpus(folder / "corpus.ndjson"), load_mapping(folder / "index.yaml"), "id")
        texts = [q.text for q in load_judgments(folder / "judgments.yaml").queries]
        counted = bodies(texts, "expression")
        matches = sum(evaluate(index, body["query"], "q").docs.size for body in counted.values()) / len(texts)
        baseline = None
        for scoring in ("field_value_factor", "expression", "statements", "if_else", "loop"):
            batch = bodies(texts, scoring)
            start = time.perf_counter()
            index.search_many(batch, 100, "bench")
            per_query = (time.perf_counter() - start) * 1000 / len(batch)
            baseline = baseline or per_query
            print(f"{n_docs} documents, {matches:.0f} matches/query: {scoring} {per_query:.2f} ms/query "
                  f"({per_query / baseline:.2f}x field_value_factor)", flush=True)  # fmt: skip


def main() -> None:
    for size in [int(arg) for arg in sys.argv[1:]] or [10_000, 50_000]:
        run(size)


if __name__ == "__main__":
    main()
