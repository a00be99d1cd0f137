"""Full-text queries (match, match_phrase, multi_match), built as Elasticsearch builds them with Lucene's QueryBuilder.

A match query becomes a boolean query of one term clause per analyzed token; Lucene merges duplicate tokens into one
clause whose boost is their count, and sums the clauses' float32 scores in double. A phrase is scored once per
document with the phrase frequency (exact: occurrences; sloppy: the sum of 1 / (1 + match length)) and the sum of
its terms' idfs. The score arithmetic itself is `scoring.BM25`.
"""

from __future__ import annotations

import heapq
from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.queries import (
    F32,
    Invalid,
    Scores,
    Unsupported,
    allowed,
    boost_of,
    field_spec,
    minimum_should_match,
    number,
    query,
)
from pytest_relevance.engines.embedded.scoring import idf, idf_sum

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded import EmbeddedIndex

_MATCH_KEYS = {"query", "operator", "boost", "minimum_should_match", "zero_terms_query", "lenient",
               "auto_generate_synonyms_phrase_query"}  # fmt: skip


def term_disjunction(
    index: EmbeddedIndex, field: str, terms: list[str], boost: float, required: int | None, path: str
) -> Scores:
    """A boolean query of one term clause per entry of `terms` (duplicates merged, boosts summed, as Lucene's
    rewrite does); a document matches when it holds at least `required` of the clauses (None: at least one)."""
    n = index.n
    target = index.postings_field(field, path)
    if not terms:
        return Scores.none(n)
    total = np.zeros(n, dtype=np.float64)
    hits = np.zeros(n, dtype=np.int32)
    for term, count in Counter(terms).items():
        postings = target.postings(term)
        if postings is None:
            continue
        weight = target.bm25.weight(float(F32(count) * F32(boost)), idf(postings.doc_freq, target.bm25.doc_count))
        total[postings.docs] += target.bm25.score(weight, postings.freqs, target.norms[postings.docs])
        hits[postings.docs] += count
    matched = hits >= (required or 1)
    return Scores(matched, np.where(matched, total, 0.0).astype(F32))


def match_field(index: EmbeddedIndex, field: str, options: dict[str, Any], path: str, boost: float) -> Scores:
    """One field of a match query (also each field of a multi_match)."""
    if "query" not in options or options["query"] is None:
        raise Invalid(path, "needs 'query' (the text to search for)")
    text = options["query"]
    if isinstance(text, dict | list):
        raise Invalid(f"{path}.query", f"expected text, got {text!r}"[:200])
    operator = str(options.get("operator", "or")).lower()
    if operator not in ("or", "and"):
        raise Invalid(f"{path}.operator", f"{options['operator']!r} is not 'or' or 'and'")
    kind = index.kinds[field]
    if kind not in ("text", "keyword"):
        return index.equal(field, [text], boost, path)
    terms = index.search_terms(field, str(text)) if kind == "text" else [str(text)]
    if not terms:
        if str(options.get("zero_terms_query", "none")).lower() == "all":
            return Scores.constant(np.ones(index.n, dtype=bool), boost)
        return Scores.none(index.n)
    if operator == "and":
        required = len(terms)
    elif "minimum_should_match" in options and len(terms) > 1:
        required = max(minimum_should_match(options["minimum_should_match"], len(terms), path), 1)
    else:
        required = None
    return term_disjunction(index, field, terms, boost, required, path)


@query("match")
def match(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "query")
    allowed(options, _MATCH_KEYS, path)
    return match_field(index, field, options, path, boost_of(options, path, boost))


def phrase(index: EmbeddedIndex, field: str, text: str, slop: int, boost: float, path: str) -> Scores:
    """A phrase query on a text field: documents holding every term at the query's relative positions (within
    `slop` moves), scored with the phrase frequency."""
    terms, positions = index.search_tokens(field, text)
    if not terms:
        return Scores.none(index.n)
    if len(terms) == 1:
        return term_disjunction(index, field, terms, boost, None, path)
    if len(set(positions)) != len(positions):
        raise Unsupported("a phrase whose analysis stacks tokens (synonyms)", path)
    target = index.text[field]
    postings = [target.postings(t) for t in terms]
    if any(p is None for p in postings):
        return Scores.none(index.n)
    candidates = postings[0].docs
    for p in postings[1:]:
        candidates = np.intersect1d(candidates, p.docs, assume_unique=True)
    at = [np.searchsorted(p.docs, candidates) for p in postings]
    freqs = np.zeros(candidates.size, dtype=F32)
    offsets = [pos - positions[0] for pos in positions]
    for i in range(candidates.size):
        lists = [target.positions_of(p, int(idx[i])) for p, idx in zip(postings, at, strict=True)]
        freqs[i] = _exact_freq(lists, offsets) if slop == 0 else _sloppy_freq(lists, offsets, slop)
    keep = freqs > 0
    docs, freqs = candidates[keep], freqs[keep]
    weight = target.bm25.weight(boost, idf_sum([p.doc_freq for p in postings], target.bm25.doc_count))
    matched = np.zeros(index.n, dtype=bool)
    matched[docs] = True
    score = np.zeros(index.n, dtype=F32)
    score[docs] = target.bm25.score(weight, freqs, target.norms[docs])
    return Scores(matched, score)


