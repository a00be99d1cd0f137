"""TREC file formats: qrels (``qid 0 docno grade``) and runs (``qid Q0 docno rank score tag``), read as trec_eval
10.0 reads them.

- Every line is checked, as trec_eval does ("Malformed line N"): a qrels line has exactly 4 columns (trec_eval
  refuses anything after the grade), a run line at least 6; columns after the tag are ignored, as trec_eval ignores
  them (its own test file ``results.trunc`` has them). Blank lines are skipped, as trec_eval skips them. Columns are
  separated by ASCII whitespace (C's isspace, as trec_eval); the text must be UTF-8.
- Grades are whole numbers up to `metrics.MAX_GRADE` (trec_eval would truncate ``1.5`` to 1 silently: refused).
- A grade or score with an underscore (`1_0`) is refused: Python reads it as 10, trec_eval (atol, strtod) as 1.
- Scores are read as doubles (trec_eval 10.0; pytrec_eval still reads float32 and orders differently below 1e-7);
  a score that is not a finite number is refused.

The files are read as bytes in blocks of whole lines; each block is split and checked by C-level passes (split,
widths, conversions) and only walked line by line in Python when something is wrong, to name the line: real runs have
millions of lines and a per-line Python loop is what makes TREC readers slow. `read_qrels_bytes` and
`read_run_bytes` keep the ids as bytes (they compare as trec_eval's strcmp does, and skip decoding millions of ids);
`read_qrels` and `read_run` give str ids.
"""

from __future__ import annotations

import gc
import math
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from itertools import compress, islice, pairwise
from operator import ne
from pathlib import Path

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.metrics.ranking import MAX_GRADE

Qrels = dict[str, dict[str, float]]
ScoredRun = dict[str, dict[str, float]]
_CHUNK = 1 << 16  # bytes per block (whole lines): small enough that a block's tokens stay in the CPU cache
_BOM = b"\xef\xbb\xbf"


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while millions of small lists and strings are made and kept: they hold
    no cycles, and its repeated passes over the growing heap were a third of the reading time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _blocks_of(path: Path) -> Iterator[tuple[int, bytes]]:
    """(number of the first line, bytes) of pieces of about _CHUNK bytes, each ending with a line end."""
    try:
        with path.open("rb") as handle:
            base, block = 1, handle.read(_CHUNK).removeprefix(_BOM)
            while block:
                if not block.endswith(b"\n"):
                    block += handle.readline()
                    if not block.endswith(b"\n"):  # the last line, without its line end
                        block += b"\n"
                yield base, block
                base += block.count(b"\n")
                block = handle.read(_CHUNK)
    except FileNotFoundError:
        raise RelevanceInputError(path, "no such file") from None
    except OSError as exc:
        raise RelevanceInputError(path, f"cannot read: {exc}") from None


def _chunks(
    path: Path, width: int, exact: bool, what: str, wanted: tuple[int, ...]
) -> Iterator[tuple[int, bytes, list[list[bytes]]]]:
    """(first line number, block, the `wanted` columns) per block of the file, every line checked."""
    empty = True
    for base, block in _blocks_of(path):
        tokens = _regular(block, width)
        if tokens is not None:  # the common case: no per-line Python objects at all
            columns = [tokens[column :: width + 1] for column in wanted]
        else:
            _check_utf8(path, base, block)
            rows = list(map(bytes.split, block.split(b"\n")))
            widths = set(map(len, rows))
            if widths != {width}:
                rows = _fix(path, base, rows, widths, width, exact, what)
            columns = [[fields[column] for fields in rows] for column in wanted]
        if columns[0]:
            empty = False
            yield base, block, columns
    if empty:
        raise RelevanceInputError(path, "the file is empty")


def _check_utf8(path: Path, base: int, block: bytes) -> None:
    try:
        block.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = base + block.count(b"\n", 0, exc.start)
        raise RelevanceInputError(
            path, f"not UTF-8 text (byte 0x{block[exc.start]:02x}): save the file as UTF-8", line
        ) from None


_OTHER_SPACE = (b"\x0b", b"\x0c", b"\r")


