"""The sweep and its decision: every variant the strategy asks for is measured on all judged queries (one query
pass each on the opened index), scored on the tune part only, and the best there is the winner. Its gain is then
reported on the held-out part, which played no part in choosing it, with the in-sample gain beside it so that the
optimism of picking the best of many is visible, and tested against the current template with the gate's paired
sign-flip test corrected for every (variant, stratum, metric) tried (`correction`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation.diagnostics import judged_at
from pytest_relevance.evaluation.evaluation import Evaluation
from pytest_relevance.judgments.model import Judgments
from pytest_relevance.metrics.ranking import Metric, mean
from pytest_relevance.tune.correction import Tested, family_test
from pytest_relevance.tune.space import Space, label
from pytest_relevance.tune.split import Split
from pytest_relevance.tune.strategies import Strategy


@dataclass
class Trial:
    params: dict[str, Any]
    evaluation: Evaluation


@dataclass(frozen=True)
class Objective:
    """What the winner is chosen by: one per-query metric in one group (default the first metric, over all)."""

    metric: Metric
    stratum: str = "all"

    @property
    def spec(self) -> str:
        return f"{self.stratum}.{self.metric.spec}"

    def score(self, evaluation: Evaluation, ids: Sequence[str]) -> float:
        """The part's mean, signed so that larger is better (age and exposure_gini are better low)."""
        value = mean(evaluation.per_query[q][self.metric.spec] for q in ids)
        return value if self.metric.higher_is_better else -value


def objective(metrics: Sequence[Metric], text: str | None, strata: Sequence[str]) -> Objective:
    """`--objective [STRATUM.]METRIC`, which must be a per-query metric being scored; default the first one."""
    scored = [m for m in metrics if not m.set_level]
    if not scored:
        raise RelevanceInputError("relevance_metrics", "tune needs a per-query metric (ndcg@10, mrr@10, ...) to score")
    if text is None:
        return Objective(scored[0])
    stratum, _, spec = text.rpartition(".") if text.split("(")[0].count(".") else ("", "", text)
    stratum = stratum or "all"
    found = next((m for m in scored if m.spec == spec), None)
    if found is None or stratum not in strata:
        raise RelevanceInputError(
            "--objective",
            f"{text!r} names no per-query metric being scored in a group (metrics: "
            f"{', '.join(m.spec for m in scored)}; groups: {', '.join(strata)}); write e.g. {scored[0].spec} or "
            f"{strata[-1]}.{scored[0].spec}",
        )
    return Objective(found, stratum)


def run(
    strategy: Strategy,
    measure: Callable[[dict[str, Any]], Evaluation],
    goal: Objective,
    tune_ids: Sequence[str],
    progress: Callable[[int, dict[str, Any], float], None] | None = None,
) -> list[Trial]:
    """Every variant the strategy asks for, measured once; the strategy is told each one's tune-part score."""
    trials: list[Trial] = []
    seen: set[str] = set()
    while (params := strategy.ask()) is not None:
        key = repr(sorted(params.items()))
        if key in seen:
            continue
        seen.add(key)
        evaluation = measure(params)
        score = goal.score(evaluation, tune_ids)
        strategy.tell(params, score)
        trials.append(Trial(params, evaluation))
        if progress is not None:
            progress(len(trials), params, score)
    return trials


