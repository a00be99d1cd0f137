"""The click value of a baseline and a candidate ranking, and of their difference, estimated from a logged log.

The value of a ranking is the expected number of clicks per search on its top K, over the log's searches (each
query text weighs as much as it was searched). Every estimator rests on the position-based model fitted to the log
(`click_model`): examination[k] x attractiveness(query, document). A candidate's top-K slot (query, document, k) is
*supported* when the log showed that document for that query somewhere in its top K.

- ``dm`` (direct method): the fitted model predicts the clicks of each list; a pair the log never showed gets the
  log's mean attractiveness, a guess that support diagnostics expose.
- ``ips``: each supported slot's clicks from the logged impressions of its document, every click reweighted by
  examination[k] / examination[position logged] and by how often the log showed the document; unsupported slots
  count no clicks (so IPS is biased low where support is missing).
- ``snips``: IPS normalized per position by the weight the log supports, as if unsupported slots clicked like
  supported ones.
- ``dr`` (doubly robust): DM plus the IPS correction on supported slots: the logged clicks where there are some,
  the model elsewhere.
- ``interleave``: team-draft interleaving of the two rankings simulated under the fitted model, as many
  impressions as the log has searches: the candidate's win rate with a Wilson interval. Model-based: it adds no
  data to DM, only a different question.

Intervals: `ci` is normal, from the linearized variance of drawing the log's searches again plus that of the
harvested propensities; `ci_queries` is the query-clustered bootstrap (queries resampled with all their searches).
Both also hold what the log cannot tell: an unsupported slot's clicks are a guess (DM's prior for DR, none for IPS,
the position's supported mean for SNIPS), and its true clicks can be anything from 0 to the position's examination.
Each interval is widened by that range (`_unidentified`), and `ci` is the Imbens & Manski (2004) interval of a
partially identified value (`_imbens_manski`): 95% for the true delta wherever it lies in the range. The minimum
detectable effect is (1.96 + 0.84) x the sampling standard error (a true delta that large is found 80% of the time
at the 5% level). Below the support floor an estimate is "not estimable": no number is given, since the guesses
would make most of it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from pytest_relevance.judgments.clicks import strata
from pytest_relevance.online.click_model import PBM
from pytest_relevance.online.logged import Sessions

ESTIMATORS = ("dm", "ips", "snips", "dr", "interleave")
ASSUMES = {
    "dm": "PBM users (clicks = examination(position) x attractiveness), fitted by EM; unlogged pairs at the log's "
    "mean attractiveness",
    "ips": "PBM examination as propensities; a slot's clicks depend on its document and position only",
    "snips": "as IPS, and unsupported slots click like supported ones at the same position",
    "dr": "as IPS on supported slots, as DM on the rest",
    "interleave": "PBM users as fitted (model-based: simulated, not logged, interleaving)",
}
Z = 1.959963984540054  # two-sided 95%
POWER = 0.8416212335729143  # z of 80% power
FLOOR = 0.5  # default support floor: the share of the candidate's top-K slots with logged support


@dataclass(frozen=True)
class Support:
    """`slots`: the share of the top-K slots (weighted by searches) the log supports; `ess`: the effective
    sample size of the IPS weights, (sum w)^2 / sum w^2; `max_weight`: the largest."""

    slots: float
    ess: float
    max_weight: float


@dataclass(frozen=True)
class Estimate:
    """One estimator's numbers; all None when not estimable. `unit`: clicks per search, or interleave's win rate."""

    estimator: str
    assumes: str
    unit: str
    baseline: float | None
    candidate: float | None
    delta: float | None
    ci: tuple[float, float] | None  # over the log's searches, for its queries
    ci_queries: tuple[float, float] | None  # query-clustered bootstrap: as if other queries were searched
    mde: float | None
    support: Support
    baseline_slots: float
    estimable: bool


@dataclass(frozen=True)
class Report:
    """Per group ("all", then head/torso/tail by traffic): the queries used, their searches, each estimate."""

    queries: dict[str, int]
    searches: dict[str, int]
    estimates: dict[str, dict[str, Estimate]] = field(default_factory=dict)


@dataclass
class _Pairs:
    """Per (query, doc) the log showed: searches that showed it, and sums over those impressions of
    click / examination, 1 / examination, 1 / examination^2, and the largest 1 / examination."""

    shown: dict[tuple[int, int], float]
    clicks: dict[tuple[int, int], float]
    inverse: dict[tuple[int, int], float]
    square: dict[tuple[int, int], float]
    largest: dict[tuple[int, int], float]


def _pairs(data: Sessions, model: PBM) -> _Pairs:
    rows, ranks = np.nonzero(data.shown >= 0)
    inverse = 1.0 / model.propensity[ranks]
    width = len(data.docs) + 1
    keys = data.query[rows] * width + data.shown[rows, ranks]
    unique, at = np.unique(keys, return_inverse=True)
    sums = [
        np.bincount(at, weights=w, minlength=len(unique))
        for w in (np.ones_like(inverse), data.clicks[rows, ranks] * inverse, inverse, inverse**2)
    ]
    largest = np.zeros(len(unique))
    np.maximum.at(largest, at, inverse)
    pairs = [(int(k // width), int(k % width)) for k in unique]
    return _Pairs(*(dict(zip(pairs, s.tolist(), strict=True)) for s in (*sums, largest)))


@dataclass
class _Side:
    """One ranking's per-query arrays (queries x positions) over the queries used, and its *hits*: each logged
    impression of a document the ranking puts in its top K, as (row, position in the ranking, the impression's
    IPS term minus the slot's mean, over the slot's impressions), for the per-search variance."""

    dm: np.ndarray
    ips: np.ndarray
    dr: np.ndarray
    supported: np.ndarray  # bool
    present: np.ndarray  # bool: the ranking has a document at that position
    weight: np.ndarray  # sum of the IPS weights of the slot, per search of the query
    square: np.ndarray  # sum of the squared weights, per search squared
    largest: np.ndarray
    hit_session: np.ndarray
    hit_row: np.ndarray
    hit_slot: np.ndarray
    hit_term: np.ndarray
    hit_position: np.ndarray  # where the impression was logged
    hit_click: np.ndarray
    hit_shown: np.ndarray  # the slot's impressions

    def subset(self, rows: list[int]) -> _Side:
        """The same side over some of its rows (renumbered in the order given)."""
        renumber = np.full(self.dm.shape[0], -1)
        renumber[rows] = np.arange(len(rows))
        keep = renumber[self.hit_row] >= 0
        tables = {f: getattr(self, f)[rows] for f in ("dm", "ips", "dr", "supported", "present", "weight", "square")}
        hits = {f: getattr(self, f)[keep] for f in ("hit_session", "hit_slot", "hit_term", "hit_position")}
        hits |= {f: getattr(self, f)[keep] for f in ("hit_click", "hit_shown")}
        return _Side(**tables, largest=self.largest[rows], hit_row=renumber[self.hit_row[keep]], **hits)


def _side(data: Sessions, model: PBM, pairs: _Pairs, used: list[int], ranking: Mapping[str, Sequence[str]]) -> _Side:
    depth = data.depth
    index = {doc: i for i, doc in enumerate(data.docs)}
    shape = (len(used), depth)
    arrays = {name: np.zeros(shape) for name in ("dm", "ips", "dr", "weight", "square", "largest")}
    supported, present = np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool)
    gamma, propensity = model.examination, model.propensity
    for row, q in enumerate(used):
        for k, doc in enumerate(list(ranking[data.texts[q]])[:depth]):
            present[row, k] = True
            key = (q, index.get(doc, -1))
            alpha = model.attractiveness.get(key, model.prior)
            arrays["dm"][row, k] = gamma[k] * alpha
            shown = pairs.shown.get(key)
            if shown:
                supported[row, k] = True
                arrays["ips"][row, k] = propensity[k] * pairs.clicks[key] / shown
                arrays["weight"][row, k] = propensity[k] * pairs.inverse[key] / shown
                arrays["square"][row, k] = (propensity[k] / shown) ** 2 * pairs.square[key]
                arrays["largest"][row, k] = propensity[k] * pairs.largest[key] / shown
    arrays["dr"] = np.where(supported, arrays["ips"], arrays["dm"])
    hits = _hits(data, model, used, ranking, arrays["ips"])
    return _Side(**arrays, supported=supported, present=present, **hits)


def _hits(
    data: Sessions,
    model: PBM,
    used: list[int],
    ranking: Mapping[str, Sequence[str]],
    ips: np.ndarray,
) -> dict[str, np.ndarray]:
    """Every logged impression (session i, position j) of a document the ranking has at slot k of the same query:
    its IPS term propensity[k] x click / propensity[j], less the slot's mean, over the slot's impressions."""
    width = len(data.docs) + 1
    index = {doc: i for i, doc in enumerate(data.docs)}
    keys, slots = [], []
    for row, q in enumerate(used):
        for k, doc in enumerate(list(ranking[data.texts[q]])[: data.depth]):
            if doc in index:
                keys.append(q * width + index[doc])
                slots.append((row, k))
    if not keys:
        names = ("hit_session", "hit_row", "hit_slot", "hit_term", "hit_position", "hit_click", "hit_shown")
        return {name: np.zeros(0, dtype=int) for name in names}
    order = np.argsort(keys)
    keys_sorted, slots_sorted = np.array(keys)[order], np.array(slots)[order]
    sessions, positions = np.nonzero(data.shown >= 0)
    logged = data.query[sessions] * width + data.shown[sessions, positions]
    at = np.searchsorted(keys_sorted, logged).clip(max=len(keys_sorted) - 1)
    found = keys_sorted[at] == logged
    sessions, positions, at = sessions[found], positions[found], at[found]
    rows, ks = slots_sorted[at, 0], slots_sorted[at, 1]
    propensity = model.propensity
    flat = rows * data.depth + ks
    shown = np.bincount(flat, minlength=len(used) * data.depth)[flat]  # the slot's impressions
    term = propensity[ks] * data.clicks[sessions, positions] / propensity[positions] - ips[rows, ks]
    return {
        "hit_session": sessions,
        "hit_row": rows,
        "hit_slot": ks,
        "hit_term": term / shown,
        "hit_position": positions,
        "hit_click": data.clicks[sessions, positions].astype(float),
        "hit_shown": shown.astype(float),
    }


def _values(name: str, side: _Side, searches: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The value of one side under bootstrap weights (replicates x queries): searches-weighted means."""
    counted = weights * searches  # (B, Q)
    total = counted.sum(axis=1)
    if name == "snips":
        numerator = counted @ side.ips  # (B, K)
        denominator = counted @ side.supported.astype(float)
        return np.divide(numerator, denominator, out=np.zeros_like(numerator), where=denominator > 0).sum(axis=1)
    per_query = getattr(side, name).sum(axis=1)
    return (counted @ per_query) / total


