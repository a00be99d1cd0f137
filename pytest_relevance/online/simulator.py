"""Click logs with a known truth: simulated users of graded judgments, and the exact click value of any ranking.

A user model says when a shown document is clicked (Chuklin, Markov & de Rijke 2015, "Click Models for Web Search"):

- attractiveness comes from the grade: the judgments' distinct grades are ranked into levels 0..L, and level l is
  attractive with probability floor + (1 - floor) x (2^l - 1) / (2^L - 1) (an unjudged document is level 0);
- ``pbm``: position k is examined with probability 1 / (k + 1)^decay, independently of the rest;
- ``cascade``: the user reads down the list and clicks the first attractive document, then stops;
- ``dbn``: the user reads down, clicks an attractive document, is satisfied by it with probability its
  attractiveness and stops, else goes on to the next with probability `perseverance`.

`value` computes the expected number of clicks per search of a ranking under the model exactly (no sampling);
`simulate` draws sessions shown by a logging ranking (perturbed per session, so the log holds the same documents at
several positions) and `write_ubi` writes them as a UBI bulk body that `pytest-relevance online` reads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

from pytest_relevance.online.logged import Sessions

USERS = ("pbm", "cascade", "dbn")


@dataclass(frozen=True)
class UserModel:
    """How simulated users click; `decay` is PBM's, `perseverance` the DBN's (cascade: 1, always satisfied)."""

    kind: str = "pbm"
    decay: float = 1.0
    floor: float = 0.05
    perseverance: float = 0.9

    def examination(self, depth: int) -> np.ndarray:
        return 1.0 / np.arange(1, depth + 1, dtype=float) ** self.decay


@dataclass(frozen=True)
class Truth:
    """Per query text: its share of searches and each judged document's attractiveness."""

    traffic: dict[str, float]
    attractiveness: dict[str, dict[str, float]]
    unjudged: float  # an unjudged document's attractiveness (level 0)


def truth(
    grades: Mapping[str, Mapping[str, float]], user: UserModel, traffic: Mapping[str, float] | None = None
) -> Truth:
    """The truth of graded judgments (query text -> doc -> grade). Traffic: shares by query text (normalized);
    default: every query alike."""
    levels = sorted({g for docs in grades.values() for g in docs.values()})
    top = max(len(levels) - 1, 1)
    level = {g: i for i, g in enumerate(levels)}

    def attract(lvl: int) -> float:
        return user.floor + (1 - user.floor) * (2**lvl - 1) / (2**top - 1)

    found = {text: {doc: attract(level[g]) for doc, g in docs.items()} for text, docs in grades.items()}
    weights = dict(traffic) if traffic is not None else dict.fromkeys(grades, 1.0)
    total = sum(weights[t] for t in grades)
    return Truth({t: weights[t] / total for t in grades}, found, attract(0))


def zipf(texts: Sequence[str], skew: float, seed: int) -> dict[str, float]:
    """Traffic shares proportional to 1 / rank^skew, the ranks a seeded shuffle of the texts: a few head queries
    and a long tail, as real search traffic has."""
    order = np.random.default_rng(seed).permutation(len(texts))
    return {texts[i]: 1.0 / (r + 1) ** skew for r, i in enumerate(order)}


def clicks_per_search(user: UserModel, attractiveness: Sequence[float]) -> float:
    """The expected number of clicks on a list whose documents have these attractiveness probabilities."""
    a = np.asarray(attractiveness, dtype=float)
    if user.kind == "pbm":
        return float(np.dot(user.examination(len(a)), a))
    cascade = user.kind == "cascade"
    perseverance, satisfied = (1.0, np.ones_like(a)) if cascade else (user.perseverance, a)
    examined, total = 1.0, 0.0
    for k in range(len(a)):
        total += examined * a[k]
        examined *= perseverance * (1 - a[k] * satisfied[k])
    return total


def value(found: Truth, user: UserModel, ranking: Mapping[str, Sequence[str]], depth: int) -> float:
    """Exact expected clicks per search of `ranking` (query text -> docs) over the truth's traffic, top `depth`
    shown; a query the ranking has no list for gets no clicks."""
    total = 0.0
    for text, share in found.traffic.items():
        docs = list(ranking.get(text, ()))[:depth]
        a = [found.attractiveness[text].get(doc, found.unjudged) for doc in docs]
        total += share * clicks_per_search(user, a)
    return total


