"""Synonyms: Solr rule parsing, the synonym graph (SynonymGraphFilter), the legacy stacked form (SynonymFilter)
and flatten_graph.

A rule's phrases are analyzed by the chain before the filter (its tokenizer and per-term filters), as Elasticsearch
does, so `Wi-Fi, wifi` matches whatever the tokenizer makes of `Wi-Fi`. Matching is greedy longest-first; the
graph form puts every alternative path between the same start and end node, so a multi-word synonym has position
length > 1 (what a match query turns into phrase alternatives).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pytest_relevance.engines.embedded.analysis.stream import StreamFilter, Tok

__all__ = ["RuleError", "SynonymTable", "flatten_graph", "parse_solr", "synonym_flat", "synonym_graph"]

Phrase = tuple[str, ...]


class RuleError(ValueError):
    """A synonym rule that cannot be used; `index` is its line (0-based) among the rules."""

    def __init__(self, index: int, problem: str) -> None:
        super().__init__(problem)
        self.index = index


@dataclass
class _Entry:
    outputs: list[Phrase]
    keep_orig: bool
    # the graph of a match, computed once: (start node, end node, piece) by start node, a piece being an output
    # term or the index of an original input token; and the end node
    layout: list[tuple[int, int, str | int]] = field(default_factory=list)
    end: int = 1

    def lay_out(self, size: int) -> None:
        """Every path from node 0 to the end node: each output phrase, then the original (SynonymGraphFilter
        numbers the inner nodes path by path, and emits synonyms before the original at each node)."""
        paths: list[list[str | int]] = [list(p) for p in self.outputs]
        if self.keep_orig:
            paths.append(list(range(size)))
        self.end = sum(len(p) - 1 for p in paths) + 1
        node = 0
        placed = []
        for path in paths:
            prev = 0
            for k, piece in enumerate(path):
                if k < len(path) - 1:
                    node += 1
                    nxt = node
                else:
                    nxt = self.end
                placed.append((prev, nxt, piece))
                prev = nxt
        self.layout = sorted(placed, key=lambda p: p[0])


@dataclass
class SynonymTable:
    """Input phrase -> outputs (deduplicated, in rule order) and whether the original stays."""

    entries: dict[Phrase, _Entry]
    max_len: int
    firsts: frozenset[str]


def _split(text: str, separator: str) -> list[str]:
    """Split on `separator` unless escaped with a backslash; escapes are removed."""
    parts, current, i = [], [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            current.append(text[i + 1])
            i += 2
            continue
        if text.startswith(separator, i):
            parts.append("".join(current))
            current = []
            i += len(separator)
            continue
        current.append(text[i])
        i += 1
    parts.append("".join(current))
    return parts


def parse_solr(lines: Iterable[str], analyzer: object, expand: bool = True, lenient: bool = False) -> SynonymTable:
    """Solr synonym rules (`a, b, c` equivalences, `a, b => c` replacements) into a table of analyzed phrases."""
    entries: dict[Phrase, _Entry] = {}

    def analyze(index: int, phrase: str) -> Phrase | None:
        tokens = analyzer._stream(phrase.strip())[0]  # type: ignore[attr-defined]
        if not tokens:
            if lenient:
                return None
            raise RuleError(index, f"term {phrase.strip()!r} was completely eliminated by the analyzer")
        if any(tok.inc != 1 for tok in tokens[1:]):
            if lenient:
                return None
            raise RuleError(index, f"term {phrase.strip()!r} analyzed to a token with a position increment != 1")
        return tuple(tok.term for tok in tokens)

    def add(source: Phrase | None, target: Phrase | None, keep_orig: bool) -> None:
        if source is None or target is None:
            return
        entry = entries.setdefault(source, _Entry([], False))
        if target not in entry.outputs:
            entry.outputs.append(target)
        entry.keep_orig |= keep_orig

    for index, raw in enumerate(lines):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        sides = _split(line, "=>")
        if len(sides) > 2:
            raise RuleError(index, f"more than one '=>' in {raw!r}")
        if len(sides) == 2:
            sources = [analyze(index, s) for s in _split(sides[0], ",")]
            targets = [analyze(index, t) for t in _split(sides[1], ",")]
            for source in sources:
                for target in targets:
                    add(source, target, False)
            continue
        phrases = [analyze(index, p) for p in _split(line, ",")]
        if expand:
            for i, source in enumerate(phrases):
                for j, target in enumerate(phrases):
                    if i != j:
                        add(source, target, True)
        else:
            for source in phrases:
                add(source, phrases[0], False)
    for phrase, entry in entries.items():
        entry.lay_out(len(phrase))
    return SynonymTable(entries, max((len(p) for p in entries), default=0), frozenset(p[0] for p in entries))


def _match(table: SynonymTable, terms: list[str], i: int) -> tuple[int, _Entry] | None:
    for size in range(min(table.max_len, len(terms) - i), 0, -1):
        entry = table.entries.get(tuple(terms[i : i + size]))
        if entry is not None:
            return size, entry
    return None


def synonym_graph(table: SynonymTable) -> StreamFilter:
    """SynonymGraphFilter: each match becomes paths from one start node to one end node, synonyms before the
    original at each node; synonym tokens carry the offsets of the whole matched input. As in Lucene, a match
    starts right after the token before it: a position gap (a removed stop word) before or inside it is lost."""
    firsts = table.firsts

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        terms = [tok.term for tok in tokens]
        if firsts.isdisjoint(terms):
            return tokens, end_inc
        out: list[Tok] = []
        i, n = 0, len(tokens)
        while i < n:
            tok = tokens[i]
            found = _match(table, terms, i) if tok.term in firsts else None
            if found is None:
                out.append(tok)
                i += 1
                continue
            size, entry = found
            first, last = tok, tokens[i + size - 1]
            previous = 0
            for index, (start, end, piece) in enumerate(entry.layout):
                new = Tok(piece, first.start, last.end, type="SYNONYM") if isinstance(piece, str) else tokens[i + piece]
                new.inc = 1 if index == 0 else start - previous
                new.plen = end - start
                previous = start
                out.append(new)
            i += size  # the last start node is the end node's predecessor: the next token keeps its increment
        return out, end_inc

    def fast(terms: list[str], positions: list[int], last: int) -> tuple[list[str], list[int], int]:
        """The same on bare (term, position) lists: the indexing path, where offsets and lengths do not count.
        `last` is the position of the stream's end (of its last token, removed ones included)."""
        if firsts.isdisjoint(terms):
            return terms, positions, last
        out_terms: list[str] = []
        out_positions: list[int] = []
        shift = 0
        done = 0  # terms before this index are in the output
        for i in [i for i, term in enumerate(terms) if term in firsts]:
            if i < done:
                continue
            found = _match(table, terms, i)
            if found is None:
                continue
            out_terms.extend(terms[done:i])
            out_positions.extend(positions[done:i] if not shift else [p + shift for p in positions[done:i]])
            size, entry = found
            start = out_positions[-1] + 1 if out_positions else 0
            for node, _, piece in entry.layout:
                out_terms.append(piece if isinstance(piece, str) else terms[i + piece])
                out_positions.append(start + node)
            shift = start + entry.end - 1 - positions[i + size - 1]
            done = i + size
        out_terms.extend(terms[done:])
        out_positions.extend(positions[done:] if not shift else [p + shift for p in positions[done:]])
        return out_terms, out_positions, last + shift

    return StreamFilter(run, fast)


