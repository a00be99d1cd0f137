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

Metrics beyond relevance (`BEYOND`: distinct, ild, alpha_ndcg, age, fresh, novelty, exposure_gini, coverage) read
the corpus and are parsed here but scored in `pytest_relevance.evaluation.diversity`; their conventions are in its
docstring.
"""

from __future__ import annotations

import functools
import math
import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import add, attrgetter, mul, truediv
from typing import Any, TypeVar

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
    "distinct": ("required", frozenset({"field"})),
    "ild": ("required", frozenset({"field"})),
    "alpha_ndcg": ("required", frozenset({"field", "alpha", "rel"})),
    "age": ("required", frozenset({"field"})),
    "fresh": ("required", frozenset({"field", "within"})),
    "novelty": ("required", frozenset()),
    "exposure_gini": ("required", frozenset({"field"})),
    "coverage": ("required", frozenset()),
}
#: Metrics that read the corpus (`beyond`), and the options each must be given: no default field is guessed.
DIGITS = 4  # values are kept (baseline, reports) and printed to 4 decimals, as trec_eval prints them
BEYOND = frozenset({"distinct", "ild", "alpha_ndcg", "age", "fresh", "novelty", "exposure_gini", "coverage"})
_REQUIRED = {"fresh": ("field", "within")} | {name: ("field",) for name in BEYOND - {"fresh", "novelty", "coverage"}}
#: Set-level metrics: one value per stratum from all its queries' lists, none per query (so no sign-flip test).
SET_LEVEL = frozenset({"exposure_gini", "coverage"})
#: Lower is better: a rise beyond tolerance is the regression.
LOWER_IS_BETTER = frozenset({"age", "exposure_gini"})
#: Not shares in [0, 1]: age counts days, novelty bits. Both are >= 0.
UNBOUNDED = frozenset({"age", "novelty"})
_WITHIN = re.compile(r"^(?P<amount>\d+(?:\.\d+)?)(?P<unit>[dhw])$")
_DAYS = {"d": 1.0, "h": 1 / 24, "w": 7.0}
_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*(?:\.[A-Za-z_][A-Za-z0-9_\-]*)*$")
_ALIASES = {"success": "hit", "rr": "mrr", "recip_rank": "mrr", "ap": "map", "ndcg_cut": "ndcg", "map_cut": "map"}
_SPEC = re.compile(r"^(?P<name>[A-Za-z_]+)(?:@(?P<k>[^(]*))?(?:\((?P<opts>[^)]*)\))?$")
GAINS = ("linear", "exp")
#: The largest grade (and err's max) accepted anywhere: 2^grade must stay a finite float for exp gain and err, and
#: no graded scale in use comes near it; a grade beyond it is a typo or a score pasted into the grade column.
MAX_GRADE = 1000
#: a document id: text, or the bytes of a TREC file (`pytest-relevance evaluate` compares them undecoded)
DocId = TypeVar("DocId", str, bytes)
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
    #: the corpus field a beyond-relevance metric reads (a dotted path reaches into objects)
    doc_field: str | None = None
    #: alpha_ndcg's redundancy penalty (Clarke et al. 2008)
    alpha: float = 0.5
    #: fresh's window, in days
    within: float | None = None
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
        if self.doc_field is not None:
            opts.insert(0, f"field={self.doc_field}")
        if self.name == "alpha_ndcg" and self.alpha != 0.5:
            opts.append(f"alpha={_num(self.alpha)}")
        if self.within is not None:
            opts.append(f"within={_num(self.within)}d")
        return f"{text}({','.join(opts)})" if opts else text

    @property
    def higher_is_better(self) -> bool:
        """False for age and exposure_gini: the gate then fails on a rise, not on a drop."""
        return self.name not in LOWER_IS_BETTER

    @property
    def set_level(self) -> bool:
        """One value per stratum, none per query (exposure_gini, coverage)."""
        return self.name in SET_LEVEL

    @property
    def bounded(self) -> bool:
        """Whether every value lies in [0, 1] (all but age, in days, and novelty, in bits)."""
        return self.name not in UNBOUNDED

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
        if "field" in options:
            out["field"] = self.doc_field
        if "alpha" in options:
            out["alpha"] = self.alpha
        if "within" in options:
            out["within_days"] = self.within
        return out

    def __str__(self) -> str:
        return self.spec


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def parse_metric(spec: str) -> Metric:
    """Parse ``ndcg@10``, ``p@5(rel=2)``, ``ndcg@10(gain=exp)``, ``err@20(max=3)``, ``distinct@10(field=brand)``,
    ``fresh@10(field=released, within=30d)``. Names and option keys are case-insensitive; a field name is kept as
    written (corpus fields are case-sensitive)."""
    text = spec.strip()
    match = _SPEC.match(text)
    if not match:
        raise MetricSpecError(f"cannot read metric {spec!r}: expected NAME, NAME@K or NAME@K(option=value)")
    lowered = match["name"].lower()
    name = _ALIASES.get(lowered, lowered)
    if name not in _KINDS:
        known = ", ".join(sorted(_KINDS))
        raise MetricSpecError(f"unknown metric {lowered!r} in {spec!r}; known metrics: {known}")
    cut, options = _KINDS[name]
    k: int | None = None
    if match["k"] is not None:
        if cut == "none":
            raise MetricSpecError(f"metric {name!r} takes no cut-off (in {spec!r})")
        # 18 digits at most: int() refuses a string of thousands, and no ranking is that deep anyway
        if not match["k"].isdigit() or len(match["k"]) > 18 or int(match["k"]) < 1:
            raise MetricSpecError(f"bad cut-off {match['k']!r} in {spec!r}: a cut-off is a whole number >= 1")
        k = int(match["k"])
    elif cut == "required":
        raise MetricSpecError(f"metric {name!r} needs a cut-off, e.g. {name}@10 (in {spec!r})")
    fields: dict[str, object] = {}
    given: set[str] = set()
    for item in filter(None, (part.strip() for part in (match["opts"] or "").split(","))):
        key, _, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if key not in options:
            allowed = ", ".join(sorted(options)) or "none"
            raise MetricSpecError(f"metric {name!r} has no option {key!r} (in {spec!r}); options: {allowed}")
        if key in given:
            raise MetricSpecError(f"metric {name!r}: option {key} is given twice (in {spec!r}); give it once")
        given.add(key)
        if key in ("field", "alpha", "within"):
            fields.update(_beyond_option(name, key, value, spec))
            continue
        if key == "gain":
            if value not in GAINS:
                raise MetricSpecError(f"gain must be one of {', '.join(GAINS)}, not {value!r} (in {spec!r})")
            fields["gain"] = value
            continue
        try:
            number = float(value)
        except ValueError:
            raise MetricSpecError(f"option {key} needs a number, not {value!r} (in {spec!r})") from None
        if not 0 < number <= MAX_GRADE:  # also refuses nan and inf
            meaning = "relevance threshold" if key == "rel" else "largest grade"
            raise MetricSpecError(
                f"option {key}={value} is out of range (in {spec!r}): the {meaning} is a number > 0 and <= {MAX_GRADE}"
                + ("; rel=0 would count unjudged and irrelevant documents as relevant" if key == "rel" else "")
            )
        fields["threshold" if key == "rel" else "max_grade"] = number
    lacking = [key for key in _REQUIRED.get(name, ()) if key not in given]
    if lacking:
        example = {"field": "field=brand", "within": "within=30d"}
        needed = ", ".join(example[key] for key in lacking)
        raise MetricSpecError(f"metric {name!r} needs {', '.join(lacking)}, e.g. {name}@{k}({needed}) (in {spec!r})")
    return Metric(name, k, **fields)  # type: ignore[arg-type]


def _beyond_option(name: str, key: str, value: str, spec: str) -> dict[str, object]:
    """field=NAME (a corpus field, dotted for a nested one), alpha=A in [0, 1), within=N followed by d, h or w."""
    if key == "field":
        if not _FIELD.match(value):
            raise MetricSpecError(
                f"metric {name!r}: field={value!r} is not a field name (in {spec!r}); write e.g. field=brand"
            )
        return {"doc_field": value}
    if key == "alpha":
        try:
            alpha = float(value)
        except ValueError:
            alpha = math.nan
        if not 0 <= alpha < 1:  # also refuses nan; alpha=1 would make every repeat of a subtopic worth nothing
            raise MetricSpecError(f"metric {name!r}: alpha={value} must be a number >= 0 and < 1 (in {spec!r})")
        return {"alpha": alpha}
    found = _WITHIN.match(value)
    if not found or float(found["amount"]) <= 0:
        raise MetricSpecError(
            f"metric {name!r}: within={value} is not a window (in {spec!r}); write a number > 0 and a unit, d "
            "(days), h (hours) or w (weeks), e.g. within=30d"
        )
    return {"within": float(found["amount"]) * _DAYS[found["unit"]]}


def higher_is_better(spec: str) -> bool:
    """`Metric.higher_is_better` from a spec as recorded (a report or baseline row): age and exposure_gini are not."""
    return spec.partition("@")[0].partition("(")[0].lower() not in LOWER_IS_BETTER


@functools.lru_cache(maxsize=1024)
def reads_as_metric(text: str) -> bool:
    """Whether a name reads as a metric spec (`ndcg@10`, `map`, even a misspelt `ndgc@10`): such a name is never a
    stratum, so that a tolerance override or a report row names one thing. Cached: every judged query asks for
    its stratum, and strata repeat."""
    if "@" in text or "(" in text:
        return True
    try:
        parse_metric(text)
    except MetricSpecError:
        return False
    return True


_SEPARATOR = re.compile(r"[\s,]+(?![^()]*\))")  # a comma or a space between specs, not between one's options


def parse_metrics(specs: Iterable[str] | str) -> list[Metric]:
    """Parse a list (or a whitespace/comma separated string) of specs; duplicates are an error."""
    items = list(filter(None, _SEPARATOR.split(specs.strip()))) if isinstance(specs, str) else list(specs)
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


def rank_scored(scores: Mapping[DocId, float]) -> list[DocId]:
    """Order a scored list as trec_eval does: score descending, then document id descending.

    Two stable C-level sorts (ids first, then scores) instead of one sort on (score, id) tuples: same order, about
    three times faster on long runs.
    """
    ranking = sorted(scores, reverse=True)
    ranking.sort(key=scores.__getitem__, reverse=True)
    return ranking


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
    """Score one ranked list against one query's grades, with every convention of the module docstring.

    Only the judged positions are walked: which positions hold a judged document is found by a C-level pass (most
    of a ranking is unjudged), and every metric works from that short list.
    """
    n = len(ranking)
    flags = list(map(grades.__contains__, ranking))
    positions = list(compress(range(n), flags))  # 0-based ranks of the judged documents, in rank order
    duplicates = 0
    if len(set(ranking)) != n:
        first: dict[str, int] = {}
        for index, doc in enumerate(ranking):
            first.setdefault(doc, index)
        duplicates = n - len(first)
        positions = [i for i in positions if first[ranking[i]] == i]  # later occurrences gain nothing
        gains = [grades[ranking[i]] for i in positions]
    else:
        gains = list(map(grades.__getitem__, compress(ranking, flags)))
    return QueryScore(_values(grades, positions, gains, n, metrics), duplicates)


def score_ranked(grades: Mapping[Any, float], ranking: Sequence[Any], metrics: Sequence[Metric]) -> dict[str, float]:
    """`score_query` for a ranking without repeated ids (one ranked from a {doc: score} mapping): no duplicate pass."""
    flags = list(map(grades.__contains__, ranking))
    positions = list(compress(range(len(ranking)), flags))
    gains = list(map(grades.__getitem__, compress(ranking, flags)))
    return _values(grades, positions, gains, len(ranking), metrics)


def score_placed(
    grades: Mapping[Any, float], placed: Mapping[Any, int], n: int, metrics: Sequence[Metric]
) -> dict[str, float]:
    """`score_ranked` for a ranking of length `n` given as {doc: 0-based rank} (no repeats; ranks not held by a
    key are unjudged documents). It walks the query's judged documents instead of the ranking, so one fixed list
    scored against every query (the constant-answer floor) costs each query its judgments, not the list's length."""
    found = sorted((placed[doc], grade) for doc, grade in grades.items() if doc in placed)
    return _values(grades, [rank for rank, _ in found], [grade for _, grade in found], n, metrics)


