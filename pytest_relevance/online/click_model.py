"""The position-based click model (PBM) fitted to sessions by expectation-maximization.

P(click at k) = examination[k] x attractiveness(query, document) (Chuklin, Markov & de Rijke 2015, "Click Models for
Web Search", ch. 3). `judgments.clicks.pbm` fits the same model for grades and keeps only the attractiveness; the
estimators need the examination probabilities too (they are the propensities of IPS), so the fit is here, on the
sessions, with the same E and M steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pytest_relevance.judgments.clicks import pbm_em
from pytest_relevance.online.logged import Sessions


@dataclass(frozen=True)
class PBM:
    """`examination[k]` for positions 0..K-1; `attractiveness[(query, doc)]` (indexes of Sessions.texts and .docs)
    for every pair the log showed; `prior` is what a pair the log never showed is taken to be: the impression-
    weighted mean attractiveness of the pairs it did."""

    examination: np.ndarray
    attractiveness: dict[tuple[int, int], float]
    prior: float
    #: the examination IPS divides by: harvested from interventions when the log has them (`harvest`), else EM's
    propensity: np.ndarray
    propensity_source: str
    #: harvested again from searches resampled with replacement: the propensities' own uncertainty (none for EM's)
    propensity_draws: np.ndarray


def fit_pbm(data: Sessions, iterations: int = 200, draws: int = 50, seed: int = 0) -> PBM:
    """EM over (query, document, position) groups of impressions; the harvested propensities again on `draws`
    resamples of the searches (Poisson weights, seeded)."""
    mask = data.shown >= 0
    rows, ranks = np.nonzero(mask)
    pairs = data.query[rows] * (len(data.docs) + 1) + data.shown[rows, ranks]
    keys, pair_of = np.unique(pairs, return_inverse=True)
    depth = data.depth
    group = pair_of * depth + ranks
    ids, group_of = np.unique(group, return_inverse=True)
    shown = np.bincount(group_of).astype(float)
    hits = np.bincount(group_of, weights=data.clicks[rows, ranks].astype(float))
    pair_g, rank_g = ids // depth, ids % depth
    per_pair = np.bincount(pair_g, weights=shown, minlength=len(keys))
    alpha, gamma = pbm_em(pair_g, rank_g, shown, hits, len(keys), depth, iterations)
    # EM identifies examination x attractiveness only up to a factor; the largest examination is taken as 1 (every
    # estimate here uses their products or the ratios of examinations, which the factor leaves alone)
    factor = gamma.max()
    gamma, alpha = gamma / factor, alpha * factor
    width = len(data.docs) + 1
    found = {(int(k // width), int(k % width)): float(a) for k, a in zip(keys, alpha, strict=True)}
    prior = float(np.average(alpha, weights=per_pair)) if len(keys) else 0.0
    harvested = harvest(pair_g, rank_g, shown, hits, depth)
    if harvested is None:
        return PBM(gamma, found, prior, gamma, "pbm-em", np.zeros((0, depth)))
    rng = np.random.default_rng(seed)
    clicked = data.clicks[rows, ranks].astype(float)
    resampled = []
    for _ in range(draws):
        weight = rng.poisson(1.0, len(data))[rows]
        again = harvest(
            pair_g,
            rank_g,
            np.bincount(group_of, weights=weight, minlength=len(ids)),
            np.bincount(group_of, weights=weight * clicked, minlength=len(ids)),
            depth,
        )
        if again is not None:
            resampled.append(again)
    return PBM(gamma, found, prior, harvested, "intervention-harvesting", np.array(resampled).reshape(-1, depth))


def harvest(pair: np.ndarray, rank: np.ndarray, shown: np.ndarray, hits: np.ndarray, depth: int) -> np.ndarray | None:
    """Examination by intervention harvesting (Agarwal et al., WSDM 2019): where the log shows the same document for
    the same query at positions k-1 and k, the click rates at the two positions differ only by examination, so
    gamma[k] / gamma[k-1] = sum of w x CTR at k / sum of w x CTR at k-1 over those pairs (w: the harmonic mean of
    the two impression counts). None when some step has no such pair with clicks on both sides: then EM's fit is
    all there is. Unlike EM, it is not pulled up at deep positions by pairs seen a few times without a click."""
    seen = shown > 0
    key = pair[seen] * depth + rank[seen]
    order = np.argsort(key)
    key, shown, hits = key[order], shown[seen][order], hits[seen][order]
    gamma = np.ones(depth)
    for k in range(1, depth):
        at = np.nonzero(key % depth == k)[0]
        partner = np.searchsorted(key, key[at] - 1).clip(max=len(key) - 1)
        both = key[partner] == key[at] - 1
        at, partner = at[both], partner[both]
        n, n0 = shown[at], shown[partner]
        w = n * n0 / (n + n0)
        above, below = float(np.sum(w * hits[partner] / n0)), float(np.sum(w * hits[at] / n))
        if above <= 0 or below <= 0:
            return None
        gamma[k] = gamma[k - 1] * below / above
    return gamma / gamma.max()
