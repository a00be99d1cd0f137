"""Explanations of the embedded engine by recording: the handlers that rank also explain, when a recorder is set.

Explaining a score by a second implementation of each query would let the two drift apart; instead `evaluate` and
the few places where a handler combines parts (term clauses, a multi-field query's fields, function_score's
functions, a rescorer) hand what they computed to the `Recorder` in `RECORDING`, which keeps only the requested
documents' values. The values are therefore the float32 numbers the ranking used. With no recorder set (always,
outside `explain`), each of those places costs one context-variable read.
"""

from __future__ import annotations

import re
from collections import Counter
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.cost import FILTER_PLACE
from pytest_relevance.engines.embedded.java import F32
from pytest_relevance.engines.embedded.scoring import BM25, LENGTH_TABLE
from pytest_relevance.explain.tree import Node

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.scores import Scores

RECORDING: ContextVar[Recorder | None] = ContextVar("RECORDING", default=None)

# the query types whose node is not "other": how each combines its parts
CLAUSE_KINDS = {
    "bool": "sum", "match": "sum", "match_phrase": "sum", "match_phrase_prefix": "sum", "match_bool_prefix": "sum",
    "term": "sum", "combined_fields": "sum", "query_string": "sum", "simple_query_string": "sum", "fuzzy": "sum",
    "multi_match": "dis_max", "dis_max": "dis_max", "function_score": "function_score", "boosting": "product",
    "constant_score": "constant", "match_all": "constant", "range": "constant", "exists": "constant",
    "ids": "constant", "terms": "constant", "prefix": "constant", "wildcard": "constant", "regexp": "constant",
    "match_none": "no_match", "script_score": "script", "script": "constant", "knn": "knn",
}  # fmt: skip


class Draft:
    """One node for every requested document at once: per-document arrays (matched, value, details) and the
    children recorded while it was evaluated."""

    __slots__ = ("children", "details", "kind", "matched", "path", "values")

    def __init__(
        self, path: str, kind: str, matched: np.ndarray, values: np.ndarray, details: dict[str, Any], children: list
    ) -> None:
        self.path, self.kind, self.matched, self.values = path, kind, matched, values
        self.details, self.children = details, children

    def node(self, k: int) -> Node:
        """The node of the k-th requested document."""
        matched = bool(self.matched[k])
        details = {key: _plain(value[k] if isinstance(value, np.ndarray) else value)
                   for key, value in self.details.items()}  # fmt: skip
        children = tuple(child.node(k) for child in self.children)
        if self.kind == "filter":
            details["matched"] = float(matched)
            value = 0.0
        else:
            value = float(self.values[k]) if matched else 0.0
        if not matched:
            query = self.details.get("query")
            if query == "bool":
                failed = _failed_clause(children)
            else:
                failed = _failed_inner(children, query) if query in _WRAPPERS else ""
            if failed:
                details["failed"] = failed
        return Node(self.path, self.kind, value, details, children, matched)


def _plain(value: Any) -> float | str:
    if isinstance(value, str):
        return value
    return float(value)


def _failed_clause(children: tuple[Node, ...]) -> str:
    """The first required clause of a bool that the document fails (a must or filter it misses, a must_not it
    matches), or its should clauses when none matched; the deepest such clause when the failing one is a bool."""
    for child in children:
        place = child.path.rsplit(".", 1)[0]
        missed = re.search(r"\.(must|filter)\[\d+\]$", place) is not None and not child.matched
        excluded = re.search(r"\.must_not\[\d+\]$", place) is not None and child.matched
        if missed or excluded:
            deeper = child.details.get("failed")
            return deeper if missed and isinstance(deeper, str) else child.path
    if children and not any(c.matched for c in children if ".should[" in c.path):
        return "should (no clause matched)"
    return ""


_WRAPPERS = frozenset(("function_score", "boosting", "constant_score", "nested", "script_score"))


def _failed_inner(children: tuple[Node, ...], query: Any) -> str:
    """Of a compound clause other than bool (function_score, boosting, constant_score...), the query it wraps
    when that is what failed; a function_score whose query matched was cut by its min_score."""
    inner = next((c for c in children if c.kind != "filter" and ".functions[" not in c.path), None)
    if inner is None:
        return ""
    if inner.matched:
        return "min_score" if query == "function_score" else ""
    deeper = inner.details.get("failed")
    return deeper if isinstance(deeper, str) else inner.path


