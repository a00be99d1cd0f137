"""The judging loop: pool the documents that need a judgment, let a rater fill in grades, merge them back.

`pool` collects, for every judged query, the unjudged documents in the top k of the current rankings (a JSON
report) and of the baseline's (the baseline file), most frequent first, with the query text and the documents'
title-like fields, into a CSV or YAML file a rater fills in. `merge` folds the filled file into the judgments,
refuses any grade that contradicts an existing one (naming each), and sets a new judgments version, so the refresh
lands in a commit of its own, followed by a re-baseline.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.model import CSV_COLUMNS, CSV_PROVENANCE, Judgments, Provenance, Query, load_judgments
from pytest_relevance.util.files import csv_rows, load_document, read_text, write_output

TITLE_FIELDS = ("title", "name", "headline", "subject", "label")
COLUMNS = ("query_id", "query", "stratum", "doc_id", "rank", "shown_in")
#: the columns of a stale grade put up again (only in a pool file that has one): why, the old grade, the hash now
STALE_COLUMNS = ("stale", "old_grade", "hash")


# ---------------------------------------------------------------- pool


def read_rankings(path: Path) -> list[dict[str, list[str]]]:
    """Every test's rankings from a baseline file or a JSON report (`--relevance-report out.json`)."""
    from pytest_relevance.util.files import read_json

    data = read_json(path)
    if isinstance(data, dict) and data.get("pytest-relevance-report") == 1:
        found = [test.get("rankings") for test in data.get("tests", [])]
    elif isinstance(data, dict) and isinstance(data.get("entries"), dict):
        found = [entry.get("rankings") for entry in data["entries"].values()]
    else:
        raise RelevanceInputError(path, "neither a pytest-relevance baseline nor a JSON report")
    rankings = [r for r in found if isinstance(r, dict)]
    if not rankings:
        raise RelevanceInputError(
            path,
            "holds no rankings: re-baseline with --relevance-update, or write a JSON report with --relevance-report",
        )
    return rankings