def per_query(found: Truth, user: UserModel, ranking: Mapping[str, Sequence[str]], depth: int) -> dict[str, float]:
    """Exact expected clicks per search of each query's list."""
    result = {}
    for text in found.traffic:
        docs = list(ranking.get(text, ()))[:depth]
        result[text] = clicks_per_search(user, [found.attractiveness[text].get(d, found.unjudged) for d in docs])
    return result


def simulate(
    found: Truth,
    user: UserModel,
    logging: Mapping[str, Sequence[str]],
    searches: int,
    depth: int,
    seed: int,
    noise: float = 1.0,
) -> Sessions:
    """`searches` sessions: a query drawn by traffic, its logging list perturbed (each document's rank plus
    Gaussian noise of sd `noise`, re-sorted; 0 shows the logging list every time), the top `depth` shown, clicks
    drawn from the user model."""
    rng = np.random.default_rng(seed)
    texts = [t for t in found.traffic if logging.get(t)]
    if not texts:
        raise ValueError("the logging ranking has a list for none of the judged queries")
    shares = np.array([found.traffic[t] for t in texts])
    query = np.sort(rng.choice(len(texts), size=searches, p=shares / shares.sum()))
    docs: dict[str, int] = {}
    shown = np.full((searches, depth), -1, dtype=np.int64)
    clicks = np.zeros((searches, depth), dtype=bool)
    counts = np.bincount(query, minlength=len(texts))
    start = 0
    for q, n in enumerate(counts):
        if not n:
            continue
        listed = list(logging[texts[q]])
        ids = np.array([docs.setdefault(d, len(docs)) for d in listed])
        attract = np.array([found.attractiveness[texts[q]].get(d, found.unjudged) for d in listed])
        keys = np.arange(len(listed)) + noise * rng.standard_normal((n, len(listed)))
        order = np.argsort(keys, axis=1, kind="stable")[:, :depth]
        width = order.shape[1]
        rows = slice(start, start + n)
        shown[rows, :width] = ids[order]
        clicks[rows, :width] = _clicks(user, attract[order], rng)
        start += n
    return Sessions(texts, list(docs), query, shown, clicks)


def _clicks(user: UserModel, a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Clicks on lists of attractiveness `a` (sessions x positions), drawn as the user model says."""
    if user.kind == "pbm":
        return rng.random(a.shape) < user.examination(a.shape[1]) * a
    perseverance = 1.0 if user.kind == "cascade" else user.perseverance
    out = np.zeros(a.shape, dtype=bool)
    reading = np.ones(a.shape[0], dtype=bool)
    for k in range(a.shape[1]):
        out[:, k] = reading & (rng.random(a.shape[0]) < a[:, k])
        satisfied = out[:, k] & ((rng.random(a.shape[0]) < a[:, k]) if user.kind == "dbn" else True)
        reading &= ~satisfied & (rng.random(a.shape[0]) < perseverance)
    return out


def write_ubi(data: Sessions, out: TextIO, application: str = "pytest-relevance simulate") -> int:
    """The sessions as a UBI bulk body (ubi_queries and ubi_events, impressions and clicks); the events written."""
    written = 0
    base = 1_700_000_000_000  # epoch milliseconds; one search a second

    def line(index: str, doc_id: str, doc: dict) -> None:
        out.write(json.dumps({"index": {"_index": index, "_id": doc_id}}) + "\n" + json.dumps(doc) + "\n")

    for i in range(len(data)):
        qid, text, stamp = f"sim-{i}", data.texts[int(data.query[i])], base + 1000 * i
        line("ubi_queries", qid, {"application": application, "query_id": qid, "user_query": text, "timestamp": stamp})
        for k in np.nonzero(data.shown[i] >= 0)[0]:
            attributes = {"object": {"object_id": data.docs[int(data.shown[i, k])]}, "position": {"ordinal": int(k)}}
            actions = ("impression", "click") if data.clicks[i, k] else ("impression",)
            for action in actions:
                event = {"action_name": action, "query_id": qid, "user_query": text, "timestamp": stamp}
                line("ubi_events", f"{qid}-{k}-{action}", {**event, "event_attributes": attributes})
                written += 1
    return written


def write_ubi_file(data: Sessions, path: Path) -> int:
    with path.open("w", encoding="utf-8") as out:
        return write_ubi(data, out)
