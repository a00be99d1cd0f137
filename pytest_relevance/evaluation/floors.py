"""The constant-answer floor: the score of the best single ranked list answered to every query regardless of its
text, exact for the metrics whose mean is a sum over positions (ndcg, p, recall, judged, coverage, novelty), a
greedy lower bound for the others (hit, mrr, map, rprec, err)."""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import BEYOND, Metric, score_placed

if TYPE_CHECKING:
    from pytest_relevance.evaluation.diversity import CorpusFields


#: Metrics whose best constant list is found exactly. Each is, for one list L of the metric's length, a mean over
#: queries that regroups as sum_i discount(i) * w(L_i): w(d) the document's per-query gain normalized as the metric
#: normalizes it (gain / IDCG@k for NDCG, 1 / R for recall, 1 / k for P and judged), summed over the queries, and
#: discount(i) non-increasing (1/log2(i + 2) for NDCG, 1 in the top k for the others). By the rearrangement
#: inequality the k largest weights in descending order are optimal. hit, mrr, map, rprec and err do not regroup:
#: what a document adds depends on the documents above it (a query covered twice gains nothing; precision at each
#: relevant rank), a max-coverage problem, so their floor is the score of a greedy list: a lower bound.
EXACT_FLOORS = frozenset({"ndcg", "p", "recall", "judged", "coverage", "novelty"})


def floor_is_exact(metric: Metric) -> bool:
    """Whether `constant_floor` gives the best constant list's score, or the score of a list that the best one
    matches or beats: reports say "at least" (>=) then."""
    return metric.name in EXACT_FLOORS


def constant_floor(
    judgments: Judgments,
    metrics: Sequence[Metric],
    size: int,
    corpus_size: int | None = None,
    corpus: CorpusFields | None = None,
) -> dict[str, dict[str, float]]:
    """Per stratum and metric, the score of the best single ranked list answered to every query of the stratum.

    A metric beyond relevance has a floor only where `beyond` defines one (coverage needs `corpus_size`,
    alpha_ndcg the `corpus`); the others are left out of each stratum's mapping.

    The list is as long as the metric's cut-off, or `size` (the run's depth) for a metric without one. A system
    near this floor is not using the query text much; a metric that cannot tell them apart is not measuring ranking.
    Exact for `EXACT_FLOORS`; for the other metrics the better of two feasible lists (greedy by marginal gain, and
    by the number of queries a document is relevant to), so the floor is at least that.
    """
    from pytest_relevance.evaluation import diversity as beyond

    floors: dict[str, dict[str, float]] = {}
    defined = beyond.floors([m for m in metrics if m.name in BEYOND], corpus_size)
    shares: dict[tuple[Any, ...], dict[str, float]] = {}  # a query's weights per metric: every query is in two groups
    for name, ids in judgments.groups.items():
        queries = [judgments[qid] for qid in ids]
        floors[name] = {}
        for metric in metrics:
            if metric.name == "alpha_ndcg" and corpus is not None:
                values = corpus.values(metric.doc_field or "")
                floors[name][metric.spec] = beyond.alpha_ndcg_floor(queries, metric, values)
            elif metric.spec in defined:
                floors[name][metric.spec] = defined[metric.spec]
            if metric.name in BEYOND:
                continue
            length = size if metric.k is None else metric.k
            if metric.name in EXACT_FLOORS:
                answers = [_by_weight(queries, metric, length, shares)]
            else:
                counted = Metric("p", length, threshold=metric.threshold)
                answers = [_greedy(queries, metric, length), _by_weight(queries, counted, length, shares)]
            floors[name][metric.spec] = max(_score(queries, answer, metric, length) for answer in answers)
    return floors


def _score(queries: Sequence[Query], answer: list[str], metric: Metric, length: int) -> float:
    """The mean score of one list padded to `length` with documents no query judged: a run is that long, and
    judged@k divides by the list's length up to k. A query that judged none of the list scores 0 in every metric
    (no judged position), so only the others are scored: a short list meets few of many queries."""
    placed = {doc: rank for rank, doc in enumerate(answer)}
    met = [query for query in queries if not placed.keys().isdisjoint(query.grades)]
    values = [score_placed(query.grades, placed, length, [metric])[metric.spec] for query in met]
    return math.fsum(values) / len(queries) if queries else 0.0


