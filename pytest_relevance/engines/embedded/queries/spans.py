"""Span queries as Elasticsearch builds them into Lucene 9's spans, and SpanScorer's score.

Each builder makes a node; `_spans` gives a node's matches in one document as Lucene's Spans yields them, in order:
(start, end, width) triples, each Spans class ported step for step on its children's lists (a Spans only ever
moves forward, so walking a child's list with a cursor is walking the child). SpanScorer sums 1 / (1 + width)
over the matches into its float frequency, and scores it with BM25 over the query's terms: idf summed over them in
term order (SpanWeight's TreeMap), the collection statistics and norms of the query's field (the masked field under
`field_masking_span`). span_not's exclude and the terms it holds do not count; span_multi's expansions do, each
a term of its span or.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.java import F32
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unsupported
from pytest_relevance.engines.embedded.queries.multi_term import expanded_terms
from pytest_relevance.engines.embedded.queries.options import allowed, boost_of, number
from pytest_relevance.engines.embedded.queries.registry import query
from pytest_relevance.engines.embedded.recorder import RECORDING
from pytest_relevance.engines.embedded.scores import Scores
from pytest_relevance.engines.embedded.scoring import idf

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex

NO_MORE = 2**31 - 1
Span = tuple[int, int, int]  # start, end, width

_KINDS = ("span_term", "span_multi", "span_or", "span_near", "span_first", "span_not", "span_containing", "span_within",
          "field_masking_span", "span_field_masking")  # fmt: skip


class _Reader:
    """One query's view of the index: each term's postings read once, the field the query reports."""

    def __init__(self, index: EmbeddedIndex) -> None:
        self.index = index
        self.postings: dict[tuple[str, str], Any] = {}

    def term(self, field: str, term: str) -> Any:
        key = (field, term)
        if key not in self.postings:
            target = self.index.text.get(field)
            self.postings[key] = None if target is None else target.postings(term)
        return self.postings[key]


def _clause(index: EmbeddedIndex, node: Any, path: str, top: bool = False) -> tuple:
    """A span query node: (kind, field, ...) as Lucene's span query classes hold them."""
    if not isinstance(node, dict) or len(node) != 1:
        raise Invalid(path, f"a span clause is a mapping with one span query, e.g. {{span_term: ...}}; got {node!r}")
    ((name, spec),) = node.items()
    where = f"{path}.{name}"
    if name == "span_gap":
        raise Unsupported(name, where)
    if name not in _KINDS:
        raise Invalid(where, f"[{name}] is not a span query; span clauses take span_term, span_near, span_or, ...")
    boosted = [spec, *(v for v in spec.values() if isinstance(v, dict))] if isinstance(spec, dict) else []
    if not top and any(number(options, "boost", where, 1.0) != 1.0 for options in boosted):
        raise Invalid(
            f"{where}.boost", f"[{name}] as a nested span clause can't have non-default boost value, as Elasticsearch"
        )
    if name == "span_term":
        return _term(index, spec, where)
    if name == "span_multi":
        return _multi(index, spec, where)
    if name == "span_or":
        options = allowed(spec, {"clauses", "boost"}, where, every="span_or")
        clauses = _clauses(index, options, where)
        return ("or", _same_field(clauses, where), clauses)
    if name == "span_near":
        options = allowed(spec, {"clauses", "slop", "in_order", "boost"}, where, every="span_near")
        if "slop" not in options:
            raise Invalid(where, "[span_near] must include [slop]")
        slop = int(number(options, "slop", where))
        in_order = options.get("in_order", True)
        if not isinstance(in_order, bool):
            raise Invalid(f"{where}.in_order", "expected true or false")
        clauses = _clauses(index, options, where)
        return ("near", _same_field(clauses, where), clauses, slop, in_order)
    if name == "span_first":
        options = allowed(spec, {"match", "end", "boost"}, where, every="span_first")
        if "match" not in options:
            raise Invalid(where, "span_first must have [match] span query clause")
        if "end" not in options:
            raise Invalid(where, "span_first must have [end] set for it")
        inner = _clause(index, options["match"], f"{where}.match")
        return ("first", inner[1], inner, int(number(options, "end", where)))
    if name == "span_not":
        options = allowed(spec, {"include", "exclude", "pre", "post", "dist", "boost"}, where, every="span_not")
        for key in ("include", "exclude"):
            if key not in options:
                raise Invalid(where, f"span_not must have [{key}] span query clause")
        if "dist" in options and ("pre" in options or "post" in options):
            raise Invalid(where, "span_not can either use [dist] or [pre] & [post] (or none)")
        include = _clause(index, options["include"], f"{where}.include")
        exclude = _clause(index, options["exclude"], f"{where}.exclude")
        _same_field([include, exclude], where)
        pre = int(number(options, "dist" if "dist" in options else "pre", where, 0))
        post = int(number(options, "dist" if "dist" in options else "post", where, 0))
        if pre < 0 or post < 0:
            raise Invalid(where, "span_not's pre, post and dist must not be negative (Lucene refuses them)")
        return ("not", include[1], include, exclude, pre, post)
    if name in ("span_containing", "span_within"):
        options = allowed(spec, {"big", "little", "boost"}, where, every=name)
        for key in ("big", "little"):
            if key not in options:
                raise Invalid(where, f"{name} must include [{key}]")
        big = _clause(index, options["big"], f"{where}.big")
        little = _clause(index, options["little"], f"{where}.little")
        _same_field([big, little], where)
        return ("containing" if name == "span_containing" else "within", big[1], big, little)
    # FieldMaskingSpanQueryBuilder's refusals name it by its preferred name, whichever name the template uses
    options = allowed(spec, {"query", "field", "boost"}, where, every="span_field_masking")
    if not isinstance(options.get("field"), str) or "query" not in options:
        raise Invalid(where, f"{name} needs [query] and [field]")
    inner = _clause(index, options["query"], f"{where}.query")
    return ("mask", options["field"], inner)


