"""`Scores`: which documents a query matches and their float32 scores, and the sums of disjunctions in Lucene's
order. Below the query handlers and the explain recorder, which both read it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.java import F32

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex


class Scores:
    """Which documents match, and their float32 scores: sparse (ascending ordinals with their scores) or dense (a
    mask and a score per ordinal). Either form is derived from the other on first use, so the hot path (term
    clauses, dis_max, function_score, ranking) stays proportional to the match set and the rest may use masks.

    `exact`, when set, says the query is (after Lucene's rewrite) an unboosted pure disjunction, a BooleanQuery of
    should clauses needing at most one: its unrounded double sums, aligned with `docs`. Lucene's BooleanQuery.rewrite
    takes such a query's clauses into an enclosing BooleanQuery that needs at most one should clause, so that one
    sums the leaves once, in double (see `flat_sum`); everything else reads the float32 `values`."""

    __slots__ = ("_docs", "_matched", "_score", "_values", "exact", "n")

    def __init__(self, matched: np.ndarray, score: np.ndarray) -> None:
        self.n = matched.size
        self._matched, self._score = matched, score
        self._docs: np.ndarray | None = None
        self._values: np.ndarray | None = None
        self.exact: np.ndarray | None = None

    @classmethod
    def of(cls, n: int, docs: np.ndarray, values: np.ndarray) -> Scores:
        """From ascending unique ordinals and their float32 scores."""
        out = cls.__new__(cls)
        out.n, out._docs, out._values = n, docs, values
        out._matched = out._score = out.exact = None  # type: ignore[assignment]  # derived from docs on first use
        return out

    @classmethod
    def disjunction(cls, n: int, docs: np.ndarray, sums: np.ndarray) -> Scores:
        """A pure disjunction's result from its double sums: float32 scores, and the sums kept as `exact`."""
        out = cls.of(n, docs, sums.astype(F32))
        out.exact = sums
        return out

    def boosted(self, own_boost: Any) -> Scores:
        """The result as its enclosing query sees it: a query with its own boost is a BoostQuery, which
        BooleanQuery.rewrite does not take apart (`exact` dropped)."""
        if self.exact is None or float(own_boost if own_boost is not None else 1.0) == 1.0:
            return self
        return Scores.of(self.n, self.docs, self.values)

    @classmethod
    def none(cls, n: int) -> Scores:
        return cls.of(n, np.empty(0, dtype=np.int64), np.empty(0, dtype=F32))

    @classmethod
    def constant(cls, matched: np.ndarray, boost: float) -> Scores:
        return cls(matched, np.where(matched, F32(boost), F32(0)).astype(F32))

    @property
    def matched(self) -> np.ndarray:
        if self._matched is None:
            self._matched = np.zeros(self.n, dtype=bool)
            self._matched[self.docs] = True
        return self._matched

    @property
    def score(self) -> np.ndarray:
        if self._score is None:
            self._score = np.zeros(self.n, dtype=F32)
            self._score[self.docs] = self.values
        return self._score

    @property
    def docs(self) -> np.ndarray:
        if self._docs is None:
            self._docs = np.flatnonzero(self._matched)
        return self._docs

    @property
    def values(self) -> np.ndarray:
        if self._values is None:
            self._values = self.score[self.docs]
        return self._values


# one clause of a disjunction: its (ordinals, float32 scores) parts, and how many clause matches it counts for
Clause = tuple[list[tuple[np.ndarray, np.ndarray]], int]


def accumulate(index: EmbeddedIndex, clauses: list[Clause]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sum clause scores per document in double (in clause order, as Lucene's disjunction sums them) and count the
    clauses each matches: (ascending ordinals, sums, counts). Works in the index's scratch arrays, which it leaves
    zeroed, so the cost is the postings read plus one scan, whatever the corpus size."""
    parts = [(docs, values, count, len(clause) > 1) for clause, count in clauses for docs, values in clause]
    if not parts:
        return np.empty(0, dtype=np.int64), np.empty(0), np.empty(0, dtype=np.int16)
    if len(parts) == 1:
        docs, values, count, _ = parts[0]
        return docs, values.astype(np.float64), np.full(docs.size, count, dtype=np.int16)
    total, hits = index.scratch_sum, index.scratch_count
    for clause, count in clauses:
        for docs, values in clause:
            total[docs] += values
        if len(clause) == 1:
            hits[clause[0][0]] += count
        elif clause:
            hits[np.unique(np.concatenate([docs for docs, _ in clause]))] += count
    docs = np.flatnonzero(hits)
    sums, counts = total[docs], hits[docs]
    total[docs] = 0.0
    hits[docs] = 0
    return docs, sums, counts


def flat_sum(index: EmbeddedIndex, parts: list[Scores]) -> Scores:
    """The should clauses of a BooleanQuery that needs at most one (or a tie 1 dis_max, which Lucene rewrites to
    one), as Lucene 9.9.1 scores them after its rewrite flattened the nested pure disjunctions: every leaf summed
    once in double (a part's `exact` sums where it has them, else its float32 scores), cast to float32 at the end;
    the result is a pure disjunction itself."""
    parts = [p for p in parts if p.docs.size]
    if not parts:
        return Scores.none(index.n)
    if len(parts) == 1:
        return parts[0]
    total, seen = index.scratch_sum, index.scratch_mark
    for part in parts:
        total[part.docs] += part.exact if part.exact is not None else part.values
        seen[part.docs] = True
    docs = np.flatnonzero(seen)
    sums = total[docs]
    total[docs] = 0.0
    seen[docs] = False
    return Scores.disjunction(index.n, docs, sums)