def _regular(block: bytes, width: int) -> list[bytes] | None:
    """The block's tokens, `width` per line and a "\\n" token after each line, when every line is exactly `width`
    ASCII columns separated by single spaces or tabs (then one split checks the width of every line); else None.

    With each line end made a token of its own (" \\n "), a blank line, a doubled separator or a space at either end
    of a line shows as a double space; once there is none and no other whitespace, the lines are all `width` wide
    exactly when there are `lines * (width + 1)` tokens and every (width + 1)-th token is a line end. Single-byte
    searches (memchr) come first: they are ten times cheaper than the one two-byte search."""
    if b"\r" in block:
        block = block.replace(b"\r\n", b"\n")
    if b"\t" in block:
        block = block.replace(b"\t", b" ")
    if not block.isascii() or any(space in block for space in _OTHER_SPACE):
        return None
    spaced = block.replace(b"\n", b" \n ")
    if spaced[:1] == b" " or b"  " in spaced:
        return None
    tokens = spaced.split(b" ")
    tokens.pop()  # the empty piece after the last line end
    lines = block.count(b"\n")
    if len(tokens) != lines * (width + 1) or tokens[width :: width + 1].count(b"\n") != lines:
        return None
    return tokens


def _fix(
    path: Path, base: int, rows: list[list[bytes]], widths: set[int], width: int, exact: bool, what: str
) -> list[list[bytes]]:
    """Blank lines dropped; a line of too few (or, in qrels, too many) columns is an error."""
    if min(widths - {0}, default=width) < width or (exact and max(widths) > width):
        for number, fields in enumerate(rows, base):
            if fields and (len(fields) < width or (exact and len(fields) > width)):
                extra = " (trec_eval refuses anything after the grade)" if len(fields) > width else ""
                raise RelevanceInputError(
                    path, f"malformed line: expected {width} columns ({what}), found {len(fields)}{extra}", number
                )
    return [fields for fields in rows if fields]


def _first_bad(path: Path, base: int, block: bytes, column: int, check: Callable[[bytes], str | None]) -> None:
    """Raise for the first line whose `column` fails `check` (which returns the problem, or None); the check reads
    the bytes as the fast path did, so that it finds the line the fast path refused."""
    for number, line in enumerate(block.split(b"\n"), base):
        fields = line.split()
        if fields and (problem := check(fields[column])) is not None:
            raise RelevanceInputError(path, problem, number)


# What C's atol and strtod read of a token: its longest leading number (trec_eval reads grades with atol and
# scores with strtod, so `1_0`, `1e3` as a grade and `2.5x` are read as their leading digits)
_ATOL = re.compile(rb"[+-]?[0-9]*")
_STRTOD = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _atol(token: bytes) -> int:
    digits = _ATOL.match(token).group()  # type: ignore[union-attr]  # the pattern matches the empty string
    return int(digits) if digits.lstrip(b"+-") else 0


def _underscore(what: str, token: bytes, read: object, python: object) -> str:
    """Python's int and float read `1_0` as 10, trec_eval as 1: refused rather than scored unlike trec_eval."""
    return (
        f"{what} {token.decode()!r} has an underscore: trec_eval reads it as {read} (the number it starts with), "
        f"Python as {python}; write the number without one"
    )


def _grade_problem(token: bytes) -> str | None:
    text = token.decode()
    try:
        grade = int(token)
    except ValueError:
        try:
            number = float(token)
        except ValueError:
            return f"grade {text!r} is not a number"
        if not math.isfinite(number):
            return f"grade {text!r} is not a finite number"
        if b"_" in token:
            return _underscore("grade", token, _atol(token), number)
        return (
            f"grade {text!r} is not a whole number: trec_eval would truncate it to {_atol(token)}; "
            "write whole grades (0, 1, 2, 3...)"
        )
    if b"_" in token:
        return _underscore("grade", token, _atol(token), grade)
    if grade > MAX_GRADE:
        return f"grade {text!r} is out of range: grades are whole numbers up to {MAX_GRADE}"
    return None


def _score_problem(token: bytes) -> str | None:
    try:
        score = float(token)
    except ValueError:
        return f"score {token.decode()!r} is not a number"
    if b"_" in token:
        found = _STRTOD.match(token)
        return _underscore("score", token, float(found.group()) if found else 0.0, score)
    return None if math.isfinite(score) else f"score {token.decode()!r} is not a finite number"


