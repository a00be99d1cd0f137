"""Judgments: the judged queries (text, stratum, params, graded documents) and the version of the set.

Three formats load into one model: the YAML format of docs/configuration.md, TREC qrels with a topics file, and CSV
(``query_id,query,stratum,doc_id,grade``). Every validation error names the file and the line or key, because a
judgment file is edited by hand and a bare traceback does not say which of 150 queries is wrong.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.expectations import Expectation, read_expectations
from pytest_relevance.metrics.ranking import MAX_GRADE, reads_as_metric
from pytest_relevance.util.files import check_duplicate_keys, construct, csv_rows, read_text, short_tag

QUERY_KEYS = ("id", "text", "stratum", "params", "grades")
TOP_KEYS = ("version", "queries", "expect")
CSV_COLUMNS = ("query_id", "query", "stratum", "doc_id", "grade")


CSV_PROVENANCE = ("source", "date", "hash")
PROVENANCE_KEYS = ("grade", "judge", *CSV_PROVENANCE)
#: who made a grade: a person, a click model (`pytest-relevance clicks --model coec`), or a model judge (`pool --judge`)
SOURCE = re.compile(r"human|clicks:\S+|judge:\S.*")


@dataclass(frozen=True)
class Provenance:
    """Where a grade came from, so that a model-made grade can be told from a human one, and a stale one found.

    `source` is `human`, `clicks:MODEL` or `judge:NAME` (None: not said, taken as a human's); `date` the ISO date
    (or instant) it was judged; `hash` the judged document's content hash (`provenance.content_hash`), so that a
    document edited since is noticed.
    """

    source: str | None = None
    date: str | None = None
    hash: str | None = None

    @property
    def judge(self) -> str | None:
        """The model judge's name, for a `judge:NAME` source."""
        if self.source is not None and self.source.startswith("judge:"):
            return self.source.removeprefix("judge:")
        return None

    def canonical(self) -> object:
        """What the judgments version hashes: a judge's name alone as before dates and hashes existed (so a file
        with judges only keeps its version), else every field given."""
        if self.judge is not None and self.date is None and self.hash is None:
            return self.judge
        return {key: value for key, value in zip(CSV_PROVENANCE, self.fields(), strict=True) if value is not None}

    def fields(self) -> tuple[str | None, str | None, str | None]:
        return self.source, self.date, self.hash


@dataclass(frozen=True)
class Query:
    """One judged query. `grades` maps doc id -> grade; a document absent from it is unjudged, not irrelevant.

    `provenance` maps a doc id to where its grade came from (YAML `d7: {grade: 2, judge: rule, date: 2026-01-10}`,
    or CSV's source, date and hash columns), so that model-made grades can be told from human ones and measured
    against them, and stale ones found; a grade without it is a human's of unknown date.
    """

    id: str
    text: str
    stratum: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    grades: Mapping[str, float] = field(default_factory=dict)
    provenance: Mapping[str, Provenance] = field(default_factory=dict)

    @property
    def judges(self) -> dict[str, str]:
        """doc id -> the model judge that made its grade."""
        return {doc: p.judge for doc, p in self.provenance.items() if p.judge is not None}


@dataclass(frozen=True)
class Judgments:
    """A judged query set; `version` is declared in the file or a hash of the content, never of its formatting.

    `expectations`: the known-item expectations of a YAML file's `expect:` list (judgments.expectations); they are
    not grades, so the version leaves them out.
    """

    queries: tuple[Query, ...]
    version: str
    source: str
    expectations: tuple[Expectation, ...] = ()
    _by_id: dict[str, Query] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {q.id: q for q in self.queries})

    def __getitem__(self, query_id: str) -> Query:
        return self._by_id[query_id]

    def __contains__(self, query_id: object) -> bool:
        return query_id in self._by_id

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
    """A short hash of what the judgments say (not how the file is formatted), used when no version is declared.

    The hash of one JSON list of [id, text, stratum, params, sorted grades] per query, fed a thousand queries at a
    time: the same digest as hashing the whole list at once, without the whole list (and its text) in memory.
    """
    digest = hashlib.sha256(b"[")
    for start in range(0, len(queries), 1000):
        # provenance only when there is any: a file without it keeps the version it always had
        canonical = [
            [q.id, q.text, q.stratum, dict(q.params), sorted(q.grades.items())]
            + ([{doc: p.canonical() for doc, p in q.provenance.items()}] if q.provenance else [])
            for q in queries[start : start + 1000]
        ]
        if start:
            digest.update(b", ")
        digest.update(json.dumps(canonical, sort_keys=True, default=str)[1:-1].encode())
    digest.update(b"]")
    return f"sha256:{digest.hexdigest()[:12]}"


