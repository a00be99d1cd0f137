"""The baseline file: committed scores, compared like a snapshot, written only on purpose.

Format (JSON, keys sorted, values rounded to 4 decimals so that diffs stay readable)::

    {"pytest-relevance": 1,
     "entries": {"tests/test_search.py::test_quality": {
         "judgments": "v7", "engine": "embedded tantivy 0.22", "reason": "...", "tolerance": "0.005",
         "metrics": {"ndcg@10": {"name": "ndcg", "k": 10, "gain": "linear"}},
         "strata": {"all": {"ndcg@10": 0.7412, "n": 150}, "head": {...}},
         "queries": {"q001": {"ndcg@10": 1.0}}}}}

Writes take a lock (xdist workers and parallel runs share the file), merge with what is on disk, and replace the file
atomically, so a baseline is never half-written and no worker's entry is lost.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation import Evaluation
from pytest_relevance.metrics import Metric

FORMAT = 1
DIGITS = 4
_CONFLICT = re.compile(r"^(<{7}|={7}|>{7})( |$)", re.MULTILINE)
_HOW_TO_FIX = "the file is left as it is: restore it (git checkout -- FILE) or resolve it, then run again"

Entry = dict[str, Any]


# ---------------------------------------------------------------- tolerance


@dataclass(frozen=True)
class Tolerance:
    """How far a value may drop before it is a regression: a default, overridable per stratum, metric or both.

    Written ``0.005 tail=0.02 ndcg@10=0.01 tail.mrr@10=0.03``; the most specific override wins.
    """

    default: float = 0.005
    overrides: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def parse(cls, spec: object, source: str = "relevance_tolerance") -> Tolerance:
        if isinstance(spec, Tolerance):
            return spec
        if isinstance(spec, int | float) and not isinstance(spec, bool):
            return cls(_non_negative(spec, source))
        if isinstance(spec, Mapping):
            items = [f"{k}={v}" if k != "default" else str(v) for k, v in spec.items()]
            spec = " ".join(items)
        if not isinstance(spec, str):
            raise RelevanceInputError(source, f"cannot read tolerance {spec!r}; write e.g. 0.005 tail=0.02")
        default, overrides = 0.005, {}
        for part in spec.replace(",", " ").split():
            key, sep, value = part.rpartition("=")
            number = _non_negative(_float(value, source, part), source)
            if sep:
                overrides[key] = number
            else:
                default = number
        return cls(default, overrides)

    def get(self, stratum: str, metric: str) -> float:
        for key in (f"{stratum}.{metric}", metric, stratum):
            if key in self.overrides:
                return self.overrides[key]
        return self.default

    def __str__(self) -> str:
        return " ".join([_short(self.default), *(f"{k}={_short(v)}" for k, v in sorted(self.overrides.items()))])


def _float(value: str, source: str, part: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise RelevanceInputError(source, f"tolerance {part!r} is not a number; write e.g. 0.005 tail=0.02") from None


def _non_negative(value: float, source: str) -> float:
    if value < 0:
        raise RelevanceInputError(source, f"tolerance {value} is negative; a tolerance is an allowed drop, >= 0")
    return float(value)


def _short(value: float) -> str:
    return f"{value:g}"


# ---------------------------------------------------------------- the file


def load_baseline(path: Path) -> dict[str, Entry]:
    """The entries on disk ({} when there is no file yet); a damaged file is an error naming the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    conflict = _CONFLICT.search(text)
    if conflict:
        line = text.count("\n", 0, conflict.start()) + 1
        raise RelevanceInputError(path, f"merge-conflict markers in the baseline; {_HOW_TO_FIX}", line)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RelevanceInputError(path, f"not valid JSON ({exc.msg}); {_HOW_TO_FIX}", exc.lineno) from None
    if (
        not isinstance(data, dict)
        or data.get("pytest-relevance") != FORMAT
        or not isinstance(data.get("entries"), dict)
    ):
        raise RelevanceInputError(path, f"not a pytest-relevance baseline (format {FORMAT}); {_HOW_TO_FIX}")
    return data["entries"]