def decide(
    strategy: str,
    space: Space,
    current: Evaluation,
    trials: Sequence[Trial],
    judgments: Judgments,
    parts: Split,
    goal: Objective,
    alpha: float,
    correction: str,
    seed: int,
    judged_k: int,
) -> dict[str, Any]:
    """The sweep's JSON model: every trial's values on both parts and judged@k, the winner (chosen on the tune part)
    with its in-sample and held-out delta, interval and adjusted p, and `better`."""
    metrics = [m for m in current.metrics if not m.set_level]
    groups = judgments.groups
    tune, held = _part(groups, parts.tune), _part(groups, parts.held_out)
    winner = max(range(len(trials)), key=lambda i: (goal.score(trials[i].evaluation, tune[goal.stratum]), -i))
    on_tune = _family(current, trials, tune, metrics, alpha, correction, seed)
    on_held = _family(current, trials, held, metrics, alpha, correction, seed)
    columns = [(s, m.spec) for s in groups for m in metrics]  # per trial, in this order
    at = winner * len(columns) + columns.index((goal.stratum, goal.metric.spec))
    rows = [
        {"stratum": s, "metric": spec, **_tested(on_held, winner * len(columns) + c)}
        for c, (s, spec) in enumerate(columns)
    ]
    held_out = _tested(on_held, at)
    varying = [p.name for p in space.params if len(p.values) > 1] or space.names()  # a lone template file says nothing

    def named(params: dict[str, Any]) -> str:
        return label({k: v for k, v in params.items() if k in varying})

    improving = held_out["delta"] > 0 if goal.metric.higher_is_better else held_out["delta"] < 0
    return {
        "strategy": strategy,
        "objective": goal.spec,
        "correction": correction,
        "alpha": alpha,
        "seed": seed,
        "queries": {"tune": len(parts.tune), "held_out": len(parts.held_out)},
        "family": len(trials) * len(columns),
        "space": {p.name: list(p.values) for p in space.params},
        "current": {
            "params": space.placeholders(),
            "values": _both(current, tune, held, metrics),
            "judged": _judged(current, judgments, judged_k),
        },
        "judged_k": judged_k,
        "trials": [
            {
                "trial": i + 1,
                "params": t.params,
                "label": named(t.params),
                "values": {
                    "tune": _values(t.evaluation, tune, metrics),
                    "held_out": _values(t.evaluation, held, metrics),
                },
                "judged": _judged(t.evaluation, judgments, judged_k),
            }
            for i, t in enumerate(trials)
        ],
        "winner": {
            "trial": winner + 1,
            "params": trials[winner].params,
            "label": named(trials[winner].params),
            "in_sample": _tested(on_tune, at),
            "held_out": held_out,
            "rows": rows,
        },
        "better": bool(improving and held_out["p_adjusted"] <= alpha),
    }


def _part(groups: dict[str, list[str]], ids: frozenset[str]) -> dict[str, list[str]]:
    """Each group's queries that are in the part (in the judgments' order)."""
    return {name: [q for q in members if q in ids] for name, members in groups.items()}


def _both(
    evaluation: Evaluation, tune: dict[str, list[str]], held: dict[str, list[str]], metrics: Sequence[Metric]
) -> dict[str, Any]:
    return {"tune": _values(evaluation, tune, metrics), "held_out": _values(evaluation, held, metrics)}


def _values(evaluation: Evaluation, part: dict[str, list[str]], metrics: Sequence[Metric]) -> dict[str, Any]:
    return {
        name: {m.spec: _round(mean(evaluation.per_query[q][m.spec] for q in ids)) for m in metrics} | {"n": len(ids)}
        for name, ids in part.items()
    }


def _judged(evaluation: Evaluation, judgments: Judgments, k: int) -> dict[str, float]:
    shares, _ = judged_at(evaluation, judgments, k)
    return {name: _round(value) for name, value in shares.items()}


def _family(
    current: Evaluation,
    trials: Sequence[Trial],
    part: dict[str, list[str]],
    metrics: Sequence[Metric],
    alpha: float,
    correction: str,
    seed: int,
) -> Tested:
    """The family's test on one part: a column per (trial, group, metric), a row per query of the part."""
    ids = part["all"]
    row = {q: i for i, q in enumerate(ids)}
    columns = [(name, m.spec) for name in part for m in metrics]
    deltas = np.zeros((len(ids), len(trials) * len(columns)))
    base = np.array([[current.per_query[q][m.spec] for m in metrics] for q in ids])
    for t, trial in enumerate(trials):
        values = np.array([[trial.evaluation.per_query[q][m.spec] for m in metrics] for q in ids]) - base
        for g, name in enumerate(part):
            members = [row[q] for q in part[name]]
            start = t * len(columns) + g * len(metrics)
            deltas[members, start : start + len(metrics)] = values[members]
    counts = np.array([len(part[name]) for name, _ in columns] * len(trials))
    return family_test(deltas, counts, alpha, correction, seed)


def _tested(tested: Tested, column: int) -> dict[str, Any]:
    delta, half = float(tested.delta[column]), float(tested.half_width[column])
    return {
        "delta": _round(delta),
        "ci": [_round(delta - half), _round(delta + half)],
        "p": _round(float(tested.p[column])),
        "p_adjusted": _round(float(tested.p_adjusted[column])),
    }


def _round(value: float) -> float:
    return round(value, 4) if math.isfinite(value) else value