def load_judgments(path: str | Path, topics: str | Path | None = None) -> Judgments:
    """Load by suffix: .yaml/.yml, .csv, anything else is TREC qrels (which needs `topics`)."""
    path = Path(path)
    if not path.is_file():
        raise RelevanceInputError(path, "judgments file not found; set relevance_judgments to its path")
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".csv") and topics is None:
        raise RelevanceInputError(
            path, "read as TREC qrels, which need a topics file (qid<TAB>text[<TAB>stratum]): set relevance_topics"
        )
    from pytest_relevance.judgments.trec import gc_paused

    with gc_paused():  # millions of small objects and no cycles among them
        if suffix in (".yaml", ".yml"):
            return _from_yaml(path)
        if suffix == ".csv":
            return _from_csv(path)
        return _from_trec(path, Path(topics))  # type: ignore[arg-type]


def _grade(value: object, source: Path, where: str, line: int | None) -> float:
    """A grade: a finite number from 0 to MAX_GRADE (beyond it, 2^grade overflows exp gain and err)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RelevanceInputError(source, f"{where}: grade {value!r} is not a number (use 0, 1, 2, 3...)", line)
    if value < 0:
        raise RelevanceInputError(source, f"{where}: grade {value} is negative; grades are >= 0 (0 = irrelevant)", line)
    if not value <= MAX_GRADE:  # also nan
        raise RelevanceInputError(
            source, f"{where}: grade {value} is not a grade; grades are finite numbers from 0 to {MAX_GRADE}", line
        )
    return value


def _check_stratum(stratum: str, source: Path, where: str, line: int | None) -> None:
    """A stratum named `all` would replace the overall row every report has, and one named like a metric
    (`ndcg@10`, `map`) would make a tolerance override `ndcg@10=` apply to both: either is refused here."""
    if stratum == "all":
        problem = "is the name of the row over all queries"
    elif reads_as_metric(stratum):
        problem = "reads as a metric (a tolerance override of that name would apply to the stratum and to the metric)"
    else:
        return
    raise RelevanceInputError(source, f"{where}: stratum {stratum!r} {problem}: name the stratum otherwise", line)


def _build(
    source: Path, version: object, queries: list[Query], expectations: tuple[Expectation, ...] = ()
) -> Judgments:
    if not queries:
        raise RelevanceInputError(source, "no queries: a judgment set needs at least one judged query")
    as_tuple = tuple(queries)
    if version is None:
        declared = content_version(as_tuple)
    elif isinstance(version, str | int | float) and not isinstance(version, bool) and str(version).strip():
        declared = str(version)
    else:
        raise RelevanceInputError(source, f"key 'version': {version!r} is not a version string")
    return Judgments(as_tuple, declared, str(source), expectations)


_FORM = (
    "a grade is a number, or {grade: NUMBER, ...} with any of judge: NAME, source: human, clicks:MODEL or "
    "judge:NAME, date: YYYY-MM-DD, hash: the document's content hash"
)


def provenance(value: Mapping[str, Any], path: Path, where: str, line: int | None) -> Provenance:
    """A YAML grade mapping's provenance, checked: the form, the judge, and the rest as `checked_provenance`."""
    if "grade" not in value or len(value) < 2 or set(value) - set(PROVENANCE_KEYS):
        raise RelevanceInputError(path, f"{where}: {_FORM}", line)
    judge = value.get("judge")
    if judge is not None and (not isinstance(judge, str) or not judge.strip()):
        raise RelevanceInputError(path, f"{where}: judge {judge!r} is not a judge's name; {_FORM}", line)
    source = value.get("source")
    if judge is not None and source is None:
        source = f"judge:{judge}"
    elif judge is not None and source != f"judge:{judge}":
        raise RelevanceInputError(
            path, f"{where}: judge {judge!r} and source {source!r} disagree; a judge's source is judge:{judge}", line
        )
    return checked_provenance(source, value.get("date"), value.get("hash"), path, where, line)


