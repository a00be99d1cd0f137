"""Queries that expand to many terms of the term dictionary: fuzzy, prefix, wildcard, regexp, and the fuzziness of
match and multi_match.

Fuzzy expansion is Lucene's FuzzyQuery: the first `prefix_length` characters must match, the rest is within
`max_edits` (optimal string alignment when `transpositions`, plain Levenshtein otherwise); each candidate's boost is
1 - edits / min(its length, the term's length); the best `max_expansions` by boost (then term order) are kept and
blended (TopTermsBlendedFreqScoringRewrite): every expansion is scored with the largest document frequency among
them, so a rare misspelling does not outrank the real word. Prefix, wildcard and regexp score the constant boost,
as Elasticsearch's default `constant_score` rewrite does. A `rewrite` (`fuzzy_rewrite` in match and query_string)
picks another of Lucene's rewrite methods, as Elasticsearch's QueryParsers.parseRewriteMethod maps the names.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np

from pytest_relevance.engines.embedded.cost import tally
from pytest_relevance.engines.embedded.java import F32, utf16_length
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unsupported
from pytest_relevance.engines.embedded.queries.options import (
    ASCII_LOWER,
    allowed,
    boost_of,
    field_spec,
    last_of,
    number,
)
from pytest_relevance.engines.embedded.queries.registry import query
from pytest_relevance.engines.embedded.recorder import RECORDING
from pytest_relevance.engines.embedded.scores import Scores, accumulate
from pytest_relevance.engines.embedded.scoring import idf

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex
    from pytest_relevance.engines.embedded.index import KeywordField, Postings, TextField


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
    if key not in cache:
        cache[key] = _fuzzy_expansions(target, term, max_edits, prefix_length, transpositions, max_expansions)
    tally("expansions", len(cache[key]))
    return cache[key]


def _fuzzy_expansions(
    target: TextField | KeywordField, term: str, max_edits: int, prefix_length: int, transpositions: bool,
    max_expansions: int,
) -> list[tuple[str, float]]:  # fmt: skip
    if max_edits == 0:
        return [(term, 1.0)] if term in target.vocab else []
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
    return [(t, -b) for b, t in scored[:max_expansions]]


def blended(
    index: EmbeddedIndex, field: str, expansions: list[tuple[str, float]], boost: float, path: str
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The blended term clauses of one fuzzy query, as (ordinals, float32 scores) parts: each expansion a BM25 term
    clause with its own boost and the largest document frequency of the group."""
    target = index.postings_field(field, "")
    postings = [(t, target.postings(t), b) for t, b in expansions]
    found = [(t, p, b) for t, p, b in postings if p is not None]
    if not found:
        return []
    shared = max(p.doc_freq for _, p, _ in found)
    recorder = RECORDING.get()
    return [
        (p.docs, term_scores(target, field, term, p, float(F32(term_boost) * F32(boost)), shared, recorder, path))
        for term, p, term_boost in found
    ]


class Rewrite(NamedTuple):
    """A MultiTermQuery rewrite method: how the terms a prefix, wildcard, regexp or fuzzy query expands to score.
    `constant`: the boost (CONSTANT_SCORE_REWRITE and CONSTANT_SCORE_BOOLEAN_REWRITE); `scoring`: a BM25 term
    clause per term with its own statistics, boosted by the term's boost (SCORING_BOOLEAN_REWRITE and
    TopTermsScoringBooleanQueryRewrite); `boost`: each term scores its boost (TopTermsBoostOnlyBooleanQueryRewrite);
    `blended`: BM25 term clauses sharing the largest document frequency (TopTermsBlendedFreqScoringRewrite, the
    fuzzy default). `size`: the top terms kept (by boost, then term order), None for all of them."""

    kind: str
    size: int | None = None


CONSTANT = Rewrite("constant")
_TOP_TERMS = {"top_terms_": "scoring", "top_terms_boost_": "boost", "top_terms_blended_freqs_": "blended"}


def parse_rewrite(options: dict[str, Any], key: str, path: str, default: Rewrite) -> Rewrite:
    """Elasticsearch's QueryParsers.parseRewriteMethod of `options[key]` (`rewrite`, or `fuzzy_rewrite`): the
    names it knows, `top_terms_N` and its kin split at the first digit; any other is its error."""
    value = options.get(key)
    if value is None:
        return default
    text = str(value)
    if text in ("constant_score", "constant_score_boolean"):
        return CONSTANT
    if text == "scoring_boolean":
        return Rewrite("scoring")
    digit = next((i for i, char in enumerate(text) if char.isdigit()), -1)
    if digit >= 0 and text[:digit] in _TOP_TERMS and text[digit:].isdigit():
        return Rewrite(_TOP_TERMS[text[:digit]], int(text[digit:]))
    raise Invalid(f"{path}.{key}", f"Failed to parse rewrite_method [{value}]")


