"""Model-made grades: the pooled unjudged documents graded by the user's judge, cached, checked, with provenance.

`pytest-relevance pool --judge MODULE[:FUNCTION]` loads the judge (a module's `pytest_relevance_judge` hook
implementation, or the named function of the same signature), calls it once per query on the documents of that
query's pool rows that the cache does not hold, and checks every grade against the judgments' scale before anything
is written: a judge that raises, returns something other than a grade for each document it was given, or a grade
outside the scale is one error naming the judge, the query and the document, and nothing is written (not the
judgments, not the cache). The grades go into the judgments as `{grade, judge, source: judge:NAME, date, hash}` and
never replace a grade already there (a human's, or a stale one, which is left for people).

The cache (`.pytest-relevance-judge-cache.json` next to the pool file; only `pool` calls a judge, the gate never
does) keys each grade by (judge name, query text, document content hash): a document edited since, or a query
reworded, is graded again, and the same judge is never paid twice for the same pair.
"""

from __future__ import annotations

import importlib
import json
import math
import numbers
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.model import Judgments, Provenance, Query
from pytest_relevance.judgments.provenance import content_hash, today
from pytest_relevance.metrics.ranking import MAX_GRADE
from pytest_relevance.util.files import write_output

CACHE_NAME = ".pytest-relevance-judge-cache.json"
CACHE_FORMAT = 1
HOOK = "pytest_relevance_judge"
#: what the user's judge may raise and is reported as one line: any exception, and sys.exit() or a Ctrl-C inside it
#: (nothing is written either way)
USER_CODE_FAILURES = (Exception, SystemExit, KeyboardInterrupt)


@dataclass(frozen=True)
class Judge:
    """A judge by its name (the --judge value, which its grades carry) and the hook caller that grades."""

    name: str
    call: Callable[[Query, list[dict[str, Any]]], Any]


def load_judge(spec: str) -> Judge:
    """MODULE (its pytest_relevance_judge) or MODULE:FUNCTION, imported with the working directory on the path (as
    `python -m` has it), so `fixtures.judge:grade` works from the project root. The call goes through the plugin
    manager with the hook's own spec (firstresult), as a pytest plugin's implementation would."""
    import pluggy

    from pytest_relevance.judgments import hookspec

    module_name, _, function_name = spec.partition(":")
    if not module_name or (":" in spec and not function_name):
        raise RelevanceInputError("--judge", f"{spec!r} is not MODULE or MODULE:FUNCTION (e.g. fixtures.judge:grade)")
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise RelevanceInputError(
            "--judge", f"cannot import {module_name!r} ({exc}): run from the folder that holds it, or set PYTHONPATH"
        ) from None
    except USER_CODE_FAILURES as exc:  # the user's module failing as it loads: one line, not a traceback
        raise RelevanceInputError("--judge", f"importing {module_name!r} raised {_failure(exc)}") from None
    found = getattr(module, function_name or HOOK, None)
    if not callable(found):
        raise RelevanceInputError(
            "--judge", f"module {module_name!r} has no function {function_name or HOOK!r}: name the judge function"
        )
    function: Callable[..., Any] = found

    class Plugin:
        @pluggy.HookimplMarker("pytest")
        def pytest_relevance_judge(self, query: Query, documents: list[dict[str, Any]]) -> Any:
            return function(query, documents)

    manager = pluggy.PluginManager("pytest")
    manager.add_hookspecs(hookspec)
    manager.register(Plugin())
    hook = manager.hook.pytest_relevance_judge
    return Judge(spec, lambda query, documents: hook(query=query, documents=documents))


def scale(judgments: Judgments) -> tuple[float, float, bool]:
    """(lowest, highest, whole numbers only) a judge may give: 0 to the judgments' highest grade, whole when all
    their grades are; judgments without a grade yet take any grade from 0 to MAX_GRADE."""
    grades = [g for q in judgments.queries for g in q.grades.values()]
    if not grades:
        return 0, MAX_GRADE, False
    return 0, max(grades), all(float(g).is_integer() for g in grades)


