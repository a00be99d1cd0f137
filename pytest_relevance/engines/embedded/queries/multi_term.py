"""Queries that expand to many terms of the term dictionary: fuzzy, prefix, wildcard, regexp, and the fuzziness of
match and multi_match.

Fuzzy expansion is Lucene's FuzzyQuery: the first `prefix_length` characters must match, the rest is within
`max_edits` (optimal string alignment when `transpositions`, plain Levenshtein otherwise); each candidate's boost is
1 - edits / min(its length, the term's length); the best `max_expansions` by boost (then term order) are kept and
blended (TopTermsBlendedFreqScoringRewrite): every expansion is scored with the largest document frequency among
them, so a rare misspelling does not outrank the real word. Prefix, wildcard and regexp score the constant boost,
as Elasticsearch's default `constant_score` rewrite does.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.queries import (
    F32,
    Invalid,
    Scores,
    accumulate,
    allowed,
    boost_of,
    field_spec,
    number,
    query,
)
from pytest_relevance.engines.embedded.scoring import idf

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded import EmbeddedIndex
    from pytest_relevance.engines.embedded.index import KeywordField, TextField


def edits_for(fuzziness: Any, term: str, path: str) -> int:
    """Elasticsearch's Fuzziness.asDistance: 0/1/2, or AUTO[:low,high] by the term's length (default 3, 6)."""
    text = str(fuzziness).strip().upper()
    if text.startswith("AUTO"):
        low, high = 3, 6
        if text != "AUTO":
            bounds = text[5:].split(",") if text[4:5] == ":" else []
            try:
                low, high = int(bounds[0]), int(bounds[1])
            except (IndexError, ValueError):
                raise Invalid(f"{path}.fuzziness", f"{fuzziness!r}: expected AUTO or AUTO:low,high") from None
        size = len(term)
        return 0 if size < low else 1 if size < high else 2
    try:
        value = float(text)
    except ValueError:
        raise Invalid(f"{path}.fuzziness", f"{fuzziness!r}: expected 0, 1, 2, AUTO or AUTO:low,high") from None
    if value not in (0, 1, 2):
        raise Invalid(f"{path}.fuzziness", f"{fuzziness!r}: at most 2 edits (0, 1, 2 or AUTO)")
    return int(value)


def fuzzy_expansions(
    target: TextField | KeywordField, term: str, max_edits: int, prefix_length: int, transpositions: bool,
    max_expansions: int,
) -> list[tuple[str, float]]:  # fmt: skip
    """[(term, boost)] as Lucene's FuzzyQuery with TopTermsBlendedFreqScoringRewrite keeps them."""
    key = (term, max_edits, prefix_length, transpositions, max_expansions)
    cache = target.expansions
    if key in cache:
        return cache[key]
    if max_edits == 0:
        found = [(term, 1.0)] if term in target.vocab else []
        cache[key] = found
        return found
    from rapidfuzz import process
    from rapidfuzz.distance import OSA, Levenshtein

    prefix, rest = term[:prefix_length], term[prefix_length:]
    lengths = range(len(term) - max_edits, len(term) + max_edits + 1)  # an edit changes the length by one at most
    if prefix:
        terms = target.sorted_terms
        lo, hi = bisect.bisect_left(terms, prefix), bisect.bisect_left(terms, prefix + "\U0010ffff")
        candidates = [t for t in terms[lo:hi] if len(t) in lengths]
        suffixes = [t[prefix_length:] for t in candidates]
    else:
        by_length = target.terms_by_length
        candidates = suffixes = [t for size in lengths for t in by_length.get(size, ())]
    scorer = OSA.distance if transpositions else Levenshtein.distance
    matches = process.extract(rest, suffixes, scorer=scorer, score_cutoff=max_edits, limit=None)
    scored = []
    for _, edits, at in matches:
        candidate = candidates[at]
        boost = 1.0 if edits == 0 else float(F32(1.0) - F32(edits) / F32(min(len(candidate), len(term))))
        scored.append((-boost, candidate))
    scored.sort()
    found = [(t, -b) for b, t in scored[:max_expansions]]
    cache[key] = found
    return found