def checked_provenance(
    source: object, date: object, digest: object, path: Path, where: str, line: int | None
) -> Provenance:
    """Provenance from its three values (None: not given). A date is read into its ISO form, so that `2026-01-10`
    in YAML (a date), "2026-01-10" in CSV and a rewritten file all say the same, and an age can be measured."""
    import datetime as dt

    if source is not None and not (isinstance(source, str) and SOURCE.fullmatch(source)):
        raise RelevanceInputError(path, f"{where}: source {source!r} is not human, clicks:MODEL or judge:NAME", line)
    written: str | None = None
    if isinstance(date, dt.date):  # a YAML date or timestamp (a datetime is a date too)
        written = date.isoformat()
    elif isinstance(date, str):
        try:
            written = (dt.date if len(date.strip()) == 10 else dt.datetime).fromisoformat(date.strip()).isoformat()
        except ValueError:
            written = None
    if date is not None and written is None:
        raise RelevanceInputError(
            path, f"{where}: date {date!r} is not a date; write when it was judged as YYYY-MM-DD", line
        )
    if digest is not None and not (isinstance(digest, str) and digest.strip() and not re.search(r"\s", digest)):
        raise RelevanceInputError(path, f"{where}: hash {digest!r} is not a content hash (one word)", line)
    return Provenance(source, written, digest)


# ---------------------------------------------------------------- YAML


class _YamlEvents:
    """libyaml's event stream, read one event at a time so that a 200k-query file never exists as a node tree.

    Anchors and aliases are expanded here (an anchored subtree is composed once and replayed), so the reader below
    only ever sees plain events. Ids and texts are taken as written: YAML 1.1 would turn `010` into 8 and `on` into
    True, and a judged id must never change.
    """

    def __init__(self, path: Path, text: str) -> None:
        import yaml

        self.yaml, self.path, self.text = yaml, path, text
        self.loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        self._raw = self.loader(text).get_event
        self.pending: list[Any] = []
        self.anchors: dict[str, Any] = {}
        self.resolver = yaml.resolver.Resolver()
        self.constructor = yaml.SafeLoader("")  # the safe constructors, made once (a loader per query costs)

    def raw(self) -> Any:
        try:
            return self._raw()
        except self.yaml.YAMLError as exc:
            raise self.syntax_error(exc) from None

    def syntax_error(self, exc: Any) -> RelevanceInputError:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        return RelevanceInputError(self.path, f"YAML syntax error: {problem}", mark.line + 1 if mark else None)

    def tree(self) -> Any:
        """The whole document's node tree, for the rare message that needs a line the event stream did not keep
        (a later syntax error is then the message, as reading on would have found it)."""
        try:
            return self.yaml.compose(self.text, Loader=self.loader)
        except self.yaml.YAMLError as exc:
            raise self.syntax_error(exc) from None

    def next(self) -> Any:
        if self.pending:
            return self.pending.pop()
        event = self.raw()
        if getattr(event, "anchor", None) is None:
            return event
        node = self.alias(event) if isinstance(event, self.yaml.AliasEvent) else self.compose(event, self.raw)
        self.pending = list(reversed(list(self._replay(node))))
        return self.pending.pop()

    def alias(self, event: Any) -> Any:
        if event.anchor not in self.anchors:
            raise RelevanceInputError(self.path, f"YAML alias *{event.anchor} has no anchor before it", _line(event))
        return self.anchors[event.anchor]

    def compose(self, event: Any, source: Any = None) -> Any:
        """The node for the subtree that starts with `event` (for params, version, anchors and error messages)."""
        yaml, source = self.yaml, source or self.next
        if isinstance(event, yaml.AliasEvent):
            return self.alias(event)
        if isinstance(event, yaml.ScalarEvent):
            tag = (
                event.tag
                if event.tag not in (None, "!")
                else self.resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
            )
            node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
            node.written = (event.tag, event.implicit)  # replayed as written: an anchored `null` stays a null
        elif isinstance(event, yaml.SequenceStartEvent):
            tag = event.tag if event.tag not in (None, "!") else self.resolver.resolve(yaml.SequenceNode, None, True)
            node = yaml.SequenceNode(tag, [], event.start_mark, None, event.flow_style)
            while not isinstance(item := source(), yaml.SequenceEndEvent):
                node.value.append(self.compose(item, source))
        elif isinstance(event, yaml.MappingStartEvent):
            tag = event.tag if event.tag not in (None, "!") else self.resolver.resolve(yaml.MappingNode, None, True)
            node = yaml.MappingNode(tag, [], event.start_mark, None, event.flow_style)
            while not isinstance(key := source(), yaml.MappingEndEvent):
                node.value.append((self.compose(key, source), self.compose(source(), source)))
        else:
            raise RelevanceInputError(self.path, f"unexpected YAML {type(event).__name__}", _line(event))
        if getattr(event, "anchor", None) is not None:
            self.anchors[event.anchor] = node
        return node

    def _replay(self, node: Any) -> Iterator[Any]:
        yaml = self.yaml
        if isinstance(node, yaml.ScalarNode):
            yield yaml.ScalarEvent(None, *node.written, node.value, node.start_mark, node.end_mark)
        elif isinstance(node, yaml.SequenceNode):
            yield yaml.SequenceStartEvent(None, node.tag, False, node.start_mark, node.start_mark)
            for item in node.value:
                yield from self._replay(item)
            yield yaml.SequenceEndEvent(node.start_mark, node.start_mark)
        else:
            yield yaml.MappingStartEvent(None, node.tag, False, node.start_mark, node.start_mark)
            for key, value in node.value:
                yield from self._replay(key)
                yield from self._replay(value)
            yield yaml.MappingEndEvent(node.start_mark, node.start_mark)

    def construct(self, event: Any, where: str) -> Any:
        """A Python value for the subtree (template params), with the safe constructors and duplicate-key check."""
        node = self.compose(event)
        check_duplicate_keys(self.path, node, where)
        _keys_as_written(self.path, node, where)
        return self.value(node, where)

    def value(self, node: Any, where: str) -> Any:
        """The node's Python value; a value its tag cannot read (`!!timestamp x`, `!!binary zz`) is one message."""
        return construct(self.path, self.constructor, node, where)

    def skip(self, event: Any) -> None:
        """Read past the subtree of a value about to be refused: a syntax error inside it is the better message."""
        self.compose(event)


