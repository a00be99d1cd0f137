"""Ranking metrics, computed exactly as trec_eval computes them.

Pure functions, no pytest: the CLI, the plugin and the benchmarks all score through `score_query`.

Conventions (each one is tested against pytrec_eval or hand-computed values):

- Grades are numbers. A document is *relevant* to the binary metrics (mrr, map, p, recall, hit, rprec) when its
  grade is >= the threshold (default 1, trec_eval's ``-l 1``). Grade 0 and unjudged documents are not relevant.
- ``ndcg``: the gain is the grade itself (linear, as trec_eval's ``ndcg_cut``), or ``2^grade - 1`` with
  ``gain=exp``. A grade below zero gains nothing (trec_eval). The discount is ``1/log2(rank + 1)``. The ideal list
  is every positive grade judged for the query, sorted descending, cut at k. An ideal DCG of 0 gives 0.
- ``p@k`` always divides by k, also when fewer than k documents came back. ``map@k`` divides by R, the number of
  relevant judged documents, not by min(R, k). ``mrr`` has no cut-off unless one is given (trec_eval
  ``recip_rank``). ``rprec`` is precision at rank R. With R = 0 every binary metric is 0.
- ``judged@k``: the share of the top min(k, returned) documents that have any judgment, grade 0 included
  (ir-measures ``Judged@k``); an empty ranking gives 0. Unjudged is not irrelevant: it scores 0 in every other
  metric, and this metric shows how much of a score rests on guesses.
- ``err@k`` (Chapelle et al. 2009, as gdeval computes it): the stop probability at a grade g is
  ``(2^g - 1) / 2^max`` with max = 4 by default; grades are clamped into [0, max].
- Duplicates in a ranked list: the first occurrence counts; later occurrences keep their rank (they push the rest
  down) but gain nothing, and they are counted so that reports can show them. A document's name never changes a
  score: renaming ids consistently leaves every metric unchanged.
- Ties in scored runs (TREC run files) are ordered as trec_eval orders them: score descending, then document id
  descending (byte order); the rank column is ignored. See `rank_scored`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import mul

#: metric name -> (cut-off: "required" | "optional" | "none", options it takes)
_KINDS: dict[str, tuple[str, frozenset[str]]] = {
    "ndcg": ("optional", frozenset({"gain"})),
    "mrr": ("optional", frozenset({"rel"})),
    "map": ("optional", frozenset({"rel"})),
    "p": ("required", frozenset({"rel"})),
    "recall": ("required", frozenset({"rel"})),
    "hit": ("required", frozenset({"rel"})),
    "rprec": ("none", frozenset({"rel"})),
    "judged": ("required", frozenset()),
    "err": ("required", frozenset({"max"})),
}
_ALIASES = {"success": "hit", "rr": "mrr", "recip_rank": "mrr", "ap": "map", "ndcg_cut": "ndcg", "map_cut": "map"}
_SPEC = re.compile(r"^(?P<name>[a-z_]+)(?:@(?P<k>[^(]*))?(?:\((?P<opts>[^)]*)\))?$")
GAINS = ("linear", "exp")
DEFAULT_METRICS = ("ndcg@10", "map", "mrr", "p@10", "recall@100")


class MetricSpecError(ValueError):
    """A metric spec that cannot be parsed; the message says what is accepted."""


@dataclass(frozen=True, slots=True)
class Metric:
    """One metric with its conventions pinned, so that a baseline can record exactly what was measured."""

    name: str
    k: int | None = None
    threshold: float = 1
    gain: str = "linear"
    max_grade: float = 4
    spec: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "spec", self._spec())

    def _spec(self) -> str:
        """The canonical spec string; options appear only when they differ from the default."""
        text = self.name if self.k is None else f"{self.name}@{self.k}"
        opts = []
        if self.name == "ndcg" and self.gain != "linear":
            opts.append(f"gain={self.gain}")
        if "rel" in _KINDS[self.name][1] and self.threshold != 1:
            opts.append(f"rel={_num(self.threshold)}")
        if self.name == "err" and self.max_grade != 4:
            opts.append(f"max={_num(self.max_grade)}")
        return f"{text}({','.join(opts)})" if opts else text

    def definition(self) -> dict[str, object]:
        """What a baseline records: enough to refuse comparing numbers measured under other conventions."""
        out: dict[str, object] = {"name": self.name, "k": self.k}
        options = _KINDS[self.name][1]
        if "gain" in options:
            out["gain"] = self.gain
        if "rel" in options:
            out["threshold"] = self.threshold
        if "max" in options:
            out["max_grade"] = self.max_grade
        return out

    def __str__(self) -> str:
        return self.spec


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def parse_metric(spec: str) -> Metric:
    """Parse ``ndcg@10``, ``p@5(rel=2)``, ``ndcg@10(gain=exp)``, ``err@20(max=3)``."""
    text = spec.strip().lower()
    match = _SPEC.match(text)
    if not match:
        raise MetricSpecError(f"cannot read metric {spec!r}: expected NAME, NAME@K or NAME@K(option=value)")
    name = _ALIASES.get(match["name"], match["name"])
    if name not in _KINDS:
        known = ", ".join(sorted(_KINDS))
        raise MetricSpecError(f"unknown metric {match['name']!r} in {spec!r}; known metrics: {known}")
    cut, options = _KINDS[name]
    k: int | None = None
    if match["k"] is not None:
        if cut == "none":
            raise MetricSpecError(f"metric {name!r} takes no cut-off (in {spec!r})")
        if not match["k"].isdigit() or int(match["k"]) < 1:
            raise MetricSpecError(f"bad cut-off {match['k']!r} in {spec!r}: a cut-off is a whole number >= 1")
        k = int(match["k"])
    elif cut == "required":
        raise MetricSpecError(f"metric {name!r} needs a cut-off, e.g. {name}@10 (in {spec!r})")
    fields: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in (match["opts"] or "").split(","))):
        key, _, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if key not in options:
            allowed = ", ".join(sorted(options)) or "none"
            raise MetricSpecError(f"metric {name!r} has no option {key!r} (in {spec!r}); options: {allowed}")
        if key == "gain":
            if value not in GAINS:
                raise MetricSpecError(f"gain must be one of {', '.join(GAINS)}, not {value!r} (in {spec!r})")
            fields["gain"] = value
            continue
        try:
            number = float(value)
        except ValueError:
            raise MetricSpecError(f"option {key} needs a number, not {value!r} (in {spec!r})") from None
        if key == "max" and number <= 0:
            raise MetricSpecError(f"option max must be > 0 (in {spec!r})")
        fields["threshold" if key == "rel" else "max_grade"] = number
    return Metric(name, k, **fields)  # type: ignore[arg-type]


def parse_metrics(specs: Iterable[str] | str) -> list[Metric]:
    """Parse a list (or a whitespace/comma separated string) of specs; duplicates are an error."""
    items = specs.replace(",", " ").split() if isinstance(specs, str) else list(specs)
    metrics = [parse_metric(item) for item in items]
    seen: set[str] = set()
    for metric in metrics:
        if metric.spec in seen:
            raise MetricSpecError(f"metric {metric.spec!r} is listed twice")
        seen.add(metric.spec)
    if not metrics:
        raise MetricSpecError("no metrics given")
    return metrics


def depth(metrics: Iterable[Metric], minimum: int = 10) -> int:
    """How many results a run needs: the largest cut-off, at least `minimum`."""
    return max([minimum, *(m.k for m in metrics if m.k is not None)])


def rank_scored(scores: Mapping[str, float]) -> list[str]:
    """Order a scored list as trec_eval does: score descending, then document id descending.

    Two stable C-level sorts (ids first, then scores) instead of one sort on (score, id) tuples: same order, about
    three times faster on long runs.
    """
    ranking = sorted(scores, reverse=True)
    ranking.sort(key=scores.__getitem__, reverse=True)
    return ranking


#: the grade of an unjudged document, and of a duplicate's later occurrences: below every threshold and gain
_UNJUDGED = -math.inf
_DISCOUNTS: list[float] = [1.0 / math.log2(i + 2) for i in range(1024)]


def _discounts(n: int) -> list[float]:
    """1/log2(rank + 1) for 0-based indexes up to n, grown on demand for the rare list longer than the table."""
    if n > len(_DISCOUNTS):
        _DISCOUNTS.extend(1.0 / math.log2(i + 2) for i in range(len(_DISCOUNTS), n))
    return _DISCOUNTS


@dataclass(slots=True)
class QueryScore:
    """The metric values of one query, plus how many duplicate ids its ranking had."""

    values: dict[str, float]
    duplicates: int


def score_query(grades: Mapping[str, float], ranking: Sequence[str], metrics: Sequence[Metric]) -> QueryScore:
    """Score one ranked list against one query's grades, with every convention of the module docstring."""
    ranked: list[float] = list(map(grades.get, ranking, repeat(_UNJUDGED)))
    duplicates = 0
    if len(set(ranking)) != len(ranking):
        seen: set[str] = set()
        for index, doc in enumerate(ranking):
            if doc in seen:
                ranked[index] = _UNJUDGED
                duplicates += 1
            else:
                seen.add(doc)
    cache: dict[object, object] = {}
    values = {m.spec: _score(m, grades, ranked, ranking, cache) for m in metrics}
    return QueryScore(values, duplicates)