def _support(side: _Side, searches: np.ndarray) -> Support:
    slots = (side.present * searches[:, None]).sum()
    shared = float((side.supported * searches[:, None]).sum() / slots) if slots else 0.0
    weight = (side.weight * searches[:, None]).sum()
    square = (side.square * searches[:, None] ** 2).sum()
    ess = float(weight**2 / square) if square > 0 else 0.0
    largest = float((side.largest * searches[:, None]).max(initial=0.0))
    return Support(shared, ess, largest)


def estimate(
    data: Sessions,
    model: PBM,
    baseline: Mapping[str, Sequence[str]],
    candidate: Mapping[str, Sequence[str]],
    estimators: Sequence[str] = ESTIMATORS,
    seed: int = 0,
    floor: float = FLOOR,
    resamples: int = 1000,
    by_stratum: bool = True,
) -> Report:
    """Every estimator's numbers for all queries both rankings have a list for, and per traffic stratum."""
    used = [q for q, text in enumerate(data.texts) if baseline.get(text) and candidate.get(text)]
    counts = np.bincount(data.query, minlength=len(data.texts)).astype(float)
    groups = {"all": list(range(len(used)))}
    if by_stratum and used:
        which = strata({data.texts[q]: int(counts[q]) for q in used}, (50.0, 30.0, 20.0))
        for name in ("head", "torso", "tail"):
            groups[name] = [row for row, q in enumerate(used) if which[data.texts[q]] == name]
    pairs = _pairs(data, model)
    sides = [_side(data, model, pairs, used, ranking) for ranking in (baseline, candidate)]
    searches = counts[used]
    row_of = np.full(len(data.texts), -1)
    row_of[used] = np.arange(len(used))
    report = Report({}, {})
    for group, rows in groups.items():
        report.queries[group] = len(rows)
        report.searches[group] = int(searches[rows].sum())
        if not rows:
            continue
        rng = np.random.default_rng(seed)
        draws = rng.multinomial(len(rows), np.full(len(rows), 1 / len(rows)), size=resamples).astype(float)
        picked = [side.subset(rows) for side in sides]
        renumber = np.full(len(used) + 1, -1)
        renumber[rows] = np.arange(len(rows))
        session_row = renumber[row_of[data.query]]
        slots = [_slots_with(side, model.propensity_draws) for side in picked]
        found = {}
        for name in estimators:
            if name == "interleave":
                found[name] = _interleave(
                    data, model, baseline, candidate, [used[r] for r in rows], picked, seed, floor
                )
            else:
                found[name] = _estimate(
                    name, picked, searches[rows], session_row, draws, floor, slots, model.propensity
                )
        report.estimates[group] = found
    return report