def _values(
    grades: Mapping[Any, float], positions: list[int], gains: list[float], n: int, metrics: Sequence[Metric]
) -> dict[str, float]:
    """Every metric from the judged positions (0-based, rank order) and their grades."""
    values: dict[str, float] = {}
    relevance: dict[float, tuple[list[int], int]] = {}  # threshold -> (0-based relevant ranks, R)
    ideals: dict[bool, list[float]] = {}
    for spec, code, k, threshold, exp, max_grade in _plan(metrics):
        if code == _NDCG:
            values[spec] = _ndcg(k, exp, grades, positions, gains, n, ideals)
        elif code == _JUDGED:
            top = min(k, n)
            values[spec] = bisect_left(positions, top) / top if top else 0.0
        elif code == _ERR:
            values[spec] = _err(positions, gains, k, max_grade)
        else:
            found = relevance.get(threshold)
            if found is None:
                found = relevance[threshold] = (
                    list(compress(positions, map(threshold.__le__, gains))),
                    sum(map(threshold.__le__, grades.values())),
                )
            values[spec] = _binary(code, k, *found)
    return values


_NDCG, _JUDGED, _ERR, _MRR, _MAP, _P, _RECALL, _HIT, _RPREC = range(9)
_CODES = {
    "ndcg": _NDCG,
    "judged": _JUDGED,
    "err": _ERR,
    "mrr": _MRR,
    "map": _MAP,
    "p": _P,
    "recall": _RECALL,
    "hit": _HIT,
    "rprec": _RPREC,
}
_SPEC_OF = attrgetter("spec")
_PLANS: dict[tuple[str, ...], tuple[tuple[str, int, Any, float, bool, float], ...]] = {}


