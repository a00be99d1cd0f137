"""The baseline file: committed scores, compared like a snapshot, written only on purpose.

Format (JSON, keys sorted but each entry's summary before its queries and rankings, values rounded to 4 decimals so
that diffs stay readable)::

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
import errno
import json
import math
import os
import re
import stat
import tempfile
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_relevance.config.settings import Tolerance
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation.evaluation import Evaluation
from pytest_relevance.metrics.ranking import BEYOND, DIGITS, SET_LEVEL, UNBOUNDED, Metric, mean, score_query
from pytest_relevance.util import locks

if TYPE_CHECKING:
    from pytest_relevance.judgments.model import Judgments

FORMAT = 1
LOCK_TIMEOUT = 120
_CONFLICT = re.compile(r"^(<{7}|={7}|>{7})( |$)", re.MULTILINE)
_HOW_TO_FIX = "the file is left as it is: restore it (git checkout -- FILE) or resolve it, then run again"

Entry = dict[str, Any]


def _what_to_do(exc: OSError, access: str) -> str:
    """The one thing to do about a file system error on the baseline (or its directory), by its errno."""
    if exc.errno == errno.EISDIR:
        return "relevance_baseline names a directory: set it to a file in it (DIR/relevance-baseline.json)"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"give this user {access} access to the file and its directory, then run again"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "free some disk space, then run again"
    return "fix that, then run again"


# ---------------------------------------------------------------- the file


def load_baseline(path: Path) -> dict[str, Entry]:
    """The entries on disk ({} when there is no file yet); a damaged file is an error naming the line or entry."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # an editor's byte order mark, if the file was opened in one
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise RelevanceInputError(path, f"not UTF-8 text (byte {exc.start}); {_HOW_TO_FIX}") from None
    except OSError as exc:
        raise RelevanceInputError(path, f"cannot be read ({exc.strerror}); {_what_to_do(exc, 'read')}") from None
    conflict = _CONFLICT.search(text)
    if conflict:
        line = text.count("\n", 0, conflict.start()) + 1
        raise RelevanceInputError(path, f"merge-conflict markers in the baseline; {_HOW_TO_FIX}", line)
    reader = _Reader()
    try:
        data = reader.loads(text)
    except json.JSONDecodeError as exc:
        raise RelevanceInputError(path, f"not valid JSON ({exc.msg}); {_HOW_TO_FIX}", exc.lineno) from None
    if reader.damaged:
        where, damage, damaged_line = _damage(data, text)
        raise RelevanceInputError(path, f"{where}{damage}; {_HOW_TO_FIX}", damaged_line)
    if (
        not isinstance(data, dict)
        or data.get("pytest-relevance") != FORMAT
        or not isinstance(data.get("entries"), dict)
    ):
        raise RelevanceInputError(path, f"not a pytest-relevance baseline (format {FORMAT}); {_HOW_TO_FIX}")
    for nodeid, entry in data["entries"].items():
        problem = _entry_problem(entry)
        if problem:
            raise RelevanceInputError(path, f"entry {nodeid!r}: {problem}; {_HOW_TO_FIX}")
    entries: dict[str, Entry] = data["entries"]
    return entries


class _Twice(dict):  # type: ignore[type-arg]
    """A JSON object that wrote `key` more than once (json keeps the last copy without a word)."""

    key: str


@dataclass(frozen=True)
class _NotFinite:
    """A number as written that reads as no finite float: `NaN`, `Infinity`, or `1e999` (an overflow)."""

    token: str


class _Reader:
    """json.loads that marks, instead of accepting, what a hand edit can slip past the JSON grammar: a key written
    twice (a hand-resolved merge) and a non-finite number however it is spelled. Where they are is found after the
    parse (`_damage`), so the error names the entry and key; a clean file pays one flag check."""

    def __init__(self) -> None:
        self.damaged = False

    def loads(self, text: str) -> object:
        return json.loads(text, object_pairs_hook=self._object, parse_float=self._float, parse_constant=self._constant)

    def _object(self, pairs: list[tuple[str, object]]) -> dict[str, object]:
        result = dict(pairs)
        if len(result) == len(pairs):
            return result
        self.damaged = True
        twice, seen = _Twice(result), set()
        for key, _ in pairs:
            if key in seen:
                twice.key = key
                break
            seen.add(key)
        return twice

    def _float(self, token: str) -> float | _NotFinite:
        value = float(token)
        if math.isfinite(value):
            return value
        self.damaged = True
        return _NotFinite(token)

    def _constant(self, token: str) -> _NotFinite:
        self.damaged = True
        return _NotFinite(token)