def _by_weight(
    queries: Sequence[Query], metric: Metric, length: int, shares: dict[tuple[Any, ...], dict[str, float]]
) -> list[str]:
    """The `length` documents of largest weight (see `EXACT_FLOORS`), weight descending, then id ascending.
    `shares` keeps each query's weights for the next group that holds the query."""
    weights: dict[str, float] = {}
    for query in queries:
        key = (query.id, metric.name, metric.k, metric.gain, metric.threshold)
        own = shares.get(key)
        if own is None:
            own = shares[key] = _shares(query, metric)
        for doc, share in own.items():
            weights[doc] = weights.get(doc, 0.0) + share
    return heapq.nsmallest(length, weights, key=lambda d: (-weights[d], d))


def _shares(query: Query, metric: Metric) -> dict[str, float]:
    """What each document of the query adds to the metric's sum when listed (before the position's discount)."""
    if metric.name == "ndcg":
        gains = {d: 2.0**g - 1.0 if metric.gain == "exp" else g for d, g in query.grades.items() if g > 0}
        ideal = sorted(gains.values(), reverse=True)[: metric.k]
        idcg = sum(gain / math.log2(i + 2) for i, gain in enumerate(ideal))
        return {d: gain / idcg for d, gain in gains.items()}
    if metric.name == "judged":
        return dict.fromkeys(query.grades, 1.0)
    relevant = [d for d, g in query.grades.items() if g >= metric.threshold]
    return dict.fromkeys(relevant, 1.0 if metric.name == "p" else 1.0 / len(relevant) if relevant else 0.0)


def _greedy(queries: Sequence[Query], metric: Metric, length: int) -> list[str]:
    """A list built one position at a time, each time the document that adds most to the summed score given the
    documents above it (ties by id); it stops when none adds anything.

    What a document adds at a position is a sum over the queries it can gain in, each query's term depending only on
    that query's state (covered yet, relevant documents above, ERR's chance of going on) and for rprec on whether the
    position is still within R. So after each pick only the documents sharing a query with it are re-scored, and a
    heap with stale entries skipped finds the best: the build costs the judgments' size, not positions x documents.
    """
    name, threshold = metric.name, metric.threshold
    scale = 2.0**metric.max_grade
    members: dict[str, list[tuple[int, float]]] = {}  # doc -> (query index, grade) where it can gain
    docs_of: list[list[str]] = []
    total: list[int] = []  # R per query
    for index, query in enumerate(queries):
        useful = [(d, g) for d, g in query.grades.items() if (g > 0 if name == "err" else g >= threshold)]
        docs_of.append([d for d, _ in useful])
        total.append(sum(1 for g in query.grades.values() if g >= threshold))
        for doc, grade in useful:
            members.setdefault(doc, []).append((index, grade))
    found = [0] * len(queries)  # relevant documents listed so far
    going = [1.0] * len(queries)  # ERR: the chance that a reader gets past the documents listed so far

    def adds(doc: str, position: int) -> float:
        if name in ("hit", "mrr"):  # mrr's 1 / rank is the same for every document at a position
            return float(sum(1 for i, _ in members[doc] if not found[i]))
        if name == "map":
            return sum((found[i] + 1) / total[i] for i, _ in members[doc])
        if name == "rprec":
            return sum(1 / total[i] for i, _ in members[doc] if position < total[i])
        gained: float = sum(going[i] * (2.0 ** min(g, metric.max_grade) - 1.0) / scale for i, g in members[doc])
        return gained

    current = {doc: adds(doc, 0) for doc in members}
    heap = [(-value, doc) for doc, value in current.items()]
    heapq.heapify(heap)
    answer: list[str] = []

    def rescore(docs: Iterable[str], position: int) -> None:
        for doc in docs:
            if doc in current:
                current[doc] = adds(doc, position)
                heapq.heappush(heap, (-current[doc], doc))

    leaving: dict[int, list[int]] = {}  # rprec: position -> the queries whose R it passes
    for index, r in enumerate(total):
        leaving.setdefault(r, []).append(index)
    for position in range(length):
        if name == "rprec" and position:
            rescore({d for i in leaving.get(position, []) for d in docs_of[i]}, position)
        while heap and (heap[0][1] not in current or -heap[0][0] != current[heap[0][1]]):
            heapq.heappop(heap)
        if not heap or heap[0][0] >= 0:
            break
        doc = heapq.heappop(heap)[1]
        answer.append(doc)
        del current[doc]
        for index, grade in members[doc]:
            found[index] += grade >= threshold
            going[index] *= 1.0 - (2.0 ** min(grade, metric.max_grade) - 1.0) / scale
        rescore({d for i, _ in members[doc] for d in docs_of[i]}, position + 1)
    return answer