def _estimate(
    name: str,
    sides: list[_Side],
    searches: np.ndarray,
    session_row: np.ndarray,
    draws: np.ndarray,
    floor: float,
    slots: list[np.ndarray],
    examination: np.ndarray,
) -> Estimate:
    support = _support(sides[1], searches)
    baseline_slots = _support(sides[0], searches).slots
    estimable = min(support.slots, baseline_slots) >= floor
    if not estimable:
        return Estimate(
            name, ASSUMES[name], "clicks per search", None, None, None, None, None, None, support, baseline_slots, False
        )
    point = np.ones((1, len(searches)))
    base, cand = (float(_values(name, s, searches, point)[0]) for s in sides)
    deltas = _values(name, sides[1], searches, draws) - _values(name, sides[0], searches, draws)
    low, high = np.percentile(deltas, [2.5, 97.5])
    error = _standard_error(name, sides, searches, session_row)
    if name != "dm" and len(slots[0]) > 1:
        again = _values_with(name, sides[1], searches, slots[1]) - _values_with(name, sides[0], searches, slots[0])
        error = math.sqrt(error**2 + float(np.var(again, ddof=1)))
    delta = cand - base
    below, above = 0.0, 0.0
    if name != "dm":  # DM guesses every slot from the model: its bias has no bound the log gives
        cand_low, cand_high = _unidentified(name, sides[1], searches, examination)
        base_low, base_high = _unidentified(name, sides[0], searches, examination)
        below, above = cand_low - base_high, cand_high - base_low
    critical = _imbens_manski(above - below, error)
    return Estimate(
        name,
        ASSUMES[name],
        "clicks per search",
        base,
        cand,
        delta,
        (delta + below - critical * error, delta + above + critical * error),
        (float(low) + below, float(high) + above),
        (Z + POWER) * error,
        support,
        baseline_slots,
        True,
    )


