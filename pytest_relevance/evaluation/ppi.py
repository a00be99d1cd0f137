"""Judge-corrected estimates: prediction-powered inference (PPI) of a metric's mean when some grades come from a
model (the judge hook) and a subset of the same queries was also graded by people.

A metric computed on a model's grades inherits the model's bias (a judge that calls too many documents relevant
inflates NDCG), and kappa beside the number does not say by how much. PPI (Angelopoulos, Bates, Fannjiang, Jordan
& Zrnic, Science 2023) measures the bias on the queries people graded and removes it:

    estimate = mean over all N queries of the metric on the judge's grades
             + mean over the n human-graded queries of (metric on human grades - metric on the judge's grades)

with variance var(judge values) / N + var(human - judge) / n, so a 95% interval of estimate +- 1.96 sd. It is
unbiased for the human-graded metric whatever the judge's errors, and narrower than the human-only mean of the n
queries when the judge's values track the human ones (the rectifier varies less than the metric).

Assumptions: the human-graded queries are a uniform random sample of the stratum's queries (a subset chosen for
being hard, or easy, biases the correction); human grades are the truth the metric is meant to measure; N and n are
large enough for the normal approximation (tens of queries).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_relevance.evaluation.evaluation import Evaluation
    from pytest_relevance.judgments.model import Judgments

LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    """A mean with its confidence interval, and how many queries it rests on (judge-graded, human-graded)."""

    value: float
    low: float
    high: float
    queries: int
    human: int


def _variance(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    centre = math.fsum(values) / len(values)
    return math.fsum((v - centre) ** 2 for v in values) / (len(values) - 1)


def ppi_mean(judge: Sequence[float], pairs: Sequence[tuple[float, float]], level: float = LEVEL) -> Estimate:
    """The PPI estimate of a metric's mean: `judge` is each query's value on the judge's grades (all N queries of
    the stratum), `pairs` (judge value, human value) for the n queries people graded too. n >= 2."""
    if len(pairs) < 2 or not judge:
        raise ValueError("prediction-powered inference needs the judge's values and at least 2 human-graded queries")
    rectifier = [human - model for model, human in pairs]
    value = math.fsum(judge) / len(judge) + math.fsum(rectifier) / len(rectifier)
    error = math.sqrt(_variance(judge) / len(judge) + _variance(rectifier) / len(rectifier))
    half = NormalDist().inv_cdf((1 + level) / 2) * error
    return Estimate(value, value - half, value + half, len(judge), len(pairs))


def plain_mean(values: Sequence[float], level: float = LEVEL) -> Estimate:
    """The plain mean of `values` with its normal interval: the human-only estimate PPI is compared with."""
    if len(values) < 2:
        raise ValueError("an interval needs at least 2 values")
    value = math.fsum(values) / len(values)
    half = NormalDist().inv_cdf((1 + level) / 2) * math.sqrt(_variance(values) / len(values))
    return Estimate(value, value - half, value + half, len(values), len(values))


def corrected(
    evaluation: Evaluation, judgments: Judgments, human: Judgments, level: float = LEVEL
) -> dict[str, dict[str, Estimate]]:
    """Per stratum and metric with per-query values, the PPI estimate of the metric as people would grade it: the
    evaluation's values (on `judgments`, partly the judge's grades) corrected by the stratum's queries that `human`
    grades too, each scored on the human grades against the same ranking. A stratum with fewer than 2 such queries
    has no estimate."""
    from pytest_relevance.metrics.ranking import score_query

    metrics = [m for m in evaluation.metrics if not getattr(m, "set_level", False)]
    people = {
        q.id: score_query(q.grades, evaluation.run.get(q.id, []), metrics).values
        for q in human.queries
        if q.id in evaluation.per_query
    }
    out: dict[str, dict[str, Estimate]] = {}
    for name, ids in judgments.groups.items():
        both = [q for q in ids if q in people]
        if len(both) < 2:
            continue
        out[name] = {
            m.spec: ppi_mean(
                [evaluation.per_query[q][m.spec] for q in ids],
                [(evaluation.per_query[q][m.spec], people[q][m.spec]) for q in both],
                level,
            )
            for m in metrics
        }
    return out