def _plan(metrics: Sequence[Metric]) -> tuple[tuple[str, int, Any, float, bool, float], ...]:
    """Each metric as a plain tuple (spec, code, k, threshold, exp gain, max grade), built once per metric list:
    attribute lookups and string dispatch per query and metric were a third of the time of a large run."""
    key = tuple(map(_SPEC_OF, metrics))
    plan = _PLANS.get(key)
    if plan is None:
        reading = next((m.spec for m in metrics if m.name in BEYOND), None)
        if reading is not None:  # no corpus here: one message, not a KeyError
            raise MetricSpecError(
                f"{reading} reads the corpus, which a run file and its qrels do not hold; gate it in a relevance test "
                "(relevance_metrics), which reads relevance_corpus"
            )
        plan = _PLANS[key] = tuple(
            (m.spec, _CODES[m.name], m.k, float(m.threshold), m.gain == "exp", m.max_grade) for m in metrics
        )
    return plan


def _binary(code: int, k: int | None, relevant: list[int], total: int) -> float:
    """`relevant` holds the 0-based ranks of the relevant documents retrieved, in rank order; R = `total`."""
    if not total:
        return 0.0
    if code == _RPREC:
        k = total
    if k is not None and relevant and relevant[-1] >= k:
        relevant = relevant[: bisect_left(relevant, k)]
    if code == _MRR:
        return 1.0 / (relevant[0] + 1) if relevant else 0.0
    if code == _MAP:
        precisions: float = sum(map(truediv, range(1, len(relevant) + 1), map(add, relevant, repeat(1))))
        return precisions / total
    if code == _P:
        return len(relevant) / k  # type: ignore[operator]
    if code in (_RECALL, _RPREC):
        return len(relevant) / total
    return 1.0 if relevant else 0.0  # hit


