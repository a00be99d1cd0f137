"""Judgments from User Behavior Insights click logs, with the position bias taken out.

A document at rank 1 is clicked because it was shown first: raw click-through rates reward the ranking that produced
the log. Each model here corrects for position in its own way (docs/judgments.md says what each assumes):

- ``coec``: clicks over expected clicks (Zhang & Jones 2007). Expected clicks sum, over the pair's impressions,
  the log-wide click-through rate of the position of each impression.
- ``srw``: the OpenSearch Search Relevance Workbench's COEC (``CoecClickModel.java`` in
  opensearch-project/search-relevance), reproduced with its quirks, so that a team moving from it gets its grades.
- ``pbm``: the position-based model (Chuklin, Markov & de Rijke 2015, "Click Models for Web Search", ch. 3) fitted
  by expectation-maximization: P(click) = examination(rank) x attractiveness(query, document); the grade is the
  attractiveness.

The log is the UBI schema (opensearch-project/user-behavior-insights, ``events-mapping.json`` and
``queries-mapping.json``) as a bulk body, as documents one a line, or as exported hits (``_source``). It is read
and validated before anything is computed; every problem is counted by kind and its first lines named.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.metrics.ranking import MAX_GRADE
from pytest_relevance.util.files import parse_json

MODELS = ("coec", "srw", "pbm")
MAX_RANK = 10_000  # --max-rank: more positions than any result page shows, and the models' tables stay small
MAX_SCALE = 100  # --scale LOW-HIGH: HIGH at most this (a hundred levels is already finer than clicks can tell)
IMPRESSION = "impression"
CLICK = "click"
STRATA = ("head", "torso", "tail")
EXAMPLES = 3  # lines named per problem kind

# problem kind -> what it means, as the report says it
PROBLEMS = {
    "no_query": "events whose query_id has no ubi_queries document in the log",
    "incomplete": "impressions or clicks without an object id, a position ordinal or a query text (not graded)",
    "click_without_impression": "clicks without an impression of that object at that position for that query_id",
    "position_out_of_range": "events at a position outside 0..max-rank-1",
    "duplicate_event_id": "events whose _id another event already has",
    "bad_timestamp": "events whose timestamp is missing or not an ISO 8601 date-time or epoch milliseconds",
    "query_without_text": "ubi_queries documents without a query_id or a user_query text (an empty search)",
    "not_ubi": "documents that are neither a UBI query (user_query) nor a UBI event (action_name)",
}

_MISSING = object()


@dataclass(frozen=True, slots=True)
class Event:
    """One UBI event, with only what the models and the validation read. `ordinal` is the 0-based position; a
    position that is present but not a whole number is kept as `bad_ordinal`."""

    file: int
    line: int
    action: str
    user_query: str | None
    query_id: str | None
    object_id: str | None
    ordinal: int | None
    bad_ordinal: bool
    timestamp: float | None  # seconds since the epoch; None when missing or unparsable
    event_id: str | None

    @property
    def kind(self) -> str:
        """The action as every model compares it, case-insensitively (`Click` is a click), as the workbench does;
        only srw's CTR table groups the names as written, as its terms aggregation does."""
        return self.action.lower()


@dataclass
class Log:
    """What the files hold: the events, the query texts by query_id, and a hash of the bytes read."""

    files: list[str]
    events: list[Event]
    queries: dict[str, str]  # query_id -> user_query
    searches: dict[str, set[str]]  # user_query -> the query_ids that searched it (its traffic)
    untexted: list[tuple[int, int]]  # (file, line) of queries without query_id or text
    not_ubi: list[tuple[int, int]]
    digest: str

    @staticmethod
    def text(event: Event) -> str | None:
        """The query text an event is graded under, the same in every model: its own user_query, as the workbench
        reads it. UBI's query_id names one search (a text searched a hundred times has a hundred of them), and an
        event without a user_query is not graded (validation counts it as incomplete): borrowing its search's text
        from ubi_queries would grade events the workbench skips."""
        return event.user_query