def fuzzy_options(options: dict[str, Any], path: str) -> tuple[int, bool, int]:
    """prefix_length, transpositions, max_expansions of a fuzzy expansion."""
    prefix_length = number(options, "prefix_length", path, 0)
    max_expansions = number(options, "max_expansions", path, 50)
    if prefix_length < 0 or max_expansions < 1:
        raise Invalid(path, "prefix_length must be >= 0 and max_expansions >= 1")
    transpositions = options.get("fuzzy_transpositions", options.get("transpositions", True))
    return int(prefix_length), bool(transpositions), int(max_expansions)


def fuzzy_rewrite(options: dict[str, Any], key: str, path: str, max_expansions: int) -> Rewrite:
    """A fuzzy query's rewrite: FuzzyQuery's own default (the blended top `max_expansions` terms) unless
    `options[key]` names another; then max_expansions no longer bounds the terms, as in Lucene."""
    return parse_rewrite(options, key, path, Rewrite("blended", max_expansions))


def top_terms(expansions: list[tuple[str, float]], size: int | None) -> list[tuple[str, float]]:
    """TopTermsRewrite's queue: the `size` best terms by boost, ties to the smaller term (all when None)."""
    if size is None:
        return expansions
    return sorted(expansions, key=lambda e: (-e[1], e[0]))[:size]


def term_scores(
    target: Any, field: str, term: str, postings: Any, boost: float, doc_freq: int, recorder: Any, path: str
) -> np.ndarray:
    """A TermQuery's BM25 scores over its postings (float32), with `doc_freq` as its statistics say (a blended
    rewrite's, a cross_fields blend's, or its own); noted for its explanation when one is recorded."""
    term_idf = idf(doc_freq, target.bm25.doc_count)
    scores = target.bm25.score(target.bm25.weight(boost, term_idf), postings.freqs, target.norms[postings.docs])
    if recorder is not None:
        recorder.bm25(f"{path}[{field}:{term}]", field, term, target, boost, doc_freq, term_idf, postings.docs,
                      postings.freqs, scores)  # fmt: skip
    return scores


def rewritten_parts(
    index: EmbeddedIndex, field: str, expansions: list[tuple[str, float]], kind: str, boost: float, path: str
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The term clauses of a scoring rewrite (`scoring`, `boost` or `blended`), as (ordinals, float32 scores)."""
    if kind == "blended":
        return blended(index, field, expansions, boost, path)
    target = index.postings_field(field, path)
    recorder = RECORDING.get()
    parts = []
    for term, term_boost in expansions:
        postings = target.postings(term)
        if postings is None:
            continue
        clause_boost = float(F32(term_boost) * F32(boost))
        if kind == "boost":  # BoostQuery(ConstantScoreQuery(TermQuery))
            parts.append((postings.docs, np.full(postings.docs.size, F32(clause_boost), dtype=F32)))
            continue
        scores = term_scores(target, field, term, postings, clause_boost, postings.doc_freq, recorder, path)
        parts.append((postings.docs, scores))
    return parts


def rewritten(
    index: EmbeddedIndex, field: str, expansions: list[tuple[str, float]], rewrite: Rewrite, boost: float, path: str
) -> Scores:
    """A multi-term query's terms (with their boosts: a fuzzy term's similarity, else 1) scored by its rewrite."""
    kept = top_terms(expansions, rewrite.size)
    if rewrite.kind == "constant":
        target = index.postings_field(field, path)
        matched = np.zeros(index.n, dtype=bool)
        for term, _ in kept:
            postings = target.postings(term)
            if postings is not None:
                matched[postings.docs] = True
        return Scores.constant(matched, boost)
    docs, total, _ = accumulate(index, [(rewritten_parts(index, field, kept, rewrite.kind, boost, path), 1)])
    return Scores.of(index.n, docs, total.astype(F32))


ALL_TERMS = 2**31 - 1


@query("fuzzy")
def fuzzy(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "value")
    allowed(options, {"value", "term", "fuzziness", "prefix_length", "max_expansions", "transpositions", "boost",
                      "rewrite"}, path, every="fuzzy")  # fmt: skip
    options = last_of(options, "value", ("term", "value"))
    if options.get("value") is None:
        raise Invalid(path, "needs 'value'")
    term = searched_value(index, field, str(options["value"]))
    prefix_length, transpositions, max_expansions = fuzzy_options(options, path)
    rewrite = fuzzy_rewrite(options, "rewrite", path, max_expansions)
    edits = edits_for(options.get("fuzziness", "AUTO"), term, path)
    target = index.postings_field(field, path)
    limit = ALL_TERMS if rewrite.size is None else rewrite.size
    expansions = fuzzy_expansions(target, term, edits, prefix_length, transpositions, limit)
    return rewritten(index, field, expansions, rewrite, boost_of(options, path, boost), path)


def _matching(index: EmbeddedIndex, field: str, path: str, accept: Any, prefix: str = "") -> list[tuple[str, float]]:
    """The terms (in term order, each with boost 1) that start with `prefix` and pass `accept`."""
    return [(term, 1.0) for term in _terms(index.postings_field(field, path), accept, prefix)]


def _terms(target: Any, accept: Any, prefix: str) -> list[str]:
    """The field's terms that start with `prefix` and pass `accept`, in term order."""
    terms = target.sorted_terms
    lo = bisect.bisect_left(terms, prefix)
    hi = bisect.bisect_left(terms, prefix + "\U0010ffff") if prefix else len(terms)
    found = [term for term in terms[lo:hi] if accept is None or accept(term)]
    tally("expansions", len(found))
    return found


