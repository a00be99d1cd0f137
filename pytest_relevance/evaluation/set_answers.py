"""Set answers: when a system answers each query with a set of labels (which repositories a ticket belongs to).

A routing benchmark once scored 100% "containment" by answering many repositories per ticket. So set answers are
always scored together: precision, recall and F1 pooled over all answers (micro, as a post-mortem counts them), exact
match, containment (the expected set is inside the answer), and next to each the best *constant* answer: the best
fixed set of 1..N labels answered for every query. A score is only worth what it beats.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Set
from dataclasses import dataclass

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation.evaluation import Evaluation, check_ids, check_judged
from pytest_relevance.judgments.model import Judgments

NAMES = ("precision", "recall", "f1", "exact", "contains")
EXHAUSTIVE = 50_000  # combinations tried per size before falling back to the most frequent labels


@dataclass(frozen=True)
class SetMetric:
    """A set metric; like `metrics.Metric`, it has a spec and a definition for the baseline."""

    name: str
    threshold: float = 1
    k: None = None  # set answers have no cut-off

    @property
    def spec(self) -> str:
        return self.name

    def definition(self) -> dict[str, object]:
        pooling = "micro" if self.name in ("precision", "recall", "f1") else "per query"
        return {"name": self.name, "k": None, "pooling": pooling, "threshold": self.threshold}


def is_set_run(run: object) -> bool:
    return isinstance(run, Mapping) and bool(run) and all(isinstance(v, set | frozenset) for v in run.values())


def expected(judgments: Judgments, threshold: float = 1) -> dict[str, set[str]]:
    """The labels each query should get: its documents graded >= threshold."""
    return {q.id: {d for d, g in q.grades.items() if g >= threshold} for q in judgments.queries}


def score(wanted: Mapping[str, Set[str]], answered: Mapping[str, Set[str]]) -> dict[str, float]:
    """Pooled precision/recall/F1 and the shares of exact and containing answers over the queries of `wanted`."""
    hits = sum(len(wanted[q] & answered.get(q, set())) for q in wanted)
    given = sum(len(answered.get(q, set())) for q in wanted)
    needed = sum(len(wanted[q]) for q in wanted)
    precision = hits / given if given else 0.0
    recall = hits / needed if needed else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    n = len(wanted) or 1
    exact = sum(1 for q in wanted if answered.get(q, set()) == wanted[q]) / n
    contains = sum(1 for q in wanted if wanted[q] <= answered.get(q, set())) / n
    return {"precision": precision, "recall": recall, "f1": f1, "exact": exact, "contains": contains}


def best_constants(
    wanted: Mapping[str, set[str]], max_size: int | None = None
) -> list[tuple[frozenset[str], dict[str, float]]]:
    """For each size 1..N, the fixed label set that, answered to every query, contains the most expected sets
    (then the best F1), with its scores. Exhaustive while the combinations are few, else the most frequent labels."""
    counts: dict[str, int] = {}
    for labels in wanted.values():
        for label in labels:
            counts[label] = counts.get(label, 0) + 1
    population = sorted(counts, key=lambda label: (-counts[label], label))
    out = []
    for size in range(1, min(len(population), max_size or len(population)) + 1):
        candidates: Iterator[frozenset[str]]
        if math.comb(len(population), size) <= EXHAUSTIVE:
            candidates = (frozenset(c) for c in itertools.combinations(population, size))
        else:
            candidates = iter([frozenset(population[:size])])
        best = max(
            ((c, score(wanted, dict.fromkeys(wanted, c))) for c in candidates),
            key=lambda item: (item[1]["contains"], item[1]["f1"], sorted(item[0])),
        )
        out.append(best)
    return out


def evaluate_sets(run: Mapping[str, set[str]], judgments: Judgments, threshold: float = 1) -> Evaluation:
    """Per query and per stratum (pooled within the stratum); unknown query ids are an error, as for rankings."""
    for qid, labels in run.items():
        if not isinstance(qid, str):
            raise RelevanceInputError("the run", f"query {qid!r}: query ids are strings, got {type(qid).__name__}")
        check_ids(labels, qid, "the run")
    check_judged(run, judgments)
    wanted = expected(judgments, threshold)
    answered = {q: set(labels) for q, labels in run.items()}
    per_query = {q: score({q: wanted[q]}, answered) for q in wanted}
    groups = judgments.groups
    strata = {name: score({q: wanted[q] for q in ids}, answered) for name, ids in groups.items()}
    metrics = [SetMetric(name, threshold) for name in NAMES]
    rankings = {q: sorted(answered.get(q, set())) for q in wanted}
    return Evaluation(
        metrics,  # type: ignore[arg-type]  # SetMetric stands in for Metric: readers test isinstance(metrics[0], SetMetric)
        per_query,
        strata,
        {n: len(ids) for n, ids in groups.items()},
        rankings,
    )


def floors(judgments: Judgments, threshold: float = 1) -> tuple[dict[str, dict[str, float]], list[str], int]:
    """Per stratum and metric the best constant answer's score (over sizes 1..N), notes naming the best constant
    sets of the whole set, and the size of the label population."""
    wanted = expected(judgments, threshold)
    out, best = {}, {}
    for name, ids in judgments.groups.items():
        best[name] = best_constants({q: wanted[q] for q in ids}, max_size=5)
        out[name] = {m: max((scores[m] for _, scores in best[name]), default=0.0) for m in NAMES}
    notes = []
    population = len(set().union(*wanted.values())) if wanted else 0
    for labels, scores in best["all"]:
        notes.append(
            f"constant answer {{{', '.join(sorted(labels))}}} for every query: contains {scores['contains']:.2f}, "
            f"exact {scores['exact']:.2f}, precision {scores['precision']:.2f}, recall {scores['recall']:.2f}"
        )
    return out, notes, population