def blended(
    index: EmbeddedIndex, field: str, expansions: list[tuple[str, float]], boost: float
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The blended term clauses of one fuzzy query, as (ordinals, float32 scores) parts: each expansion a BM25 term
    clause with its own boost and the largest document frequency of the group."""
    target = index.postings_field(field, "")
    postings = [(target.postings(t), b) for t, b in expansions]
    found = [(p, b) for p, b in postings if p is not None]
    if not found:
        return []
    shared_idf = idf(max(p.doc_freq for p, _ in found), target.bm25.doc_count)
    parts = []
    for p, term_boost in found:
        weight = target.bm25.weight(float(F32(term_boost) * F32(boost)), shared_idf)
        parts.append((p.docs, target.bm25.score(weight, p.freqs, target.norms[p.docs])))
    return parts


def fuzzy_options(options: dict[str, Any], path: str) -> tuple[int, bool, int]:
    prefix_length = number(options, "prefix_length", path, 0)
    max_expansions = number(options, "max_expansions", path, 50)
    if prefix_length < 0 or max_expansions < 1:
        raise Invalid(path, "prefix_length must be >= 0 and max_expansions >= 1")
    transpositions = options.get("fuzzy_transpositions", options.get("transpositions", True))
    return int(prefix_length), bool(transpositions), int(max_expansions)


@query("fuzzy")
def fuzzy(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "value")
    allowed(options, {"value", "fuzziness", "prefix_length", "max_expansions", "transpositions", "boost",
                      "rewrite"}, path)  # fmt: skip
    if options.get("value") is None:
        raise Invalid(path, "needs 'value'")
    term = str(options["value"])
    prefix_length, transpositions, max_expansions = fuzzy_options(options, path)
    edits = edits_for(options.get("fuzziness", "AUTO"), term, path)
    target = index.postings_field(field, path)
    expansions = fuzzy_expansions(target, term, edits, prefix_length, transpositions, max_expansions)
    docs, total, _ = accumulate(index, [(blended(index, field, expansions, boost_of(options, path, boost)), 1)])
    return Scores.of(index.n, docs, total.astype(F32))


def _matching(index: EmbeddedIndex, field: str, path: str, accept: Any, prefix: str = "") -> np.ndarray:
    """Documents holding any term that starts with `prefix` and passes `accept`."""
    target = index.postings_field(field, path)
    terms = target.sorted_terms
    lo = bisect.bisect_left(terms, prefix)
    hi = bisect.bisect_left(terms, prefix + "\U0010ffff") if prefix else len(terms)
    matched = np.zeros(index.n, dtype=bool)
    for term in terms[lo:hi]:
        if accept is None or accept(term):
            postings = target.postings(term)
            if postings is not None:
                matched[postings.docs] = True
    return matched


def _case(options: dict[str, Any], value: str) -> tuple[str, int]:
    return (value.lower(), re.IGNORECASE) if options.get("case_insensitive") else (value, 0)


@query("prefix")
def prefix(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "value")
    allowed(options, {"value", "boost", "rewrite", "case_insensitive"}, path)
    if options.get("value") is None:
        raise Invalid(path, "needs 'value'")
    value, flags = _case(options, str(options["value"]))
    if flags:
        matched = _matching(index, field, path, lambda t: t.lower().startswith(value))
    else:
        matched = _matching(index, field, path, None, value)
    return Scores.constant(matched, boost_of(options, path, boost))


def wildcard_regex(pattern: str) -> str:
    """Lucene's wildcard syntax: `*` any run, `?` one character, `\\` escapes."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if char == "*" else "." if char == "?" else re.escape(char))
        i += 1
    return "".join(out)


def literal_prefix(pattern: str) -> str:
    match = re.match(r"[^*?\\]*", pattern)
    return match.group(0) if match else ""


@query("wildcard")
def wildcard(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "value")
    allowed(options, {"value", "wildcard", "boost", "rewrite", "case_insensitive"}, path)
    pattern = options.get("value", options.get("wildcard"))
    if pattern is None:
        raise Invalid(path, "needs 'value' (a pattern with * and ?)")
    pattern, flags = _case(options, str(pattern))
    compiled = re.compile(wildcard_regex(pattern), re.DOTALL | flags)
    start = "" if flags else literal_prefix(pattern)
    matched = _matching(index, field, path, lambda t: compiled.fullmatch(t) is not None, start)
    return Scores.constant(matched, boost_of(options, path, boost))


@query("regexp")
def regexp(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "value")
    allowed(options, {"value", "flags", "boost", "rewrite", "case_insensitive", "max_determinized_states"}, path)
    if options.get("value") is None:
        raise Invalid(path, "needs 'value' (a regular expression)")
    value, flags = _case(options, str(options["value"]))
    try:
        compiled = re.compile(value, re.DOTALL | flags)
    except re.error as exc:
        raise Invalid(f"{path}.value", f"{value!r} is not a regular expression this engine reads ({exc})") from None
    matched = _matching(index, field, path, lambda t: compiled.fullmatch(t) is not None)
    return Scores.constant(matched, boost_of(options, path, boost))
