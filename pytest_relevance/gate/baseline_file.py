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
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.metrics.ranking import UNBOUNDED
from pytest_relevance.util import locks

if TYPE_CHECKING:
    pass


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


_STRING_LIST = re.compile(r'\[\n\s+((?:"(?:[^"\\\n]|\\.)*",\n\s+)*"(?:[^"\\\n]|\\.)*")\n\s+\]')


_SEPARATOR = re.compile(r",\n\s+")


def one_line_lists(text: str) -> str:
    """Put every list of strings of indented JSON on one line: a query's ranking is one line of the baseline, so
    the diff of a re-baseline shows exactly which rankings changed (strings hold no raw newline, so this is safe)."""
    return _STRING_LIST.sub(lambda m: "[" + _SEPARATOR.sub(", ", m.group(1)) + "]", text)