def _line(event: Any) -> int:
    line: int = event.start_mark.line + 1  # libyaml counts from 0
    return line


def _keys_as_written(path: Path, node: Any, where: str) -> None:
    """Mapping keys stay strings as written (a param named `on` is looked up as "on", not True); a merge key `<<`
    is refused, not turned into a param named "<<"."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.tag == _MERGE:
                    raise RelevanceInputError(path, f"{where}: {_MERGE_PROBLEM}", _line(key))
                key.tag = _STR
            _keys_as_written(path, value, where)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _keys_as_written(path, item, where)


_STR, _NULL, _MERGE = "tag:yaml.org,2002:str", "tag:yaml.org,2002:null", "tag:yaml.org,2002:merge"
_MERGE_PROBLEM = (
    "'<<' is a YAML merge key, which judgments do not expand: write the keys out (or quote it, \"<<\", for a key "
    "of that name)"
)


def _is_merge(event: Any) -> bool:
    return event.tag == _MERGE or (event.tag is None and event.implicit[0] and event.value == "<<")


def _as_written(events: _YamlEvents, event: Any, where: str, key: str, nulls: bool = True) -> str | None:
    """A scalar's text as written (ids and texts never change type; `010` stays "010"); with `nulls`, None for a
    null however written (plain, `!!null`, or through an anchor), else an id `null` is the text "null". Any other
    tag says the text means something else (`!!bool maybe`, `!!timestamp x`): refused, not read as its text."""
    text: str = event.value
    if event.tag in (None, "!"):
        return None if nulls and event.implicit[0] and text in _NULLS else text
    if event.tag == _STR:
        return text
    if event.tag == _NULL and nulls:
        return None
    prefix = f"{where}: " if where else ""
    raise RelevanceInputError(
        events.path,
        f"{prefix}{key} is tagged {short_tag(event.tag)}, but it is text as written: remove the tag",
        _line(event),
    )


def _from_yaml(path: Path) -> Judgments:
    text = read_text(path)
    written = _one_query_per_line(path, text)
    return _from_yaml_events(path, text) if written is None else written


def _from_yaml_events(path: Path, text: str) -> Judgments:
    import yaml

    events = _YamlEvents(path, text)
    events.next()  # stream start
    start = events.next()
    if isinstance(start, yaml.StreamEndEvent):
        raise RelevanceInputError(path, "the file is empty; expected 'queries:' with a list of judged queries")
    root = events.next()
    if not isinstance(root, yaml.MappingStartEvent):
        raise RelevanceInputError(path, "expected a mapping with 'queries:' (and optionally 'version:')", 1)
    version: object = None
    queries: list[Query] | None = None
    expect: Any = None
    seen: dict[str, int] = {}
    while not isinstance(event := events.next(), yaml.MappingEndEvent):
        key = _key(events, event, seen)
        value = events.next()
        if key == "queries":
            queries = _yaml_queries(events, value)
        elif key == "version":
            version = _yaml_version(events, value)
        elif key == "expect":  # read once the query ids are known (it may come before `queries:`)
            expect = events.compose(value)
        else:
            raise RelevanceInputError(path, f"unknown key {key!r}; allowed: {', '.join(TOP_KEYS)}", _line(event))
    events.next()  # document end
    if not isinstance(extra := events.next(), yaml.StreamEndEvent):
        raise RelevanceInputError(path, "a second YAML document (---): judgments are one document", _line(extra))
    if queries is None:
        raise RelevanceInputError(path, "key 'queries' must be a list of queries")
    expectations = () if expect is None else read_expectations(path, expect, {q.id for q in queries})
    return _build(path, version, queries, expectations)


def _key(events: _YamlEvents, event: Any, seen: dict[str, int]) -> str:
    """A mapping key as written; a key given twice is an error (a plain YAML load would keep only the last)."""
    if not isinstance(event, events.yaml.ScalarEvent):
        events.skip(event)
        raise RelevanceInputError(events.path, "a mapping key must be a plain value", _line(event))
    key: str = event.value
    if _is_merge(event):
        raise RelevanceInputError(events.path, _MERGE_PROBLEM, _line(event))
    if key in seen:
        raise RelevanceInputError(
            events.path, f"key {key!r} appears twice in one mapping (first at line {seen[key]})", _line(event)
        )
    seen[key] = _line(event)
    return key


def _yaml_version(events: _YamlEvents, event: Any) -> object:
    if isinstance(event, events.yaml.ScalarEvent):  # as written: `1.10` stays 1.10
        return _as_written(events, event, "", "'version'")
    return events.construct(event, "key 'version'")


_NULLS = frozenset(("", "~", "null", "Null", "NULL"))


def _yaml_queries(events: _YamlEvents, event: Any) -> list[Query]:
    yaml, path = events.yaml, events.path
    if not isinstance(event, yaml.SequenceStartEvent):
        events.skip(event)
        raise RelevanceInputError(path, "key 'queries' must be a list of queries", _line(event))
    queries = []
    seen: dict[str, int] = {}
    grades = _GradeReader(events)
    index = 0
    while not isinstance(item := events.next(), yaml.SequenceEndEvent):
        query = _yaml_query(events, item, index, grades)
        line = _line(item)
        if query.id in seen:
            raise RelevanceInputError(path, f"duplicate query id {query.id!r} (first at line {seen[query.id]})", line)
        seen[query.id] = line
        queries.append(query)
        index += 1
    return queries


def _yaml_query(events: _YamlEvents, item: Any, index: int, grades: _GradeReader) -> Query:
    yaml, path = events.yaml, events.path
    line = _line(item)
    if not isinstance(item, yaml.MappingStartEvent):
        events.skip(item)
        raise RelevanceInputError(path, f"queries[{index}] must be a mapping with id, text and grades", line)
    fields: dict[str, Any] = {}
    keys: dict[str, int] = {}
    where = f"queries[{index}]"
    while not isinstance(event := events.next(), yaml.MappingEndEvent):
        key = _key(events, event, keys)
        value = events.next()
        if key == "grades":
            fields[key], fields["provenance"] = grades.read(value, where, line)
        elif key == "params":
            fields[key] = events.construct(value, f"{where}, params")
        elif key in QUERY_KEYS:
            if not isinstance(value, yaml.ScalarEvent):
                events.skip(value)
                raise RelevanceInputError(path, f"{where}: {key!r} must be a single value", _line(value))
            fields[key] = _as_written(events, value, where, repr(key), nulls=key != "id")
            if key == "stratum" and fields[key] is not None:
                _check_stratum(fields[key], path, where, _line(value))
            if key == "id":
                where = f"query {value.value!r}"
        else:
            raise RelevanceInputError(path, f"{where}: unknown key {key!r}; allowed: {', '.join(QUERY_KEYS)}", line)
    qid = fields.get("id")
    if qid is None or not qid.strip():
        raise RelevanceInputError(path, f"{where}: missing 'id'", line)
    text = fields.get("text")
    if text is None or not text.strip():
        raise RelevanceInputError(path, f"{where}: missing 'text' (the query as a user would type it)", line)
    stratum = fields.get("stratum")
    if stratum is not None and not stratum.strip():
        raise RelevanceInputError(path, f"{where}: 'stratum' is empty; leave it out for a query without one", line)
    params = fields.get("params")
    if params is None:
        params = {}
    elif not isinstance(params, dict):
        raise RelevanceInputError(
            path, f"{where}: 'params' must be a mapping of template parameters, not {params!r}", line
        )
    checked = fields.get("grades", {})
    if checked is None:
        checked = {}
    return Query(qid, text, stratum, params, checked, fields.get("provenance") or {})


class _GradeReader:
    """Reads a `grades:` mapping from events: doc ids as written, grades through a cache of what each text means."""

    def __init__(self, events: _YamlEvents) -> None:
        self.events = events
        self.numbers: dict[str, object] = {}  # plain scalar text -> its YAML value (grades repeat: 0, 1, 2, 3)

    def read(self, event: Any, where: str, line: int) -> tuple[dict[str, float] | None, dict[str, Provenance]]:
        """The grades, and the provenance of those that carry one (see Query.provenance)."""
        events, yaml, path = self.events, self.events.yaml, self.events.path
        if isinstance(event, yaml.ScalarEvent) and event.implicit[0] and event.value in _NULLS:
            return None, {}
        if not isinstance(event, yaml.MappingStartEvent):
            events.skip(event)
            raise RelevanceInputError(path, f"{where}: 'grades' must be a mapping of doc id -> grade", line)
        grades: dict[str, float] = {}
        provenance: dict[str, Provenance] = {}
        numbers, scalar, end, nxt = self.numbers, yaml.ScalarEvent, yaml.MappingEndEvent, events.next
        while not isinstance(key := nxt(), end):
            if not isinstance(key, scalar):
                events.skip(key)
                raise RelevanceInputError(path, f"{where}: a document id must be a plain value", _line(key))
            value = nxt()
            doc = key.value
            if key.tag is not None:  # rare, and read only then: a tag says what the id means
                doc = _as_written(events, key, where, "a document id", nulls=False)
            elif doc == "<<" and key.implicit[0]:
                raise RelevanceInputError(path, f"{where}: {_MERGE_PROBLEM}", _line(key))
            if not doc.strip():
                raise RelevanceInputError(path, f"{where}: a document id is empty", _line(key))
            if value.__class__ is scalar and value.implicit[0] and value.tag is None:
                grade = numbers.get(value.value)
                if grade is None:
                    grade = numbers[value.value] = self.value(value, f"{where}, document {doc!r}")
            elif value.__class__ is yaml.MappingStartEvent:
                grade, provenance[doc] = self.judged(value, f"{where}, document {doc!r}")
            else:
                grade = self.value(value, f"{where}, document {doc!r}")
            if grade.__class__ is not int or not 0 <= grade <= MAX_GRADE:  # the common case costs one test
                grade = _grade(grade, path, f"{where}, document {doc!r}", _line(key))
            if doc in grades:  # the whole file's node tree, only now, to name the first line
                check_duplicate_keys(path, events.tree())
            grades[doc] = grade
        return grades, provenance

    def judged(self, event: Any, where: str) -> tuple[object, Provenance]:
        """A grade with its provenance, `{grade: 2, judge: NAME, source: judge:NAME, date: 2026-01-10, hash: H}`:
        the grade (checked by the caller) and where it came from (`provenance`)."""
        events = self.events
        node = events.compose(event)
        check_duplicate_keys(events.path, node, where)
        value = events.value(node, where)
        return value.get("grade"), provenance(value, events.path, where, _line(event))

    def value(self, event: Any, where: str) -> object:
        if not isinstance(event, self.events.yaml.ScalarEvent):
            self.events.skip(event)
            return f"a {type(event).__name__.removesuffix('StartEvent').lower()}"
        return self.events.value(self.events.compose(event), where)


# ---------------------------------------------------------------- YAML, one query per line


@functools.cache
def _line_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The one-line-per-query form `pool merge` writes, in a subset of YAML whose meaning is plain to see.

    Plain scalars are ASCII words (no indicator, colon or hash), quoted ones have no escape and no line break, and
    grades are decimal numbers: in that subset every scalar means its text, and every grade the number Python reads.
    Keys stay under YAML's 1,024-character limit for simple keys.
    """
    plain = r"[A-Za-z0-9_][A-Za-z0-9_.\-/]*"
    key = r'(?:[A-Za-z0-9_][A-Za-z0-9_.\-/]{0,999}|"[^"\\]{0,998}")'
    scalar = rf"(?:{plain}(?: +[A-Za-z0-9_.\-/]+)*|\"[^\"\\]*\"|'(?:[^']|'')*')"
    grade = r"(?:0|[1-9][0-9]*)(?:\.[0-9]+)?"
    pairs = rf"(?:{key}: +{grade} *(?:, *{key}: +{grade} *)*)?"
    query = re.compile(
        rf" *- +\{{ *id: +({scalar}) *, *text: +({scalar}) *(?:, *stratum: +({scalar}) *)?"
        rf", *grades: +\{{ *({pairs})\}} *\}} *(?: #.*)?"
    )
    top = re.compile(rf"(?:(queries):|version: +({scalar}))(?: *| +#.*)")
    # left to libyaml, rare in judgments: a character it refuses, NEL (a line break to it), LS, PS, tab, CR, BOM
    unusual = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
    return query, re.compile(rf"({key}): +({grade})"), top, unusual