@dataclass
class Problems:
    """Validation findings: per kind, a count and the first few (file, line)."""

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))

    def add(self, kind: str, file: str, line: int) -> None:
        self.counts[kind] += 1
        if len(self.examples[kind]) < EXAMPLES:
            self.examples[kind].append((file, line))

    def lines(self) -> list[str]:
        """One line per kind: the count, the meaning, and where the first ones are."""
        out = []
        for kind in PROBLEMS:
            if self.counts[kind]:
                where = ", ".join(f"{file}:{line}" for file, line in self.examples[kind])
                out.append(f"{self.counts[kind]} {PROBLEMS[kind]} ({kind}; first: {where})")
        return out


# ---------------------------------------------------------------- reading


def read_log(paths: Sequence[str | Path]) -> Log:
    """Every file's documents. A line that is not a JSON object, or a bulk action line without its document, is
    an error naming the file and line: the file is not a UBI log and nothing it says can be trusted."""
    events: list[Event] = []
    queries: dict[str, str] = {}
    searches: dict[str, set[str]] = defaultdict(set)
    untexted: list[tuple[int, int]] = []
    not_ubi: list[tuple[int, int]] = []
    digest = hashlib.sha256()
    names = [str(p) for p in paths]
    strings: dict[str, str] = {}  # one copy of each repeated string (actions, object ids, query texts)
    for index, name in enumerate(names):
        path = Path(name)
        if not path.is_file():
            raise RelevanceInputError(path, "events file not found; give the UBI log files (NDJSON) to read")
        with path.open("rb") as handle:
            for number, doc, doc_id, kind in _documents(path, handle, digest):
                if kind == "event" or (kind is None and "action_name" in doc):
                    events.append(_event(doc, index, number, doc_id, strings))
                elif kind == "query" or (kind is None and "user_query" in doc):
                    query_id, text = doc.get("query_id"), doc.get("user_query")
                    if isinstance(query_id, str) and isinstance(text, str) and text:
                        text = strings.setdefault(text, text)
                        queries.setdefault(query_id, text)
                        searches[text].add(query_id)
                    else:
                        untexted.append((index, number))
                else:
                    not_ubi.append((index, number))
    for event in events:  # an event's query_id is a search of its text too (events-only exports have no queries)
        text = event.user_query or queries.get(event.query_id or "")
        if text and event.query_id is not None:
            searches[text].add(event.query_id)
    return Log(names, events, queries, dict(searches), untexted, not_ubi, f"sha256:{digest.hexdigest()[:12]}")


_NOT_NDJSON = "UBI logs are one JSON object a line (a bulk body, or documents exported from ubi_queries/ubi_events)"


def _documents(
    path: Path, lines: Iterable[bytes], digest: Any
) -> Iterator[tuple[int, dict[str, Any], str | None, str | None]]:
    """(line, document, _id, "query" | "event" | None) for each document; None: told by its fields. The lines are
    read one at a time (a log can be larger than the memory the grades need) and fed to the log's hash."""
    pending: tuple[int, str | None, str | None] | None = None  # a bulk action line waiting for its document
    decode = json.JSONDecoder().raw_decode
    for number, raw in enumerate(lines, 1):
        digest.update(raw)
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8").strip()
        except UnicodeDecodeError:
            raise RelevanceInputError(path, f"not NDJSON (not UTF-8): {_NOT_NDJSON}", number) from None
        if not text:
            continue
        try:
            doc, end = decode(text)
        except (ValueError, RecursionError):
            end = -1
        if end != len(text):  # parsed again only to say why (bad syntax, too deep, a number too long)
            parse_json(path, text, number, "not NDJSON", f": {_NOT_NDJSON}")
        if doc.__class__ is not dict:
            raise RelevanceInputError(path, f"not NDJSON (a JSON {type(doc).__name__}): {_NOT_NDJSON}", number)
        if len(doc) == 1:
            action = _bulk_action(doc)
            if action is not None:
                if pending is not None:
                    raise _no_document(path, pending[0])
                meta = doc[action]
                pending = (number, _string(meta.get("_id")), _index_kind(meta.get("_index")))
                continue
        if pending is not None:
            yield number, doc, pending[1], pending[2]
            pending = None
        elif doc.get("_source").__class__ is dict:
            yield number, doc["_source"], _string(doc.get("_id")), _index_kind(doc.get("_index"))
        else:
            yield number, doc, None, None
    if pending is not None:
        raise _no_document(path, pending[0])