def read_cache(path: Path) -> dict[tuple[str, str, str], float]:
    """(judge, query text, document hash) -> grade; an absent file is an empty cache."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        entries = data["grades"] if data.get("pytest-relevance-judge-cache") == CACHE_FORMAT else None
        return {(str(j), str(t), str(h)): float(g) for j, t, h, g in entries}  # type: ignore[union-attr]
    except (ValueError, TypeError, KeyError, AttributeError, UnicodeDecodeError):
        raise RelevanceInputError(
            path, "not a judge cache this version reads: delete it (the judge grades the documents again)"
        ) from None


def write_cache(path: Path, cache: Mapping[tuple[str, str, str], float]) -> None:
    entries = [[*key, _plain(grade)] for key, grade in sorted(cache.items())]
    text = json.dumps({"pytest-relevance-judge-cache": CACHE_FORMAT, "grades": entries}, indent=0, ensure_ascii=False)
    write_output(path, text + "\n")


def _plain(grade: float) -> float | int:
    return int(grade) if float(grade).is_integer() else grade


@dataclass
class Graded:
    """What a judge run made: the grades to write (query id -> doc id -> (grade, provenance)), how many came from
    the cache, and the cache with the new grades in it."""

    changes: dict[str, dict[str, tuple[float, Provenance | None]]]
    cached: int
    cache: dict[tuple[str, str, str], float]


def grade(
    judge: Judge,
    judgments: Judgments,
    rows: Sequence[Mapping[str, Any]],
    documents: Mapping[str, Mapping[str, Any]],
    cache: Mapping[tuple[str, str, str], float],
) -> Graded:
    """Grade the pool rows that are not stale (a stale grade is left for people), one judge call per query for the
    documents the cache lacks; every grade checked before any is returned."""
    low, high, whole = scale(judgments)
    wanted: dict[str, list[str]] = {}
    for row in rows:
        if not row.get("stale"):
            wanted.setdefault(row["query_id"], []).append(row["doc_id"])
    changes: dict[str, dict[str, tuple[float, Provenance | None]]] = {}
    updated = dict(cache)
    cached = 0
    for qid, docs in wanted.items():
        query = judgments[qid]
        missing = [doc for doc in docs if doc not in documents]
        if missing:
            raise RelevanceInputError(
                "--judge", f"query {qid!r}: document {missing[0]!r} is not in the corpus, so the judge cannot read it"
            )
        hashes = {doc: content_hash(documents[doc]) for doc in docs}
        grades = {
            doc: cache[judge.name, query.text, hashes[doc]]
            for doc in docs
            if (judge.name, query.text, hashes[doc]) in cache
        }
        cached += len(grades)
        asked = [doc for doc in docs if doc not in grades]
        if asked:
            given = _call(judge, query, [dict(documents[doc]) for doc in asked], asked)
            for doc in asked:
                grades[doc] = _checked(judge, qid, doc, given[doc], low, high, whole)
                updated[judge.name, query.text, hashes[doc]] = grades[doc]
        source = f"judge:{judge.name}"
        changes[qid] = {doc: (grades[doc], Provenance(source, today(), hashes[doc])) for doc in docs}
    return Graded(changes, cached, updated)


def _call(judge: Judge, query: Query, documents: list[dict[str, Any]], ids: list[str]) -> Mapping[str, Any]:
    where = f"query {query.id!r} (documents {_shown(ids)})"
    try:
        given = judge.call(query, documents)
    except USER_CODE_FAILURES as exc:  # the user's code: any failure is one line naming where, not a traceback
        raise RelevanceInputError("--judge", f"judge {judge.name} raised {_failure(exc)} on {where}") from None
    if not isinstance(given, Mapping):
        raise RelevanceInputError(
            "--judge", f"judge {judge.name} returned {type(given).__name__} on {where}: return {{doc id: grade}}"
        )
    missing = [doc for doc in ids if doc not in given]
    extra = sorted(str(doc) for doc in set(given) - set(ids))
    if missing or extra:
        problem = f"no grade for document {missing[0]!r}" if missing else f"a grade for {extra[0]!r}, not asked"
        raise RelevanceInputError(
            "--judge", f"judge {judge.name} returned {problem} on {where}: return a grade for each document given"
        )
    return given


def _failure(exc: BaseException) -> str:
    """`RuntimeError: model unavailable`, on one line; `SystemExit: 0`, `KeyboardInterrupt`."""
    return " ".join(f"{type(exc).__name__}: {exc}".split()).removesuffix(":")


def _checked(judge: Judge, qid: str, doc: str, value: object, low: float, high: float, whole: bool) -> float:
    # any real number but a bool (numpy's bool_ is no Real): numpy's int64 and float32, what a model's arrays hold,
    # are grades too; an int too large for a float is outside every scale
    number = None
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
    if number is not None and math.isfinite(number) and low <= number <= high and (not whole or number.is_integer()):
        return int(number) if number.is_integer() else number
    shown = f"whole grades {low:g}-{high:g}" if whole else f"grades from {low:g} to {high:g}"
    raise RelevanceInputError(
        "--judge",
        f"judge {judge.name} gave query {qid!r}, document {doc!r} the grade {value!r}, outside the judgments' scale "
        f"({shown}): return grades on that scale",
    )


def _shown(ids: Sequence[str]) -> str:
    return ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
