"""BM25 arithmetic against real Lucene 9.9.1: every clause of its Explanations, bit for bit (float32)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from pytest_relevance.engines.embedded.scoring import (
    BM25,
    LENGTH_TABLE,
    byte4_to_int,
    encode_lengths,
    idf,
    int_to_byte4,
)

LUCENE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "lucene"
needs_lucene = pytest.mark.skipif(not (LUCENE / "explain.txt").is_file(), reason="../shared/data/lucene is absent")


def test_small_float_norms_match_lucene_fixed_points() -> None:
    # SmallFloat.intToByte4 is exact below 24 (Lucene's NUM_FREE_VALUES), then keeps 4 significant bits
    assert [int_to_byte4(i) for i in range(24)] == list(range(24))
    assert [byte4_to_int(int_to_byte4(n)) for n in (24, 25, 26, 27, 28, 100, 112, 113, 1000)] == [
        24, 25, 26, 27, 28, 96, 112, 112, 984
    ]  # fmt: skip
    assert int_to_byte4(2**31 - 1) == 255
    decoded = [byte4_to_int(b) for b in range(256)]
    assert decoded == sorted(decoded) and len(set(decoded)) == 256
    assert all(int_to_byte4(d) == b for b, d in enumerate(decoded))  # every decoded length is a fixed point
    assert list(encode_lengths(np.array([0, 5, 112, 5000]))) == [0, 5, int_to_byte4(112), int_to_byte4(5000)]
    assert LENGTH_TABLE.dtype == np.float32


def _explanations() -> list[dict]:
    """(query score, [clause: value, freq, n, N, dl, boost]) per explained (query, document) pair."""
    text = (LUCENE / "explain.txt").read_text()
    pairs = []
    for block in text.split("\nqid=")[1:]:
        score = float(re.search(r"^score: (\S+)", block, re.M).group(1))
        clauses = []
        for clause in re.split(r"\n  (?=\S+ = weight\()", block)[1:]:

            def number(pattern: str, clause: str = clause) -> float:
                return float(re.search(pattern, clause, re.M).group(1))

            boost = re.search(r"^\s+(\S+) = boost$", clause, re.M)
            clauses.append(
                {
                    "value": np.float32(re.match(r"(\S+) = weight", clause).group(1)),
                    "freq": number(r"(\S+) = freq, occurrences"),
                    "n": int(number(r"(\S+) = n, number of documents")),
                    "N": int(number(r"(\S+) = N, total number")),
                    "dl": int(number(r"(\S+) = dl, length of field")),
                    "boost": float(boost.group(1)) if boost else 1.0,
                }
            )
        pairs.append({"score": score, "clauses": clauses})
    return pairs


@needs_lucene
def test_every_explained_clause_and_sum_is_bit_exact() -> None:
    stats = json.loads((LUCENE / "meta.json").read_text())["index"]["fields"]["body"]
    bm25 = BM25(1.2, 0.75, stats["docCount"], stats["sumTotalTermFreq"])
    pairs = _explanations()
    assert len(pairs) == 15 and sum(len(p["clauses"]) for p in pairs) == 91
    assert any(c["boost"] == 2.0 for p in pairs for c in p["clauses"])  # a duplicated query term, merged
    for pair in pairs:
        total = 0.0
        for clause in pair["clauses"]:
            # Lucene's weight is boost x idf; Elasticsearch multiplies the boost by (k1 + 1) first
            lucene_weight = np.float32(clause["boost"]) * idf(clause["n"], clause["N"])
            norm = np.array([int_to_byte4(clause["dl"])], dtype=np.uint8)
            freq = np.array([clause["freq"]], dtype=np.float32)
            assert byte4_to_int(int(norm[0])) == clause["dl"]
            value = bm25.score(lucene_weight, freq, norm)[0]
            assert value == clause["value"], clause
            es = bm25.score(bm25.weight(clause["boost"], idf(clause["n"], clause["N"])), freq, norm)[0]
            assert es == pytest.approx(2.2 * float(value), rel=1e-6)
            total += float(value)
        assert float(np.float32(total)) == pair["score"]  # clauses summed in double, cast to float