def _bulk_action(doc: dict[str, Any]) -> str | None:
    ((key, value),) = doc.items()
    return key if key in ("index", "create") and value.__class__ is dict else None


def _no_document(path: Path, line: int) -> RelevanceInputError:
    return RelevanceInputError(
        path, "bulk action line without its document: each index/create line must be followed by the document", line
    )


def _index_kind(name: object) -> str | None:
    """The index an action or hit names, when it is one of UBI's (a renamed index is told by its fields)."""
    return {"ubi_queries": "query", "ubi_events": "event"}.get(name) if isinstance(name, str) else None


def _string(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _event(doc: dict[str, Any], file: int, line: int, doc_id: str | None, strings: dict[str, str]) -> Event:
    attributes = doc.get("event_attributes")
    object_id = ordinal = None
    bad_ordinal = False
    if isinstance(attributes, dict):
        thing = attributes.get("object")
        if isinstance(thing, dict):
            found = thing.get("object_id")
            if isinstance(found, str) and found:
                object_id = strings.setdefault(found, found)
        position = attributes.get("position")
        if isinstance(position, dict):
            value = position.get("ordinal", _MISSING)
            if value.__class__ is int:
                ordinal = value
            elif value is not _MISSING and value is not None:
                bad_ordinal = True
    action = doc.get("action_name")
    action = strings.setdefault(action, action) if isinstance(action, str) else ""
    user_query = doc.get("user_query")
    user_query = strings.setdefault(user_query, user_query) if isinstance(user_query, str) and user_query else None
    query_id = doc.get("query_id")
    return Event(
        file,
        line,
        action,
        user_query,
        query_id if isinstance(query_id, str) else None,
        object_id,
        ordinal,
        bad_ordinal,
        _timestamp(doc.get("timestamp")),
        doc_id,
    )


def _timestamp(value: object) -> float | None:
    """Seconds since the epoch from an ISO 8601 date-time (UBI's strict_date_time) or epoch milliseconds."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:  # an int of hundreds of digits is no time, and too large for a float
            seconds = value / 1000
        except OverflowError:
            return None
        return seconds if math.isfinite(seconds) else None
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.timestamp()
    return None


def parse_date(text: str, end: bool) -> float:
    """--since/--until: a date (`2024-12-10`, the whole day: --until includes it) or an ISO 8601 date-time."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a date (2024-12-10) or an ISO 8601 date-time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    seconds = moment.timestamp()
    return seconds + 86400 if end and len(text) == 10 else seconds


# ---------------------------------------------------------------- validation


def validate(log: Log, max_rank: int, actions: Mapping[str, float]) -> Problems:
    """Every problem kind of PROBLEMS, counted over the whole log (before --since/--until)."""
    problems = Problems()
    files = log.files
    for kind, found in (("query_without_text", log.untexted), ("not_ubi", log.not_ubi)):
        for file, line in found:
            problems.add(kind, files[file], line)
    shown = {(e.query_id, e.object_id, e.ordinal) for e in log.events if e.kind == IMPRESSION}
    ids: set[str] = set()
    for e in log.events:
        where = files[e.file], e.line
        if e.query_id is None or e.query_id not in log.queries:
            problems.add("no_query", *where)
        kind = e.kind
        counted = kind == IMPRESSION or kind in actions
        if counted and (e.object_id is None or e.ordinal is None or log.text(e) is None):
            problems.add("incomplete", *where)
        if kind in actions and e.ordinal is not None and (e.query_id, e.object_id, e.ordinal) not in shown:
            problems.add("click_without_impression", *where)
        if e.bad_ordinal or (e.ordinal is not None and not 0 <= e.ordinal < max_rank):
            problems.add("position_out_of_range", *where)
        if e.event_id is not None:
            if e.event_id in ids:
                problems.add("duplicate_event_id", *where)
            ids.add(e.event_id)
        if e.timestamp is None:
            problems.add("bad_timestamp", *where)
    return problems


def within(events: Iterable[Event], since: float | None, until: float | None) -> list[Event]:
    """The events from `since` (included) to `until` (excluded); an event without a usable time is left out only
    when a bound is given."""
    if since is None and until is None:
        return list(events)
    low = -math.inf if since is None else since
    high = math.inf if until is None else until
    return [e for e in events if e.timestamp is not None and low <= e.timestamp < high]


# ---------------------------------------------------------------- models


@dataclass
class Grades:
    """Per query text, per document: the grade and the impressions it rests on."""

    grades: dict[str, dict[str, float]]
    impressions: dict[str, dict[str, int]]


def coec(log: Log, events: Sequence[Event], max_rank: int, actions: Mapping[str, float]) -> Grades:
    """Clicks over expected clicks: c(q,d) / sum over the pair's impressions of CTR(rank of the impression), with
    CTR(r) = (weighted) clicks at r / impressions at r over the whole log, at ranks 0..max_rank-1."""
    clicks_at = np.zeros(max_rank)
    clicks: dict[tuple[str, str], float] = defaultdict(float)
    shown: dict[tuple[str, str, int], int] = defaultdict(int)  # impressions per (text, doc, rank)
    for e in events:
        rank, doc = e.ordinal, e.object_id
        if rank is None or doc is None or not 0 <= rank < max_rank:
            continue
        kind = e.kind
        weight = 1.0 if kind == IMPRESSION else actions.get(kind)
        if weight is None:
            continue
        text = log.text(e)
        if text is None:
            continue
        if kind == IMPRESSION:
            shown[(text, doc, rank)] += 1
        else:
            clicks_at[rank] += weight
            clicks[(text, doc)] += weight
    index: dict[tuple[str, str], int] = {}
    pair_of = np.array([index.setdefault((text, doc), len(index)) for text, doc, _ in shown], dtype=np.int64)
    rank_of = np.array([rank for _, _, rank in shown], dtype=np.int64)
    counts = np.array(list(shown.values()), dtype=float)
    shown_at = np.bincount(rank_of, weights=counts, minlength=max_rank)
    ctr = np.divide(clicks_at, shown_at, out=np.zeros(max_rank), where=shown_at > 0)
    expected = np.bincount(pair_of, weights=counts * ctr[rank_of], minlength=len(index))
    impressions = np.bincount(pair_of, weights=counts, minlength=len(index))
    result = Grades(defaultdict(dict), defaultdict(dict))
    for (text, doc), i in index.items():
        result.grades[text][doc] = clicks.get((text, doc), 0.0) / expected[i] if expected[i] > 0 else 0.0
        result.impressions[text][doc] = int(impressions[i])
    return result


def srw(log: Log, events: Sequence[Event], max_rank: int) -> Grades:
    """The workbench's COEC (CoecClickModel.java at d8be5d1), step by step:

    - the CTR table comes from a terms aggregation over events with ordinal <= maxRank: the top 10 action names,
      each with its top maxRank ordinals (by count, then value); the buckets whose action is click or impression
      (any case) give CTR(r) for r in 0..maxRank-1, 0 where a rank has no impression bucket;
    - pairs are (the event's own user_query, object_id) over the same events, skipping those it cannot read (no
      user_query, no object; `Log.text`, as in the other models); clicks and impressions are counted, and the
      pair's rank is the smallest ordinal of its clicks and impressions (a pair seen only through other actions
      has none);
    - grade = clicks / (CTR(rank) x impressions), 0 when that is 0, printed with 3 decimals (Java's %.3f rounds
      the shortest decimal of the double half up).
    """
    kept = [(e, e.ordinal) for e in events if e.ordinal is not None and e.ordinal <= max_rank]
    per_action: dict[str, Counter[int]] = defaultdict(Counter)
    for e, ordinal in kept:
        per_action[e.action][ordinal] += 1
    clicks_at: dict[int, int] = {}
    shown_at: dict[int, int] = {}
    for action in sorted(per_action, key=lambda a: (-sum(per_action[a].values()), a))[:10]:
        kind = action.lower()
        table = clicks_at if kind == CLICK else shown_at if kind == IMPRESSION else None
        if table is None:
            continue
        positions = per_action[action]
        for rank in sorted(positions, key=lambda r: (-positions[r], r))[:max_rank]:
            table[rank] = positions[rank]
    ctr = {r: clicks_at.get(r, 0) / shown_at[r] if shown_at.get(r, 0) > 0 else 0.0 for r in range(max_rank)}
    clicks: Counter[tuple[str, str]] = Counter()
    shown: Counter[tuple[str, str]] = Counter()
    best: dict[tuple[str, str], int] = {}
    for e, ordinal in kept:
        text = log.text(e)
        if text is None or e.object_id is None:
            continue
        pair = (text, e.object_id)
        best.setdefault(pair, 2**31 - 1)
        action = e.kind
        if action in (CLICK, IMPRESSION):
            (clicks if action == CLICK else shown)[pair] += 1
            best[pair] = min(best[pair], ordinal)
    result = Grades(defaultdict(dict), defaultdict(dict))
    for pair, rank in best.items():
        expected = ctr.get(rank, 0.0) * shown[pair]
        rating = clicks[pair] / expected if expected > 0 else 0.0
        result.grades[pair[0]][pair[1]] = float(java_3f(rating))
        result.impressions[pair[0]][pair[1]] = shown[pair]
    return result


def java_3f(value: float) -> str:
    """String.format(Locale.ROOT, "%.3f", value): Java rounds the shortest decimal that reads back as the double
    half up (1.0005 -> 1.001, where Python's format gives 1.000)."""
    return str(Decimal(repr(value)).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))