def pool(
    judgments: Judgments,
    rankings: Iterable[Mapping[str, Sequence[str]]],
    k: int,
    documents: Mapping[str, Mapping[str, Any]] | None = None,
    fields: Sequence[str] = (),
    stale: Mapping[tuple[str, str], str] | None = None,
    hashes: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """One row per (query, unjudged document in any of the top k), the documents shown most often first.

    `shown_in` counts the top-k lists (over queries and sources) a document appears in unjudged: a rater who
    reads it once grades all its rows, and the documents that leave most numbers resting on guesses come first.
    A stale grade (`stale`: (query, doc) -> why, see `provenance.stale_grades`) is put up again, in the top k or
    not, its row marked with why, the old grade and the document's hash now (`hashes`), so that `merge` replaces it.
    """
    stale = stale or {}
    best: dict[tuple[str, str], int | str] = dict.fromkeys(stale, "")
    shown: dict[str, int] = dict.fromkeys((doc for _, doc in stale), 0)
    for ranking in rankings:
        for qid, docs in ranking.items():
            if qid not in judgments:
                continue
            grades = judgments[qid].grades
            for rank, doc in enumerate(dict.fromkeys(docs[:k]), 1):
                if doc in grades and (qid, doc) not in stale:
                    continue
                shown[doc] = shown.get(doc, 0) + 1
                earlier = best.get((qid, doc), "")
                best[qid, doc] = rank if isinstance(earlier, str) else min(rank, earlier)
    rows = []
    for (qid, doc), first in sorted(best.items(), key=lambda item: (-shown[item[0][1]], item[0][1], item[0][0])):
        query = judgments[qid]
        row: dict[str, Any] = {
            "query_id": qid,
            "query": query.text,
            "stratum": query.stratum or "",
            "doc_id": doc,
            "rank": first,
            "shown_in": shown[doc],
        }
        source = (documents or {}).get(doc, {})
        for name in fields:
            value = source.get(name, "")
            row[name] = value if isinstance(value, str) else json.dumps(value)
        why = stale.get((qid, doc))
        if why is not None:
            row.update(stale=why, old_grade=query.grades[doc], hash=(hashes or {}).get(doc, ""))
        row["grade"] = None
        rows.append(row)
    return rows


def title_fields(documents: Iterable[Mapping[str, Any]]) -> list[str]:
    """The title-like fields the corpus has (title, name, headline, subject, label)."""
    present = {key for doc in documents for key in doc}
    return [name for name in TITLE_FIELDS if name in present]


def write_pool(path: Path, rows: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> None:
    """CSV or YAML by suffix; the `grade` column is left empty for the rater."""
    stale = any(row.get("stale") for row in rows)
    header = [*COLUMNS, *fields, *(STALE_COLUMNS if stale else ()), "grade"]
    suffix = path.suffix.lower()
    if suffix == ".csv":
        out = io.StringIO(newline="")
        writer = csv.DictWriter(out, header, extrasaction="ignore")
        writer.writeheader()
        writer.writerows({**row, "grade": ""} for row in rows)
        text = out.getvalue()
    elif suffix in (".yaml", ".yml"):
        import yaml

        note = (
            "# Fill in each grade (0 = not relevant ... 3 = exactly what was asked; leave null to skip), then run\n"
            "# pytest-relevance merge THIS_FILE --judgments JUDGMENTS\n"
        )
        shown = [{c: row.get(c, "") for c in header} for row in rows]
        text = note + yaml.safe_dump(shown, sort_keys=False, allow_unicode=True)
    else:
        raise RelevanceInputError(path, "the suffix names the format: .csv, .yaml or .yml")
    write_output(path, text)


# ---------------------------------------------------------------- merge


@dataclass(frozen=True)
class Graded:
    query: str
    doc: str
    grade: float
    where: str  # "line 3" or "row 2", for errors
    stale: bool = False  # a stale grade put up again: it replaces `old`
    old: float | None = None
    hash: str | None = None  # the document's content hash when it was pooled


def read_filled(path: Path) -> tuple[list[Graded], int]:
    """The graded rows of a filled pool file, and how many rows were left without a grade."""
    suffix = path.suffix.lower()
    if not path.is_file():
        raise RelevanceInputError(path, "no such file")
    raw: list[tuple[str, int | None, dict[str, Any]]]  # (where, line if known, the row)
    if suffix == ".csv":
        # read_text takes the byte order mark a spreadsheet's "CSV UTF-8" writes; csv would keep it in the first name
        lines = io.StringIO(read_text(path), newline="")
        header = next(csv.reader(lines), [])
        missing = {"query_id", "doc_id", "grade"} - set(header)
        if missing:
            raise RelevanceInputError(path, f"missing column(s) {', '.join(sorted(missing))}", 1)
        # the corpus fields shown to the rater may hold line breaks; a quote left open elsewhere is an error
        shown = {i for i, name in enumerate(header) if name not in (*COLUMNS, *STALE_COLUMNS, "grade")}
        raw = [
            (f"line {line}", line, dict(zip(header, row, strict=False)))
            for line, row in csv_rows(path, lines, shown, start=2)
            if row
        ]
    elif suffix in (".yaml", ".yml"):
        data = load_document(path, read_text(path))
        if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
            raise RelevanceInputError(path, "expected a list of rows with query_id, doc_id and grade")
        raw = [(f"row {i}", None, row) for i, row in enumerate(data, 1)]
    else:
        raise RelevanceInputError(path, "the suffix names the format: .csv, .yaml or .yml")
    graded, blank = [], 0
    for where, line, row in raw:
        grade = row.get("grade")
        if grade is None or str(grade).strip() == "":
            blank += 1
            continue
        qid, doc = str(row.get("query_id") or "").strip(), str(row.get("doc_id") or "").strip()
        if not qid or not doc:
            raise _row_error(path, where, line, "query_id and doc_id are required")
        if row.get("stale"):
            old = _grade(row.get("old_grade"), path, where, line)
            digest = str(row.get("hash") or "").strip() or None
            graded.append(Graded(qid, doc, _grade(grade, path, where, line), where, True, old, digest))
        else:
            graded.append(Graded(qid, doc, _grade(grade, path, where, line), where))
    return graded, blank


def _grade(value: object, path: Path, where: str, line: int | None) -> float:
    try:
        number = float(value) if not isinstance(value, bool) else None  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = None
    if number is None or number < 0 or number != number:
        raise _row_error(path, where, line, f"grade {value!r} is not a number >= 0 (0 = not relevant)")
    return int(number) if number.is_integer() else number


def _row_error(path: Path, where: str, line: int | None, problem: str) -> RelevanceInputError:
    """A CSV row's error carries its line (`pool.csv:3:`), which `where` ("line 3") would only repeat; a YAML row
    has no line, and `where` ("row 2") is what names it."""
    return RelevanceInputError(path, problem if line is not None else f"{where}: {problem}", line)


Change = tuple[float, Provenance | None]  # a grade to write, and its provenance (None: a human's, as ever)


def merge(judgments: Judgments, graded: Sequence[Graded], source: Path) -> dict[str, dict[str, Change]]:
    """The new grades per query; a grade that contradicts the judgments or another row is refused, naming all.

    A row `pool` marked stale replaces the grade it was pooled with (a re-judged grade is a human's, dated today,
    with the document's hash as pooled); if the judgments' grade is no longer that one, it is a conflict too.
    """
    from pytest_relevance.judgments.provenance import today

    added: dict[str, dict[str, Change]] = {}
    first: dict[tuple[str, str], Graded] = {}
    conflicts, unknown = [], []
    for row in graded:
        if row.query not in judgments:
            unknown.append(f"{row.query} ({row.where})")
            continue
        existing = judgments[row.query].grades.get(row.doc)
        if row.stale and existing != row.old:
            was = "ungraded" if existing is None else f"{existing:g}"
            conflicts.append(f"{row.query}/{row.doc}: pooled as stale with {row.old:g} ({row.where}), {was} now")
            continue
        if existing is not None and existing != row.grade and not row.stale:
            conflicts.append(f"{row.query}/{row.doc}: {row.grade:g} here ({row.where}), {existing:g} in the judgments")
            continue
        earlier = first.setdefault((row.query, row.doc), row)
        if earlier.grade != row.grade:
            conflicts.append(
                f"{row.query}/{row.doc}: {earlier.grade:g} ({earlier.where}) and {row.grade:g} ({row.where})"
            )
        elif row.stale:
            added.setdefault(row.query, {})[row.doc] = (row.grade, Provenance("human", today(), row.hash))
        elif existing is None:
            added.setdefault(row.query, {})[row.doc] = (row.grade, None)
    if unknown:
        raise RelevanceInputError(source, f"query ids not in the judgments: {', '.join(unknown[:10])}")
    if conflicts:
        shown = "; ".join(conflicts[:20]) + (f"; and {len(conflicts) - 20} more" if len(conflicts) > 20 else "")
        raise RelevanceInputError(
            source,
            f"{len(conflicts)} grade(s) conflict, nothing merged: {shown}. Settle them (edit the filled file, or the "
            "judgments in a commit of their own), then merge again",
        )
    return added


def next_version(version: str) -> str:
    """demo-1 -> demo-2, v7 -> v8, 2024.1 -> 2024.2; a version without a trailing number gets `-2`."""
    match = re.search(r"(\d+)$", version)
    if match is None:
        return f"{version}-2"
    return version[: match.start()] + str(int(match.group(1)) + 1).zfill(len(match.group(1)))


def write_judgments(
    path: Path,
    judgments: Judgments,
    changes: Mapping[str, Mapping[str, Change]],
    version: str,
    keep_layout: bool = True,
) -> None:
    """Write the judgments with the changed grades. YAML keeps the user's layout where it can: the new grades are
    added lines under a block-style `grades:` (or go inside a flow mapping's braces), and only the version's value
    changes, so the review shows the new grades; a file the edit cannot place them in, one where a grade is
    replaced (or, with `keep_layout` False, any file) is rewritten one line per query, leading comments kept. CSV
    and TREC qrels get rows appended (their version is the content hash, which changes by itself); a CSV is
    rewritten where a grade is replaced or carries provenance its columns lack. TREC qrels hold no provenance."""
    suffix = path.suffix.lower()
    queries = [_changed(query, changes.get(query.id, {})) for query in judgments.queries]
    replaces = any(doc in judgments[qid].grades for qid, grades in changes.items() for doc in grades)
    if suffix in (".yaml", ".yml") and keep_layout and not replaces:
        rendered = {
            qid: {doc: _grade_text(grade, provenance) for doc, (grade, provenance) in grades.items()}
            for qid, grades in changes.items()
        }
        edited = _with_grades_added(read_text(path), rendered, version)
        if edited is not None:
            path.write_text(edited, encoding="utf-8")
            return
    if suffix in (".yaml", ".yml"):
        lines = read_text(path).splitlines()  # without the byte order mark that would hide a first comment
        header = list(itertools.takewhile(lambda line: line.startswith("#"), lines))
        body = [f"version: {_scalar(version)}"] if version else []
        body.append("queries:")
        body += [f"  - {_query_line(query, query.grades)}" for query in queries]
        path.write_text("\n".join([*header, *body]) + "\n", encoding="utf-8")
        return
    provenance = any(p is not None for grades in changes.values() for _, p in grades.values())
    if suffix != ".csv" and (provenance or replaces):
        raise RelevanceInputError(
            path, "TREC qrels hold no provenance (judge, source, date, hash): keep these judgments as YAML or CSV"
        )
    if suffix == ".csv" and (replaces or (provenance and _csv_header(path) != CSV_COLUMNS + CSV_PROVENANCE)):
        write_csv(path, queries)
    elif suffix == ".csv":
        with _appending(path, newline="") as handle:
            writer = csv.writer(handle)
            wide = _csv_header(path) == CSV_COLUMNS + CSV_PROVENANCE
            for qid, grades in changes.items():
                query = judgments[qid]
                for doc, (grade, given) in sorted(grades.items()):
                    extra = [value or "" for value in (given or Provenance()).fields()] if wide else []
                    writer.writerow([qid, query.text, query.stratum or "", doc, _number(grade), *extra])
    else:
        with _appending(path) as handle:
            for qid, grades in changes.items():
                for doc, (grade, _) in sorted(grades.items()):
                    handle.write(f"{qid} 0 {doc} {_number(grade)}\n")


def _changed(query: Query, changes: Mapping[str, Change]) -> Query:
    """The query with the changed grades, each with its provenance (a grade given none loses any it had)."""
    grades = {**query.grades, **{doc: grade for doc, (grade, _) in changes.items()}}
    provenance = {doc: p for doc, p in query.provenance.items() if doc not in changes}
    provenance.update({doc: p for doc, (_, p) in changes.items() if p is not None})
    return replace(query, grades=grades, provenance=provenance)


def _csv_header(path: Path) -> tuple[str, ...]:
    with path.open(newline="", encoding="utf-8-sig") as handle:
        return tuple(next(csv.reader(handle), ()))


def write_csv(path: Path, queries: Sequence[Query]) -> None:
    """The judgments as CSV, one row a grade (a query without grades, one row without a document); the source, date
    and hash columns only when some grade has provenance."""
    wide = any(query.provenance for query in queries)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS + CSV_PROVENANCE if wide else CSV_COLUMNS)
        for query in queries:
            start = [query.id, query.text, query.stratum or ""]
            if not query.grades:
                writer.writerow([*start, "", "", *(("", "", "") if wide else ())])
            for doc, grade in query.grades.items():
                given = query.provenance.get(doc, Provenance())
                extra = [value or "" for value in given.fields()] if wide else []
                writer.writerow([*start, doc, _number(grade), *extra])


def _with_grades_added(text: str, added: Mapping[str, Mapping[str, str]], version: str) -> str | None:
    """The YAML text with the new grades placed in the user's own layout, or None where that is not plain to do
    (a flow-style root, a grades mapping shared through an anchor, a null `grades:`, a block scalar, CRLF line ends):
    the caller then rewrites the file, and `merge_file` checks that either reads back as the merged judgments."""
    import yaml

    if "\r" in text:
        return None
    try:
        root = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text).get_single_node()
    except yaml.YAMLError:
        return None
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        return None
    lines = text.split("\n")
    after: dict[int, list[str]] = {}  # line index -> whole lines to add after it
    inline: list[tuple[int, int, int, str]] = []  # (line, start column, end column, replacement) on one line
    top = {key.value: value for key, value in root.value}
    if version and isinstance(top.get("version"), yaml.ScalarNode):
        node = top["version"]
        if node.start_mark.line != node.end_mark.line or node.style in ("|", ">"):
            return None
        inline.append((node.start_mark.line, node.start_mark.column, node.end_mark.column, _scalar(version)))
    elif version:
        if "version" in top:
            return None
        after.setdefault(root.value[0][0].start_mark.line - 1, []).append(f"version: {_scalar(version)}")
    queries = top.get("queries")
    if not isinstance(queries, yaml.SequenceNode):
        return None
    placed: set[int] = set()
    for item in queries.value:
        fields = {key.value: value for key, value in item.value} if isinstance(item, yaml.MappingNode) else {}
        qid = fields.get("id")
        grades = added.get(qid.value) if isinstance(qid, yaml.ScalarNode) else None
        if not grades:
            continue
        node = fields.get("grades")
        pairs = [f"{_scalar(doc)}: {grade}" for doc, grade in grades.items()]
        if node is None or id(node) in placed:
            return None
        placed.add(id(node))
        if isinstance(node, yaml.MappingNode) and node.flow_style:
            line, column = node.end_mark.line, node.end_mark.column - 1
            if lines[line][column : column + 1] != "}":
                return None
            joined = ", ".join(pairs)
            inline.append((line, column, column, f", {joined}" if node.value else joined))
        elif isinstance(node, yaml.MappingNode) and node.value:
            last = _last_line(node)
            if last is None:
                return None
            indent = " " * node.value[0][0].start_mark.column
            after.setdefault(last, []).extend(indent + pair for pair in pairs)
        else:
            return None
    for line, start, end, replacement in sorted(inline, reverse=True):
        lines[line] = lines[line][:start] + replacement + lines[line][end:]
    for line in sorted(after, reverse=True):
        lines[line + 1 : line + 1] = after[line]
    return "\n".join(lines)