def _score(
    metric: Metric,
    grades: Mapping[str, float],
    ranked: list[float],
    ranking: Sequence[str],
    cache: dict[object, object],
) -> float:
    name, k = metric.name, metric.k
    if name == "ndcg":
        return _ndcg(metric, grades, ranked, cache)
    if name == "judged":
        top = ranking[:k]
        return sum(1 for doc in top if doc in grades) / len(top) if top else 0.0
    if name == "err":
        return _err(ranked[:k], metric.max_grade)
    key = ("rel", metric.threshold)
    if key not in cache:
        relevant = float(metric.threshold).__le__  # C-level comparisons: this is the hot loop of a large run
        positions = list(compress(range(1, len(ranked) + 1), map(relevant, ranked)))
        cache[key] = (positions, sum(map(relevant, grades.values())))
    positions, total = cache[key]  # type: ignore[misc]
    if not total:
        return 0.0
    if name == "rprec":
        k = total
    if k is not None:
        positions = [p for p in positions if p <= k]
    if name == "mrr":
        return 1.0 / positions[0] if positions else 0.0
    if name == "map":
        return sum(i / p for i, p in enumerate(positions, 1)) / total
    if name == "p":
        return len(positions) / k  # type: ignore[operator]
    if name in ("recall", "rprec"):
        return len(positions) / total
    return 1.0 if positions else 0.0  # hit


