"""The query DSL of the embedded engine: one function per query type, each scoring the whole corpus at once.

A handler takes the index, its clause, the clause's path in the template (for messages) and the boost its
ancestors pass down (Lucene multiplies boosts into the term weights rather than scaling scores afterwards, and
float32 rounding depends on that order), and returns `Scores`: a match mask and float32 scores over every document
ordinal. Adding a query type is one decorated function; an unknown name is reported by `evaluate` alone.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.java import F32, utf16
from pytest_relevance.engines.embedded.plugins import plugin_query
from pytest_relevance.engines.embedded.recorder import RECORDING

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex


class Scores:
    """Which documents match, and their float32 scores: sparse (ascending ordinals with their scores) or dense (a
    mask and a score per ordinal). Either form is derived from the other on first use, so the hot path (term
    clauses, dis_max, function_score, ranking) stays proportional to the match set and the rest may use masks.

    `exact`, when set, says the query is (after Lucene's rewrite) an unboosted pure disjunction, a BooleanQuery of
    should clauses needing at most one: its unrounded double sums, aligned with `docs`. Lucene's BooleanQuery.rewrite
    takes such a query's clauses into an enclosing BooleanQuery that needs at most one should clause, so that one
    sums the leaves once, in double (see `flat_sum`); everything else reads the float32 `values`."""

    __slots__ = ("_docs", "_matched", "_score", "_values", "exact", "n")

    def __init__(self, matched: np.ndarray, score: np.ndarray) -> None:
        self.n = matched.size
        self._matched, self._score = matched, score
        self._docs: np.ndarray | None = None
        self._values: np.ndarray | None = None
        self.exact: np.ndarray | None = None

    @classmethod
    def of(cls, n: int, docs: np.ndarray, values: np.ndarray) -> Scores:
        """From ascending unique ordinals and their float32 scores."""
        out = cls.__new__(cls)
        out.n, out._docs, out._values = n, docs, values
        out._matched = out._score = out.exact = None
        return out

    @classmethod
    def disjunction(cls, n: int, docs: np.ndarray, sums: np.ndarray) -> Scores:
        """A pure disjunction's result from its double sums: float32 scores, and the sums kept as `exact`."""
        out = cls.of(n, docs, sums.astype(F32))
        out.exact = sums
        return out

    def boosted(self, own_boost: Any) -> Scores:
        """The result as its enclosing query sees it: a query with its own boost is a BoostQuery, which
        BooleanQuery.rewrite does not take apart (`exact` dropped)."""
        if self.exact is None or float(own_boost if own_boost is not None else 1.0) == 1.0:
            return self
        return Scores.of(self.n, self.docs, self.values)

    @classmethod
    def none(cls, n: int) -> Scores:
        return cls.of(n, np.empty(0, dtype=np.int64), np.empty(0, dtype=F32))

    @classmethod
    def constant(cls, matched: np.ndarray, boost: float) -> Scores:
        return cls(matched, np.where(matched, F32(boost), F32(0)).astype(F32))

    @property
    def matched(self) -> np.ndarray:
        if self._matched is None:
            self._matched = np.zeros(self.n, dtype=bool)
            self._matched[self.docs] = True
        return self._matched

    @property
    def score(self) -> np.ndarray:
        if self._score is None:
            self._score = np.zeros(self.n, dtype=F32)
            self._score[self.docs] = self.values
        return self._score

    @property
    def docs(self) -> np.ndarray:
        if self._docs is None:
            self._docs = np.flatnonzero(self._matched)
        return self._docs

    @property
    def values(self) -> np.ndarray:
        if self._values is None:
            self._values = self.score[self.docs]
        return self._values


# one clause of a disjunction: its (ordinals, float32 scores) parts, and how many clause matches it counts for
Clause = tuple[list[tuple[np.ndarray, np.ndarray]], int]


def accumulate(index: EmbeddedIndex, clauses: list[Clause]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sum clause scores per document in double (in clause order, as Lucene's disjunction sums them) and count the
    clauses each matches: (ascending ordinals, sums, counts). Works in the index's scratch arrays, which it leaves
    zeroed, so the cost is the postings read plus one scan, whatever the corpus size."""
    parts = [(docs, values, count, len(clause) > 1) for clause, count in clauses for docs, values in clause]
    if not parts:
        return np.empty(0, dtype=np.int64), np.empty(0), np.empty(0, dtype=np.int16)
    if len(parts) == 1:
        docs, values, count, _ = parts[0]
        return docs, values.astype(np.float64), np.full(docs.size, count, dtype=np.int16)
    total, hits = index.scratch_sum, index.scratch_count
    for clause, count in clauses:
        for docs, values in clause:
            total[docs] += values
        if len(clause) == 1:
            hits[clause[0][0]] += count
        elif clause:
            hits[np.unique(np.concatenate([docs for docs, _ in clause]))] += count
    docs = np.flatnonzero(hits)
    sums, counts = total[docs], hits[docs]
    total[docs] = 0.0
    hits[docs] = 0
    return docs, sums, counts


def flat_sum(index: EmbeddedIndex, parts: list[Scores]) -> Scores:
    """The should clauses of a BooleanQuery that needs at most one (or a tie 1 dis_max, which Lucene rewrites to
    one), as Lucene 9.9.1 scores them after its rewrite flattened the nested pure disjunctions: every leaf summed
    once in double (a part's `exact` sums where it has them, else its float32 scores), cast to float32 at the end;
    the result is a pure disjunction itself."""
    parts = [p for p in parts if p.docs.size]
    if not parts:
        return Scores.none(index.n)
    if len(parts) == 1:
        return parts[0]
    total, seen = index.scratch_sum, index.scratch_mark
    for part in parts:
        total[part.docs] += part.exact if part.exact is not None else part.values
        seen[part.docs] = True
    docs = np.flatnonzero(seen)
    sums = total[docs]
    total[docs] = 0.0
    seen[docs] = False
    return Scores.disjunction(index.n, docs, sums)


Handler = Callable[["EmbeddedIndex", Any, str, float], Scores]
HANDLERS: dict[str, Handler] = {}
# keys of a search body that do not change which documents rank where (accepted and ignored)
IGNORED_BODY_KEYS = frozenset(
    {"highlight", "aggs", "aggregations", "suggest", "_source", "stored_fields", "fields", "docvalue_fields",
     "explain", "track_total_hits", "track_scores", "timeout", "profile", "version", "seq_no_primary_term",
     "from", "size", "stats"}
)  # fmt: skip


def query(name: str) -> Callable[[Handler], Handler]:
    """Register a handler for the query type `name`."""

    def register(handler: Handler) -> Handler:
        HANDLERS[name] = handler
        return handler

    return register


class Unsupported(Exception):
    """A construct the embedded engine does not run (the Elasticsearch engine does); `among` is what it runs in
    that place (None: the query types)."""

    def __init__(self, construct: str, path: str, among: list[str] | None = None) -> None:
        super().__init__(construct)
        self.construct, self.path, self.among = construct, path, among


class Invalid(Exception):
    """A parameter that is wrong for Elasticsearch too (a non-number boost, a decay of 1, a missing query)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(problem)
        self.path, self.problem = path, problem


# Elasticsearch's case-insensitive term, prefix and wildcard queries fold ASCII letters only
# (AutomatonQueries.toCaseInsensitiveChar leaves code points above 128 as they are)
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class Unmapped(Invalid):
    """A field the mappings lack: a leaf query on it matches nothing (see `MATCH_NONE_WHEN_UNMAPPED`); anywhere else
    (sorts, functions, vectors, geo, nested) Elasticsearch refuses it too."""


# Elasticsearch rewrites these to match_none when their field is unmapped (a `must_not` on one then excludes nothing)
MATCH_NONE_WHEN_UNMAPPED = frozenset(
    ("term", "terms", "range", "exists", "prefix", "wildcard", "regexp", "fuzzy", "match", "match_phrase",
     "match_phrase_prefix", "match_bool_prefix", "rank_feature", "terms_set")
)  # fmt: skip


# Query names Elasticsearch 8's parser does not know ("unknown query [name]"), which older templates still use: its
# refusal, with what to write instead, not a construct the Elasticsearch engine would run
UNKNOWN_TO_ELASTICSEARCH = {
    "query": "a clause is the query itself, {match: ...}, not the 1.x wrapper {query: {match: ...}}",
    "common": "Common Terms Query usage is not supported. Use [match] query which can efficiently skip blocks of "
    "documents if the total number of hits is not tracked.",
    "filtered": "removed in 5.0; write bool with must (the query) and filter",
}


# The query types Elasticsearch 8 parses (its server, modules and default x-pack plugins), whether or not the
# embedded engine runs them: any other name is Elasticsearch's refusal, not a gap of the embedded engine
ELASTICSEARCH_QUERIES = frozenset(
    ("bool", "boosting", "combined_fields", "constant_score", "dis_max", "distance_feature", "exists",
     "field_masking_span", "function_score", "fuzzy", "geo_bounding_box", "geo_distance", "geo_grid", "geo_polygon",
     "geo_shape", "has_child", "has_parent", "ids", "intervals", "knn", "match", "match_all", "match_bool_prefix",
     "match_none", "match_phrase", "match_phrase_prefix", "more_like_this", "multi_match", "nested", "parent_id",
     "percolate", "pinned", "prefix", "query_string", "range", "rank_feature", "regexp", "rule", "script",
     "script_score", "semantic", "shape", "simple_query_string", "span_containing", "span_field_masking",
     "span_first", "span_multi", "span_near", "span_not", "span_or", "span_term", "span_within", "sparse_vector",
     "term", "terms", "terms_set", "text_expansion", "weighted_tokens", "wildcard", "wrapper")
)  # fmt: skip


def evaluate(index: EmbeddedIndex, node: Any, path: str, boost: float = 1.0) -> Scores:
    """Score one query clause `{type: spec}` at `path` over the whole corpus."""
    if not isinstance(node, dict) or len(node) != 1:
        raise Invalid(path, f"a query is a mapping with one query type, e.g. {{match: {{...}}}}; got {node!r}"[:200])
    ((name, spec),) = node.items()
    handler = HANDLERS.get(name)
    if handler is None:
        if name in UNKNOWN_TO_ELASTICSEARCH:
            raise Invalid(
                path, f"unknown query [{name}], as Elasticsearch 8 refuses it: {UNKNOWN_TO_ELASTICSEARCH[name]}"
            )
        if plugin_query(name) is not None:
            raise Invalid(path, str(plugin_query(name)))
        if name not in ELASTICSEARCH_QUERIES:  # a typo, or a plugin's query: Elasticsearch's parser refuses it
            close = difflib.get_close_matches(name, sorted(ELASTICSEARCH_QUERIES), n=1)
            hint = f" did you mean [{close[0]}]?" if close else ""
            raise Invalid(
                path, f"unknown query [{name}]{hint}, as Elasticsearch 8 refuses it (unless a plugin adds it)"
            )
        raise Unsupported(name, path)
    recorder = RECORDING.get()
    if recorder is None:
        return _run(handler, index, spec, path, name, boost)
    recorder.open()
    scores = _run(handler, index, spec, path, name, boost)
    recorder.clause(name, path, scores)
    return scores


def _run(handler: Handler, index: EmbeddedIndex, spec: Any, path: str, name: str, boost: float) -> Scores:
    try:
        return handler(index, spec, f"{path}.{name}", boost)
    except Unmapped:
        if name in MATCH_NONE_WHEN_UNMAPPED:
            return Scores.none(index.n)
        raise


def allowed(
    options: Any,
    keys: Iterable[str],
    path: str,
    every: str | None = None,
    parser: str | None = None,
    unsupported: Iterable[str] = (),
) -> dict[str, Any]:
    """The options mapping, after refusing keys the handler does not know (`_name` is always accepted). `every`:
    the query whose every option Elasticsearch reads is among `keys` and `unsupported`, so that another key is its
    hand-written parser's refusal (`[match] query does not support [x]`); `parser`: the same where Elasticsearch
    reads the options with an ObjectParser of that name (`[ids] unknown field [x] did you mean [values]?`).
    `unsupported`: options Elasticsearch reads that the embedded engine does not run (the Elasticsearch engine
    would). A key nobody reads is refused before one the engine does not run, as the parser fails first."""
    if not isinstance(options, dict):
        raise Invalid(path, f"expected a mapping of options, got {options!r}"[:200])
    known = {*keys, *unsupported, "_name"}
    extra = [key for key in options if key not in keys and key != "_name"]
    unknown = [key for key in extra if key not in known]
    if unknown and parser is not None:
        raise Invalid(path, f"{unknown_field(parser, unknown[0], known)}, as Elasticsearch 8 refuses it")
    if unknown and every is not None:
        raise Invalid(path, f"[{every}] query does not support [{unknown[0]}], as Elasticsearch 8 refuses it")
    if extra:
        raise Unsupported(f"{path.rsplit('.', 1)[-1]}.{extra[0]}", path, sorted(set(keys) | {"_name"}))
    return options


def value_tokens(options: Any, name: str, path: str, lists: Iterable[str] = ()) -> None:
    """A hand-written parser that reads only values (and the arrays in `lists`) refuses an object or another array
    by its token: `[exists] unknown token [START_OBJECT] after [field]`."""
    for key, value in options.items() if isinstance(options, dict) else ():
        if isinstance(value, dict) or (isinstance(value, list) and key not in lists):
            token = "START_OBJECT" if isinstance(value, dict) else "START_ARRAY"
            raise Invalid(path, f"[{name}] unknown token [{token}] after [{key}], as Elasticsearch 8 refuses it")


def unknown_field(parser: str, key: str, candidates: Iterable[str]) -> str:
    """ObjectParser's refusal of a key it does not declare, with SuggestingErrorOnUnknown's suggestions: the
    declared names within a Levenshtein similarity above 0.5, the closest first (ties by name)."""
    scored = [(_similarity(key, name), name) for name in candidates]
    close = [name for _, name in sorted((-score, name) for score, name in scored if score > F32(0.5))]
    if not close:
        return f"[{parser}] unknown field [{key}]"
    shown = f"[{close[0]}]" if len(close) == 1 else f"any of [{', '.join(close)}]"
    return f"[{parser}] unknown field [{key}] did you mean {shown}?"


def _similarity(target: str, other: str) -> F32:
    """Lucene's spell.LevenshteinDistance.getDistance: 1 - edits / the longer length (UTF-16 units), in float32."""
    from rapidfuzz.distance import Levenshtein  # the fuzzy queries' edit distance, here over UTF-16 units

    sa, tb = utf16(target), utf16(other)
    if not sa or not tb:
        return F32(1.0) if len(sa) == len(tb) else F32(0.0)
    return F32(1.0) - F32(Levenshtein.distance(sa, tb)) / F32(max(len(sa), len(tb)))


def number(options: dict[str, Any], key: str, path: str, default: float | None = None) -> float:
    """A finite number option, or one message naming the template key."""
    value = options.get(key, default)
    if value is None:
        raise Invalid(path, f"needs {key!r}")
    try:
        result = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        result = math.nan
    if not math.isfinite(result):
        raise Invalid(f"{path}.{key}", f"{value!r} is not a number")
    return result


def boost_of(options: dict[str, Any], path: str, inherited: float) -> float:
    """The clause's own boost times the inherited one, in float32 as Lucene's BoostQuery multiplies them."""
    own = number(options, "boost", path, 1.0)
    if own < 0:
        raise Invalid(f"{path}.boost", f"{own!r}: negative boosts are not allowed")
    return float(F32(own) * F32(inherited))


def clause_list(spec: dict[str, Any], key: str) -> list[Any]:
    items = spec.get(key)
    if items is None:
        return []
    return items if isinstance(items, list) else [items]


def field_spec(
    index: EmbeddedIndex, spec: Any, path: str, key: str, beside: tuple[str, ...] = ()
) -> tuple[str, dict[str, Any]]:
    """`{field: value}` or `{field: {key: value, ...}}`, with the field checked against the mappings. The query
    (the last part of `path`) takes one key, as its parser does: another, `boost` beside the field too, is its
    refusal (`[prefix] query doesn't support multiple fields, found [a] and [b]`). `beside`: keys that may sit
    next to the field and apply to it (the decay functions' form)."""
    if isinstance(spec, dict):
        fields = [k for k in spec if k not in beside]
        if len(fields) > 1:
            name = path.rsplit(".", 1)[-1]
            raise Invalid(path, f"[{name}] query doesn't support multiple fields, found [{fields[0]}] and "
                                f"[{fields[1]}], as Elasticsearch 8 refuses it")  # fmt: skip
        if len(fields) == 1:
            field, value = fields[0], spec[fields[0]]
            index.check_field(field, path)
            options = dict(value) if isinstance(value, dict) else {key: value}
            for shared in beside:
                if shared in spec:
                    options.setdefault(shared, spec[shared])
            return field, options
    raise Invalid(path, f"expected {{field: ...}} with one field, got {spec!r}"[:200])


def last_of(options: dict[str, Any], key: str, names: tuple[str, ...]) -> dict[str, Any]:
    """The options with `key` set to the last of its synonyms `names` given, as a parser that reads each into the
    same variable keeps the one it meets last."""
    given = [name for name in options if name in names]
    if not given:
        return options
    return {**{k: v for k, v in options.items() if k not in names}, key: options[given[-1]]}


def minimum_should_match(spec: Any, optional: int, path: str) -> int:
    """Elasticsearch's `Queries.calculateMinShouldMatch`: integers, percentages (float32, truncated), negatives,
    and conditional forms such as `3<-25% 9<75%`; never below 0, and (as Elasticsearch) not capped at `optional`."""
    text = str(spec).strip()
    try:
        if "<" in text:
            result = optional
            for part in " ".join(text.replace(" <", "<").replace("< ", "<").split()).split(" "):
                bound, _, rest = part.partition("<")
                if optional <= int(bound):
                    return result
                result = minimum_should_match(rest, optional, path)
            return result
        if text.endswith("%"):
            calc = F32(optional * int(text[:-1])) * F32(1 / 100)
            result = optional + int(calc) if calc < 0 else int(calc)
        else:
            calc_int = int(text)
            result = optional + calc_int if calc_int < 0 else calc_int
    except ValueError:
        raise Invalid(f"{path}.minimum_should_match", f"cannot read {spec!r} (e.g. 2, -1, 75%, 3<90%)") from None
    return max(result, 0)


from pytest_relevance.engines.embedded.queries import (  # noqa: E402
    combined,
    compound,
    full_text,
    more,
    multi_term,
    query_string,
    scripts,
    spans,
    specialized,
    term_level,
    vectors,
)

__all__ = [
    "HANDLERS",
    "Scores",
    "combined",
    "compound",
    "evaluate",
    "full_text",
    "more",
    "multi_term",
    "query",
    "query_string",
    "scripts",
    "spans",
    "specialized",
    "term_level",
    "vectors",
]