def _groups(qids: list[bytes]) -> Iterator[tuple[bytes, int, int]]:
    """(qid, start, end) per run of equal query ids (TREC files keep a query's lines together), found by one C-level
    comparison of the column with itself shifted by one."""
    cuts = [0, *compress(range(1, len(qids)), map(ne, islice(qids, 1, None), qids)), len(qids)]
    for start, end in pairwise(cuts):
        yield qids[start], start, end


def read_qrels(path: str | Path) -> Qrels:
    """Read a qrels file; a document graded twice for one query is an error (trec_eval exits on it too)."""
    raw = read_qrels_bytes(path)
    # decoded query by query, each bytes mapping dropped as soon as it is decoded: the peak stays one copy
    return {qid.decode(): _decoded(raw.pop(qid)) for qid in list(raw)}


def read_run(path: str | Path) -> tuple[ScoredRun, list[str]]:
    """Read a run file; duplicates keep their first occurrence and come back as warnings naming file and line."""
    run, warnings = read_run_bytes(path)
    return {qid.decode(): _decoded(run.pop(qid)) for qid in list(run)}, warnings


def _decoded(values: Mapping[bytes, float]) -> dict[str, float]:
    return dict(zip(map(bytes.decode, values), values.values(), strict=True))


def read_qrels_bytes(path: str | Path) -> dict[bytes, dict[bytes, int]]:
    """`read_qrels` with the ids as the bytes of the file."""
    path = Path(path)
    qrels: dict[bytes, dict[bytes, int]] = {}
    lines_read = 0
    with gc_paused():
        for base, block, (qids, docs, grades) in _chunks(path, 4, True, "qid iter docno grade", (0, 2, 3)):
            values = _grades(grades)
            if values is None:
                _first_bad(path, base, block, 3, _grade_problem)
            for qid, start, end in _groups(qids):
                graded = qrels.get(qid)
                if graded is None:
                    qrels[qid] = dict(zip(docs[start:end], values[start:end], strict=True))  # type: ignore[index]
                else:
                    graded.update(zip(docs[start:end], values[start:end], strict=True))  # type: ignore[index]
            lines_read += len(qids)
    if sum(map(len, qrels.values())) != lines_read:
        _raise_first_duplicate(path)
    return qrels


def _grades(texts: list[bytes]) -> list[int] | None:
    """The grades as ints through a table of the few distinct texts; None when one is not a grade."""
    try:
        table = {text: int(text) for text in set(texts)}
    except ValueError:
        return None
    if max(table.values()) > MAX_GRADE or any(b"_" in text for text in table):
        return None
    return list(map(table.__getitem__, texts))


def read_run_bytes(path: str | Path) -> tuple[dict[bytes, dict[bytes, float]], list[str]]:
    """`read_run` with the ids as the bytes of the file."""
    path = Path(path)
    run: dict[bytes, dict[bytes, float]] = {}
    lines_read = 0
    with gc_paused():
        for base, block, (qids, docs, scores) in _chunks(path, 6, False, "qid Q0 docno rank score tag", (0, 2, 4)):
            values = _scores(path, base, block, scores)
            for qid, start, end in _groups(qids):
                ranked = _first_wins(docs[start:end], values[start:end])
                earlier = run.get(qid)
                if earlier is not None:
                    ranked.update(earlier)  # lines of this query earlier in the file win too
                run[qid] = ranked
            lines_read += len(qids)
    warnings = []
    if sum(map(len, run.values())) != lines_read:
        warnings = _duplicates(path)
    return run, warnings


class ScatteredQuery(Exception):
    """A query's lines are not together in the run file: `ScoredQueries` cannot stream it (`read_run_bytes` can)."""