def _ndcg(
    k: int | None,
    exp: bool,
    grades: Mapping[Any, float],
    positions: list[int],
    gains: list[float],
    n: int,
    ideals: dict[bool, list[float]],
) -> float:
    if exp not in ideals:
        positive = sorted([g for g in grades.values() if g > 0], reverse=True)
        ideals[exp] = [2.0**g - 1.0 for g in positive] if exp else positive
    ideal = ideals[exp][:k]
    if not ideal:
        return 0.0
    discounts = _discounts(max(n, len(ideal)) if k is None else max(k, len(ideal)))
    idcg: float = sum(map(mul, ideal, discounts))
    cut = len(positions) if k is None else bisect_left(positions, k)
    dcg: float
    if exp:
        dcg = sum((2.0**g - 1.0) * discounts[i] for i, g in zip(positions[:cut], gains, strict=False) if g > 0)
    elif min(gains[:cut], default=0) >= 0:  # no negative grade: one C-level pass
        dcg = sum(map(mul, gains[:cut], map(discounts.__getitem__, positions[:cut])))
    else:
        dcg = sum(g * discounts[i] for i, g in zip(positions[:cut], gains, strict=False) if g > 0)
    return dcg / idcg


def _err(positions: list[int], gains: list[float], k: int | None, max_grade: float) -> float:
    scale = 2.0**max_grade
    score, keep_going = 0.0, 1.0
    for index, grade in zip(positions, gains, strict=True):
        if k is not None and index >= k:
            break
        if grade <= 0:
            continue
        stop = (2.0 ** min(grade, max_grade) - 1.0) / scale
        score += keep_going * stop / (index + 1)
        keep_going *= 1.0 - stop
    return score


def mean(values: Iterable[float]) -> float:
    """The arithmetic mean, 0 for no values (an empty stratum scores nothing rather than failing)."""
    items = list(values)
    return math.fsum(items) / len(items) if items else 0.0


def score_scored_run(
    qrels: Mapping[Any, Mapping[Any, float]], run: Mapping[Any, Mapping[Any, float]], metrics: Sequence[Metric]
) -> dict[Any, dict[str, float]]:
    """Score a scored run ({qid: {doc: score}}, as read from a TREC run file) as trec_eval does: each query ranked
    by `rank_scored`, queries in only one of the two left out."""
    return {qid: score_ranked(qrels[qid], rank_scored(scores), metrics) for qid, scores in run.items() if qid in qrels}
