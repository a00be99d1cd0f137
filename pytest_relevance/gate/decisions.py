"""What each stratum x metric's decision rests on: its p-value, adjusted over the test where relevance_alpha bounds
the whole test, the confidence interval of its delta, and the smallest drop the gate could have seen (MDE).

With `relevance_alpha_scope = test` (the default) the chance that a test fails on a change that did nothing is at
most alpha over all its rows: one sign per query is drawn once and shared by every row (`significance.max_t`), and a
row beyond tolerance regresses only when its adjusted p-value is below alpha. A set-level metric has no per-query
values to flip, so a test gating one falls back to Holm's adjustment, named as such. `comparison` tests each row on
its own at alpha, as the gate did before the test-level bound: a test of 16 rows then fails on noise far more often.

With `relevance_judge_correction = ppi` a row whose judge-corrected (PPI) delta is known is decided on that delta
instead of the plain one: beyond tolerance or not, and with alpha its p-value from the PPI estimate's normal
interval (sign flips cannot test it: the correction is a second, human-graded sample). A test with such rows adjusts
by Holm, as with a set-level metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pytest_relevance.config.settings import Settings
from pytest_relevance.evaluation.evaluation import Evaluation
from pytest_relevance.evaluation.significance import (
    MaxT,
    change_p,
    critical_value,
    holm,
    intervals,
    max_t,
    mde,
    noise_floor,
    query_deltas,
)
from pytest_relevance.gate.compare import Comparison, Row
from pytest_relevance.judgments.model import Judgments
from pytest_relevance.metrics.ranking import DIGITS

if TYPE_CHECKING:
    from pytest_relevance.evaluation.ppi import Correction, Estimate


@dataclass(frozen=True)
class Evidence:
    """One row's statistics: `p` (None unless the row changed for the worse beyond tolerance), `adjusted` (its
    p-value adjusted over the test; None in comparison scope or without alpha), `interval` (the 95% paired-bootstrap
    interval of its delta; None for a set-level metric or a new row), `mde` (None where it cannot be estimated),
    and the status the gate gives it."""

    p: float | None
    adjusted: float | None
    interval: tuple[float, float] | None
    mde: float | None
    status: str


@dataclass(frozen=True)
class Weighed:
    """Every row's evidence, in the comparison's order; how p-values were adjusted (None: they were not); the
    warnings about drops the gate cannot see."""

    evidence: list[Evidence]
    adjustment: str | None
    warnings: list[str]


def weigh(
    comparison: Comparison,
    evaluation: Evaluation,
    judgments: Judgments,
    settings: Settings,
    old_queries: Mapping[str, Mapping[str, float]],
    correction: Correction | None = None,
) -> Weighed:
    """The evidence for each row of `comparison` against the baseline's per-query values `old_queries`; with
    `relevance_judge_correction = ppi`, the rows `correction` has a corrected delta for are decided on it.

    A stratum the judgments do not name (a record compared by `pytest-relevance compare` names the queries of "all"
    only, see `gate.recorded`) has no per-query evidence: its rows get no p-value, interval or MDE, and compare
    applies no relevance_alpha to a record with such a stratum."""
    rows = comparison.rows
    groups = judgments.groups
    by_spec = {m.spec: m for m in evaluation.metrics}
    set_level = [getattr(by_spec[r.metric], "set_level", False) for r in rows]
    family = [i for i, row in enumerate(rows) if row.before is not None]
    flipped = [i for i in family if not set_level[i] and rows[i].stratum in groups]
    deltas = {
        i: query_deltas(rows[i].metric, groups[rows[i].stratum], evaluation, old_queries, DIGITS) for i in flipped
    }
    gated = judge_corrected(rows, correction, settings)
    statuses = [_corrected_status(row, gated[i]) if i in gated else row.status for i, row in enumerate(rows)]
    beyond = [status == "regression" for status in statuses]
    test_scope = settings.alpha is not None and settings.alpha_scope == "test"
    # one-sided where the test's rows are adjusted together (as max-T's), two-sided per comparison (as sign flips')
    ppi_p = {i: gated[i].worse_p(rows[i].higher_is_better, two_sided=not test_scope) for i in gated}

    def honest_p(i: int) -> float | None:
        row = rows[i]
        if row.stratum not in groups:
            return None
        metric, ids = by_spec[row.metric], groups[row.stratum]
        return change_p(metric, ids, evaluation, old_queries, comparison.rankings, comparison.depth, DIGITS)

    adjusted: dict[int, float | None] = {}
    adjustment, critical = None, critical_value(settings.alpha, settings.alpha_scope, len(family))
    if not test_scope:
        raw = {i: ppi_p[i] if i in ppi_p else honest_p(i) for i in family if beyond[i]}
    else:
        assert settings.alpha is not None  # test scope is only taken with an alpha
        result, adjustment = _max_t(rows, flipped, deltas, settings.alpha)
        one_sided = dict(zip(flipped, result.raw, strict=True)) if result else {}
        raw = {
            i: ppi_p[i] if i in ppi_p else honest_p(i) if set_level[i] else one_sided.get(i, 1.0)
            for i in family
            if beyond[i]
        }
        if any(set_level[i] for i in family) or ppi_p:
            ps = [
                ppi_p[i] if i in ppi_p else raw[i] if i in raw else None if set_level[i] else one_sided.get(i, 1.0)
                for i in family
            ]
            adjusted = dict(zip(family, holm(ps), strict=True))
            why = []
            if any(set_level[i] for i in family):
                why.append("a set-level metric has no per-query values for the sign flips of max-T")
            if ppi_p:
                why.append(f"{len(ppi_p)} judge-corrected rows' p-values come from the PPI interval")
            adjustment = f"Holm over {len(family)} stratum x metric rows ({'; '.join(why)})"
        else:
            adjusted = dict(zip(flipped, result.adjusted, strict=True)) if result else dict.fromkeys(flipped, 1.0)
        critical = result.critical if result else critical
    spans = _intervals(rows, flipped, deltas)
    evidence, warnings = [], []
    for i, row in enumerate(rows):
        p = raw.get(i)
        decided = adjusted.get(i) if test_scope else p
        status = statuses[i]
        if beyond[i] and settings.alpha is not None and decided is not None and decided >= settings.alpha:
            status = "not significant"
        effect = None
        if i in deltas:
            spread, count, change = _spread(row, deltas[i], groups[row.stratum], old_queries)
            effect = mde(spread, count, critical, row.tolerance, change)
            if effect is not None and noise_floor(spread, count, critical) > row.tolerance:
                warnings.append(_unseen(row, effect, count))
        evidence.append(Evidence(p, adjusted.get(i) if beyond[i] else None, spans.get(i), effect, status))
    return Weighed(evidence, adjustment, warnings)


def judge_corrected(rows: Sequence[Row], correction: Correction | None, settings: Settings) -> dict[int, Estimate]:
    """Row index -> the judge-corrected delta the gate decides the row on: with `relevance_judge_correction = ppi`,
    every compared row whose PPI delta is known (see `ppi.corrected` for where it is not)."""
    if correction is None or settings.judge_correction != "ppi":
        return {}
    found = {}
    for i, row in enumerate(rows):
        corrected = correction.get(row.stratum, row.metric)
        if row.before is not None and corrected is not None and corrected.delta is not None:
            found[i] = corrected.delta
    return found


def _corrected_status(row: Row, delta: Estimate) -> str:
    """The row's status had its delta been the corrected one: the same tolerance, the same direction."""
    assert row.before is not None
    return replace(row, after=round(row.before + delta.value, DIGITS)).status