def _absolute(tokens: list[Tok]) -> list[int]:
    positions, pos = [], -1
    for tok in tokens:
        pos += tok.inc
        positions.append(pos)
    return positions


def _relative(placed: list[tuple[int, Tok]]) -> list[Tok]:
    last = -1
    out = []
    for pos, tok in placed:
        tok.inc = pos - last
        last = pos
        out.append(tok)
    return out


def synonym_flat(table: SynonymTable) -> StreamFilter:
    """SynonymFilter (the legacy `synonym` type): output word k of every synonym is stacked on the k-th input token
    of the match (after the original), going on over the tokens that follow when a synonym is longer than the match
    (past the last token, on new positions with its offsets). A one-word synonym spans the whole match (position
    length = its size when the original stays); the words of a longer one take the offsets of the token they sit on.
    A match that replaces its input starts right after the token before it (a stop-word gap there is lost)."""

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        terms = [tok.term for tok in tokens]
        if table.max_len == 0 or table.firsts.isdisjoint(terms):
            return tokens, end_inc
        positions = _absolute(tokens)
        n = len(tokens)
        pending: dict[int, list[Tok]] = {}  # token index (n and up: past the end) -> words to stack on it
        placed: list[tuple[int, Tok]] = []
        shift = 0  # positions lost to gaps before replacing matches

        def place(index: int, keep: bool = True) -> None:
            """Token `index` (unless a match replaces it), then what earlier matches stacked on it."""
            tok = tokens[index]
            if keep:
                placed.append((positions[index] + shift, tok))
            for extra in pending.pop(index, ()):
                extra.start, extra.end = tok.start, tok.end
                placed.append((positions[index] + shift, extra))

        i = 0
        while i < n:
            found = _match(table, terms, i) if terms[i] in table.firsts else None
            if found is None:
                place(i)
                i += 1
                continue
            size, entry = found
            first, last = tokens[i], tokens[i + size - 1]
            if not entry.keep_orig:
                before = placed[-1][0] if placed else -1
                shift -= positions[i] + shift - before - 1
            for k in range(size):
                place(i + k, entry.keep_orig)
                for path in entry.outputs:
                    if k < len(path):
                        if len(path) == 1:
                            plen = size if entry.keep_orig else 1
                            new = Tok(path[0], first.start, last.end, plen=plen, type="SYNONYM")
                        else:
                            new = Tok(path[k], tokens[i + k].start, tokens[i + k].end, type="SYNONYM")
                        placed.append((positions[i + k] + shift, new))
            for path in entry.outputs:
                for k in range(size, len(path)):
                    pending.setdefault(i + k, []).append(Tok(path[k], 0, 0, type="SYNONYM"))
            if not entry.keep_orig:  # input positions no output word sits on are gone
                shift -= size - min(size, max(len(path) for path in entry.outputs))
            i += size
        for index in sorted(pending):  # past the last token: new positions, with its offsets
            for extra in pending[index]:
                extra.start, extra.end = tokens[-1].start, tokens[-1].end
                placed.append((positions[-1] + shift + index - n + 1, extra))
        placed.sort(key=lambda p: p[0])
        return _relative(placed), end_inc

    return StreamFilter(run)