def _damage(data: object, text: str) -> tuple[str, str, int | None]:
    """(`entry 'x': ` or '', what is wrong at which key, the line if it can be told) for the first mark `_Reader`
    left, depth first in file order."""
    stack: list[tuple[object, tuple[str, ...]]] = [(data, ())]
    while stack:
        value, keys = stack.pop()
        if isinstance(value, _Twice) and keys == ("entries",):
            copies = [m.start() for m in re.finditer(re.escape(json.dumps(value.key)) + r"\s*:", text)]
            line = text.count("\n", 0, copies[1]) + 1 if len(copies) > 1 else None
            return f"entry {value.key!r}: ", f"written twice ({_TWICE})", line
        if isinstance(value, _Twice):
            key = ".".join([*_inner(keys), value.key])
            return _where(keys), f"key {key!r} is written twice ({_TWICE})", None
        if isinstance(value, _NotFinite):
            found = re.search(rf'"{re.escape(keys[-1])}":\s*{re.escape(value.token)}', text) if keys else None
            line = text.count("\n", 0, found.start()) + 1 if found else None
            return _where(keys), f"{'.'.join(_inner(keys))} is {value.token}, not a number a baseline can hold", line
        children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        stack += reversed([(child, (*keys, str(key))) for key, child in children])
    raise AssertionError("a damaged baseline without a mark")


_TWICE = "a hand-resolved merge? one copy would be read and the other ignored"


def _where(keys: tuple[str, ...]) -> str:
    return f"entry {keys[1]!r}: " if len(keys) > 1 and keys[0] == "entries" else ""


def _inner(keys: tuple[str, ...]) -> tuple[str, ...]:
    """The keys inside the entry (or from the top, outside any entry)."""
    return keys[2:] if len(keys) > 1 and keys[0] == "entries" else keys


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _entry_problem(entry: object) -> str | None:
    """What is wrong with the shape of one entry, or None. A hand edit must never turn a comparison off silently:
    every metric this package computes is a share in [0, 1] except age (days) and novelty (bits), which are >= 0,
    and `n` counts queries."""
    if not isinstance(entry, dict):
        return f"the entry is a {type(entry).__name__}, not an object"
    for key in ("judgments", "engine", "tolerance"):
        if not isinstance(entry.get(key), str):
            return f"{key!r} is missing or not a string"
    for key in ("metrics", "strata", "queries"):
        if not isinstance(entry.get(key), dict):
            return f"{key!r} is missing or not an object"
    unbounded = {
        spec
        for spec, definition in entry["metrics"].items()
        if isinstance(definition, dict) and definition.get("name") in UNBOUNDED
    }
    for group, where in ((entry["strata"], "strata"), (entry["queries"], "queries")):
        for name, values in group.items():
            if not isinstance(values, dict):
                return f"{where}.{name} is not an object"
            for spec, value in values.items():
                if not _is_number(value):
                    return f"{where}.{name}.{spec} is {value!r}, not a number"
                if where == "strata" and spec == "n":
                    if not isinstance(value, int) or value < 0:
                        return f"{where}.{name}.n is {value!r}, not a count of queries"
                elif spec in unbounded:
                    if value < 0:
                        return f"{where}.{name}.{spec} is {value!r}, below 0, the least it can be"
                elif not 0 <= value <= 1:
                    return f"{where}.{name}.{spec} is {value!r}, outside [0, 1], the range of every metric"
    inputs = entry.get("inputs", {})
    if not isinstance(inputs, dict) or not all(isinstance(v, str | dict | None) for v in inputs.values()):
        return "'inputs' is not an object of fingerprints"
    rankings, depth = entry.get("rankings", {}), entry.get("rankings_depth")
    if not isinstance(rankings, dict):
        return "'rankings' is not an object"
    if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 1):
        return f"rankings_depth is {depth!r}, not a number of ranked ids"
    for qid, ranking in rankings.items():
        if not isinstance(ranking, list) or not all(isinstance(doc, str) for doc in ranking):
            return f"rankings.{qid} is not a list of document ids"
    return None