def pbm(
    log: Log, events: Sequence[Event], max_rank: int, actions: Mapping[str, float], iterations: int = 200
) -> Grades:
    """The position-based model fitted by EM. An impression is clicked when a counted action names the same
    query_id, object and position; P(click) = gamma[rank] * alpha[pair]. The E step gives, for a skipped
    impression, P(examined | no click) and P(attractive | no click); the M step averages them per rank and pair."""
    unmatched: dict[tuple[str | None, str, int], int] = defaultdict(int)  # clicks not yet given to an impression
    for e in events:
        if e.kind in actions and e.query_id is not None and e.object_id is not None and e.ordinal is not None:
            unmatched[(e.query_id, e.object_id, e.ordinal)] += 1
    groups: dict[tuple[str, str, int], int] = {}  # (text, doc, rank) -> its index in n and c
    n: list[int] = []
    c: list[int] = []
    for e in events:
        rank, doc = e.ordinal, e.object_id
        if e.kind != IMPRESSION or rank is None or doc is None or not 0 <= rank < max_rank:
            continue
        text = log.text(e)
        if text is None:
            continue
        group = groups.get((text, doc, rank))
        if group is None:
            group = groups[(text, doc, rank)] = len(n)
            n.append(0)
            c.append(0)
        n[group] += 1
        key = (e.query_id, doc, rank)
        if unmatched.get(key):
            unmatched[key] -= 1
            c[group] += 1
    index: dict[tuple[str, str], int] = {}
    pair_of = np.array([index.setdefault((text, doc), len(index)) for text, doc, _ in groups], dtype=np.int64)
    rank_of = np.array([rank for _, _, rank in groups], dtype=np.int64)
    shown, hits = np.array(n, dtype=float), np.array(c, dtype=float)
    per_pair = np.bincount(pair_of, weights=shown, minlength=len(index))
    alpha, _ = pbm_em(pair_of, rank_of, shown, hits, len(index), max_rank, iterations)
    result = Grades(defaultdict(dict), defaultdict(dict))
    for (text, doc), i in index.items():
        result.grades[text][doc] = float(alpha[i]) if alpha[i] > 1e-6 else 0.0
        result.impressions[text][doc] = int(per_pair[i])
    return result