def _last_line(node: Any) -> int | None:
    """The line a block collection's last value ends on (its end mark is where the next token starts, which may be
    lines further down, past comments); None for a block scalar, whose end is not its text's last line."""
    import yaml

    while isinstance(node, yaml.MappingNode | yaml.SequenceNode) and not node.flow_style and node.value:
        last = node.value[-1]
        node = last[1] if isinstance(last, tuple) else last
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        return None
    line: int = node.end_mark.line
    return line


def _appending(path: Path, newline: str | None = None) -> TextIO:
    """The file opened to append rows to, after a line end when its last line has none (editors often leave it off),
    so that the first new row does not run into that line."""
    with path.open("rb") as raw:
        size = raw.seek(0, io.SEEK_END)
        raw.seek(max(size - 1, 0))
        last = raw.read(1)
    handle = path.open("a", newline=newline, encoding="utf-8")
    if last not in (b"", b"\n", b"\r"):
        handle.write("\n")
    return handle


_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-/]*$")
_YAML_WORDS = {"null", "true", "false", "yes", "no", "on", "off", "y", "n", "nan", "inf"}


def _scalar(value: object) -> str:
    """A YAML flow scalar that reads back as the same string: plain when safe, else JSON-quoted."""
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _YAML_WORDS:
        return text
    return json.dumps(text, ensure_ascii=False)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _grade_text(grade: float, provenance: Provenance | None) -> str:
    """A grade as YAML: the number, or `{grade: 2, judge: NAME, source: judge:NAME, date: ..., hash: ...}`."""
    if provenance is None:
        return _number(grade)
    parts = [f"grade: {_number(grade)}"]
    if provenance.judge is not None:
        parts.append(f"judge: {_scalar(provenance.judge)}")
    named = zip(CSV_PROVENANCE, provenance.fields(), strict=True)
    parts += [f"{key}: {_scalar(value)}" for key, value in named if value is not None]
    return "{" + ", ".join(parts) + "}"