def missing_values(entry: Entry, strata: Collection[str], metrics: Collection[str]) -> list[str]:
    """The `stratum.metric` values a comparable entry should hold but does not (deleted by hand, or emptied)."""
    recorded = entry.get("strata", {})
    return [f"strata.{s}.{m}" for s in strata for m in metrics if m not in recorded.get(s, {})]


def unmet_needs(entry: Entry, queries: Sequence[str], metrics: Collection[str], alpha: bool, churn: bool) -> list[str]:
    """What the settings need from a comparable entry that it lacks: every query's values for `relevance_alpha` (the
    sign-flip test pairs them: without them no drop is significant, so none fails), every query's ranking for
    `relevance_max_churn` (without them no churn is measured). Either would switch a gate off without a word."""
    needs = []
    per_query = [m for m in metrics if m.partition("@")[0] not in SET_LEVEL]  # set-level ones have no query values
    if alpha:
        recorded = entry.get("queries", {})
        lacking = [q for q in queries if any(m not in recorded.get(q, {}) for m in per_query)]
        if lacking:
            needs.append(f"per-query values for {_some(lacking, queries)}, which relevance_alpha tests")
    if churn:
        rankings = entry.get("rankings") if entry.get("rankings_depth") is not None else None
        lacking = [q for q in queries if q not in (rankings or {})]
        if lacking:
            needs.append(f"rankings for {_some(lacking, queries)}, which relevance_max_churn compares")
    return needs


#: how far a value may be from what it is derived from: a stratum value is the mean of per-query values, each rounded
#: to DIGITS, then rounded itself (each rounding moves it at most half a unit in the last place)
_DERIVED = 10**-DIGITS + 1e-9
_POOLED = ("precision", "recall", "f1")  # set answers' stratum values pooled over its queries, not their mean


def inconsistency(entry: Entry, metrics: Sequence[Metric], judgments: Judgments) -> str | None:
    """Where the entry's gated values are not derived from each other (None: nowhere they can be recomputed): each
    stratum's n is the number of its queries the entry holds, each stratum value the mean of their values (pooled,
    for set answers), each query's value what its recorded ranking scores, where the ranking is deep enough.

    A hand-merged entry (one re-baseline's strata beside another's per-query values) passes a real drop: the
    strata gate the means, relevance_alpha tests the per-query values, and neither would notice the other lie."""
    from pytest_relevance.evaluation.set_answers import SetMetric

    groups = judgments.groups
    set_answers = bool(metrics) and isinstance(metrics[0], SetMetric)
    averaged = [
        m.spec for m in metrics if not getattr(m, "set_level", False) and not (set_answers and m.spec in _POOLED)
    ]
    problem = _count_problem(entry, groups) or _mean_problem(entry, groups, averaged)
    if problem or not entry.get("rankings"):
        return problem
    if set_answers:
        return _set_problem(entry, groups, judgments, metrics[0].threshold)
    return _ranking_problem(entry, judgments, metrics)


def _count_problem(entry: Entry, groups: Mapping[str, Sequence[str]]) -> str | None:
    """Each stratum's n against the per-query values the entry holds for its queries; an entry with none at all is
    compared by its strata alone (without relevance_alpha it needs no per-query values), so it has none to count."""
    queries = entry["queries"]
    if not queries:
        return None
    for stratum, ids in groups.items():
        n = entry["strata"].get(stratum, {}).get("n")
        held = sum(1 for qid in ids if qid in queries)
        if n is not None and n != held:
            return f"strata.{stratum}.n is {n}, but the entry holds per-query values for {held} of its queries"
    return None


