"""Other tools' judgment formats, read and written as each tool's own code reads and writes them.

- ``quepid``: Quepid's ratings CSV (``query,docid,rating``; a query without ratings is a row with the query alone),
  as ``api/v1/export/ratings_controller.rb`` writes it and ``importRatingsSvc.importCSVFormat`` reads it.
- ``rre``: Rated Ranking Evaluator's ``ratings.json``. ``Engine.java`` reads ``topics`` > ``query_groups`` >
  ``queries`` where each level may be left out (its ``all()`` takes the node itself), the text from the query's
  ``$query`` placeholder (or the file's ``query_placeholder``), and ``relevant_documents`` of the query or else of
  its group, as ``{doc: {"gain": n}}`` or ``{"n": [doc, ...]}``; Quepid's RRE export is the flat form.
- ``rank-eval``: an Elasticsearch ``_rank_eval`` request body: ``requests[].id``, ``.ratings[]._id/rating`` (whole
  numbers, as RatedDocument holds them); the text is the request's ``params.query_string`` (or ``query``) for a
  template request, else the text of its one full-text query.
- ``srw``: the OpenSearch Search Relevance Workbench's judgment import (``ImportJudgmentsProcessor.java``):
  ``judgmentRatings[].query``, ``.ratings[].docId`` and ``.rating``, a string that parses as a float.
- ``trec``: TREC qrels with a topics file (``qid<TAB>text[<TAB>stratum]``), as the judgments loader reads them.

Formats without query ids (all but rank-eval and trec) get the ids `pytest-relevance clicks` gives: a short hash of
the text, so that the same query has the same id whichever tool it comes from.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.clicks import query_id
from pytest_relevance.judgments.model import Judgments, Query, _build, _grade
from pytest_relevance.util.files import csv_rows, parse_json, read_text

FORMATS = ("quepid", "rre", "rank-eval", "srw", "trec")
QUEPID_HEADER = ["query", "docid", "rating"]
_UNSAFE = ("-", "=", "+", "@")  # Quepid's make_csv_safe puts a space before a text starting with one


def read(fmt: str, path: Path, topics: Path | None = None) -> Judgments:
    """The judgments a file of format `fmt` holds; a file of another shape is one error naming its line."""
    if not path.is_file():
        raise RelevanceInputError(path, f"{fmt} file not found")
    if fmt == "trec":
        from pytest_relevance.judgments.model import load_judgments

        if topics is None:
            raise RelevanceInputError(path, "TREC qrels have no query texts: give the topics file with --topics")
        return load_judgments(path, topics)
    if fmt == "quepid":
        return _build(path, None, _quepid(path))
    text = read_text(path)
    data = parse_json(path, text, what="not JSON", hint=f": {_SHAPES[fmt]}")
    reader = {"rre": _rre, "rank-eval": _rank_eval, "srw": _srw}[fmt]
    return _build(path, None, reader(path, text, data))


_SHAPES = {
    "quepid": "a Quepid ratings CSV has the header query,docid,rating",
    "rre": "an RRE ratings.json has topics, query_groups or queries, each query a $query placeholder",
    "rank-eval": "a _rank_eval body has requests, each with an id and ratings of _id and rating",
    "srw": "a workbench judgment import has judgmentRatings, each with a query and ratings of docId and rating",
}


def _line(text: str, value: object) -> int | None:
    """The first line where `value` is written (for a message about a JSON value, which json.loads does not place)."""
    found = text.find(json.dumps(value, ensure_ascii=False)) if isinstance(value, str) else -1
    return text.count("\n", 0, found) + 1 if found >= 0 else None


def _wrong(path: Path, fmt: str, problem: str, line: int | None = 1) -> RelevanceInputError:
    return RelevanceInputError(path, f"{problem}: {_SHAPES[fmt]}", line)


class _Collected:
    """Queries by text, in the order they come; a text given twice must give the same grades."""

    def __init__(self, path: Path, text: str) -> None:
        self.path, self.text = path, text
        self.queries: dict[str, Query] = {}

    def add(self, qid: str | None, query_text: str, grades: dict[str, float]) -> None:
        qid = qid or query_id(query_text)
        known = self.queries.get(qid)
        if known is not None and (known.text != query_text or dict(known.grades) != grades):
            raise RelevanceInputError(
                self.path,
                f"query {query_text!r} is given twice with different grades (or text); keep one",
                _line(self.text, query_text),
            )
        self.queries[qid] = Query(qid, query_text, grades=grades)

    def grade(self, value: object, query_text: str, doc: str) -> float:
        return _grade(value, self.path, f"query {query_text!r}, document {doc!r}", _line(self.text, doc))

    def result(self) -> list[Query]:
        return list(self.queries.values())


def _quepid(path: Path) -> list[Query]:
    text = read_text(path)
    rows = csv_rows(path, io.StringIO(text, newline=""))
    header = [cell.strip().lower() for cell in next(rows, (1, []))[1]]
    if header != QUEPID_HEADER:
        raise _wrong(path, "quepid", f"the header is {','.join(header) or 'missing'}")
    texts: dict[str, dict[str, float]] = {}
    for line, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        cells = [*row, "", ""][:3] if len(row) <= 3 else None
        if cells is None:
            raise _wrong(path, "quepid", f"{len(row)} columns", line)
        raw, doc, rating = cells
        query_text = raw[1:] if raw[:1] == " " and raw[1:2] in _UNSAFE else raw  # make_csv_safe's space undone
        if not query_text.strip():
            raise _wrong(path, "quepid", "a row without a query", line)
        grades = texts.setdefault(query_text, {})
        if not doc.strip():
            continue  # a query without ratings
        try:
            value: object = float(rating)
        except ValueError:
            value = rating
        grade = _grade(value, path, f"query {query_text!r}, document {doc!r}", line)
        if doc in grades and grades[doc] != grade:
            raise RelevanceInputError(path, f"query {query_text!r}: document {doc!r} rated twice", line)
        grades[doc] = int(grade) if grade.is_integer() else grade
    collected = _Collected(path, text)
    for query_text, grades in texts.items():
        collected.add(None, query_text, grades)
    return collected.result()


def _children(node: Mapping[str, Any], key: str) -> list[Any]:
    """RRE's Engine.all(): the node's children under `key`, or the node itself when it has none."""
    value = node.get(key)
    return list(value) if isinstance(value, list) else [node]


def _rre(path: Path, text: str, data: Any) -> list[Query]:
    if not isinstance(data, dict) or not any(key in data for key in ("topics", "query_groups", "queries")):
        raise _wrong(path, "rre", "no topics, query_groups or queries")
    placeholder = data.get("query_placeholder", "$query")
    collected = _Collected(path, text)
    for topic in _children(data, "topics"):
        for group in _children(topic, "query_groups"):
            if "queries" not in group:
                raise _wrong(path, "rre", "a query group without queries", _line(text, group.get("name")))
            for node in group["queries"]:
                query_text = _find(node, placeholder)
                if not isinstance(query_text, str) or not query_text.strip():
                    raise _wrong(path, "rre", f"a query without a {placeholder} placeholder")
                relevant = node.get("relevant_documents", group.get("relevant_documents")) or {}
                collected.add(None, query_text, _rre_grades(collected, query_text, relevant))
    return collected.result()


def _find(node: Any, key: str) -> Any:
    """Jackson's findValue: the first value under `key` anywhere in the node, depth first."""
    if isinstance(node, dict):
        if key in node:
            return node[key]
        for value in node.values():
            found = _find(value, key)
            if found is not None:
                return found
    elif isinstance(node, list):
        for value in node:
            found = _find(value, key)
            if found is not None:
                return found
    return None