def _query_line(query: Query, grades: Mapping[str, float]) -> str:
    parts = [f"id: {_scalar(query.id)}", f"text: {json.dumps(query.text, ensure_ascii=False)}"]
    if query.stratum is not None:
        parts.append(f"stratum: {_scalar(query.stratum)}")
    if query.params:
        parts.append(f"params: {json.dumps(dict(query.params), ensure_ascii=False, sort_keys=True)}")
    # a grade keeps its provenance (a model judge, a date, a hash) when the file is rewritten
    shown = {d: _grade_text(g, query.provenance.get(d)) for d, g in grades.items()}
    parts.append("grades: {" + ", ".join(f"{_scalar(d)}: {g}" for d, g in shown.items()) + "}")
    return "{" + ", ".join(parts) + "}"


def merge_file(
    judgments_path: Path, filled_path: Path, version: str | None = None, topics: Path | None = None
) -> tuple[str, str, int, int]:
    """merge, then write and read back (see `apply_changes`).

    Returns (old version, new version, grades added or replaced, rows left blank)."""
    judgments = load_judgments(judgments_path, topics)
    graded, blank = read_filled(filled_path)
    changes = merge(judgments, graded, filled_path)
    count = sum(len(g) for g in changes.values())
    if not count:
        return judgments.version, judgments.version, 0, blank
    return judgments.version, apply_changes(judgments_path, judgments, changes, version, topics), count, blank