def _unidentified(name: str, side: _Side, searches: np.ndarray, examination: np.ndarray) -> tuple[float, float]:
    """How far the side's true value may lie from its estimate because of its unsupported slots: (low, high),
    low <= 0 <= high. The log never showed those documents for those queries, so nothing in it bounds their
    attractiveness but [0, 1]: a slot's true clicks lie between 0 and its position's examination, and the
    estimator put its guess there (Manski's worst-case bounds; a fully supported side has (0, 0))."""
    unsupported = side.present & ~side.supported
    if not unsupported.any():
        return 0.0, 0.0
    if name == "dr":
        guess = side.dm
    elif name == "snips":  # SNIPS counts an unsupported slot as the position's supported mean
        counted = searches[:, None]
        numerator, denominator = (counted * side.ips).sum(axis=0), (counted * side.supported).sum(axis=0)
        ratio = np.divide(numerator, denominator, out=np.zeros_like(numerator), where=denominator > 0)
        guess = np.broadcast_to(ratio, side.dm.shape)
    else:  # IPS counts no clicks there
        guess = np.zeros_like(side.dm)
    share = searches[:, None] / searches.sum() * unsupported
    return float(-(share * guess).sum()), float((share * (examination[None, :] - guess)).sum())


def _imbens_manski(width: float, error: float) -> float:
    """The critical value c of the Imbens & Manski (2004) interval [low - c x se, high + c x se] of a value known
    to lie in [low, high] (estimated with standard error se): Phi(c + width / se) - Phi(-c) = 0.95. It is 1.96 when
    the range is empty and falls to 1.645 as it widens (the true value cannot be near both ends at once)."""
    if width <= 0 or error <= 0:
        return Z
    spread = width / error

    def coverage(c: float) -> float:
        return 0.5 * (math.erf((c + spread) / math.sqrt(2)) - math.erf(-c / math.sqrt(2)))

    low, high = 1.6448536269514722, Z
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (low, middle) if coverage(middle) >= 0.95 else (middle, high)
    return high