def _rre_grades(collected: _Collected, query_text: str, relevant: Any) -> dict[str, float]:
    """Engine.relevantDocuments: {doc: {"gain": n}}, or {"n": [doc, ...]} when the first value is a list."""
    if not isinstance(relevant, dict):
        raise _wrong(collected.path, "rre", f"query {query_text!r}: relevant_documents is not an object")
    grades: dict[str, float] = {}
    if relevant and isinstance(next(iter(relevant.values())), list):
        for gain, docs in relevant.items():
            try:
                value: object = int(gain)
            except ValueError:
                value = gain
            for doc in docs:
                grades[str(doc)] = collected.grade(value, query_text, str(doc))
        return grades
    for doc, entry in relevant.items():
        gain = entry.get("gain") if isinstance(entry, dict) else None
        grades[doc] = collected.grade(gain, query_text, doc)
    return grades


_FULL_TEXT = ("match", "match_phrase", "multi_match", "query_string", "simple_query_string", "combined_fields")


def _request_text(request: Any) -> str | None:
    """The text a _rank_eval request searches: its template's query_string/query param, else its one full-text
    query's text (match: {field: text} or {field: {query: text}}; multi_match, query_string...: {query: text})."""
    found: list[str] = []

    def walk(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _FULL_TEXT and isinstance(value, dict):
                    if isinstance(value.get("query"), str):
                        yield value["query"]
                    else:
                        for inner in value.values():
                            if isinstance(inner, str):
                                yield inner
                            elif isinstance(inner, dict) and isinstance(inner.get("query"), str):
                                yield inner["query"]
                else:
                    yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    found = list(dict.fromkeys(walk(request)))
    return found[0] if len(found) == 1 else None


def _rank_eval(path: Path, text: str, data: Any) -> list[Query]:
    if not isinstance(data, dict) or not isinstance(data.get("requests"), list):
        raise _wrong(path, "rank-eval", "no requests list")
    collected = _Collected(path, text)
    for request in data["requests"]:
        qid = request.get("id") if isinstance(request, dict) else None
        if not isinstance(qid, str) or not qid.strip():
            raise _wrong(path, "rank-eval", "a request without an id")
        params = request.get("params") or {}
        query_text = params.get("query_string", params.get("query")) if isinstance(params, dict) else None
        if not isinstance(query_text, str):
            query_text = _request_text(request.get("request"))
        if not query_text:
            raise RelevanceInputError(
                path,
                f"request {qid!r}: no query text found (a params.query_string, or one match query)",
                _line(text, qid),
            )
        grades: dict[str, float] = {}
        for rating in request.get("ratings") or []:
            doc = rating.get("_id") if isinstance(rating, dict) else None
            if not isinstance(doc, str) or not isinstance(rating.get("rating"), int):
                raise _wrong(
                    path,
                    "rank-eval",
                    f"request {qid!r}: a rating without _id or a whole-number rating",
                    _line(text, qid),
                )
            grades[doc] = collected.grade(rating["rating"], query_text, doc)
        collected.add(qid, query_text, grades)
    return collected.result()


def _srw(path: Path, text: str, data: Any) -> list[Query]:
    if not isinstance(data, dict) or not isinstance(data.get("judgmentRatings"), list):
        raise _wrong(path, "srw", "no judgmentRatings list")
    collected = _Collected(path, text)
    for entry in data["judgmentRatings"]:
        query_text = entry.get("query") if isinstance(entry, dict) else None
        if not isinstance(query_text, str) or not query_text.strip():
            raise _wrong(path, "srw", "a judgment without a query")
        if not isinstance(entry.get("ratings"), list):
            raise _wrong(path, "srw", f"query {query_text!r} has no ratings list", _line(text, query_text))
        grades: dict[str, float] = {}
        for rating in entry["ratings"]:
            doc, value = (rating.get("docId"), rating.get("rating")) if isinstance(rating, dict) else (None, None)
            if not isinstance(doc, str) or not doc:
                raise _wrong(path, "srw", f"query {query_text!r}: a rating without docId", _line(text, query_text))
            if not isinstance(value, str):
                raise RelevanceInputError(
                    path,
                    f"query {query_text!r}, document {doc!r}: rating {value!r} is not a string; the workbench "
                    'reads ratings as strings ("1.000")',
                    _line(text, doc),
                )
            try:
                number = float(value)
            except ValueError:
                raise RelevanceInputError(
                    path, f"query {query_text!r}, document {doc!r}: rating {value!r} is not a number", _line(text, doc)
                ) from None
            grade = collected.grade(number, query_text, doc)
            grades[doc] = int(grade) if grade.is_integer() else grade
        collected.add(None, query_text, grades)
    return collected.result()


# ---------------------------------------------------------------- writing


def write(fmt: str, judgments: Judgments, index: str = "index") -> str:
    """The judgments in format `fmt` (for trec, the qrels; `topics` gives the topics file)."""
    if fmt in ("rre", "rank-eval"):
        fractional = [(q.id, d) for q in judgments.queries for d, g in q.grades.items() if not float(g).is_integer()]
        if fractional:
            qid, doc = fractional[0]
            raise RelevanceInputError(
                judgments.source,
                f"query {qid!r}, document {doc!r}: grade {judgments[qid].grades[doc]} is not a whole number, which "
                f"{fmt} ratings must be ({len(fractional)} such grades); map them onto a scale first",
            )
    if fmt == "quepid":
        out = io.StringIO(newline="")
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(QUEPID_HEADER)
        for q in judgments.queries:
            safe = f" {q.text}" if q.text[:1] in _UNSAFE else q.text  # as Quepid's make_csv_safe
            if not q.grades:
                writer.writerow([safe, "", ""])
            writer.writerows([safe, doc, _number(g)] for doc, g in q.grades.items())
        return out.getvalue()
    if fmt == "rre":
        queries = [
            {
                "placeholders": {"$query": q.text},
                "relevant_documents": {doc: {"gain": int(g)} for doc, g in q.grades.items()},
            }
            for q in judgments.queries
        ]
        body: Any = {"index": index, "id_field": "_id", "template": "template.json", "queries": queries}
    elif fmt == "rank-eval":
        requests = [
            {
                "id": q.id,
                "request": {"query": {"query_string": {"query": q.text}}},
                "ratings": [{"_index": index, "_id": doc, "rating": int(g)} for doc, g in q.grades.items()],
            }
            for q in judgments.queries
        ]
        body = {"requests": requests, "metric": {"dcg": {"k": 10, "normalize": True}}}
    elif fmt == "srw":
        ratings = [
            {"query": q.text, "ratings": [{"docId": doc, "rating": _number(g)} for doc, g in q.grades.items()]}
            for q in judgments.queries
        ]
        body = {
            "name": f"pytest-relevance judgments {judgments.version}",
            "description": f"exported from {Path(judgments.source).name}",
            "type": "IMPORT_JUDGMENT",
            "judgmentRatings": ratings,
        }
    else:
        return "".join(f"{q.id} 0 {doc} {_number(g)}\n" for q in judgments.queries for doc, g in q.grades.items())
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def topics(judgments: Judgments) -> str:
    """The topics file that goes with exported TREC qrels."""
    return "".join(f"{q.id}\t{q.text}" + (f"\t{q.stratum}" if q.stratum else "") + "\n" for q in judgments.queries)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