def _max_t(
    rows: Sequence[Row], flipped: Sequence[int], deltas: Mapping[int, Mapping[str, float]], alpha: float
) -> tuple[MaxT | None, str]:
    """max-T over the rows with per-query values (None when no query changed in any of them), and its name."""
    import numpy as np

    queries = sorted({q for i in flipped for q, d in deltas[i].items() if d})
    if not queries:
        return None, f"max-T (Westfall-Young step-down) over {len(flipped)} stratum x metric rows: no query changed"
    index = {q: n for n, q in enumerate(queries)}
    matrix = np.zeros((len(queries), len(flipped)))
    for column, i in enumerate(flipped):
        for q, d in deltas[i].items():
            if d:
                matrix[index[q], column] = d
    worse = [-1 if rows[i].higher_is_better else 1 for i in flipped]
    result = max_t(matrix, worse, alpha)
    patterns = f"all {result.rounds:,} sign patterns" if result.exact else f"{result.rounds:,} sign flips"
    return result, f"max-T (Westfall-Young step-down) over {len(flipped)} stratum x metric rows, {patterns}"


def _intervals(
    rows: Sequence[Row], flipped: Sequence[int], deltas: Mapping[int, Mapping[str, float]]
) -> dict[int, tuple[float, float]]:
    """Each row's interval, a stratum's metrics resampled together (the same queries drawn for each)."""
    import numpy as np

    by_stratum: dict[str, list[int]] = {}
    for i in flipped:
        by_stratum.setdefault(rows[i].stratum, []).append(i)
    out: dict[int, tuple[float, float]] = {}
    for members in by_stratum.values():
        queries = sorted({q for i in members for q in deltas[i]})
        if not queries:
            continue
        matrix = np.array([[deltas[i].get(q, 0.0) for i in members] for q in queries])
        for i, span in zip(members, intervals(matrix), strict=True):
            if span is not None:
                out[i] = (round(span[0], DIGITS), round(span[1], DIGITS))
    return out


def _spread(
    row: Row, deltas: Mapping[str, float], ids: Sequence[str], old_queries: Mapping[str, Mapping[str, float]]
) -> tuple[float, int, float]:
    """The standard deviation of the row's per-query deltas, how many queries they are, and the size of one query's
    change (the root mean square of the deltas that are not 0). Where no query changed (the run is the baseline's),
    the spread of the baseline's own per-query values stands in for both: a change that moves queries about as
    much as they differ from each other."""
    import numpy as np

    values = np.array(list(deltas.values()), dtype=float)
    if len(values) < 2:
        return 0.0, len(values), 0.0
    if np.any(values):
        moved = values[values != 0.0]
        return float(np.std(values, ddof=1)), len(values), float(np.sqrt(np.mean(moved**2)))
    recorded = [old_queries[q][row.metric] for q in ids if q in old_queries and row.metric in old_queries[q]]
    spread = float(np.std(recorded, ddof=1)) if len(recorded) > 1 else 0.0
    return spread, len(values), spread


def _unseen(row: Row, effect: float, count: int) -> str:
    change = "drops" if row.higher_is_better else "rises"
    return (
        f"{row.stratum}.{row.metric}: {change} under {effect:.3f} cannot be told from noise with {count} queries "
        f"(tolerance {row.tolerance:g}); add queries or raise the tolerance"
    )


def as_dict(evidence: Evidence) -> dict[str, Any]:
    """The report model's fields of one row's evidence."""
    return {
        "p_adjusted": evidence.adjusted,
        "ci": list(evidence.interval) if evidence.interval else None,
        "mde": None if evidence.mde is None else round(evidence.mde, DIGITS),
    }