def _slots_with(side: _Side, propensities: np.ndarray) -> np.ndarray:
    """The IPS value of every slot (draws x queries x positions) under each row of `propensities`."""
    rows, depth = side.dm.shape
    flat = side.hit_row * depth + side.hit_slot
    out = np.empty((len(propensities), rows, depth))
    for d, propensity in enumerate(propensities):
        term = propensity[side.hit_slot] * side.hit_click / propensity[side.hit_position] / side.hit_shown
        out[d] = np.bincount(flat, weights=term, minlength=rows * depth).reshape(rows, depth)
    return out


def _values_with(name: str, side: _Side, searches: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """The side's value per draw of the propensities (the model's attractiveness kept): IPS, SNIPS and DR."""
    if name == "snips":
        numerator = (slots * searches[:, None]).sum(axis=1)  # (draws, positions)
        denominator = (side.supported * searches[:, None]).sum(axis=0)
        ratio = np.divide(numerator, denominator, out=np.zeros_like(numerator), where=denominator > 0)
        return ratio.sum(axis=1)
    per_row = (np.where(side.supported, slots, side.dm) if name == "dr" else slots).sum(axis=2)
    return (per_row * searches).sum(axis=1) / searches.sum()


def _standard_error(name: str, sides: list[_Side], searches: np.ndarray, session_row: np.ndarray) -> float:
    """The standard error of the delta over the log's searches (searches drawn anew, each query's estimates
    recomputed from its own): the linearized (delta-method) variance, sum over searches of their influence^2 / N^2.
    A search's influence is its query's delta less the overall one (traffic) plus, for IPS terms, the search's own
    clicks less its slots' means, scaled by its query's searches."""
    inside = session_row >= 0
    rows = session_row[inside]
    total = searches.sum()
    influence = np.zeros(len(rows))
    where = np.flatnonzero(inside)
    position = np.full(len(session_row), -1)
    position[where] = np.arange(len(where))
    for sign, side in ((-1.0, sides[0]), (1.0, sides[1])):
        hit_at = position[side.hit_session]
        if name == "snips":
            mass = (side.supported * searches[:, None]).sum(axis=0) / total  # per position: share of searches
            ratio = np.divide(
                (side.ips * searches[:, None]).sum(axis=0) / total, mass, out=np.zeros_like(mass), where=mass > 0
            )
            scale = np.divide(1.0, mass, out=np.zeros_like(mass), where=mass > 0)
            per_row = ((side.ips - ratio * side.supported) * scale).sum(axis=1)
            terms = searches[side.hit_row] * side.hit_term * scale[side.hit_slot]
        else:
            per_row = getattr(side, name).sum(axis=1)
            terms = searches[side.hit_row] * side.hit_term if name != "dm" else np.zeros(len(side.hit_term))
        influence += sign * per_row[rows]
        np.add.at(influence, hit_at, sign * terms)
    influence -= influence.mean()
    return float(np.sqrt((influence**2).sum()) / total)


def team_draft(first: Sequence[str], second: Sequence[str], depth: int, rng: random.Random) -> list[tuple[str, int]]:
    """Team-draft interleaving (Radlinski, Kurup & Joachims 2008): (doc, team 0 or 1) for the top `depth`."""
    merged: list[tuple[str, int]] = []
    taken: set[str] = set()
    teams = [0, 0]
    lists = (list(first), list(second))
    while len(merged) < depth:
        team = 0 if teams[0] < teams[1] or (teams[0] == teams[1] and rng.random() < 0.5) else 1
        doc = next((d for d in lists[team] if d not in taken), None)
        if doc is None:
            team = 1 - team
            doc = next((d for d in lists[team] if d not in taken), None)
            if doc is None:
                break
        merged.append((doc, team))
        taken.add(doc)
        teams[team] += 1
    return merged


def _interleave(
    data: Sessions,
    model: PBM,
    baseline: Mapping[str, Sequence[str]],
    candidate: Mapping[str, Sequence[str]],
    queries: list[int],
    sides: list[_Side],
    seed: int,
    floor: float,
) -> Estimate:
    """Each query's logged searches replayed as team-draft impressions, clicks drawn from the fitted model."""
    searches = np.bincount(data.query, minlength=len(data.texts))[queries].astype(float)
    support = _support(sides[1], searches)
    baseline_slots = _support(sides[0], searches).slots
    name = "interleave"
    if min(support.slots, baseline_slots) < floor:
        return Estimate(
            name, ASSUMES[name], "win rate", None, None, None, None, None, None, support, baseline_slots, False
        )
    rng = random.Random(seed)
    index = {doc: i for i, doc in enumerate(data.docs)}
    depth = data.depth
    wins = [0, 0]
    impressions = 0
    for q in queries:
        text = data.texts[q]
        first, second = list(baseline[text])[:depth], list(candidate[text])[:depth]
        for _ in range(int(np.count_nonzero(data.query == q))):
            impressions += 1
            got = [0, 0]
            for k, (doc, team) in enumerate(team_draft(first, second, depth, rng)):
                alpha = model.attractiveness.get((q, index.get(doc, -1)), model.prior)
                if rng.random() < min(1.0, model.examination[k] * alpha):
                    got[team] += 1
            if got[0] != got[1]:
                wins[got[1] > got[0]] += 1
    decided = wins[0] + wins[1]
    rate = wins[1] / decided if decided else 0.5
    low, high = wilson(wins[1], decided)
    mde = (Z + POWER) * math.sqrt(0.25 / decided) if decided else None
    return Estimate(
        name,
        ASSUMES[name],
        "win rate",
        wins[0] / max(decided, 1),
        rate,
        rate - 0.5,
        (low - 0.5, high - 0.5),
        None,
        mde,
        support,
        baseline_slots,
        True,
    )


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The Wilson score interval (95%) of a binomial proportion; (0, 1) without trials."""
    if not trials:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + Z * Z / (2 * trials)) / (1 + Z * Z / trials)
    half = Z * math.sqrt(p * (1 - p) / trials + Z * Z / (4 * trials * trials)) / (1 + Z * Z / trials)
    return centre - half, centre + half