def _unquote(scalar: str) -> str:
    if scalar[0] == '"':
        return scalar[1:-1]
    if scalar[0] == "'":
        return scalar[1:-1].replace("''", "'")
    return scalar


def _one_query_per_line(path: Path, text: str) -> Judgments | None:
    """The judgments when every line of the file is in the form `pool merge` writes; else None, and the YAML
    reader takes the file (so every error, and every construct outside the form, keeps that reader's meaning).

    A large judgment set is mostly grades; libyaml spends half a microsecond on each of their events, and this
    reads a whole line with one regular expression.
    """
    query_line, grade_pair, top_line, unusual = _line_patterns()
    if unusual.search(text):
        return None
    version: str | None = None
    queries: list[Query] = []
    ids: set[str] = set()
    numbers: dict[str, float] = {}
    listing = None  # the list of queries: None before `queries:`, True while its items follow, False after it
    indent = None
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        if not stripped or stripped[0] == "#":
            continue
        if line[0] != " " and line[0] != "-":  # a top-level key
            found = top_line.fullmatch(line)
            if found is None:
                return None
            if found[1]:
                if listing is not None:
                    return None
                listing = True
            else:
                if version is not None or found[2] in _NULLS or not _unquote(found[2]).strip():
                    return None
                version = _unquote(found[2])
                listing = None if listing is None else False
            continue
        found = query_line.fullmatch(line)
        if found is None or not listing or indent not in (None, len(line) - len(stripped)):
            return None
        indent = len(line) - len(stripped)
        qid, query_text, stratum = _unquote(found[1]), _unquote(found[2]), found[3]
        if not qid.strip() or not query_text.strip() or found[2] in _NULLS or qid in ids:
            return None
        ids.add(qid)
        grades: dict[str, float] = {}
        pairs = grade_pair.findall(found[4])
        for doc, value in pairs:
            grade = numbers.get(value)
            if grade is None:
                if len(value) > 32:  # no grade (0..MAX_GRADE) is written so long; int() refuses 4,300 digits
                    return None
                grade = numbers[value] = float(value) if "." in value else int(value)
                if grade > MAX_GRADE:
                    return None
            if doc[0] == '"':
                doc = _unquote(doc)
                if not doc.strip():
                    return None
            grades[doc] = grade
        if len(grades) != len(pairs):
            return None
        if stratum is not None:
            stratum = None if stratum in _NULLS else _unquote(stratum)
            if stratum is not None and (not stratum.strip() or stratum == "all" or reads_as_metric(stratum)):
                return None
        queries.append(Query(qid, query_text, stratum, grades=grades))
    if not queries:
        return None
    return _build(path, version, queries)