def expanded_terms(index: EmbeddedIndex, node: Any, path: str) -> tuple[str, list[str], float]:
    """What a prefix, wildcard or regexp query `{kind: spec}` expands to: its field, the terms it matches (term
    order) and its own boost; for span_multi, which wraps them as a span or (SpanMultiTermQueryWrapper)."""
    if not isinstance(node, dict) or len(node) != 1:
        raise Invalid(path, "expected one multi-term query, e.g. {prefix: {body: ...}}")
    ((kind, spec),) = node.items()
    where = f"{path}.{kind}"
    if kind not in _EXPANSIONS:
        raise Unsupported(f"span_multi of {kind}", where)
    field, options, accept, prefix = _EXPANSIONS[kind](index, spec, where)
    return field, _terms(index.postings_field(field, where), accept, prefix), boost_of(options, where, 1.0)


def searched_value(index: EmbeddedIndex, field: str, value: str) -> str:
    """The term a prefix, fuzzy or regexp query looks for: on a keyword field its normalizer applies to the whole
    value (KeywordFieldType.indexedValueForSearch); text fields search the value as given."""
    return index.normalize(field, value) if index.kinds[field] == "keyword" else value


_WILDCARD_PARTS = re.compile(r"(\\.)|([?*]+)")


def normalized_pattern(index: EmbeddedIndex, field: str, pattern: str) -> str:
    """StringFieldType.normalizeWildcardPattern, which a wildcard query on a keyword field uses: the normalizer
    applies to the text between the wildcards and escapes, which stay as written."""
    if index.kinds[field] != "keyword":
        return pattern
    out, last = [], 0
    for found in _WILDCARD_PARTS.finditer(pattern):
        if found.start() > last:
            out.append(index.normalize(field, pattern[last : found.start()]))
        out.append(found.group())
        last = found.end()
    if last < len(pattern):
        out.append(index.normalize(field, pattern[last:]))
    return "".join(out)


def _case(options: dict[str, Any], value: str) -> tuple[str, int]:
    """The value and regex flags of a `case_insensitive` prefix or wildcard: ASCII letters only, as Elasticsearch."""
    if options.get("case_insensitive"):
        return value.translate(ASCII_LOWER), re.IGNORECASE | re.ASCII
    return value, 0


INDEX_PREFIX_CHARS = 20  # SearchAsYouTypeFieldMapper.Defaults.MAX_GRAM: the longest edge n-gram of `._index_prefix`


def index_prefix_docs(
    index: EmbeddedIndex, field: str, value: str, case_insensitive: bool = False
) -> np.ndarray | None:
    """SearchAsYouTypeFieldType and ShingleFieldType.prefixQuery: a prefix of 1 to 20 characters is one term of the
    `._index_prefix` field (edge n-grams of every shingle), so the documents holding that term (ASCII case aside
    with `case_insensitive`: termQueryCaseInsensitive); None for a field without one, or a prefix out of those
    bounds, which stays a prefix query on the field itself (the empty prefix matches the same documents there)."""
    prefix_field = index.fields[field].prefix_field
    if prefix_field is None or prefix_field not in index.text or not 0 < utf16_length(value) <= INDEX_PREFIX_CHARS:
        return None
    if case_insensitive:
        wanted = value.translate(ASCII_LOWER)
        target = index.text[prefix_field]
        matched = np.zeros(index.n, dtype=bool)
        for term in _terms(target, lambda t: t.translate(ASCII_LOWER) == wanted, ""):
            matched[cast("Postings", target.postings(term)).docs] = True  # a term of the field has postings
        return np.flatnonzero(matched)
    found = index.text[prefix_field].postings(value)
    return found.docs if found is not None else np.empty(0, dtype=np.int64)