def _mean_problem(entry: Entry, groups: Mapping[str, Sequence[str]], specs: Sequence[str]) -> str | None:
    queries = entry["queries"]
    for stratum, ids in groups.items():
        recorded = entry["strata"].get(stratum, {})
        for spec in specs:
            values = [queries[qid][spec] for qid in ids if spec in queries.get(qid, {})]
            if spec not in recorded or len(values) != len(ids):
                continue  # a value missing is said elsewhere (missing_values, unmet_needs)
            derived = mean(values)
            if abs(recorded[spec] - derived) > _DERIVED:
                return (
                    f"strata.{stratum}.{spec} is {recorded[spec]}, but the mean of its {len(ids)} queries' values "
                    f"is {derived:.4f}"
                )
    return None


def _ranking_problem(entry: Entry, judgments: Judgments, metrics: Sequence[Metric]) -> str | None:
    """Per-query values against what the recorded rankings score, for the metrics whose cut-off they reach (a
    metric without one, or one that reads the corpus, cannot be recomputed from them)."""
    depth = entry.get("rankings_depth")
    if depth is None:
        return None
    reached = [m for m in metrics if m.name not in BEYOND and m.k is not None and m.k <= depth]
    for qid, ranking in entry["rankings"].items():
        recorded = entry["queries"].get(qid)
        if recorded is None or qid not in judgments or not reached:
            continue
        scored = score_query(judgments[qid].grades, ranking, reached).values
        problem = _query_problem(qid, recorded, scored)
        if problem:
            return problem
    return None


def _set_problem(
    entry: Entry, groups: Mapping[str, Sequence[str]], judgments: Judgments, threshold: float
) -> str | None:
    """Set answers are kept whole: every query's values and every stratum's pooled values are recomputed."""
    from pytest_relevance.evaluation.set_answers import expected, score

    wanted, answers = expected(judgments, threshold), entry["rankings"]
    answered = {qid: set(labels) for qid, labels in answers.items()}
    for qid, recorded in entry["queries"].items():
        if qid in answered and qid in wanted:
            problem = _query_problem(qid, recorded, score({qid: wanted[qid]}, answered))
            if problem:
                return problem
    for stratum, ids in groups.items():
        recorded = entry["strata"].get(stratum, {})
        if not all(qid in answered for qid in ids):
            continue
        pooled = score({qid: wanted[qid] for qid in ids}, answered)
        for spec in _POOLED:
            if spec in recorded and abs(recorded[spec] - pooled[spec]) > _DERIVED:
                return f"strata.{stratum}.{spec} is {recorded[spec]}, but its queries' answers give {pooled[spec]:.4f}"
    return None


def _query_problem(qid: str, recorded: Mapping[str, float], scored: Mapping[str, float]) -> str | None:
    for spec, value in scored.items():
        if spec in recorded and abs(recorded[spec] - round(value, DIGITS)) > _DERIVED:
            return f"queries.{qid}.{spec} is {recorded[spec]}, but its recorded ranking scores {value:.4f}"
    return None


def _some(lacking: Sequence[str], queries: Sequence[str]) -> str:
    shown = ", ".join(lacking[:3]) + (", ..." if len(lacking) > 3 else "")
    return f"{len(lacking)} of {len(queries)} queries ({shown})"


_DETAIL = ("queries", "rankings")  # an entry's per-query sections, written after its summary


def dumps(entries: Mapping[str, Entry]) -> str:
    """The file's text; a non-finite number is refused rather than written as a NaN no JSON reader agrees on.

    Keys are sorted, except that each entry writes its summary (metadata, metrics, strata) before its per-query
    values and then its rankings: the diff of a re-baseline shows the strata first, not after every query."""
    ordered = {
        nodeid: {
            **{key: _sorted(value) for key, value in sorted(entry.items()) if key not in _DETAIL},
            **{key: _sorted(entry[key]) for key in _DETAIL if key in entry},
        }
        for nodeid, entry in sorted(entries.items())
    }
    text = json.dumps({"entries": ordered, "pytest-relevance": FORMAT}, indent=2, allow_nan=False)
    return one_line_lists(text) + "\n"