# ---------------------------------------------------------------- CSV


def _from_csv(path: Path) -> Judgments:
    try:
        return _read_csv(path)
    except UnicodeDecodeError:
        read_text(path)  # raises the message naming the line
        raise


def _read_csv(path: Path) -> Judgments:
    """One pass of csv.reader; per row only what differs from the row before is looked at twice."""
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv_rows(path, handle)
        header = tuple(next(reader, (1, ()))[1])
        if header not in (CSV_COLUMNS, CSV_COLUMNS + CSV_PROVENANCE):
            raise RelevanceInputError(
                path,
                f"header must be {','.join(CSV_COLUMNS)} (then optionally {','.join(CSV_PROVENANCE)}), found "
                f"{','.join(header)}",
                1,
            )
        queries: dict[str, tuple[str, str, dict[str, float]]] = {}  # qid -> (text, stratum as written, grades)
        provenance: dict[str, dict[str, Provenance]] = {}
        numbers: dict[str, object] = {}  # grade text -> value: grades repeat (0, 1, 2, 3)
        rows = 0
        for line, row in reader:
            if len(row) != len(header):
                raise RelevanceInputError(path, f"expected {len(header)} columns, found {len(row)}", line)
            qid, query, stratum, doc, grade = row[:5]
            qid = qid.strip()
            entry = queries.get(qid)
            if entry is None:
                if not qid:
                    raise RelevanceInputError(path, "empty query_id", line)
                if not query.strip():
                    raise RelevanceInputError(path, f"query {qid!r}: empty query text", line)
                if stratum.strip():
                    _check_stratum(stratum.strip(), path, f"query {qid!r}", line)
                entry = queries[qid] = (query, stratum, {})
            elif (entry[0] != query or entry[1] != stratum) and (
                entry[0].strip() != query.strip() or entry[1].strip() != stratum.strip()
            ):
                raise RelevanceInputError(path, f"query {qid!r}: text or stratum differs from its first row", line)
            doc = doc.strip()
            if not doc:
                continue  # a query row without a document: judged query, no judged documents yet
            value = numbers.get(grade)
            if value is None:
                value = numbers[grade] = _number(grade.strip())
            if value.__class__ is not int or not 0 <= value <= MAX_GRADE:
                value = _grade(value, path, f"query {qid!r}, document {doc!r}", line)
            entry[2][doc] = value
            if len(row) > 5 and any(cell.strip() for cell in row[5:]):
                source, date, digest = (cell.strip() or None for cell in row[5:])  # the header has all three
                where = f"query {qid!r}, document {doc!r}"
                provenance.setdefault(qid, {})[doc] = checked_provenance(source, date, digest, path, where, line)
            rows += 1
    if rows != sum(len(entry[2]) for entry in queries.values()):
        _csv_first_duplicate(path)
    built = [
        Query(q, text.strip(), stratum.strip() or None, {}, grades, provenance.get(q, {}))
        for q, (text, stratum, grades) in queries.items()
    ]
    return _build(path, None, built)