def _ndcg(metric: Metric, grades: Mapping[str, float], ranked: list[float], cache: dict) -> float:
    k, exp = metric.k, metric.gain == "exp"
    key = ("ideal", exp)
    if key not in cache:
        positive = sorted([g for g in grades.values() if g > 0], reverse=True)
        cache[key] = [2.0**g - 1.0 for g in positive] if exp else positive
        if "hits" not in cache:  # indexes of the documents with a positive gain, in rank order
            cache["hits"] = list(compress(range(len(ranked)), map((0.0).__lt__, ranked)))
    ideal = cache[key][:k]
    if not ideal:
        return 0.0
    discounts = _discounts(len(ranked) if k is None else max(k, len(ideal)))
    idcg = sum(map(mul, ideal, discounts))
    limit = len(ranked) if k is None else k
    hits = [i for i in cache["hits"] if i < limit]
    if exp:
        dcg = sum((2.0 ** ranked[i] - 1.0) * discounts[i] for i in hits)
    else:
        dcg = sum(ranked[i] * discounts[i] for i in hits)
    return dcg / idcg


def _err(ranked: list[float], max_grade: float) -> float:
    scale = 2.0**max_grade
    score, keep_going = 0.0, 1.0
    for rank, grade in enumerate(ranked, 1):
        if grade <= 0:
            continue
        stop = (2.0 ** min(grade, max_grade) - 1.0) / scale
        score += keep_going * stop / rank
        keep_going *= 1.0 - stop
    return score


def mean(values: Iterable[float]) -> float:
    """The arithmetic mean, 0 for no values (an empty stratum scores nothing rather than failing)."""
    items = list(values)
    return math.fsum(items) / len(items) if items else 0.0


def score_run(
    qrels: Mapping[str, Mapping[str, float]], run: Mapping[str, Sequence[str]], metrics: Sequence[Metric]
) -> dict[str, QueryScore]:
    """Score every query present in both (trec_eval's rule: queries only in one of them are left out)."""
    return {qid: score_query(qrels[qid], ranking, metrics) for qid, ranking in run.items() if qid in qrels}
