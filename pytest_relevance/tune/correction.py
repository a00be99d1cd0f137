"""The paired test of many variants at once, corrected for how many were tried.

Each column of the delta matrix is one (variant, stratum, metric): the per-query deltas against the current template
(0 for a query outside the stratum). The gate's test is the sign flip: under "no change" each query's delta is as
likely to be negated. Max-T (Westfall & Young 1993) applies the SAME seeded flips to every column, so the
dependence between variants (they share queries, and mostly share rankings) is kept, and takes the largest statistic
over the family in each round: a column's adjusted p is the share of rounds whose largest |T| reaches its own |T|.
That controls the chance of declaring any variant different when none is, whatever their correlation, and the row
that stands out most (the winner's, usually) pays less than under Bonferroni or Holm, which count near-duplicate
variants as unrelated tests. Holm is the documented fallback (`holm`: per-column sign-flip p-values, Holm's
step-down): it can be the smaller of the two for rows further down, and needs no joint flips. Single-step, so that
one critical value gives every row's simultaneous interval.

The statistic is T = sum(d) / sqrt(sum(d^2)): a sign flip leaves the denominator unchanged, so a column's
unadjusted p is exactly the gate's sign-flip p of its deltas, and columns in different units (NDCG, MRR) are
comparable. The simultaneous interval inverts the same bound: delta +- c * sqrt(sum(d^2)) / n, c the (1 - alpha)
quantile of max |T| (Holm: the Bonferroni quantile of the column's own |T|), so it excludes 0 exactly when the
adjusted p is below alpha (up to the rounds' granularity).

The gate's family-wise code (evaluation/significance, being written beside this) could take over `flips` and
`max_t`: this module only needs "a seeded R x n matrix of signs" and "max |T| per round".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pytest_relevance.evaluation.significance import ROUNDS

CORRECTIONS = ("max-t", "holm")
_CHUNK = 1000  # flip rounds scored at once: R x columns floats in memory


@dataclass(frozen=True)
class Tested:
    """Per column: the mean delta, its unadjusted and adjusted p, and the simultaneous interval's half width."""

    delta: np.ndarray
    p: np.ndarray
    p_adjusted: np.ndarray
    half_width: np.ndarray


def flips(n: int, seed: int, rounds: int = ROUNDS) -> np.ndarray:
    """`rounds` seeded rows of n signs (+1 / -1), the first the observed signs (all +1), so p is never 0."""
    rng = np.random.default_rng(seed)
    signs = rng.integers(0, 2, size=(rounds, n), dtype=np.int8) * 2 - 1
    signs[0] = 1
    return signs.astype(np.float64)


def family_test(deltas: np.ndarray, counts: np.ndarray, alpha: float, correction: str, seed: int) -> Tested:
    """`deltas`: queries x columns; `counts`: queries per column (its stratum's size in this part)."""
    n, columns = deltas.shape
    norm = np.sqrt((deltas**2).sum(axis=0))
    safe = np.where(norm > 0, norm, 1.0)
    observed = np.where(norm > 0, np.abs(deltas.sum(axis=0)) / safe, 0.0) - 1e-9
    signs = flips(n, seed)
    rounds = len(signs)
    beyond_max = np.zeros(columns)  # rounds whose max |T| over the family reaches the column's |T|
    beyond_own = np.zeros(columns)  # rounds whose own |T| reaches it
    maxima = np.empty(rounds)
    owns = []
    for start in range(0, rounds, _CHUNK):
        t = np.abs(signs[start : start + _CHUNK] @ deltas) / safe
        t[:, norm == 0] = 0.0
        top = t.max(axis=1) if columns else np.zeros(len(t))
        maxima[start : start + len(t)] = top
        beyond_max += (top[:, None] >= observed[None, :]).sum(axis=0)
        beyond_own += (t >= observed[None, :]).sum(axis=0)
        if correction == "holm":
            owns.append(t)
    p = beyond_own / rounds
    delta = deltas.sum(axis=0) / np.maximum(counts, 1)
    if correction == "max-t":
        adjusted = beyond_max / rounds
        critical = np.full(columns, np.quantile(maxima, 1 - alpha))
    else:
        adjusted = holm(p)
        critical = np.quantile(np.vstack(owns), 1 - alpha / max(columns, 1), axis=0)
    adjusted = np.where(norm > 0, adjusted, 1.0)
    p = np.where(norm > 0, p, 1.0)
    return Tested(delta, p, adjusted, critical * norm / np.maximum(counts, 1))


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (each at most 1, and never below an earlier one in p's order)."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = stepped
    return out