class ScoredQueries:
    """The queries of a run file one at a time, as (qid, {doc: score}) with ids as bytes, in file order: the run is
    never all in memory, and each query is scored while its data is still in the CPU cache. TREC runs keep a query's
    lines together; a query whose lines are scattered raises `ScatteredQuery`. After the iteration, `warnings()`
    names the duplicates (each keeps its first occurrence)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.lines = self.kept = 0

    def __iter__(self) -> Iterator[tuple[bytes, dict[bytes, float]]]:
        seen: set[bytes] = set()
        current: bytes | None = None
        ranked: dict[bytes, float] = {}
        for base, block, (qids, docs, scores) in _chunks(self.path, 6, False, "qid Q0 docno rank score tag", (0, 2, 4)):
            values = _scores(self.path, base, block, scores)
            for qid, start, end in _groups(qids):
                part = _first_wins(docs[start:end], values[start:end])
                if qid == current:  # the query goes on from the block before
                    part.update(ranked)
                    ranked = part
                    continue
                if current is not None:
                    self.kept += len(ranked)
                    yield current, ranked
                if qid in seen:
                    raise ScatteredQuery(qid.decode())
                seen.add(qid)
                current, ranked = qid, part
            self.lines += len(qids)
        if current is not None:
            self.kept += len(ranked)
            yield current, ranked

    def warnings(self) -> list[str]:
        return _duplicates(self.path) if self.kept != self.lines else []


def _scores(path: Path, base: int, block: bytes, texts: list[bytes]) -> list[float]:
    try:
        values = list(map(float, texts))
    except ValueError:
        values = []
    if not values or not math.isfinite(math.fsum(values)) or b"_" in b"".join(texts):
        _first_bad(path, base, block, 4, _score_problem)
    return values


def _first_wins(docs: list[bytes], values: list[float]) -> dict[bytes, float]:
    """{doc: score} of one query's lines; a repeated doc keeps its first score (built again from the end)."""
    ranked = dict(zip(docs, values, strict=True))
    if len(ranked) != len(docs):
        ranked = dict(zip(reversed(docs), reversed(values), strict=True))
    return ranked


def _repeats(path: Path) -> Iterator[tuple[int, str, str, int]]:
    """(line, qid, docno, first line) for every (qid, docno) pair seen before; only walked when lengths disagree."""
    first: dict[tuple[bytes, bytes], int] = {}
    with path.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if not fields:
                continue
            key = (fields[0].removeprefix(_BOM) if number == 1 else fields[0], fields[2])
            if key in first:
                yield number, key[0].decode(), key[1].decode(), first[key]
            else:
                first[key] = number


def _duplicates(path: Path) -> list[str]:
    return [
        f"{path}:{number}: duplicate document {doc!r} for query {qid!r}; keeping the first occurrence (line {first})"
        for number, qid, doc, first in _repeats(path)
    ]


def _raise_first_duplicate(path: Path) -> None:
    for number, qid, doc, first in _repeats(path):
        raise RelevanceInputError(
            path, f"document {doc!r} is graded twice for query {qid!r} (first at line {first})", number
        )


def format_run(rankings: dict[str, list[str]], tag: str) -> str:
    """A run as a TREC run file (`qid Q0 docno rank score tag`) that trec_eval scores as the gate scored it.

    The gate's runs are ranked ids, so the score is derived from the rank (the list's length minus its index):
    strictly decreasing, so trec_eval's score-then-docno order is the ranking's own. trec_eval refuses a document
    twice for one query, and dropping the repeat would move the documents below it up a rank (trec_eval would then
    score [a, a, b] with b relevant as if b were at rank 2). So a repeat keeps its line under a marked id,
    `DOC#repeat-RANK` (`#` added until no id of the list is spelled so): unjudged, it holds its rank and gains
    nothing, which is the gate's convention for duplicates. Columns are separated by single spaces, and whitespace
    in the tag becomes `_` (a tag is one column).
    """
    tag = "_".join(tag.split()) or "run"
    lines = []
    for qid, docs in rankings.items():
        taken = set(docs)
        seen: set[str] = set()
        for index, doc in enumerate(docs):
            name = doc
            if doc in seen:
                name = f"{doc}#repeat-{index + 1}"
                while name in taken:
                    name += "#"
                taken.add(name)
            seen.add(doc)
            lines.append(f"{qid} Q0 {name} {index + 1} {len(docs) - index} {tag}\n")
    return "".join(lines)