def index_prefix_query(
    index: EmbeddedIndex, field: str, value: str, boost: float, case_insensitive: bool = False
) -> Scores | None:
    """The prefix query on a search_as_you_type field as it runs there: `index_prefix_docs` under a constant
    score (a ConstantScoreQuery of the term); None where the prefix stays a prefix query on the field."""
    docs = index_prefix_docs(index, field, value, case_insensitive)
    return None if docs is None else Scores.of(index.n, docs, np.full(docs.size, F32(boost), dtype=F32))


Expansion = tuple[str, dict[str, Any], Any, str]  # field, options, accept(term), the terms' common prefix


def _prefix_value(index: EmbeddedIndex, spec: Any, path: str) -> tuple[str, dict[str, Any], str, int]:
    """The prefix query's field, options, value (as the field's terms hold it) and case flags."""
    field, options = field_spec(index, spec, path, "value")
    allowed(options, {"value", "boost", "rewrite", "case_insensitive"}, path, every="prefix")
    if options.get("value") is None:
        raise Invalid(path, "needs 'value'")
    value, flags = _case(options, searched_value(index, field, str(options["value"])))
    return field, options, value, flags


def _prefix(index: EmbeddedIndex, spec: Any, path: str) -> Expansion:
    field, options, value, flags = _prefix_value(index, spec, path)
    if flags:
        return field, options, lambda t: t.translate(ASCII_LOWER).startswith(value), ""
    return field, options, None, value


@query("prefix")
def prefix(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options, value, flags = _prefix_value(index, spec, path)
    parse_rewrite(options, "rewrite", path, CONSTANT)  # a rewrite Elasticsearch does not know is refused here too
    on_prefixes = index_prefix_query(index, field, value, boost_of(options, path, boost), bool(flags))
    if on_prefixes is not None:
        return on_prefixes
    return _scored(index, _prefix(index, spec, path), path, boost)


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


def _wildcard(index: EmbeddedIndex, spec: Any, path: str) -> Expansion:
    field, options = field_spec(index, spec, path, "value")
    allowed(options, {"value", "wildcard", "boost", "rewrite", "case_insensitive"}, path, every="wildcard")
    pattern = last_of(options, "value", ("wildcard", "value")).get("value")
    if pattern is None:
        raise Invalid(path, "needs 'value' (a pattern with * and ?)")
    pattern, flags = _case(options, normalized_pattern(index, field, str(pattern)))
    compiled = re.compile(wildcard_regex(pattern), re.DOTALL | flags)
    start = "" if flags else literal_prefix(pattern)
    return field, options, lambda t: compiled.fullmatch(t) is not None, start


@query("wildcard")
def wildcard(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    return _scored(index, _wildcard(index, spec, path), path, boost)


def _scored(index: EmbeddedIndex, expansion: Expansion, path: str, boost: float) -> Scores:
    """A prefix, wildcard or regexp query: its terms, scored as its rewrite method scores them."""
    field, options, accept, start = expansion
    rewrite = parse_rewrite(options, "rewrite", path, CONSTANT)
    terms = _matching(index, field, path, accept, start)
    return rewritten(index, field, terms, rewrite, boost_of(options, path, boost), path)


_INTERVAL = re.compile(r"<(\d+)-(\d+)>")
_MAX_INTERVAL = 10_000
_SIMPLE = {"@": ".*", "#": "(?!)", "(": "(?:"}  # any string, the empty language, a group
_OPERATORS = {"INTERSECTION": "&", "COMPLEMENT": "~", "EMPTY": "#", "ANYSTRING": "@", "INTERVAL": "<"}


def regexp_operators(flags: Any, path: str) -> str:
    """The optional operators Elasticsearch's `flags` turn on (ALL by default, NONE, or names joined by |); the
    characters of the others are plain characters."""
    names = [name.strip().upper() for name in str(flags).split("|")]
    if "ALL" in names:
        return "".join(_OPERATORS.values())
    unknown = [name for name in names if name not in _OPERATORS and name != "NONE"]
    if unknown:
        raise Invalid(f"{path}.flags", f"{unknown[0]!r} is not one of ALL, NONE, {', '.join(_OPERATORS)}")
    return "".join(_OPERATORS[name] for name in names if name in _OPERATORS)


def lucene_regexp(pattern: str, path: str, operators: str) -> list[str]:
    """Lucene's RegExp syntax as Python patterns a term must all fully match (one per side of a top-level `&`,
    Lucene's intersection). Of the optional operators, those in `operators` (Elasticsearch's `flags`) are on: `@`
    any string, `#` nothing, `<n-m>` a decimal interval, `&`; `~` (complement) is not supported. `"..."` is a
    literal, `\\` escapes any character (`\\d`, `\\s`, `\\w` and their negations are ASCII classes); `^` and
    `$` are plain characters, not anchors."""
    parts: list[list[str]] = [[]]
    depth, i = 0, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if i + 1 == len(pattern):
                raise Invalid(f"{path}.value", f"{pattern!r} ends with a lone backslash")
            escaped = pattern[i + 1]
            parts[-1].append("\\" + escaped if escaped in "dDsSwW" else re.escape(escaped))
            i += 2
            continue
        if char == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] == "^" else i + 1)
            if end < 0:
                raise Invalid(f"{path}.value", f"{pattern!r}: '[' without ']'")
            body = pattern[i + 1 : end]
            out = ["[^" if body.startswith("^") else "["]
            at = 1 if body.startswith("^") else 0
            while at < len(body):
                if body[at] == "\\" and at + 1 < len(body):
                    out.append("\\" + body[at + 1] if body[at + 1] in "dDsSwW" else re.escape(body[at + 1]))
                    at += 2
                    continue
                out.append("-" if body[at] == "-" else re.escape(body[at]))
                at += 1
            parts[-1].append("".join(out) + "]")
            i = end + 1
            continue
        if char == '"':
            end = pattern.find('"', i + 1)
            if end < 0:
                raise Invalid(f"{path}.value", f"{pattern!r}: an opening '\"' without its closing one")
            parts[-1].append(re.escape(pattern[i + 1 : end]))
            i = end + 1
            continue
        if char in "&~#@<" and char not in operators:
            parts[-1].append(re.escape(char))
        elif char == "<":
            interval = _INTERVAL.match(pattern, i)
            if interval is None:
                raise Invalid(f"{path}.value", f"{pattern!r}: '<' starts a numeric interval <min-max>")
            parts[-1].append(_decimal_interval(interval.group(1), interval.group(2), path))
            i = interval.end()
            continue
        elif char == "&":
            if depth:
                raise Unsupported("regexp intersection (&) inside a group", f"{path}.value")
            parts.append([])
        elif char == "~":
            raise Unsupported("regexp complement (~)", f"{path}.value")
        else:
            depth += char == "("
            depth -= char == ")"
            parts[-1].append(_SIMPLE.get(char, char if char in ".*+?|{},)" else re.escape(char)))
        i += 1
    return ["".join(part) for part in parts]


