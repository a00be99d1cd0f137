"""BM25 as Elasticsearch 8 computes it, in Lucene 9's float32 arithmetic, so every score can be checked bit for bit.

Lucene stores a field's length in one byte (`SmallFloat.intToByte4`), so BM25 sees the *decoded* length; it works
in float32 in a fixed order (`weight - weight / (1 + freq * normInverse)`), casts the idf and the average length
from double; and a boolean or dis_max query sums its clauses in double and casts the sum to float. Elasticsearch's
default similarity keeps BM25's (k1 + 1) factor by multiplying the query boost by it, so its scores are exactly
(1 + k1) x Lucene 9's. Reproducing each of those steps is what makes the embedded engine's ranking Elasticsearch's,
ties included.
"""

from __future__ import annotations

import math

import numpy as np

from pytest_relevance.engines.embedded.cost import tally
from pytest_relevance.engines.embedded.java import F32


def _long_to_int4(value: int) -> int:
    bits = value.bit_length()
    if bits < 4:
        return value
    shift = bits - 4
    return ((value >> shift) & 0x07) | ((shift + 1) << 3)


def _int4_to_long(value: int) -> int:
    bits, shift = value & 0x07, (value >> 3) - 1
    return bits if shift == -1 else (bits | 0x08) << shift


_NUM_FREE_VALUES = 255 - _long_to_int4(2**31 - 1)


def int_to_byte4(length: int) -> int:
    """Lucene's `SmallFloat.intToByte4`: exact below 24, then 4 significant bits (the stored norm)."""
    if length < _NUM_FREE_VALUES:
        return length
    return _NUM_FREE_VALUES + _long_to_int4(length - _NUM_FREE_VALUES)


def byte4_to_int(encoded: int) -> int:
    if encoded < _NUM_FREE_VALUES:
        return encoded
    return min(_NUM_FREE_VALUES + _int4_to_long(encoded - _NUM_FREE_VALUES), 2**31 - 1)


LENGTH_TABLE = np.array([byte4_to_int(i) for i in range(256)], dtype=F32)
_ENCODE_SMALL = np.array([int_to_byte4(i) for i in range(4096)], dtype=np.uint8)


def encode_lengths(lengths: np.ndarray) -> np.ndarray:
    """Norm bytes for an array of field lengths (tokens whose position increment is not 0)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    if lengths.size == 0 or int(lengths.max()) < _ENCODE_SMALL.size:
        return _ENCODE_SMALL[lengths]
    return np.array([int_to_byte4(int(n)) for n in lengths], dtype=np.uint8)


def idf(doc_freq: int, doc_count: int) -> np.float32:
    """`log(1 + (N - n + 0.5) / (n + 0.5))` in double, then float, as BM25Similarity.idf."""
    return F32(math.log(1 + (doc_count - doc_freq + 0.5) / (doc_freq + 0.5)))


def idf_sum(doc_freqs: list[int], doc_count: int) -> np.float32:
    """A phrase's idf: the float idfs of its terms summed in double, then float."""
    total = 0.0
    for n in doc_freqs:
        total += float(idf(n, doc_count))
    return F32(total)


class BM25:
    """One field's BM25: k1, b and its collection statistics, with Lucene's 256-entry norm cache."""

    def __init__(self, k1: float, b: float, doc_count: int, sum_total_term_freq: int) -> None:
        self.k1, self.b, self.doc_count = F32(k1), F32(b), doc_count
        self.avgdl = F32(sum_total_term_freq / doc_count) if doc_count else F32(1)
        with np.errstate(divide="ignore"):
            self.cache = F32(1) / (self.k1 * ((F32(1) - self.b) + self.b * LENGTH_TABLE / self.avgdl))
        self.boost_factor = F32(1) + self.k1  # Elasticsearch's (k1 + 1), folded into the boost as it does

    def weight(self, boost: float, term_idf: np.float32) -> np.float32:
        """The query-time constant of one term (or phrase) clause: boost x (k1 + 1) x idf, in float."""
        return F32(F32(boost) * self.boost_factor) * term_idf

    def score(self, weight: np.float32, freqs: np.ndarray, norms: np.ndarray) -> np.ndarray:
        """Scores of the documents with these float32 frequencies and norm bytes (BM25Scorer.score)."""
        tally("docs_scored", freqs.size)
        norm_inverse = self.cache[norms]
        return weight - weight / (F32(1) + freqs * norm_inverse)


class BooleanSimilarity:
    """Elasticsearch's `boolean` similarity: a matching term scores its query boost, nothing else."""

    def __init__(self, doc_count: int) -> None:
        self.doc_count = doc_count

    def weight(self, boost: float, term_idf: np.float32) -> np.float32:
        return F32(boost)

    def score(self, weight: np.float32, freqs: np.ndarray, norms: np.ndarray) -> np.ndarray:
        tally("docs_scored", freqs.size)
        return np.full(freqs.shape, weight, dtype=F32)