def _term(index: EmbeddedIndex, spec: Any, where: str) -> tuple:
    if not isinstance(spec, dict) or len(spec) - ("boost" in spec) - ("_name" in spec) != 1:
        raise Invalid(where, "span_term takes one field, e.g. {body: 'word'} or {body: {value: 'word'}}")
    field = next(k for k in spec if k not in ("boost", "_name"))
    value = spec[field]
    if isinstance(value, dict):
        value = allowed(value, {"value", "term", "boost"}, f"{where}.{field}", every="span_term")
        value = value.get("value", value.get("term"))
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise Invalid(f"{where}.{field}", "span_term needs a value")
    kind = index.kinds.get(field)
    if kind is not None and kind != "text":
        raise Invalid(where, "Span term query requires a field of type text/keyword with positions, as Elasticsearch")
    target = index.text.get(field)
    if target is not None and not target.has_positions:
        raise Invalid(where, f"field {field!r} was indexed without position data; a span query needs positions")
    return ("term", field, str(value))


def _multi(index: EmbeddedIndex, spec: Any, where: str) -> tuple:
    """SpanMultiTermQueryWrapper with Elasticsearch's rewrite (TopTermSpanBooleanQueryRewriteWithMaxClause): a span
    or of every term the prefix, wildcard or regexp matches."""
    options = allowed(spec, {"match", "boost"}, where, every="span_multi")
    if "match" not in options:
        raise Invalid(where, "[span_multi] must have [match] multi term query clause")
    field, terms, boost = expanded_terms(index, options["match"], f"{where}.match")
    if boost != 1.0:
        raise Unsupported("a boost on the query inside span_multi", f"{where}.match")
    _term(index, {field: "x"}, where)  # the field must hold positions
    return ("or", field, [("term", field, term) for term in terms])


def _clauses(index: EmbeddedIndex, options: dict, where: str) -> list[tuple]:
    clauses = options.get("clauses")
    if not isinstance(clauses, list) or not clauses:
        raise Invalid(f"{where}.clauses", "needs at least one span clause")
    return [_clause(index, c, f"{where}.clauses[{i}]") for i, c in enumerate(clauses)]


def _same_field(clauses: list[tuple], where: str) -> str:
    fields = {c[1] for c in clauses}
    if len(fields) > 1:
        raise Invalid(where, f"Clauses must have same field (here {sorted(fields)}), as Lucene requires")
    return clauses[0][1]