def _exact_freq(lists: list[np.ndarray], offsets: list[int]) -> float:
    starts = lists[0] - offsets[0]
    for positions, offset in zip(lists[1:], offsets[1:], strict=True):
        starts = np.intersect1d(starts, positions - offset, assume_unique=True)
    return float(starts.size)


def _sloppy_freq(lists: list[np.ndarray], offsets: list[int], slop: int) -> np.float32:
    """Lucene's SloppyPhraseMatcher (terms without repeats): repeatedly take the earliest term, advance it while
    that shortens the match, and count each match of length <= slop as 1 / (1 + length), summed in float32."""
    states = [[int(p[0]) - off, off, order, 1, p] for order, (p, off) in enumerate(zip(lists, offsets, strict=True))]
    end = max(s[0] for s in states)
    heap = [(s[0], s[1], s[2], s) for s in states]
    heapq.heapify(heap)
    freq = F32(0)

    def advance(state: list[Any]) -> bool:
        nonlocal end
        if state[3] >= len(state[4]):
            return False
        state[0] = int(state[4][state[3]]) - state[1]
        state[3] += 1
        end = max(end, state[0])
        return True

    while True:
        state = heapq.heappop(heap)[3]
        length = end - state[0]
        following = heap[0][0]
        found = None
        while advance(state):
            if state[0] > following:
                heapq.heappush(heap, (state[0], state[1], state[2], state))
                if length <= slop:
                    found = length
                    break
                state = heapq.heappop(heap)[3]
                following = heap[0][0]
                length = end - state[0]
            else:
                length = min(length, end - state[0])
        if found is not None:
            freq += F32(1) / (F32(1) + F32(found))
            continue
        if length <= slop:
            freq += F32(1) / (F32(1) + F32(length))
        return freq


@query("match_phrase")
def match_phrase(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "query")
    allowed(options, {"query", "slop", "boost", "analyzer", "zero_terms_query"}, path)
    if options.get("query") is None:
        raise Invalid(path, "needs 'query' (the phrase to search for)")
    slop = number(options, "slop", path, 0)
    if slop < 0 or slop != int(slop):
        raise Invalid(f"{path}.slop", f"{options['slop']!r} is not a whole number >= 0")
    boost = boost_of(options, path, boost)
    if index.kinds[field] != "text":
        return match_field(index, field, {"query": options["query"]}, path, boost)
    return phrase(index, field, str(options["query"]), int(slop), boost, path)


def dis_max(parts: list[Scores], tie: float, n: int) -> Scores:
    """Lucene's DisjunctionMaxScorer: the best clause plus tie x the others (summed in double), cast to float."""
    if not parts:
        return Scores.none(n)
    if len(parts) == 1:
        return parts[0]
    stacked = np.stack([p.score for p in parts]).astype(np.float64)
    best = stacked.max(axis=0)
    others = stacked.sum(axis=0) - best
    matched = np.logical_or.reduce([p.matched for p in parts])
    score = (best + others * float(F32(tie))).astype(F32)
    return Scores(matched, np.where(matched, score, F32(0)))


def field_weights(index: EmbeddedIndex, fields: Any, path: str) -> list[tuple[str, float]]:
    """`["title^3", "description"]` -> [(field, boost)]; a `*` pattern expands over the mapped fields."""
    if isinstance(fields, str):
        fields = [fields]
    if not isinstance(fields, list) or not fields:
        raise Invalid(f"{path}.fields", "needs a list of fields, e.g. ['title^3', 'description']")
    out = []
    for entry in fields:
        name, _, weight = str(entry).partition("^")
        try:
            boost = float(weight) if weight else 1.0
        except ValueError:
            raise Invalid(f"{path}.fields", f"{entry!r}: the boost after ^ is not a number") from None
        if "*" in name:
            import fnmatch

            matches = [f for f in index.kinds if fnmatch.fnmatchcase(f, name) and index.kinds[f] in ("text", "keyword")]
            out.extend((f, boost) for f in matches)
            continue
        index.check_field(name, f"{path}.fields")
        out.append((name, boost))
    return out


@query("multi_match")
def multi_match(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    options = allowed(
        spec, {"query", "fields", "type", "tie_breaker", "operator", "boost", "minimum_should_match", "slop",
               "zero_terms_query", "lenient", "auto_generate_synonyms_phrase_query"}, path
    )  # fmt: skip
    kind = options.get("type", "best_fields")
    if kind not in ("best_fields", "most_fields", "phrase"):
        raise Unsupported(f"multi_match type {kind}", path)
    if options.get("query") is None:
        raise Invalid(path, "needs 'query' (the text to search for)")
    boost = boost_of(options, path, boost)
    tie = number(options, "tie_breaker", path, 1.0 if kind == "most_fields" else 0.0)
    parts = []
    for field, weight in field_weights(index, options.get("fields"), path):
        field_boost = float(F32(weight) * F32(boost))
        if kind == "phrase" and index.kinds[field] == "text":
            slop = int(number(options, "slop", path, 0))
            parts.append(phrase(index, field, str(options["query"]), slop, field_boost, path))
        else:
            per_field = {k: options[k] for k in ("query", "operator", "minimum_should_match", "zero_terms_query")
                         if k in options}  # fmt: skip
            parts.append(match_field(index, field, per_field, path, field_boost))
    return dis_max(parts, tie, index.n)
