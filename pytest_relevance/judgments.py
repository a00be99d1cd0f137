"""Judgments: the judged queries (text, stratum, params, graded documents) and the version of the set.

Three formats load into one model: the YAML format of the README, TREC qrels with a topics file, and CSV
(``query_id,query,stratum,doc_id,grade``). Every validation error names the file and the line or key, because a
judgment file is edited by hand and a bare traceback does not say which of 150 queries is wrong.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError

QUERY_KEYS = ("id", "text", "stratum", "params", "grades")
TOP_KEYS = ("version", "queries")
CSV_COLUMNS = ("query_id", "query", "stratum", "doc_id", "grade")


@dataclass(frozen=True)
class Query:
    """One judged query. `grades` maps doc id -> grade; a document absent from it is unjudged, not irrelevant."""

    id: str
    text: str
    stratum: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    grades: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Judgments:
    """A judged query set; `version` is declared in the file or a hash of the content, never of its formatting."""

    queries: tuple[Query, ...]
    version: str
    source: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {q.id: q for q in self.queries})

    def __getitem__(self, query_id: str) -> Query:
        return self._by_id[query_id]  # type: ignore[attr-defined]

    def __contains__(self, query_id: object) -> bool:
        return query_id in self._by_id  # type: ignore[attr-defined]

    def __len__(self) -> int:
        return len(self.queries)

    @property
    def strata(self) -> list[str]:
        """Declared strata, head/torso/tail first, then the rest by name."""
        order = {"head": 0, "torso": 1, "tail": 2}
        found = {q.stratum for q in self.queries if q.stratum is not None}
        return sorted(found, key=lambda s: (order.get(s, 3), s))

    @property
    def groups(self) -> dict[str, list[str]]:
        """Query ids per group every number is reported for: "all", then each stratum (see `strata`)."""
        groups = {"all": [q.id for q in self.queries]}
        for stratum in self.strata:
            groups[stratum] = [q.id for q in self.queries if q.stratum == stratum]
        return groups


def content_version(queries: tuple[Query, ...]) -> str:
    """A short hash of what the judgments say (not how the file is formatted), used when no version is declared."""
    canonical = [[q.id, q.text, q.stratum, dict(q.params), sorted(q.grades.items())] for q in queries]
    digest = hashlib.sha256(json.dumps(canonical, sort_keys=True, default=str).encode()).hexdigest()
    return f"sha256:{digest[:12]}"


def load_judgments(path: str | Path, topics: str | Path | None = None) -> Judgments:
    """Load by suffix: .yaml/.yml, .csv, anything else is TREC qrels (which needs `topics`)."""
    path = Path(path)
    if not path.is_file():
        raise RelevanceInputError(path, "judgments file not found; set relevance_judgments to its path")
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return _from_yaml(path)
    if suffix == ".csv":
        return _from_csv(path)
    if topics is None:
        raise RelevanceInputError(
            path, "read as TREC qrels, which need a topics file (qid<TAB>text[<TAB>stratum]): set relevance_topics"
        )
    return _from_trec(path, Path(topics))


def _grade(value: object, source: Path, where: str, line: int | None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RelevanceInputError(source, f"{where}: grade {value!r} is not a number (use 0, 1, 2, 3...)", line)
    if value < 0:
        raise RelevanceInputError(source, f"{where}: grade {value} is negative; grades are >= 0 (0 = irrelevant)", line)
    return value


def _build(source: Path, version: object, queries: list[Query]) -> Judgments:
    if not queries:
        raise RelevanceInputError(source, "no queries: a judgment set needs at least one judged query")
    as_tuple = tuple(queries)
    if version is None:
        declared = content_version(as_tuple)
    elif isinstance(version, str | int | float) and not isinstance(version, bool) and str(version).strip():
        declared = str(version)
    else:
        raise RelevanceInputError(source, f"key 'version': {version!r} is not a version string")
    return Judgments(as_tuple, declared, str(source))


# ---------------------------------------------------------------- YAML


def _yaml_nodes(path: Path, text: str) -> Any:
    """The node tree (for line numbers and duplicate keys, which safe_load would silently drop); libyaml if present."""
    import yaml

    try:
        return yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        line = mark.line + 1 if mark is not None else None
        raise RelevanceInputError(path, f"YAML syntax error: {problem}", line) from None


def _check_duplicate_keys(path: Path, node: Any) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key, value in node.value:
            name = str(key.value)
            if name in seen:
                raise RelevanceInputError(
                    path,
                    f"key {name!r} appears twice in one mapping (first at line {seen[name]})",
                    key.start_mark.line + 1,
                )
            seen[name] = key.start_mark.line + 1
            _check_duplicate_keys(path, value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _check_duplicate_keys(path, item)


def _from_yaml(path: Path) -> Judgments:
    import yaml

    text = path.read_text(encoding="utf-8")
    root = _yaml_nodes(path, text)
    if root is None:
        raise RelevanceInputError(path, "the file is empty; expected 'queries:' with a list of judged queries")
    _check_duplicate_keys(path, root)
    data = yaml.SafeLoader("").construct_document(root)  # the same safe constructors, without parsing again
    if not isinstance(data, dict):
        raise RelevanceInputError(path, "expected a mapping with 'queries:' (and optionally 'version:')", 1)
    for key in data:
        if key not in TOP_KEYS:
            raise RelevanceInputError(path, f"unknown key {key!r}; allowed: {', '.join(TOP_KEYS)}")
    items = data.get("queries")
    if not isinstance(items, list):
        raise RelevanceInputError(path, "key 'queries' must be a list of queries")
    item_nodes = next((v.value for k, v in root.value if k.value == "queries"), [])
    queries = []
    seen: dict[str, int] = {}
    for index, (item, node) in enumerate(zip(items, item_nodes, strict=True)):
        line = node.start_mark.line + 1
        query = _yaml_query(path, item, node, index, line)
        if query.id in seen:
            raise RelevanceInputError(path, f"duplicate query id {query.id!r} (first at line {seen[query.id]})", line)
        seen[query.id] = line
        queries.append(query)
    return _build(path, data.get("version"), queries)


def _yaml_query(path: Path, item: object, node: Any, index: int, line: int) -> Query:
    if not isinstance(item, dict):
        raise RelevanceInputError(path, f"queries[{index}] must be a mapping with id, text and grades", line)
    qid = item.get("id")
    where = f"query {qid!r}" if qid is not None else f"queries[{index}]"
    for key in item:
        if key not in QUERY_KEYS:
            raise RelevanceInputError(path, f"{where}: unknown key {key!r}; allowed: {', '.join(QUERY_KEYS)}", line)
    if qid is None or isinstance(qid, bool) or str(qid).strip() == "":
        raise RelevanceInputError(path, f"{where}: missing 'id'", line)
    text = item.get("text")
    if not isinstance(text, str) or not text.strip():
        raise RelevanceInputError(path, f"{where}: missing 'text' (the query as a user would type it)", line)
    stratum = item.get("stratum")
    if stratum is not None and not isinstance(stratum, str):
        raise RelevanceInputError(path, f"{where}: 'stratum' must be a name such as head, torso or tail", line)
    params = item.get("params") or {}
    if not isinstance(params, dict):
        raise RelevanceInputError(path, f"{where}: 'params' must be a mapping of template parameters", line)
    grades = item.get("grades") or {}
    if not isinstance(grades, dict):
        raise RelevanceInputError(path, f"{where}: 'grades' must be a mapping of doc id -> grade", line)
    grade_lines = _grade_lines(node)
    checked = {
        str(doc): _grade(value, path, f"{where}, document {doc!r}", grade_lines.get(str(doc), line))
        for doc, value in grades.items()
    }
    return Query(str(qid), text, stratum, params, checked)


def _grade_lines(node: Any) -> dict[str, int]:
    for key, value in getattr(node, "value", []):
        if getattr(key, "value", None) == "grades" and isinstance(value.value, list):
            return {str(k.value): k.start_mark.line + 1 for k, _ in value.value}
    return {}


# ---------------------------------------------------------------- CSV


def _from_csv(path: Path) -> Judgments:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header = tuple(reader.fieldnames or ())
        if header != CSV_COLUMNS:
            raise RelevanceInputError(path, f"header must be {','.join(CSV_COLUMNS)}, found {','.join(header)}", 1)
        order: list[str] = []
        texts: dict[str, tuple[str, str | None]] = {}
        grades: dict[str, dict[str, float]] = {}
        first_line: dict[tuple[str, str], int] = {}
        for row in reader:
            line = reader.line_num
            if None in row or any(row[c] is None for c in CSV_COLUMNS):
                raise RelevanceInputError(path, f"expected {len(CSV_COLUMNS)} columns", line)
            qid, text, doc = row["query_id"].strip(), row["query"].strip(), row["doc_id"].strip()
            stratum = row["stratum"].strip() or None
            if not qid:
                raise RelevanceInputError(path, "empty query_id", line)
            if not text:
                raise RelevanceInputError(path, f"query {qid!r}: empty query text", line)
            if qid not in texts:
                order.append(qid)
                texts[qid] = (text, stratum)
                grades[qid] = {}
            elif texts[qid] != (text, stratum):
                raise RelevanceInputError(path, f"query {qid!r}: text or stratum differs from its first row", line)
            if not doc:
                continue  # a query row without a document: judged query, no judged documents yet
            if (qid, doc) in first_line:
                raise RelevanceInputError(
                    path, f"query {qid!r}: document {doc!r} graded twice (first at line {first_line[qid, doc]})", line
                )
            first_line[qid, doc] = line
            grades[qid][doc] = _grade(_number(row["grade"]), path, f"query {qid!r}, document {doc!r}", line)
    queries = [Query(q, texts[q][0], texts[q][1], {}, grades[q]) for q in order]
    return _build(path, None, queries)


def _number(text: str) -> object:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


# ---------------------------------------------------------------- TREC


def _from_trec(path: Path, topics: Path) -> Judgments:
    from pytest_relevance.trec import read_qrels

    if not topics.is_file():
        raise RelevanceInputError(topics, "topics file not found; set relevance_topics to its path")
    qrels = read_qrels(path)
    texts: dict[str, tuple[str, str | None]] = {}
    for number, raw in enumerate(topics.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        fields = raw.split("\t")
        if len(fields) not in (2, 3) or not fields[1].strip():
            raise RelevanceInputError(topics, "expected qid<TAB>text[<TAB>stratum]", number)
        qid = fields[0].strip()
        if qid in texts:
            raise RelevanceInputError(topics, f"duplicate query id {qid!r}", number)
        texts[qid] = (fields[1].strip(), fields[2].strip() or None if len(fields) == 3 else None)
    queries = []
    for qid, grades in qrels.items():
        if qid not in texts:
            raise RelevanceInputError(topics, f"query {qid!r} is judged in {path} but has no topic here")
        for doc, grade in grades.items():
            _grade(grade, path, f"query {qid!r}, document {doc!r}", None)
        queries.append(Query(qid, texts[qid][0], texts[qid][1], {}, grades))
    return _build(path, None, queries)