def _terms(node: tuple, out: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """SpanWeight's term states: every term, but not span_not's exclude's."""
    kind = node[0]
    if kind == "term":
        out.add((node[1], node[2]))
    elif kind in ("or", "near"):
        for child in node[2]:
            _terms(child, out)
    elif kind in ("first", "not", "mask"):
        _terms(node[2], out)
    else:
        _terms(node[2], out)
        _terms(node[3], out)
    return out


def _docs(node: tuple, reader: _Reader) -> np.ndarray:
    """Documents that may match (the approximation): a term's, an or's union, a conjunction's intersection."""
    kind = node[0]
    if kind == "term":
        found = reader.term(node[1], node[2])
        return found.docs if found is not None else np.empty(0, dtype=np.int64)
    if kind == "or":
        return np.unique(np.concatenate([np.empty(0, dtype=np.int64), *(_docs(c, reader) for c in node[2])]))
    if kind in ("first", "not", "mask"):
        return _docs(node[2], reader)
    children = node[2] if kind == "near" else [node[2], node[3]]
    result = _docs(children[0], reader)
    for child in children[1:]:
        result = np.intersect1d(result, _docs(child, reader), assume_unique=True)
    return result


def _spans(node: tuple, doc: int, reader: _Reader) -> list[Span]:
    kind = node[0]
    if kind == "term":
        found = reader.term(node[1], node[2])
        if found is None:
            return []
        at = int(np.searchsorted(found.docs, doc))
        if at >= found.docs.size or found.docs[at] != doc:
            return []
        return [(p, p + 1, 0) for p in reader.index.text[node[1]].positions_of(found, at).tolist()]
    if kind == "or":  # SpanOrQuery's queue by (start, end)
        return list(heapq.merge(*(_spans(c, doc, reader) for c in node[2]), key=lambda s: (s[0], s[1])))
    if kind == "mask":
        return _spans(node[2], doc, reader)
    if kind == "first":  # SpanFirstQuery.acceptPosition
        out = []
        for span in _spans(node[2], doc, reader):
            if span[0] >= node[3]:
                break
            if span[1] <= node[3]:
                out.append(span)
        return out
    if kind == "not":
        return _not(_spans(node[2], doc, reader), _spans(node[3], doc, reader), node[4], node[5])
    if kind == "near":
        subs = [_spans(c, doc, reader) for c in node[2]]
        if any(not s for s in subs):
            return []
        return _ordered(subs, node[3]) if node[4] else _unordered(subs, node[3])
    big, little = _spans(node[2], doc, reader), _spans(node[3], doc, reader)
    if not big or not little:
        return []
    return _containing(big, little) if kind == "containing" else _within(big, little)


class _Cursor:
    """A child Spans in one document: unpositioned (-1) until the first next, NO_MORE once exhausted."""

    __slots__ = ("at", "spans")

    def __init__(self, spans: list[Span]) -> None:
        self.spans, self.at = spans, -1

    def next(self) -> int:
        self.at += 1
        return self.start()

    def start(self) -> int:
        return -1 if self.at < 0 else self.spans[self.at][0] if self.at < len(self.spans) else NO_MORE

    def end(self) -> int:
        return -1 if self.at < 0 else self.spans[self.at][1] if self.at < len(self.spans) else NO_MORE

    def width(self) -> int:
        return self.spans[self.at][2]


def _ordered(subs: list[list[Span]], slop: int) -> list[Span]:
    """NearSpansOrdered: the first sub-span moves one step at a time, each next one to the end of the one before
    (stretchToOrder); a match is the spans in order with at most `slop` positions between them."""
    cursors = [_Cursor(s) for s in subs]
    out: list[Span] = []
    while cursors[0].next() != NO_MORE:
        previous, width = cursors[0], 0
        for cursor in cursors[1:]:
            while cursor.start() < previous.end():
                cursor.next()
            if cursor.start() == NO_MORE:
                return out
            width += cursor.start() - previous.end()
            previous = cursor
        if width <= slop:
            out.append((cursors[0].start(), cursors[-1].end(), width))
    return out


class _Window:
    """Lucene's PriorityQueue of sub-spans by (start, end), with its exact sift steps (ties keep heap order)."""

    def __init__(self, cursors: list[_Cursor]) -> None:
        self.heap: list[_Cursor] = []
        for cursor in cursors:
            self.heap.append(cursor)
            self._up(len(self.heap) - 1)

    @staticmethod
    def _less(a: _Cursor, b: _Cursor) -> bool:
        return a.end() < b.end() if a.start() == b.start() else a.start() < b.start()

    def _up(self, i: int) -> None:
        heap, node = self.heap, self.heap[i]
        while i > 0 and self._less(node, heap[(i - 1) // 2]):
            heap[i] = heap[(i - 1) // 2]
            i = (i - 1) // 2
        heap[i] = node

    def update_top(self) -> None:
        heap, i, size = self.heap, 0, len(self.heap)
        node = heap[0]
        child = 1
        if child + 1 < size and self._less(heap[child + 1], heap[child]):
            child += 1
        while child < size and self._less(heap[child], node):
            heap[i] = heap[child]
            i = child
            child = 2 * i + 1
            if child + 1 < size and self._less(heap[child + 1], heap[child]):
                child += 1
        heap[i] = node


def _unordered(subs: list[list[Span]], slop: int) -> list[Span]:
    """NearSpansUnordered: a window of one span per clause, the earliest advanced each step; a match when the
    window's stretch less the spans' total length is at most `slop`, its width the whole stretch (so an unordered
    match of adjacent terms has width 2, not 0). The window's end only grows (maxEndPosition)."""
    cursors = [_Cursor(s) for s in subs]
    for cursor in cursors:
        cursor.next()
    window = _Window(cursors)
    total = sum(c.end() - c.start() for c in cursors)
    max_end = max(c.end() for c in cursors)
    out: list[Span] = []
    while True:
        top = window.heap[0]
        if max_end - top.start() - total <= slop:  # atMatch; width() is the stretch itself
            out.append((top.start(), max_end, max_end - top.start()))
        length = top.end() - top.start()
        if top.next() == NO_MORE:
            return out
        total += top.end() - top.start() - length
        max_end = max(max_end, top.end())
        window.update_top()


def _not(include: list[Span], exclude: list[Span], pre: int, post: int) -> list[Span]:
    """SpanNotQuery's accept: an include span stays unless an exclude span ends after its start - pre and starts
    before its end + post."""
    if not exclude:
        return include
    ex = _Cursor(exclude)
    ex.next()
    out = []
    for span in include:
        while ex.end() <= span[0] - pre:
            if ex.next() == NO_MORE:
                break
        if ex.start() == NO_MORE or ex.start() - post >= span[1]:
            out.append(span)
    return out


def _containing(big: list[Span], little: list[Span]) -> list[Span]:
    """SpanContainingQuery: the big spans that hold a little span (each little span only moves forward)."""
    lit, out = _Cursor(little), list[Span]()
    for span in big:
        while lit.start() < span[0]:
            if lit.next() == NO_MORE:
                return out
        if span[1] >= lit.end():
            out.append(span)
    return out


def _within(big: list[Span], little: list[Span]) -> list[Span]:
    """SpanWithinQuery: the little spans inside a big span."""
    cur, out = _Cursor(big), list[Span]()
    for span in little:
        while cur.end() < span[1]:
            if cur.next() == NO_MORE:
                return out
        if cur.start() <= span[0]:
            out.append(span)
    return out


def _span_query(index: EmbeddedIndex, name: str, spec: Any, path: str, boost: float) -> Scores:
    node = _clause(index, {name: spec}, path.rsplit(".", 1)[0], top=True)
    if name == "span_term":
        inner = spec[node[1]]
        if isinstance(inner, dict):
            boost = boost_of(inner, f"{path}.{node[1]}", boost)
    else:
        boost = boost_of(spec, path, boost)
    field = node[1]
    target = index.text.get(field)
    reader = _Reader(index)
    candidates = _docs(node, reader)
    if target is None or candidates.size == 0:
        return Scores.none(index.n)
    docs, freqs = [], []
    for doc in candidates.tolist():
        freq = F32(0)
        for _, _, width in _spans(node, doc, reader):
            freq = F32(float(freq) + 1.0 / (1.0 + width))  # SpanScorer: float freq += double
        if freq > 0:
            docs.append(doc)
            freqs.append(freq)
    total, doc_freqs = 0.0, [0]
    terms = sorted(_terms(node, set()), key=lambda t: (t[0], t[1].encode()))
    for term_field, term in terms:
        found = reader.term(term_field, term)
        if found is not None:
            total += float(idf(found.doc_freq, target.bm25.doc_count))
            doc_freqs.append(found.doc_freq)
    matched, frequencies = np.array(docs, dtype=np.int64), np.array(freqs, dtype=F32)
    span_idf = F32(total)
    scores = target.bm25.score(target.bm25.weight(boost, span_idf), frequencies, target.norms[matched])
    recorder = RECORDING.get()
    if recorder is not None:
        text = "span " + " ".join(term for _, term in terms)
        recorder.bm25(f"{path}[{field}:{text}]", field, text, target, boost, max(doc_freqs), span_idf, matched,
                      frequencies, scores)  # fmt: skip
    return Scores.of(index.n, matched, scores)


def _register(name: str) -> None:
    @query(name)
    def handler(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
        return _span_query(index, name, spec, path, boost)


for _name in _KINDS:
    _register(_name)