class Recorder:
    """What the handlers report while one search body runs, for the requested document ordinals."""

    def __init__(self, ordinals: np.ndarray) -> None:
        self.ordinals = ordinals
        self.stack: list[list[Draft]] = [[]]
        self.notes: dict[str, dict[str, Any]] = {}
        self.seen: Counter[str] = Counter()
        self.final: tuple[np.ndarray, np.ndarray] | None = None
        self.removed: dict[int, str] = {}  # requested document -> the stage that removed it from the hits

    # ---------------------------------------------------------------- per-document lookups

    def lookup(self, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(present, position in `docs`) of each requested ordinal; `docs` in any order."""
        if docs.size == 0:
            return np.zeros(self.ordinals.size, dtype=bool), np.zeros(self.ordinals.size, dtype=np.int64)
        order = np.argsort(docs, kind="stable")
        at = np.minimum(np.searchsorted(docs[order], self.ordinals), docs.size - 1)
        present = docs[order][at] == self.ordinals
        return present, order[at]

    def gather(self, docs: np.ndarray, values: np.ndarray, default: Any = 0.0) -> np.ndarray:
        """`values` (one per entry of `docs`) at the requested ordinals, `default` where absent."""
        present, at = self.lookup(docs)
        picked = values[at] if values.size else np.zeros(self.ordinals.size, dtype=values.dtype)
        return np.where(present, picked, default)

    def at(self, scores: Scores) -> tuple[np.ndarray, np.ndarray]:
        present, at = self.lookup(scores.docs)
        values = scores.values
        picked = values[at] if values.size else np.zeros(self.ordinals.size, dtype=F32)
        return present, np.where(present, picked, F32(0)).astype(F32)

    # ---------------------------------------------------------------- recording

    def note(self, path: str, **details: Any) -> None:
        """Details for the node that will be recorded at `path` (`kind` overrides the node's kind)."""
        self.notes.setdefault(path, {}).update(details)

    def open(self) -> None:
        """A node begins: what is recorded until `close` is its children."""
        self.stack.append([])

    def close(self, path: str, kind: str, scores: Scores, **details: Any) -> None:
        children = self.stack.pop()
        matched, values = self.at(scores)
        self._add(path, kind, matched, values, details, children)

    def clause(self, name: str, place: str, scores: Scores) -> None:
        """The node of a query clause `{name: ...}` evaluated at `place` (its path without the name)."""
        kind = "filter" if FILTER_PLACE.search(place) else CLAUSE_KINDS.get(name, "other")
        self.close(f"{place}.{name}" if place else name, kind, scores, query=name)

    def bm25(
        self, path: str, field: str, term: str, target: Any, boost: float, doc_freq: int, idf: Any, docs: Any,
        freqs: Any, scores: Any,
    ) -> None:  # fmt: skip
        """A term (or phrase, or synonym) clause scored by the field's similarity, with Lucene's explanation
        numbers: idf as scored, tf = freq / (freq + k1 (1 - b + b dl / avgdl)) in float32 as BM25Scorer.explain."""
        present, at = self.lookup(docs)
        freq = np.where(present, freqs[at] if freqs.size else 0, 0).astype(F32)
        similarity = target.bm25
        details: dict[str, Any] = {"field": field, "term": term, "boost": float(F32(boost)), "docFreq": doc_freq,
                                   "docCount": similarity.doc_count}  # fmt: skip
        if isinstance(similarity, BM25):
            norms = target.norms[self.ordinals]
            with np.errstate(all="ignore"):
                tf = (F32(1) - F32(1) / (F32(1) + freq * similarity.cache[norms])).astype(F32)
            details.update(freq=freq, dl=LENGTH_TABLE[norms], avgdl=float(similarity.avgdl), idf=float(idf), tf=tf,
                           k1=float(similarity.k1), b=float(similarity.b))  # fmt: skip
            kind = "bm25"
        else:
            kind = "constant"
        picked = scores[at] if scores.size else np.zeros(self.ordinals.size, dtype=F32)
        self._add(path, kind, present, np.where(present, picked, 0).astype(F32), details, [])

    def settle(self, docs: np.ndarray, values: np.ndarray, stage: str) -> None:
        """The body's scores after `stage` (min_score and post_filter, rescore, collapse): the last is the hits'.
        A document a stage removes is remembered as removed by it."""
        present, at = self.lookup(docs)
        picked = values[at] if values.size else np.zeros(self.ordinals.size, dtype=F32)
        if self.final is not None:
            for k in np.flatnonzero(self.final[0] & ~present):
                self.removed[int(k)] = stage
        self.final = (present, np.where(present, picked, 0).astype(F32))

    def _add(
        self, path: str, kind: str, matched: np.ndarray, values: np.ndarray, details: dict[str, Any], children: list
    ) -> None:
        noted = self.notes.pop(path, None)  # noted by the handler under the path it knows
        self.seen[path] += 1
        if self.seen[path] > 1:
            path = f"{path}#{self.seen[path]}"
        if noted:
            details = {**details, **noted}
            kind = details.pop("kind", kind)
        self.stack[-1].append(Draft(path, kind, matched, values, details, children))

    # ---------------------------------------------------------------- the trees

    def trees(self, rescored: bool) -> list[Node]:
        """One root per requested document: the query's node when the body is a query alone, else a `search` (or
        `rescore`) root over the query's node and the other parts, its value the hit's score."""
        top = self.stack[0]
        assert self.final is not None
        matched, values = self.final
        roots = []
        for k in range(self.ordinals.size):
            children = tuple(draft.node(k) for draft in top)
            hit = bool(matched[k])
            value = float(values[k]) if hit else 0.0
            if len(children) == 1 and not rescored:
                only = children[0]
                details = dict(only.details)
                if only.matched and not hit:
                    details["failed"] = self.removed.get(k, "min_score")
                roots.append(Node(only.path, only.kind, value, details, only.children, hit))
                continue
            details = {}
            if not hit:
                failed = [c.path for c in children if not c.matched]
                details["failed"] = failed[0] if failed else self.removed.get(k, "min_score")
            # a hybrid search sums its query and knn scores; a post_filter only decides matching
            scoring = [c for c in children if c.kind != "filter"]
            kind = "rescore" if rescored else ("sum" if len(scoring) != 1 else scoring[0].kind)
            roots.append(Node("search", kind, value, details, children, hit))
        return roots