def _decimal_interval(low: str, high: str, path: str) -> str:
    """Lucene's <min-max>: the numbers in the range, zero-padded to a fixed width when both bounds have the same
    number of digits, with any number of leading zeros otherwise."""
    first, last = sorted((int(low), int(high)))
    if last - first > _MAX_INTERVAL:
        raise Unsupported(f"a regexp interval of more than {_MAX_INTERVAL} numbers", f"{path}.value")
    width = len(low) if len(low) == len(high) else 0
    numbers = "|".join(f"{n:0{width}d}" for n in range(last, first - 1, -1))
    return f"(?:{numbers})" if width else f"0*(?:{numbers})"


def _regexp(index: EmbeddedIndex, spec: Any, path: str) -> Expansion:
    field, options = field_spec(index, spec, path, "value")
    allowed(options, {"value", "flags", "boost", "rewrite", "case_insensitive", "max_determinized_states"}, path,
            every="regexp", unsupported={"flags_value"})  # fmt: skip
    if options.get("value") is None:
        raise Invalid(path, "needs 'value' (a regular expression)")
    value = searched_value(index, field, str(options["value"]))
    flags = re.DOTALL | re.ASCII | (re.IGNORECASE if options.get("case_insensitive") else 0)
    try:
        operators = regexp_operators(options.get("flags", "ALL"), path)
        compiled = [re.compile(part, flags) for part in lucene_regexp(value, path, operators)]
    except re.error as exc:
        raise Invalid(f"{path}.value", f"{value!r} is not a regular expression this engine reads ({exc})") from None
    return field, options, lambda t: all(c.fullmatch(t) is not None for c in compiled), ""


@query("regexp")
def regexp(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    return _scored(index, _regexp(index, spec, path), path, boost)


_EXPANSIONS = {"prefix": _prefix, "wildcard": _wildcard, "regexp": _regexp}