def _sorted(value: object) -> object:
    if isinstance(value, dict):
        return {key: _sorted(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock for one baseline file, on the directory that holds it (see `locks.directory_locked`: no lock
    file a killed update could leave for `git add -A`), with a timeout that names it: a run that waits longer for
    another run's write is told so rather than hanging."""
    with locks.directory_locked(path.parent, LOCK_TIMEOUT, path, "the baseline's lock"):
        yield


def _temp_files(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f".{path.name}.*.tmp"))


def _unlink_temp_files(path: Path) -> list[Path]:
    """Remove the temp files beside the baseline; the caller holds the lock, so none is a live writer's."""
    stale = _temp_files(path)
    for temp in stale:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
    return stale


def remove_stale_temp_files(path: Path) -> list[Path]:
    """Temp files a killed update left beside the baseline, removed (the lock is taken only when there are some)."""
    target = _target(path)
    if not _temp_files(target):
        return []
    try:
        with locked(target):
            return _unlink_temp_files(target)
    except OSError as exc:
        raise RelevanceInputError(path, f"temp files could not be removed ({exc.strerror})") from None


def _target(path: Path) -> Path:
    """The file a baseline path names: a symlinked baseline is written through its link, which stays a link."""
    return Path(os.path.realpath(path))


def _file_mode(path: Path) -> int:
    """The mode to give the new file: the old file's, or what the umask gives a new file (not mkstemp's 0600)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_baseline(path: Path, updates: Mapping[str, Entry], keep: Collection[str] | None = None) -> dict[str, Entry]:
    """Merge `updates` into the file, atomically; returns the entries that were there before.

    With `keep` (every test a whole-suite run collected), entries of tests not in it are dropped. Which entries
    those are is decided on the file as read under the lock, so a concurrent writer's entry is never judged on a
    stale copy. Whatever fails (a directory not writable, a full disk, Ctrl-C), the old file is left as it was and
    the temp file is removed; a file system error is one error naming the file and what to do.
    """
    target = _target(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # the first update of a newly configured path
        with locked(target):
            _unlink_temp_files(target)
            before = load_baseline(target)
            merged = {k: v for k, v in before.items() if keep is None or k in keep}
            merged.update(updates)
            if merged != before:
                _replace(target, dumps(merged))
    except OSError as exc:
        problem = f"{exc.strerror}; the old file is left as it was: {_what_to_do(exc, 'write')}"
        raise RelevanceInputError(path, problem) from None
    return before


def _replace(path: Path, text: str) -> None:
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temp, _file_mode(path))
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def make_entry(
    evaluation: Evaluation,
    judgments: str,
    engine: str,
    tolerance: Tolerance,
    reason: str | None,
    depth: int | None = None,
    inputs: Mapping[str, Any] | None = None,
) -> Entry:
    """The entry for one test; `depth` is `relevance_snapshot_depth` (None: the default rule of `snapshot_depth`);
    `inputs` the fingerprints of what it was measured on (see `fingerprints`)."""
    from pytest_relevance.evaluation.set_answers import SetMetric
    from pytest_relevance.gate.ranking_diff import snapshot_depth

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
        "metric_order": [m.spec for m in evaluation.metrics],  # the file sorts keys; reports keep the configured order
        "tolerance": str(tolerance),
        "strata": strata,
        "queries": queries,
        "rankings": {qid: evaluation.run.get(qid, [])[:kept] for qid in evaluation.per_query},
        "rankings_depth": kept,
        "reason": reason,
        **({"inputs": dict(inputs)} if inputs else {}),
    }


_STRING_LIST = re.compile(r'\[\n\s+((?:"(?:[^"\\\n]|\\.)*",\n\s+)*"(?:[^"\\\n]|\\.)*")\n\s+\]')
_SEPARATOR = re.compile(r",\n\s+")


def one_line_lists(text: str) -> str:
    """Put every list of strings of indented JSON on one line: a query's ranking is one line of the baseline, so
    the diff of a re-baseline shows exactly which rankings changed (strings hold no raw newline, so this is safe)."""
    return _STRING_LIST.sub(lambda m: "[" + _SEPARATOR.sub(", ", m.group(1)) + "]", text)


# ---------------------------------------------------------------- order

_STRATA = {"all": 0, "head": 1, "torso": 2, "tail": 3}
_FAMILIES = ("ndcg", "map", "mrr", "p", "recall")


def stratum_key(name: str) -> tuple[int, str]:
    """The pytest reports' order: all, head, torso, tail, then the others by name."""
    return _STRATA.get(name, len(_STRATA)), name


def metric_key(spec: str) -> tuple[int, str, int, str]:
    """The default metrics' order (ndcg, map, mrr, p, recall; others by name), shallow cut-offs first: for entries
    written before baselines recorded the configured order (`metric_order`)."""
    name, _, rest = spec.partition("@")
    cut = rest.split(",", 1)[0]
    family = _FAMILIES.index(name) if name in _FAMILIES else len(_FAMILIES)
    return family, name, int(cut) if cut.isdigit() else 0, spec


# ---------------------------------------------------------------- compare


@dataclass(frozen=True)
class Row:
    stratum: str
    metric: str
    before: float | None
    after: float
    tolerance: float
    n: int
    #: False for age and exposure_gini: a rise is then the regression
    higher_is_better: bool = True

    @property
    def delta(self) -> float | None:
        return None if self.before is None else round(self.after - self.before, DIGITS)

    @property
    def status(self) -> str:
        """`regression` when the change for the worse is beyond tolerance (a drop, or a rise where lower is better;
        a change of exactly the tolerance passes)."""
        delta = self.delta
        if delta is None:
            return "new"
        better = delta if self.higher_is_better else -delta
        if better < -self.tolerance - 1e-9:
            return "regression"
        if better > self.tolerance + 1e-9:
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


def incompatibilities(
    entry: Mapping[str, Any], judgments: str | None, engine: str, definitions: Mapping[str, object | None]
) -> list[str]:
    """Why numbers measured with these judgments, engine and metric definitions (spec -> definition) cannot be
    compared with the entry's at all; each reason says what to do. The gate and `pytest-relevance compare` both ask
    this. A definition of None is unknown (a JSON report written before reports recorded them): only its presence in
    the entry is checked."""
    problems = []
    if entry.get("judgments") != judgments:
        problems.append(
            f"the judgments changed: baseline version {entry.get('judgments')!r}, now {judgments!r}. "
            "Re-baseline a judgment refresh in a commit of its own (--relevance-update), so that the score change "
            "it causes is not mixed with a ranking change"
        )
    if engine_family(str(entry.get("engine"))) != engine_family(engine):
        problems.append(
            f"the engine changed: baseline measured on {entry.get('engine')!r}, now {engine!r}; numbers from "
            "different engines are never compared. Re-baseline with --relevance-update"
        )
    recorded = entry.get("metrics", {})
    for spec, definition in definitions.items():
        if spec not in recorded:
            problems.append(f"metric {spec} is not in the baseline; add it with --relevance-update")
        elif None not in (definition, recorded[spec]) and recorded[spec] != _jsonable(definition):
            problems.append(
                f"metric {spec} is defined differently in the baseline ({recorded[spec]} vs {definition}); "
                "re-baseline with --relevance-update"
            )
    return problems


def since_baseline(entry: Entry, inputs: Mapping[str, Any]) -> str:
    """Which inputs differ from the ones the entry was measured on, in one line: `since the baseline: query template
    changed; corpus, index config, judgments unchanged`. The index config counts the files it references; the
    judgments count their meaning (a reformatted file is no change). An input this run has no fingerprint of (a
    custom ranker's run has no corpus or template) is not named."""
    from pytest_relevance.util.fingerprints import INPUTS

    recorded = entry.get("inputs")
    if not recorded:
        return (
            "since the baseline: not known, the entry records no input fingerprints (written before they existed); "
            "re-baseline with --relevance-update to record them"
        )
    keys = {
        "corpus": ("corpus",),
        "index config": ("index config", "index config files"),
        "query template": ("query template",),
        "judgments": ("judgments meaning",),
    }
    changed: list[str] = []
    same: list[str] = []
    for name in INPUTS:
        if name not in inputs:
            continue
        differs = any(recorded.get(key) != inputs.get(key) for key in keys[name])
        (changed if differs else same).append(name)
    parts = [f"{', '.join(changed)} changed"] if changed else []
    parts += [f"{', '.join(same)} unchanged"] if same else []
    return f"since the baseline: {'; '.join(parts)}"


def unversioned_judgments_change(entry: Entry, inputs: Mapping[str, Any], version: str | None) -> str | None:
    """Judgments whose content changed while their declared `version:` did not: their numbers cannot be compared
    (a removed grade would pass as a ranking regression), and re-baselining is not the fix, a new version is."""
    recorded = entry.get("inputs") or {}
    before, now = recorded.get("judgments meaning"), inputs.get("judgments meaning")
    if before is None or now is None or before == now or entry.get("judgments") != version:
        return None
    return (
        f"the judgments changed without a new version: their content differs from the baseline's, but both say "
        f"version {version!r}. Give the judgments file a new `version:`, then re-baseline with --relevance-update in "
        "a commit of its own"
    )


def ungated(entry: Entry, metrics: Sequence[Metric]) -> str | None:
    """What to say when the entry holds metrics this run does not gate: a metric dropped from the settings must not
    quietly leave the gate (it leaves by re-baselining, like an unused entry)."""
    gated = {metric.spec for metric in metrics}
    dropped = [spec for spec in entry.get("metrics", {}) if spec not in gated]
    if not dropped:
        return None
    return (
        f"{'metrics' if len(dropped) > 1 else 'metric'} {', '.join(dropped)} in the baseline but not gated by this "
        "run; a metric leaves the gate by re-baselining (--relevance-update), in a commit that says so"
    )


def engine_family(identity: str) -> str:
    """The engine without its version: `embedded tantivy 0.27.0` -> `embedded tantivy`, `elasticsearch 8.13.4` ->
    `elasticsearch`. Another family is another engine; another version of the same one is still compared."""
    return " ".join(token for token in identity.split() if not token[:1].isdigit())


def engine_note(entry: Entry, engine: str) -> str | None:
    """Said next to the numbers when a new version of the same engine measured them (compared anyway, not blind)."""
    if entry.get("engine") == engine:
        return None
    return (
        f"the engine version changed: baseline measured on {entry.get('engine')!r}, now {engine!r}; compared "
        "anyway. Once reviewed, re-baseline with --relevance-update to record the new version"
    )


def same_values(old: Entry, new: Entry) -> bool:
    """Whether an update would change nothing but the reason: then the entry, and its reason, stay as they are."""
    return {k: v for k, v in old.items() if k != "reason"} == {k: v for k, v in new.items() if k != "reason"}


def _jsonable(value: object) -> object:
    return json.loads(json.dumps(value))


def compare(entry: Entry, evaluation: Evaluation, tolerance: Tolerance) -> Comparison:
    """Current values against the entry, stratum by stratum and metric by metric."""
    rows = []
    higher = {m.spec: getattr(m, "higher_is_better", True) for m in evaluation.metrics}  # set answers: all higher
    for stratum, values in evaluation.strata.items():
        recorded = entry.get("strata", {}).get(stratum, {})
        for spec, value in values.items():
            before = recorded.get(spec)
            after = round(value, DIGITS)
            tolerated = tolerance.get(stratum, spec)
            rows.append(Row(stratum, spec, before, after, tolerated, evaluation.counts[stratum], higher[spec]))
    old_queries: dict[str, dict[str, float]] = entry.get("queries", {})
    added = sorted(set(evaluation.per_query) - set(old_queries))
    removed = sorted(set(old_queries) - set(evaluation.per_query))
    movers = query_movers(old_queries, evaluation.per_query, evaluation.metrics[0].spec)
    return Comparison(rows, added, removed, movers, entry.get("rankings"), entry.get("rankings_depth"))


def query_movers(
    old_queries: Mapping[str, Mapping[str, float]],
    per_query: Mapping[str, Mapping[str, float]],
    spec: str,
    members: Collection[str] | None = None,
) -> list[Mover]:
    """The queries whose value of `spec` changed, most dropped first; only `members` (a stratum's queries) when
    given, so that the movers listed for a regressed stratum are that stratum's."""
    movers = [
        Mover(qid, old_queries[qid][spec], round(values[spec], DIGITS))
        for qid, values in per_query.items()
        if (members is None or qid in members) and qid in old_queries and spec in old_queries[qid]
    ]
    movers = [m for m in movers if m.delta != 0]
    movers.sort(key=lambda m: (m.delta, m.query))
    return movers


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