def dumps(entries: Mapping[str, Entry]) -> str:
    return one_line_lists(json.dumps({"pytest-relevance": FORMAT, "entries": entries}, indent=2, sort_keys=True)) + "\n"


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock for one baseline file, kept outside the repository so that no lock file is left there."""
    import fcntl

    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    lock_path = Path(tempfile.gettempdir()) / f"pytest-relevance-{digest}.lock"
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_baseline(path: Path, updates: Mapping[str, Entry], keep: Collection[str] | None = None) -> dict[str, Entry]:
    """Merge `updates` into the file, atomically; returns the entries that were there before.

    With `keep` (the tests of a whole-suite run), entries of other tests are dropped. Which entries those are is
    decided on the file as read under the lock, so a concurrent writer's entry is never judged on a stale copy.
    """
    with locked(path):
        before = load_baseline(path)
        merged = {k: v for k, v in before.items() if keep is None or k in keep}
        merged.update(updates)
        if merged == before:
            return before
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(dumps(merged))
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise
    return before


def make_entry(
    evaluation: Evaluation, judgments: str, engine: str, tolerance: Tolerance, reason: str, depth: int | None = None
) -> Entry:
    """The entry for one test; `depth` is `relevance_snapshot_depth` (None: the default rule of `snapshot_depth`)."""
    from pytest_relevance.rankings import snapshot_depth
    from pytest_relevance.sets import SetMetric

    strata = {
        name: {**{spec: round(v, DIGITS) for spec, v in values.items()}, "n": evaluation.counts[name]}
        for name, values in evaluation.strata.items()
    }
    queries = {
        qid: {spec: round(v, DIGITS) for spec, v in values.items()} for qid, values in evaluation.per_query.items()
    }
    if isinstance(evaluation.metrics[0], SetMetric):  # set answers are kept whole: a cut would invent changes
        kept = None
    else:
        kept = snapshot_depth(evaluation.metrics) if depth is None else snapshot_depth(evaluation.metrics, depth)
    return {
        "judgments": judgments,
        "engine": engine,
        "metrics": {m.spec: m.definition() for m in evaluation.metrics},
        "tolerance": str(tolerance),
        "strata": strata,
        "queries": queries,
        "rankings": {qid: evaluation.run.get(qid, [])[:kept] for qid in evaluation.per_query},
        "rankings_depth": kept,
        "reason": reason,
    }


_STRING_LIST = re.compile(r'\[\n\s+((?:"(?:[^"\\\n]|\\.)*",\n\s+)*"(?:[^"\\\n]|\\.)*")\n\s+\]')
_SEPARATOR = re.compile(r",\n\s+")


def one_line_lists(text: str) -> str:
    """Put every list of strings of indented JSON on one line: a query's ranking is one line of the baseline, so
    the diff of a re-baseline shows exactly which rankings changed (strings hold no raw newline, so this is safe)."""
    return _STRING_LIST.sub(lambda m: "[" + _SEPARATOR.sub(", ", m.group(1)) + "]", text)


# ---------------------------------------------------------------- compare


@dataclass(frozen=True)
class Row:
    stratum: str
    metric: str
    before: float | None
    after: float
    tolerance: float
    n: int

    @property
    def delta(self) -> float | None:
        return None if self.before is None else round(self.after - self.before, DIGITS)

    @property
    def status(self) -> str:
        """`regression` when the drop is beyond tolerance (a drop of exactly the tolerance passes)."""
        delta = self.delta
        if delta is None:
            return "new"
        if delta < -self.tolerance - 1e-9:
            return "regression"
        if delta > self.tolerance + 1e-9:
            return "improvement"
        return "same"


@dataclass(frozen=True)
class Mover:
    query: str
    before: float
    after: float

    @property
    def delta(self) -> float:
        return round(self.after - self.before, DIGITS)


@dataclass
class Comparison:
    """Rows per stratum and metric, query movers, and the baseline's rankings (None for entries that predate them;
    `depth` is how many ids per query they keep, None for set answers, which are kept whole)."""

    rows: list[Row]
    added: list[str]
    removed: list[str]
    movers: list[Mover]
    rankings: dict[str, list[str]] | None = None
    depth: int | None = None


def incompatibilities(entry: Entry, judgments: str, engine: str, metrics: Sequence[Metric]) -> list[str]:
    """Why these numbers cannot be compared with the entry at all; each reason says what to do."""
    problems = []
    if entry.get("judgments") != judgments:
        problems.append(
            f"the judgments changed: baseline version {entry.get('judgments')!r}, now {judgments!r}. "
            "Re-baseline a judgment refresh in a commit of its own (--relevance-update), so that the score change "
            "it causes is not mixed with a ranking change"
        )
    if entry.get("engine") != engine:
        problems.append(
            f"the engine changed: baseline measured on {entry.get('engine')!r}, now {engine!r}; numbers from "
            "different engines are never compared. Re-baseline with --relevance-update"
        )
    recorded = entry.get("metrics", {})
    for metric in metrics:
        if metric.spec not in recorded:
            problems.append(f"metric {metric.spec} is not in the baseline; add it with --relevance-update")
        elif recorded[metric.spec] != _jsonable(metric.definition()):
            problems.append(
                f"metric {metric.spec} is defined differently in the baseline ({recorded[metric.spec]} vs "
                f"{metric.definition()}); re-baseline with --relevance-update"
            )
    return problems


def _jsonable(value: object) -> object:
    return json.loads(json.dumps(value))


def compare(entry: Entry, evaluation: Evaluation, tolerance: Tolerance) -> Comparison:
    """Current values against the entry, stratum by stratum and metric by metric."""
    rows = []
    for stratum, values in evaluation.strata.items():
        recorded = entry.get("strata", {}).get(stratum, {})
        for spec, value in values.items():
            before = recorded.get(spec)
            after = round(value, DIGITS)
            rows.append(Row(stratum, spec, before, after, tolerance.get(stratum, spec), evaluation.counts[stratum]))
    old_queries: dict[str, dict[str, float]] = entry.get("queries", {})
    added = sorted(set(evaluation.per_query) - set(old_queries))
    removed = sorted(set(old_queries) - set(evaluation.per_query))
    first = evaluation.metrics[0].spec
    movers = [
        Mover(qid, old_queries[qid][first], round(values[first], DIGITS))
        for qid, values in evaluation.per_query.items()
        if qid in old_queries and first in old_queries[qid]
    ]
    movers = [m for m in movers if m.delta != 0]
    movers.sort(key=lambda m: (m.delta, m.query))
    return Comparison(rows, added, removed, movers, entry.get("rankings"), entry.get("rankings_depth"))


def changed_values(old: Entry | None, new: Entry) -> list[tuple[str, float | None, float]]:
    """(stratum.metric, old, new) for every stratum value an update changes, for the update summary."""
    changes = []
    old_strata = (old or {}).get("strata", {})
    for stratum, values in new["strata"].items():
        for spec, value in values.items():
            if spec == "n":
                continue
            before = old_strata.get(stratum, {}).get(spec)
            if before != value:
                changes.append((f"{stratum}.{spec}", before, value))
    return changes
