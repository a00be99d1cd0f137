"""TREC file formats: qrels (``qid 0 docno grade``) and runs (``qid Q0 docno rank score tag``).

Both readers split the whole file at once and only walk it line by line when something is wrong, because real runs
have millions of lines and the line-by-line walk is what makes Python TREC readers slow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import groupby
from pathlib import Path

from pytest_relevance.errors import RelevanceInputError

Qrels = dict[str, dict[str, float]]
ScoredRun = dict[str, dict[str, float]]


def _read(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RelevanceInputError(path, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RelevanceInputError(path, f"cannot read: {exc}") from None
    if not text.strip():
        raise RelevanceInputError(path, "the file is empty")
    return text


def _columns(path: Path, text: str, width: int, what: str) -> list[list[str]]:
    """The file's columns, or an error naming the first line that does not have `width` of them."""
    tokens = text.split()
    lines = text.count("\n") + (not text.endswith("\n"))
    if len(tokens) != width * lines:  # a blank line or a line of another width: find out which, line by line
        for number, line in enumerate(text.splitlines(), 1):
            fields = line.split()
            if fields and len(fields) != width:
                raise RelevanceInputError(path, f"expected {width} columns ({what}), found {len(fields)}", number)
    return [tokens[i::width] for i in range(width)]


def _numbers(path: Path, text: str, values: list[str], column: int, what: str, convert: Callable) -> list:
    try:
        return list(map(convert, values))
    except ValueError:
        pass
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        try:
            convert(fields[column])
        except ValueError:
            raise RelevanceInputError(path, f"{what} {fields[column]!r} is not a number", number) from None
    raise AssertionError("unreachable: a conversion failed but every value converts")


def _grades(path: Path, text: str, values: list[str]) -> list:
    """Whole-number grades as ints (the common case, one C-level pass), otherwise floats."""
    try:
        return list(map(int, values))
    except ValueError:
        return _numbers(path, text, values, 3, "grade", float)


def _blocks(qids: list[str], *columns: list) -> Iterator[tuple[str, list, ...]]:
    """Slices of the columns per run of equal query ids; TREC files keep a query's lines together."""
    start = 0
    for qid, group in groupby(qids):
        end = start + len(list(group))
        yield (qid, *(column[start:end] for column in columns))
        start = end


def read_qrels(path: str | Path) -> Qrels:
    """Read a qrels file; a document graded twice for one query is an error (trec_eval exits on it too)."""
    path = Path(path)
    text = _read(path)
    qids, _, docs, grades = _columns(path, text, 4, "qid iter docno grade")
    values = _grades(path, text, grades)
    qrels: Qrels = {}
    for qid, block_docs, block_grades in _blocks(qids, docs, values):
        qrels.setdefault(qid, {}).update(zip(block_docs, block_grades, strict=True))
    if sum(map(len, qrels.values())) != len(qids):
        _raise_first_duplicate(path, text, "graded twice")
    return qrels


def read_run(path: str | Path) -> tuple[ScoredRun, list[str]]:
    """Read a run file; duplicates keep their first occurrence and come back as warnings naming file and line."""
    path = Path(path)
    text = _read(path)
    qids, _, docs, _, scores, _ = _columns(path, text, 6, "qid Q0 docno rank score tag")
    values = _numbers(path, text, scores, 4, "score", float)
    run: ScoredRun = {}
    for qid, block_docs, block_scores in _blocks(qids, docs, values):
        # built from the end, so that the first occurrence of a duplicate is the one that stays
        ranked = dict(zip(reversed(block_docs), reversed(block_scores), strict=True))
        ranked.update(run.get(qid, {}))  # lines of this query earlier in the file win too
        run[qid] = ranked
    warnings = []
    if sum(map(len, run.values())) != len(qids):
        warnings = _duplicates(path, text)
    return run, warnings


def _repeats(text: str) -> Iterator[tuple[int, str, str, int]]:
    """(line, qid, docno, first line) for every (qid, docno) pair seen before; only walked when lengths disagree."""
    first: dict[tuple[str, str], int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        key = (fields[0], fields[2])
        if key in first:
            yield number, key[0], key[1], first[key]
        else:
            first[key] = number


def _duplicates(path: Path, text: str) -> list[str]:
    return [
        f"{path}:{number}: duplicate document {doc!r} for query {qid!r}; keeping the first occurrence (line {first})"
        for number, qid, doc, first in _repeats(text)
    ]


def _raise_first_duplicate(path: Path, text: str, what: str) -> None:
    for number, qid, doc, first in _repeats(text):
        raise RelevanceInputError(path, f"document {doc!r} is {what} for query {qid!r} (first at line {first})", number)