def apply_changes(
    judgments_path: Path,
    judgments: Judgments,
    changes: Mapping[str, Mapping[str, Change]],
    version: str | None = None,
    topics: Path | None = None,
) -> str:
    """Write the changed grades and read the file back: it must load to exactly the changed judgments, grades and
    provenance (so a model-made grade never turns into a human one), else it is left as it was. Returns the new
    judgments version (a declared one's number + 1, unless `version` is given)."""
    declared = not judgments.version.startswith("sha256:")
    if version and judgments_path.suffix.lower() not in (".yaml", ".yml"):
        raise RelevanceInputError(judgments_path, "only YAML judgments declare a version; this one is a content hash")
    new_version = version or (next_version(judgments.version) if declared else "")
    original = judgments_path.read_bytes()
    expected = [_changed(query, changes.get(query.id, {})) for query in judgments.queries]
    wanted = {q.id: (dict(q.grades), dict(q.provenance)) for q in expected}
    for keep_layout in (True, False):  # the user's layout with the grades added, else the file rewritten
        write_judgments(judgments_path, judgments, changes, new_version, keep_layout)
        try:
            reloaded = load_judgments(judgments_path, topics)
        except RelevanceInputError as exc:  # e.g. a grade of 0.5 in TREC qrels, which hold whole grades only
            judgments_path.write_bytes(original)
            if keep_layout:
                continue
            raise RelevanceInputError(
                judgments_path, f"left unchanged: with the merged grades it would not load ({exc.problem})"
            ) from None
        if {q.id: (dict(q.grades), dict(q.provenance)) for q in reloaded.queries} == wanted:
            return reloaded.version
        judgments_path.write_bytes(original)
    raise RelevanceInputError(judgments_path, "the merged file did not read back the same; left unchanged")