def _csv_first_duplicate(path: Path) -> None:
    """Only walked when the row and grade counts disagree: which row grades a document a second time."""
    with path.open(newline="", encoding="utf-8-sig") as handle:
        rows = csv_rows(path, handle)
        next(rows)
        first: dict[tuple[str, str], int] = {}
        for line, row in rows:
            key = (row[0].strip(), row[3].strip())
            if not key[1]:
                continue
            if key in first:
                raise RelevanceInputError(
                    path,
                    f"query {key[0]!r}: document {key[1]!r} graded twice (first at line {first[key]})",
                    line,
                )
            first[key] = line


def _number(text: str) -> object:
    """A CSV grade as a number; `1_0` stays text (Python's int reads it as 10, no spreadsheet or trec_eval does)."""
    if "_" in text:
        return text
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


# ---------------------------------------------------------------- TREC


def _from_trec(path: Path, topics: Path) -> Judgments:
    from pytest_relevance.judgments.trec import read_qrels

    if not topics.is_file():
        raise RelevanceInputError(topics, "topics file not found; set relevance_topics to its path")
    qrels = read_qrels(path)
    texts: dict[str, tuple[str, str | None]] = {}
    for number, raw in enumerate(read_text(topics).splitlines(), 1):
        if not raw.strip():
            continue
        fields = raw.split("\t")
        if len(fields) not in (2, 3) or not fields[1].strip():
            raise RelevanceInputError(topics, "expected qid<TAB>text[<TAB>stratum]", number)
        qid = fields[0].strip()
        if qid in texts:
            raise RelevanceInputError(topics, f"duplicate query id {qid!r}", number)
        stratum = fields[2].strip() or None if len(fields) == 3 else None
        texts[qid] = (fields[1].strip(), stratum)
        if stratum is not None:
            _check_stratum(stratum, topics, f"query {qid!r}", number)
    queries = []
    for qid, grades in qrels.items():
        if qid not in texts:
            raise RelevanceInputError(topics, f"query {qid!r} is judged in {path} but has no topic here")
        if grades and min(grades.values()) < 0:  # read_qrels checked the rest: whole numbers up to MAX_GRADE
            doc = min(grades, key=grades.__getitem__)
            _grade(grades[doc], path, f"query {qid!r}, document {doc!r}", _qrels_line(path, qid, doc))
        queries.append(Query(qid, texts[qid][0], texts[qid][1], {}, grades))
    return _build(path, None, queries)


def _qrels_line(path: Path, qid: str, doc: str) -> int | None:
    """The line that grades `doc` for `qid`, for a message (the file is only walked line by line on an error)."""
    wanted = [qid.encode(), doc.encode()]
    for number, line in enumerate(path.read_bytes().removeprefix(b"\xef\xbb\xbf").split(b"\n"), 1):
        fields = line.split()
        if fields[0:1] + fields[2:3] == wanted:
            return number
    return None
