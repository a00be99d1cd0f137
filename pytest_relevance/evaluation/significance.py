"""Whether a change is real, and what the gate could have seen: the tests the gate decides with, in one place.

- `sign_flip_p`: the paired randomization (sign-flip) test of one stratum x metric's per-query deltas, and
  `paired_bootstrap_p` for a set-level metric (no per-query values to flip); `change_p` picks between them.
- `max_t`: family-wise error control over all of a test's stratum x metric rows at once (Westfall & Young's
  step-down max-T, 1993, algorithm 2.8): one sign per query, drawn once and shared by every row, so the metrics'
  and the strata's correlation (the same queries, scored by similar metrics) is respected, not assumed away as
  Bonferroni does. `holm` is the fallback where some row has no per-query values to flip.
- `intervals`: a paired bootstrap confidence interval of each mean per-query delta.
- `mde`: the smallest drop the gate would flag with 80% power, from the per-query spread.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

from pytest_relevance.metrics.ranking import Metric

if TYPE_CHECKING:
    import numpy as np

    from pytest_relevance.evaluation.diversity import CorpusFields
    from pytest_relevance.evaluation.evaluation import Evaluation

SEED = 20260115

EXACT_UP_TO = 14  # changed queries up to which the sign-flip test enumerates every sign pattern
ROUNDS = 10_000  # seeded random sign patterns beyond that
# The smallest p-value sign_flip_p can return: (0 + 1) / (ROUNDS + 1) when sampled; the exact test's smallest,
# 2 / 2^n (the observed signs and their mirror), is larger (2 / 2^14 = 0.00012). An alpha at or below it fails nothing.
SMALLEST_P = 1 / (ROUNDS + 1)


def sign_flip_p(deltas: Sequence[float], seed: int = SEED, rounds: int = ROUNDS) -> float:
    """Two-sided paired randomization (sign-flip) test of a mean per-query delta; deterministic for a seed.

    Exact over all 2^n sign patterns for n <= EXACT_UP_TO, else `rounds` seeded random patterns.
    p = (hits + 1) / (trials + 1) for the sampled case, so p is never 0.
    """
    import random

    values = [d for d in deltas if d != 0.0]
    if not values:
        return 1.0
    observed = abs(sum(values)) - 1e-12
    if len(values) <= EXACT_UP_TO:
        hits = sum(
            1
            for signs in itertools.product((1, -1), repeat=len(values))
            if abs(sum(s * v for s, v in zip(signs, values, strict=True))) >= observed
        )
        return hits / 2 ** len(values)
    rnd = random.Random(seed)
    hits = sum(1 for _ in range(rounds) if abs(sum(v if rnd.random() < 0.5 else -v for v in values)) >= observed)
    return (hits + 1) / (rounds + 1)


BOOTSTRAP_ROUNDS = 10_000  # as many resamples as sign_flip_p's sampled patterns, so its smallest p is the same
_CHUNK = 500  # resamples drawn and scored at once


def paired_bootstrap_p(
    n: int,
    before: Callable[[np.ndarray], np.ndarray],
    after: Callable[[np.ndarray], np.ndarray],
    seed: int = SEED,
    rounds: int = BOOTSTRAP_ROUNDS,
) -> float:
    """Two-sided paired bootstrap test of the change in a set-level statistic (exposure_gini, coverage), which has
    no per-query values for `sign_flip_p` to flip; deterministic for a seed.

    `before(w)` and `after(w)` give the statistic of the baseline's and the current lists for each row of `w`, how
    many times each of the `n` queries is drawn (a row of ones is the sample itself), so that both sides of a round
    see the same draw and a statistic is scored for many rounds at once. Under the null hypothesis the changes over
    the rounds are centred on the observed one moved to 0, so p = (rounds whose |change - observed| >= |observed|,
    plus 1) / (rounds + 1), never 0 (Efron & Tibshirani 1993, 16.4). No change, or no query, gives 1.
    """
    import numpy as np

    if not n:
        return 1.0
    ones = np.ones((1, n))
    observed = float(after(ones)[0] - before(ones)[0])
    if abs(observed) < 1e-12:
        return 1.0
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, rounds, _CHUNK):
        size = min(_CHUNK, rounds - start)
        draws = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
        weights = np.bincount(draws.ravel(), minlength=size * n).reshape(size, n).astype(float)
        change = after(weights) - before(weights)
        hits += int(np.count_nonzero(np.abs(change - observed) >= abs(observed) - 1e-12))
    return (hits + 1) / (rounds + 1)


def set_level_p(
    metric: Metric, before: Sequence[Sequence[str]], after: Sequence[Sequence[str]], corpus: CorpusFields
) -> float:
    """The paired bootstrap p-value of a set-level metric's change between the baseline's lists and the current
    ones of the same queries, in the same order."""
    from pytest_relevance.evaluation.diversity import statistic

    return paired_bootstrap_p(len(after), statistic(metric, before, corpus), statistic(metric, after, corpus))


def change_p(
    metric: Metric,
    ids: Sequence[str],
    evaluation: Evaluation,
    old_queries: Mapping[str, Mapping[str, float]],
    old_rankings: Mapping[str, Sequence[str]] | None,
    old_depth: int | None,
    digits: int,
) -> float | None:
    """The p-value of a stratum's change in one metric against the baseline: the sign-flip test of the per-query
    deltas (current values rounded to the baseline's `digits`), or for a set-level metric the paired bootstrap of
    the baseline's and the current lists (None when the baseline keeps no rankings, or fewer ids per query than the
    metric's cut-off: no honest p then)."""
    if not getattr(metric, "set_level", False):
        spec = metric.spec
        deltas = [
            round(evaluation.per_query[q][spec], digits) - old_queries[q][spec]
            for q in ids
            if q in old_queries and spec in old_queries[q]
        ]
        return sign_flip_p(deltas)
    if old_rankings is None or old_depth is None or old_depth < (metric.k or 0) or evaluation.corpus is None:
        return None
    before = [old_rankings.get(q, []) for q in ids]
    return set_level_p(metric, before, [evaluation.run.get(q, []) for q in ids], evaluation.corpus)


def query_deltas(
    spec: str,
    ids: Sequence[str],
    evaluation: Evaluation,
    old_queries: Mapping[str, Mapping[str, float]],
    digits: int,
) -> dict[str, float]:
    """query id -> current minus baseline value of one metric, for the stratum's queries the baseline holds; the
    current value rounded to the baseline's `digits`, as `change_p` does, so an unchanged query's delta is 0."""
    return {
        q: round(evaluation.per_query[q][spec], digits) - old_queries[q][spec]
        for q in ids
        if q in old_queries and spec in old_queries[q]
    }


# ---------------------------------------------------------------- family-wise error control

SCOPES = ("test", "comparison")  # what relevance_alpha bounds: a test's chance of any false regression, or each row's


@dataclass(frozen=True)
class MaxT:
    """The step-down max-T test of a family of rows. `raw` and `adjusted` are one-sided p-values of a change for
    the worse, per row; `critical` the standardized drop some row must pass for an adjusted p below alpha (the
    1 - alpha quantile of the largest row statistic over the sign flips); `rounds` the sign patterns drawn (all
    2^n of them when `exact`)."""

    raw: list[float]
    adjusted: list[float]
    critical: float
    rounds: int
    exact: bool


def max_t(deltas: np.ndarray, worse: Sequence[int], alpha: float, seed: int = SEED, rounds: int = ROUNDS) -> MaxT:
    """Westfall-Young step-down max-T over the columns of `deltas` (queries x rows, 0 where a query is not in the
    row's stratum or did not change), each row's worse direction in `worse` (-1: a drop is worse, +1: a rise).

    A row's statistic is its summed delta in the worse direction over sqrt(sum of squared deltas): under the null
    hypothesis each query's sign is a coin flip, which leaves the denominator unchanged, so every row's statistic
    has variance 1 and one maximum over rows is fair to all. Each sign pattern flips a query in every row at once.
    Exact over all 2^n patterns of the n queries that changed anywhere when n <= EXACT_UP_TO, else `rounds` seeded
    patterns, with p = (hits + 1) / (rounds + 1). The adjusted p-value of the row with the j-th largest statistic
    counts the patterns whose largest statistic over that row and the rows ranked below it reaches the row's, then
    is made non-decreasing down the ranking: any false regression verdict among the rows has probability at most
    alpha (strong control; Westfall & Young 1993, 2.8).
    """
    import numpy as np

    matrix = np.asarray(deltas, dtype=float)
    matrix = matrix[np.any(matrix != 0.0, axis=1)]  # a query that changed nowhere adds nothing to any sum
    norms = np.sqrt(np.einsum("ij,ij->j", matrix, matrix))
    worse_sign = np.asarray(worse, dtype=float)  # a sum in the worse direction counts positive
    scale = np.divide(worse_sign, norms, out=np.zeros_like(norms), where=norms > 0)
    observed = matrix.sum(axis=0) * scale
    size = len(matrix)
    if size <= EXACT_UP_TO:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=size)), dtype=float).reshape(2**size, size)
        flipped, total, exact = (signs @ matrix) * scale, len(signs), True
    else:
        rng = np.random.default_rng(seed)
        chunk = max(1, 2_000_000 // size)
        parts, sums = [], matrix.sum(axis=0)
        for start in range(0, rounds, chunk):  # a random bit per query: sign 2b - 1, so a sum is 2 (b . d) - sum(d)
            drawn = rng.integers(0, 256, size=(min(chunk, rounds - start), (size + 7) // 8), dtype=np.uint8)
            bits = np.unpackbits(drawn, axis=1, count=size).astype(float)
            parts.append((2.0 * (bits @ matrix) - sums) * scale)
        flipped, total, exact = np.vstack(parts), rounds, False
    tol = 1e-12
    order = np.argsort(-observed, kind="stable")
    below = np.maximum.accumulate(flipped[:, order][:, ::-1], axis=1)[:, ::-1]  # max over a row and those below
    hits = np.count_nonzero(below >= observed[order] - tol, axis=0)
    raw_hits = np.count_nonzero(flipped >= observed - tol, axis=0)
    stepped = np.maximum.accumulate(_p(hits, total, exact))
    adjusted = np.empty_like(stepped)
    adjusted[order] = stepped
    top = np.sort(flipped.max(axis=1, initial=0.0))
    critical = float(top[min(total - 1, math.ceil((1 - alpha) * total) - 1)])
    return MaxT([float(p) for p in _p(raw_hits, total, exact)], [float(p) for p in adjusted], critical, total, exact)


def _p(hits: np.ndarray, total: int, exact: bool) -> np.ndarray:
    """Exact: the share of all patterns (the observed one among them); sampled: (hits + 1) / (rounds + 1)."""
    return hits / total if exact else (hits + 1) / (total + 1)


def holm(ps: Sequence[float | None], size: int | None = None) -> list[float | None]:
    """Holm's step-down adjustment of `ps` in a family of `size` rows (default: len(ps)); None is a row whose
    p-value was not computed (no drop beyond tolerance). Counting it as 1 is conservative: a smaller p-value would
    rank it first and only lower the multipliers of the rows after it."""
    size = len(ps) if size is None else size
    known = sorted((p, i) for i, p in enumerate(ps) if p is not None)
    out: list[float | None] = [None] * len(ps)
    running = 0.0
    for rank, (p, i) in enumerate(known):
        running = max(running, min(1.0, (size - rank) * p))
        out[i] = running
    return out


# ---------------------------------------------------------------- intervals and the minimum detectable effect

LEVEL = 0.95  # the confidence of an interval
INTERVAL_ROUNDS = 2_000  # bootstrap resamples per stratum: 50 in each 2.5% tail
POWER = 0.8  # the chance of flagging a drop of the minimum detectable effect


def intervals(
    deltas: np.ndarray, level: float = LEVEL, seed: int = SEED, rounds: int = INTERVAL_ROUNDS
) -> list[tuple[float, float] | None]:
    """A percentile paired-bootstrap interval of the mean of each column of `deltas` (a stratum's queries x its
    metrics): the same resample of queries for every metric, drawn `rounds` times; deterministic for a seed.
    A column with no change gives (0, 0); fewer than 2 queries, no interval (None): one query's change says
    nothing of how much it varies."""
    import numpy as np

    matrix = np.asarray(deltas, dtype=float)
    count, columns = matrix.shape
    if count < 2:
        return [None] * columns
    if not np.any(matrix):
        return [(0.0, 0.0)] * columns
    rng = np.random.default_rng(seed)
    parts = []
    for start in range(0, rounds, _CHUNK):  # how many times each query is drawn, _CHUNK resamples at once
        size = min(_CHUNK, rounds - start)
        draws = rng.integers(0, count, size=(size, count)) + (np.arange(size) * count)[:, None]
        weights = np.bincount(draws.ravel(), minlength=size * count).reshape(size, count)
        parts.append(weights @ matrix / count)
    means = np.vstack(parts)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return [(float(a), float(b)) for a, b in zip(low, high, strict=True)]


def critical_value(alpha: float | None, scope: str, rows: int) -> float:
    """The standardized drop a row must pass to be significant, by the normal approximation: 0 without alpha (any
    drop beyond tolerance fails), z(1 - alpha/2) for the two-sided test of one comparison, and for a whole test
    Bonferroni's one-sided z(1 - alpha/rows), an upper bound on max-T's (used only where no sign flip was drawn)."""
    if alpha is None:
        return 0.0
    if scope == "comparison":
        return NormalDist().inv_cdf(1 - alpha / 2)
    return NormalDist().inv_cdf(1 - alpha / max(1, rows))


def mde(
    spread: float, count: int, critical: float, tolerance: float, change: float = 0.0, power: float = POWER
) -> float | None:
    """The smallest true mean drop flagged with probability `power`, by the normal approximation; None for fewer
    than 2 queries.

    The observed mean drop must pass the tolerance: it falls short of the true one by z(power) standard errors
    (sd / sqrt(n) of the per-query deltas, `spread`) with probability 1 - power. And the sum of the deltas must
    pass `critical` times the root of their summed squares, which the drop itself swells: a drop d made of changes
    of about `change` each (a relevant result pushed down moves a query's value by much, not every query by a
    little) adds n d `change` to it. So sqrt(n) d - z sd >= critical sqrt(sd^2 + d change), solved for d.
    """
    if count < 2:
        return None
    z = NormalDist().inv_cdf(power)
    error = spread / math.sqrt(count)
    linear = 2 * z * spread * math.sqrt(count) + critical**2 * change
    root = math.sqrt(max(0.0, linear**2 - 4 * count * (z**2 - critical**2) * spread**2))
    significant = (linear + root) / (2 * count)
    return max(tolerance + z * error, significant)


def noise_floor(spread: float, count: int, critical: float) -> float:
    """The drop below which significance, not the tolerance, keeps the gate from flagging: critical x sd/sqrt(n)."""
    return critical * spread / math.sqrt(count) if count else math.inf
