"""Known-item expectations: the one query a team cares most about, checked on its own, not hidden in an average.

A judgments YAML file may hold a top-level `expect:` list, one expectation a line::

    expect:
      - {query: q17, doc: d42, rank: 1}       # d42 is ranked first
      - {query: q17, doc: d7, within: 10}     # d7 is in the top 10
      - {query: q3, above: [d1, d9]}          # d1 ranks above d9 (each listed document above the next)
      - {query: q8, doc: d5, absent: true}    # d5 is not in the ranking at all

They are not grades: they leave the judgments' version alone (a baseline stays comparable when one is added), and
they are checked on every run with no baseline (`evaluation.expectations`). Every entry is validated here, each
error naming the file, the line and the key, because an expectation that silently means nothing would pass forever.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_relevance.errors import RelevanceInputError

if TYPE_CHECKING:
    from pytest_relevance.judgments.model import Judgments

#: the kinds of expectation, each the key that says it
KINDS = ("rank", "within", "above", "absent")
KEYS = ("query", "doc", *KINDS)
_FORM = (
    "an expectation is {query: ID, doc: ID, rank: N}, {query: ID, doc: ID, within: N}, "
    "{query: ID, above: [ID, ID, ...]} or {query: ID, doc: ID, absent: true}"
)


@dataclass(frozen=True)
class Expectation:
    """One expectation. `kind` is one of KINDS; `docs` the document (one) or, for `above`, the documents in the
    order they must rank; `n` the rank (rank) or the cut-off (within); `line` where the file says it."""

    query: str
    kind: str
    docs: tuple[str, ...]
    n: int | None = None
    line: int | None = None

    def text(self) -> str:
        """What is expected, as a reader says it: `p0071 at rank 1`, `p0071 within the top 10`..."""
        if self.kind == "rank":
            return f"{self.docs[0]} at rank {self.n}"
        if self.kind == "within":
            return f"{self.docs[0]} within the top {self.n}"
        if self.kind == "above":
            return " above ".join(self.docs)
        return f"{self.docs[0]} absent"


def read_expectations(path: Path, node: Any, queries: Collection[str]) -> tuple[Expectation, ...]:
    """The expectations of an `expect:` node (a composed YAML node), checked against the judged query ids."""
    import yaml

    if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null":
        return ()
    if not isinstance(node, yaml.SequenceNode):
        raise RelevanceInputError(path, f"key 'expect' must be a list of expectations; {_FORM}", _line(node))
    return tuple(_expectation(path, item, index, queries) for index, item in enumerate(node.value))


def _line(node: Any) -> int:
    return int(node.start_mark.line) + 1


def _expectation(path: Path, node: Any, index: int, queries: Collection[str]) -> Expectation:
    import yaml

    where, line = f"expect[{index}]", _line(node)
    if not isinstance(node, yaml.MappingNode):
        raise RelevanceInputError(path, f"{where}: {_FORM}", line)
    fields: dict[str, Any] = {}
    for key, value in node.value:
        name = key.value if isinstance(key, yaml.ScalarNode) else None
        if name not in KEYS:
            raise RelevanceInputError(path, f"{where}: unknown key {name!r}; allowed: {', '.join(KEYS)}", _line(key))
        if name in fields:
            raise RelevanceInputError(path, f"{where}: key {name!r} appears twice", _line(key))
        fields[name] = value
    query = _id(path, fields.get("query"), where, "query", line)
    if query is None:
        raise RelevanceInputError(path, f"{where}: missing 'query' (the id of a judged query)", line)
    if query not in queries:
        raise RelevanceInputError(
            path, f"{where}: query {query!r} is not a judged query of this file; use one of its query ids", line
        )
    where = f"{where} (query {query!r})"
    kinds = [kind for kind in KINDS if kind in fields]
    if len(kinds) != 1:
        said = f"both {kinds[0]!r} and {kinds[1]!r}" if len(kinds) > 1 else "none of rank, within, above, absent"
        raise RelevanceInputError(path, f"{where}: {said}; {_FORM}", line)
    kind = kinds[0]
    value = fields[kind]
    if kind == "above":
        if "doc" in fields:
            raise RelevanceInputError(path, f"{where}: 'above' lists its documents; drop 'doc'", line)
        return Expectation(query, kind, _docs(path, value, where), line=line)
    doc = _id(path, fields.get("doc"), where, "doc", line)
    if doc is None:
        raise RelevanceInputError(path, f"{where}: missing 'doc' (the id of the document expected)", line)
    if kind == "absent":
        if not (isinstance(value, yaml.ScalarNode) and value.tag == "tag:yaml.org,2002:bool" and _true(value)):
            raise RelevanceInputError(
                path, f"{where}: absent must be true (leave the expectation out to expect nothing)", _line(value)
            )
        return Expectation(query, kind, (doc,), line=line)
    return Expectation(query, kind, (doc,), _position(path, value, where, kind), line)


def _true(node: Any) -> bool:
    return node.value.lower() in ("true", "yes", "on", "y")


def _id(path: Path, node: Any, where: str, key: str, line: int) -> str | None:
    """A query or document id as written (`010` stays "010"), as the judgments read their ids."""
    import yaml

    if node is None:
        return None
    if not isinstance(node, yaml.ScalarNode) or not node.value.strip():
        raise RelevanceInputError(path, f"{where}: {key!r} must be one id", _line(node))
    return str(node.value)


def _docs(path: Path, node: Any, where: str) -> tuple[str, ...]:
    import yaml

    if not isinstance(node, yaml.SequenceNode) or len(node.value) < 2:
        raise RelevanceInputError(
            path,
            f"{where}: 'above' must be a list of two or more document ids, each ranked above the next",
            _line(node),
        )
    docs = tuple(_id(path, item, where, "above", _line(item)) or "" for item in node.value)
    if len(set(docs)) != len(docs):
        raise RelevanceInputError(path, f"{where}: 'above' lists a document twice", _line(node))
    return docs


def _position(path: Path, node: Any, where: str, key: str) -> int:
    """A rank or cut-off: a whole number from 1 (ranks are 1-based, as every report prints them)."""
    import yaml

    written = node.value if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:int" else None
    number = int(written) if written is not None and re.fullmatch(r"[+-]?[0-9]+", written) else None
    if number is not None and number < 0:
        raise RelevanceInputError(path, f"{where}: {key} {number} is negative; ranks start at 1", _line(node))
    if number is None or number < 1:
        shown = repr(node.value) if isinstance(node, yaml.ScalarNode) else "a list or mapping"
        raise RelevanceInputError(
            path, f"{where}: {key} {shown} is not a rank; write a whole number from 1 (1 = first)", _line(node)
        )
    return number


def propose(judgments: Judgments, rankings: Sequence[Mapping[str, Sequence[str]]]) -> list[Expectation]:
    """`{query, doc, rank: 1}` for each judged query whose first document in every ranking given is the same one
    and has the judgments' highest grade (3 on a 0-3 scale): what a team would pin first. A query that already
    expects that document anywhere is left out."""
    top = max((grade for query in judgments.queries for grade in query.grades.values()), default=None)
    expected = {(e.query, doc) for e in judgments.expectations for doc in e.docs}
    proposed = []
    for query in judgments.queries:
        firsts = {tuple(ranking.get(query.id) or ())[:1] for ranking in rankings}
        if len(firsts) != 1 or not (first := next(iter(firsts))):
            continue
        doc = first[0]
        if top is not None and query.grades.get(doc) == top and (query.id, doc) not in expected:
            proposed.append(Expectation(query.id, "rank", (doc,), 1))
    return proposed


def yaml_line(expectation: Expectation) -> str:
    """One expectation as the flow mapping `expect:` lists take, ids quoted only where YAML would read them as
    something else than their text."""
    fields = {"query": expectation.query}
    if expectation.kind != "above":
        fields["doc"] = expectation.docs[0]
    parts = [f"{key}: {_scalar(text)}" for key, text in fields.items()]
    if expectation.kind == "absent":
        parts.append("absent: true")
    elif expectation.kind == "above":
        parts.append(f"above: [{', '.join(_scalar(doc) for doc in expectation.docs)}]")
    else:
        parts.append(f"{expectation.kind}: {expectation.n}")
    return "  - {" + ", ".join(parts) + "}"


def _scalar(text: str) -> str:
    """A plain scalar where it reads as its text (our reader keeps `010` as written), else a JSON string, which
    YAML reads as the same text."""
    import json

    return text if re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.\-/]*", text) else json.dumps(text, ensure_ascii=False)