#: probabilities are kept inside (0, 1): a rank or pair clicked every time would make 1 - a * g zero
PBM_FLOOR = 1e-6


def pbm_em(
    pair_of: NDArray[np.int64],
    rank_of: NDArray[np.int64],
    shown: NDArray[np.float64],
    hits: NDArray[Any],
    pairs: int,
    ranks: int,
    iterations: int,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The position-based model's EM (Chuklin et al. 2015, 4.2) over groups of impressions: group i shows pair
    `pair_of[i]` at rank `rank_of[i]` `shown[i]` times, clicked `hits[i]` times. Returns (attractiveness per pair,
    examination per rank), both started at 0.5 and iterated until neither moves by 1e-7. Shared by the grades of
    `pbm` and the online estimators' click model."""
    per_pair = np.bincount(pair_of, weights=shown, minlength=pairs)
    per_rank = np.bincount(rank_of, weights=shown, minlength=ranks)
    alpha = np.full(pairs, 0.5)
    gamma = np.full(ranks, 0.5)
    for _ in range(iterations):
        a, g = alpha[pair_of], gamma[rank_of]
        skipped = (shown - hits) / (1 - a * g)
        new_alpha = np.bincount(pair_of, weights=hits + skipped * a * (1 - g), minlength=pairs) / per_pair
        new_gamma = np.divide(
            np.bincount(rank_of, weights=hits + skipped * g * (1 - a), minlength=ranks),
            per_rank,
            out=np.full(ranks, 0.5),
            where=per_rank > 0,
        )
        new_alpha = np.clip(new_alpha, PBM_FLOOR, 1 - PBM_FLOOR)
        new_gamma = np.clip(new_gamma, PBM_FLOOR, 1 - PBM_FLOOR)
        done = np.abs(new_alpha - alpha).max(initial=0) < 1e-7 and np.abs(new_gamma - gamma).max() < 1e-7
        alpha, gamma = new_alpha, new_gamma
        if done:
            break
    return alpha, gamma


# ---------------------------------------------------------------- queries, strata, sample, file


def query_id(text: str) -> str:
    """A short id that is the same for the same text in every log: 12 hex digits of its SHA-256 (48 bits: two of
    a million texts collide with odds of about 1 in 500; a collision is refused, never merged)."""
    return "q" + hashlib.sha256(text.encode()).hexdigest()[:12]


def parse_strata(text: str) -> tuple[float, float, float]:
    """`50/30/20`: the head, torso and tail shares of traffic, in percent, summing to 100."""
    try:
        shares = tuple(float(part) for part in text.split("/"))
    except ValueError:
        shares = ()
    if len(shares) != 3 or min(shares) < 0 or abs(sum(shares) - 100) > 1e-9:
        raise ValueError(f"{text!r} is not head/torso/tail traffic shares in percent summing to 100 (e.g. 50/30/20)")
    return shares


def strata(traffic: Mapping[str, int], shares: tuple[float, float, float]) -> dict[str, str]:
    """Query text -> head/torso/tail: queries by traffic (then text), each in the stratum where the traffic before
    it falls, so the head is the most frequent queries that together make the first share of all searches."""
    total = sum(traffic.values())
    bounds = (shares[0] / 100 * total, (shares[0] + shares[1]) / 100 * total)
    result = {}
    before = 0
    for text in sorted(traffic, key=lambda t: (-traffic[t], t)):
        result[text] = "head" if before < bounds[0] else "torso" if before < bounds[1] else "tail"
        before += traffic[text]
    return result


def sample(by_stratum: Mapping[str, Sequence[str]], size: int, seed: int) -> set[str]:
    """Up to `size` query texts per stratum, drawn with a generator seeded by (seed, stratum) over the texts in
    sorted order: the same seed and log give the same sample, whatever the order of the log's lines."""
    chosen: set[str] = set()
    for stratum, texts in by_stratum.items():
        ordered = sorted(texts)
        chosen.update(random.Random(f"{seed}:{stratum}").sample(ordered, min(size, len(ordered))))
    return chosen


def scale(values: Sequence[float], low: int, high: int) -> tuple[list[float], list[int]]:
    """The grades on low..high: 0 (never clicked) is `low`, and the positive grades are cut into the other levels
    at their quantiles (a value at a cut point goes down). Cutting all grades at their quantiles would not do:
    most pairs of a real log are never clicked, so the lower cut points are all 0 and the middle grades empty."""
    positive = [v for v in values if v > 0]
    steps = high - low
    cuts = [float(x) for x in np.quantile(positive, [k / steps for k in range(1, steps)])] if positive else []
    return cuts, [low if v <= 0 else low + 1 + int(np.searchsorted(cuts, v, side="left")) for v in values]


@dataclass(frozen=True)
class Options:
    """What `pytest-relevance clicks` was asked for; every field is recorded in the file's version or header."""

    model: str
    max_rank: int
    actions: Mapping[str, float]
    min_impressions: int
    since: str | None = None
    until: str | None = None
    scale: tuple[int, int] | None = None
    shares: tuple[float, float, float] = (50.0, 30.0, 20.0)
    sample: int | None = None
    seed: int = 0


@dataclass
class Result:
    """The judgments file's text and what the summary line reports."""

    text: str
    version: str
    queries: Counter[str]  # per stratum
    known: int  # queries whose id came from the judgments given (`ids`)
    pairs: int
    below: int  # pairs left ungraded for having fewer than min_impressions impressions
    problems: Problems


def grade(log: Log, options: Options, strict: bool = False, ids: Mapping[str, str] | None = None) -> Result:
    """The judgments (one query a line, the form `pool merge` writes) from a read log, after validating it.

    A query's id is `ids[text]` when given (existing judgments' ids, so that `agreement` and `merge` meet the same
    queries), else the hash of its text (`query_id`): the log's query_id names one search, not the query, and a
    text searched a hundred times has a hundred of them."""
    ids = ids or {}
    problems = validate(log, options.max_rank, options.actions)
    if strict and problems.counts:
        kind = next(k for k in PROBLEMS if problems.counts[k])
        file, line = problems.examples[kind][0]
        others = sum(problems.counts.values()) - problems.counts[kind]
        more = f" and {others} other problems" if others else ""
        raise RelevanceInputError(
            file,
            f"{problems.counts[kind]} {PROBLEMS[kind]} ({kind}), the first here{more}: "
            "fix the log, or drop --strict to grade the rest",
            line,
        )
    since = parse_date(options.since, end=False) if options.since else None
    until = parse_date(options.until, end=True) if options.until else None
    events = within(log.events, since, until)
    if options.model == "srw":
        found = srw(log, events, options.max_rank)
    elif options.model == "pbm":
        found = pbm(log, events, options.max_rank, options.actions)
    else:
        found = coec(log, events, options.max_rank, options.actions)
    kept: dict[str, dict[str, float]] = {}
    below = 0
    for text, docs in found.grades.items():
        enough = {d: g for d, g in docs.items() if found.impressions[text][d] >= options.min_impressions}
        below += len(docs) - len(enough)
        if enough:
            kept[text] = enough
    if not kept:
        raise RelevanceInputError(
            log.files[0],
            f"no (query, document) pair has {options.min_impressions} impressions at positions "
            f"0..{options.max_rank - 1}{' in the dates given' if since or until else ''}: nothing to grade; lower "
            "--min-impressions or check "
            "that the log has impression events with a position ordinal and an object id",
        )
    traffic = {text: max(1, len(log.searches.get(text, ()))) for text in {*log.searches, *kept}}
    stratum = strata(traffic, options.shares)
    if options.sample is not None:
        by_stratum: dict[str, list[str]] = defaultdict(list)
        for text in kept:
            by_stratum[stratum[text]].append(text)
        chosen = sample(by_stratum, options.sample, options.seed)
        kept = {t: g for t, g in kept.items() if t in chosen}
    header = [
        f"# judgments from UBI click logs: pytest-relevance clicks --model {options.model} --max-rank "
        f"{options.max_rank} --min-impressions {options.min_impressions}",
        f"# log {log.digest} ({len(log.events)} events); query strata by traffic share "
        f"{'/'.join(f'{s:g}' for s in options.shares)} (head/torso/tail); {below} pairs below --min-impressions",
    ]
    values = [(text, doc, g) for text, docs in kept.items() for doc, g in sorted(docs.items())]
    if options.scale is not None:
        cuts, scaled = scale([g for _, _, g in values], *options.scale)
        values = [(t, d, s) for (t, d, _), s in zip(values, scaled, strict=True)]
        header.append(
            f"# grades {options.scale[0]}-{options.scale[1]}: {options.scale[0]} for a grade of 0, the "
            f"others by quantiles of the positive grades, cut points {', '.join(f'{c:.4g}' for c in cuts)}"
        )
    elif options.model != "srw":
        values = [(t, d, round(g, 4)) for t, d, g in values]
        if any(g > MAX_GRADE for _, _, g in values):
            raise RelevanceInputError(
                log.files[0],
                f"a grade above {MAX_GRADE} (clicks far above the expected at a rarely clicked "
                "position): give --scale 0-3 to map the grades onto a scale",
            )
    grades: dict[str, dict[str, float]] = defaultdict(dict)
    for text, doc, g in values:
        grades[text][doc] = g
    version = _version(options, log.digest)
    from pytest_relevance.judgments.model import Provenance, Query
    from pytest_relevance.judgments.pool import _query_line, _scalar

    source = Provenance(source=f"clicks:{options.model}")  # each grade says where it came from, merged or not

    texts: dict[str, str] = {}
    lines = [*header, f"version: {_scalar(version)}", "queries:"]
    counts: Counter[str] = Counter()
    for text in sorted(grades, key=lambda t: (-traffic[t], t)):
        qid = ids.get(text) or query_id(text)
        if qid in texts:
            raise RelevanceInputError(log.files[0], f"queries {texts[qid]!r} and {text!r} get the same id {qid}")
        texts[qid] = text
        counts[stratum[text]] += 1
        query = Query(qid, text, stratum[text], grades=grades[text], provenance=dict.fromkeys(grades[text], source))
        lines.append(f"  - {_query_line(query, query.grades)}")
    known = sum(1 for text in grades if text in ids)
    return Result("\n".join(lines) + "\n", version, counts, known, len(values), below, problems)


def _version(options: Options, digest: str) -> str:
    """The model, its parameters, the sample's seed and the log's hash: two files with the same version were
    made the same way from the same bytes."""
    parts = [f"clicks:{options.model}", f"max-rank={options.max_rank}", f"min-impressions={options.min_impressions}"]
    if options.model != "srw":
        parts.append("actions=" + ",".join(f"{a}:{w:g}" for a, w in sorted(options.actions.items())))
    if options.since or options.until:
        parts.append(f"dates={options.since or ''}..{options.until or ''}")
    if options.scale is not None:
        parts.append(f"scale={options.scale[0]}-{options.scale[1]}")
    parts.append("strata=" + "/".join(f"{s:g}" for s in options.shares))
    if options.sample is not None:
        parts += [f"sample={options.sample}", f"seed={options.seed}"]
    parts.append(f"log={digest}")
    return " ".join(parts)