def flatten_graph() -> StreamFilter:
    """FlattenGraphFilter: a token graph squashed into a stream an index can hold. Positions are graph nodes; each
    node moves to one step after the furthest (moved) node with an edge into it; a node nothing enters (after a
    removed stop word) moves one step past the node before it, so a gap of any length becomes one position, as in
    Lucene; a token spans the moved nodes of its two ends."""

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        if not tokens:
            return tokens, end_inc
        starts, position = [], -1
        for tok in tokens:
            position += tok.inc
            starts.append(position)
        into: dict[int, list[int]] = {}  # node -> the nodes with an edge into it
        for start, tok in zip(starts, tokens, strict=True):
            into.setdefault(start + tok.plen, []).append(start)
        moved: dict[int, int] = {}
        previous = None
        for node in sorted({*starts, *into}):
            sources = [moved[m] for m in into.get(node, ()) if m in moved]
            if sources:
                moved[node] = max(sources) + 1
            else:
                moved[node] = min(node, 1) if previous is None else moved[previous] + 1
            previous = node
        placed = sorted(
            (
                (moved[start], max(1, moved[start + tok.plen] - moved[start]), tok)
                for start, tok in zip(starts, tokens, strict=True)
            ),
            key=lambda p: p[0],
        )
        # offsets follow the output nodes: a node starts where the latest token leaving it starts (and never before
        # an earlier node), and ends where the earliest token arriving at it ends
        starts_at: dict[int, int] = {}
        ends_at: dict[int, int] = {}
        for start, plen, tok in placed:
            starts_at[start] = max(starts_at.get(start, tok.start), tok.start)
            ends_at[start + plen] = min(ends_at.get(start + plen, tok.end), tok.end)
        floor = 0
        for node in sorted(starts_at):
            floor = starts_at[node] = max(starts_at[node], floor)
        last = -1
        for start, plen, tok in placed:
            tok.inc, tok.plen = start - last, plen
            tok.start, tok.end = starts_at[start], ends_at[start + plen]
            last = start
        return [tok for _, _, tok in placed], end_inc

    return StreamFilter(run)
