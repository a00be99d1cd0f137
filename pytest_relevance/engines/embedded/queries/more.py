"""terms_set, more_like_this and intervals, built as Elasticsearch 8 builds them.

intervals runs Lucene's IntervalQuery over match, prefix, wildcard and fuzzy sources (see `intervals`).

more_like_this follows Elasticsearch's MoreLikeThisQueryBuilder and its fork of Lucene's MoreLikeThis
(XMoreLikeThis): see `more_like_this`.

terms_set is TermsSetQueryBuilder's Lucene CoveringQuery: one term query per listed value (the field's termQuery,
unanalyzed; duplicates count twice), a document matching when it holds at least as many of them as its own
minimum (read from a numeric field, computed by a script that sees `params.num_terms`, or since 8.10 the
`minimum_should_match` spec over the number of terms; at least 1, and a document without a value never matches),
scored as the double sum of the matching term scores, cast to float32 (CoveringScorer).
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from pytest_relevance.engines.embedded.java import F32, string_hash, utf16_length
from pytest_relevance.engines.embedded.painless import from_json
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unsupported
from pytest_relevance.engines.embedded.queries.full_text import prefix_terms
from pytest_relevance.engines.embedded.queries.multi_term import (
    edits_for,
    fuzzy_expansions,
    literal_prefix,
    wildcard_regex,
)
from pytest_relevance.engines.embedded.queries.options import (
    allowed,
    boost_of,
    field_spec,
    minimum_should_match,
    number,
    unknown_field,
)
from pytest_relevance.engines.embedded.queries.registry import query
from pytest_relevance.engines.embedded.queries.scripts import compile_script, run_script
from pytest_relevance.engines.embedded.queries.term_level import term
from pytest_relevance.engines.embedded.scores import Scores, accumulate, flat_sum
from pytest_relevance.engines.embedded.scoring import idf

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex
    from pytest_relevance.engines.embedded.index import KeywordField, TextField

_MSM_KEYS = ("minimum_should_match_field", "minimum_should_match_script", "minimum_should_match")


@query("terms_set")
def terms_set(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "terms")
    allowed(options, {"terms", "boost", *_MSM_KEYS}, path, every="terms_set")
    values = options.get("terms")
    if not isinstance(values, list) or any(isinstance(v, dict | list) or v is None for v in values):
        raise Invalid(f"{path}.terms", "needs a list of values, e.g. terms: [a, b]")
    given = [key for key in _MSM_KEYS if options.get(key) is not None]
    if len(given) > 1:  # TermsSetQueryBuilder's setters refuse a second source
        raise Invalid(path, f"[terms_set] takes one of {', '.join(_MSM_KEYS)}; got {' and '.join(given)}")
    boost = boost_of(options, path, boost)
    if not values:  # Queries.newMatchNoDocsQuery: no terms supplied
        return Scores.none(index.n)
    if not given:
        raise Invalid(path, "No minimum should match has been specified (minimum_should_match_field, "
                            "minimum_should_match_script or minimum_should_match)")  # fmt: skip
    clauses = []
    for i, value in enumerate(values):
        part = term(index, {field: {"value": value}}, f"{path}.terms[{i}]", boost)
        clauses.append(([(part.docs, part.values)], 1))
    docs, sums, counts = accumulate(index, clauses)
    required = _required(index, options, given[0], len(values), docs, path)
    keep = counts >= np.maximum(required, 1)
    return Scores.of(index.n, docs[keep], sums[keep].astype(F32))


def _required(index: EmbeddedIndex, options: dict[str, Any], key: str, count: int, docs: np.ndarray, path: str) -> Any:
    """How many terms each candidate document must hold (float64; +inf where it has no value, so it cannot)."""
    if key == "minimum_should_match":
        return float(minimum_should_match(options[key], count, path))
    if key == "minimum_should_match_field":
        name = options[key]
        if not isinstance(name, str) or name not in index.kinds:
            raise Invalid(f"{path}.{key}", f"failed to find minimum_should_match field [{name}]")
        if index.kinds[name] not in ("number", "date"):
            raise Invalid(f"{path}.{key}", f"[{name}] is of type [{index.fields[name].type}]; the number of terms to "
                                           "match is read from a numeric field's doc values")  # fmt: skip
        first = index.doc_values(name)
        assert first is not None
        values = np.trunc(first[docs])  # SortedNumericDocValues as longs: the document's first (smallest) value
        return np.where(np.isnan(values), np.inf, values)
    script = compile_script(options[key], f"{path}.{key}")
    script = dataclasses.replace(script, params={**script.params, "num_terms": from_json(count)})
    values = run_script(index, script, docs, np.zeros(docs.size))
    return np.nan_to_num(np.trunc(values), nan=0.0)  # TermsSetQueryScript.runAsLong: Number.longValue()


# more_like_this: MoreLikeThisQueryBuilder's options (the deprecated min/max_word_len spellings it still reads)
_MLT_KEYS = {"fields", "like", "unlike", "max_query_terms", "min_term_freq", "min_doc_freq", "max_doc_freq",
             "min_word_length", "max_word_length", "min_word_len", "max_word_len", "stop_words", "analyzer",
             "minimum_should_match", "boost_terms", "include", "fail_on_unsupported_field", "boost"}  # fmt: skip
_ITEM_KEYS = {"_index", "_id", "doc", "fields", "routing"}
_MAX_TOKENS_PARSED = 5000  # XMoreLikeThis.DEFAULT_MAX_NUM_TOKENS_PARSED, per like text


@dataclasses.dataclass
class _Settings:
    """XMoreLikeThis's knobs, with Elasticsearch's defaults."""

    min_term_freq: int
    min_doc_freq: int
    max_doc_freq: int
    min_word_length: int
    max_word_length: int
    max_query_terms: int
    stop_words: frozenset[str]
    boost_terms: float
    skip: set[tuple[str, str]] = dataclasses.field(default_factory=set)

    def noise(self, field: str, word: str) -> bool:
        """isNoiseWord (length in UTF-16 units, stop words) or isSkipTerm (an unlike term of that field)."""
        length = utf16_length(word)
        if (self.min_word_length > 0 and length < self.min_word_length) or (
            self.max_word_length > 0 and length > self.max_word_length
        ):
            return True
        return word in self.stop_words or (field, word) in self.skip


@query("more_like_this")
def more_like_this(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    """Elasticsearch's MoreLikeThisQuery: like texts analyzed with the first field's index analyzer (or
    `analyzer`) and liked documents' term vectors (their indexed terms and frequencies per field) give candidate
    terms; XMoreLikeThis keeps those frequent enough in the source and with the document frequency asked, scores
    each tf x ClassicSimilarity idf (float) and keeps the best `max_query_terms` through Lucene's PriorityQueue fed
    in Java HashMap order (which decides ties at the cut); a like text's term goes to the field where it is most
    frequent, a liked document's terms are chosen per field. Each part (documents, texts) is a BooleanQuery of BM25
    term clauses with `minimum_should_match` (30%); the liked documents are excluded unless `include`."""
    options = allowed(spec, _MLT_KEYS, path, every="more_like_this")
    boost = boost_of(options, path, boost)
    like_texts, like_items = _like(options.get("like"), f"{path}.like")
    unlike_texts, unlike_items = _like(options.get("unlike"), f"{path}.unlike")
    if not (like_texts or like_items):
        raise Invalid(path, "more_like_this requires 'like' to be specified")
    fields = _mlt_fields(index, options, bool(like_texts or unlike_texts), path)
    settings = _settings(options, path)
    if not fields:
        return Scores.none(index.n)
    analyze = _text_analyzer(index, fields[0], options.get("analyzer"), path)
    for text in unlike_texts:  # MoreLikeThisQuery.handleUnlike: the first field's terms of each unlike text
        settings.skip.update((fields[0], t) for t in analyze(text))
    for vectors in (_vectors(index, item, fields, path) for item in unlike_items):
        settings.skip.update((f, t) for f, counts in vectors.items() for t in counts)
    spec_msm = options.get("minimum_should_match", "30%")
    parts = []
    if like_items:
        per_field: dict[str, dict[str, int]] = {}
        for item in like_items:
            for field, counts in _vectors(index, item, fields, path).items():
                merged = per_field.setdefault(field, {})
                for word, freq in counts.items():
                    if not settings.noise(field, word):
                        merged[word] = merged.get(word, 0) + freq
        chosen = [t for field, words in per_field.items() for t in _select(index, words, [field], settings, path)]
        parts.append(_part(index, chosen, settings, spec_msm, boost, path))
    if like_texts:
        words: dict[str, int] = {}
        for text in like_texts:
            for count, word in enumerate(analyze(text), 1):
                if count > _MAX_TOKENS_PARSED:
                    break
                if not settings.noise(fields[0], word):
                    words[word] = words.get(word, 0) + 1
        parts.append(_part(index, _select(index, words, fields, settings, path), settings, spec_msm, boost, path))
    result = flat_sum(index, parts)
    # handleExclude: a must_not on the liked corpus documents (artificial ones have no id)
    excluded = [index.ordinal[i["_id"]] for i in like_items if "doc" not in i and i["_id"] in index.ordinal]
    if options.get("include") in (True, "true") or not excluded:
        return result.boosted(options.get("boost"))
    keep = ~np.isin(result.docs, excluded)
    return Scores.of(index.n, result.docs[keep], result.values[keep])


def _mlt_fields(index: EmbeddedIndex, options: dict[str, Any], texts: bool, path: str) -> list[str]:
    """The fields to draw terms from: text and keyword fields (others refused, or dropped with
    `fail_on_unsupported_field: false`); unmapped ones left out (they hold no term)."""
    fields = options.get("fields")
    if fields is None and texts:  # index.query.default_field `*`: Elasticsearch's refusal
        raise Invalid(path, "[more_like_this] query cannot infer the field to analyze the free text, you should "
                            "update the [index.query.default_field] index setting to a field that exists in the "
                            "mapping or set the [fields] option in the query.")  # fmt: skip
    if fields is None:
        raise Unsupported("more_like_this without `fields` (index.query.default_field)", path, ["fields: [title]"])
    if isinstance(fields, list) and not fields:
        raise Invalid(f"{path}.fields", "more_like_this requires 'fields' to be non-empty")
    if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
        raise Invalid(f"{path}.fields", "needs a list of field names")
    out = []
    for field in fields:
        if "*" in field:
            raise Unsupported("a field pattern in more_like_this fields", f"{path}.fields", ["field names"])
        if field not in index.kinds:
            continue
        if index.kinds[field] not in ("text", "keyword"):
            if options.get("fail_on_unsupported_field", True) in (False, "false"):
                continue
            raise Invalid(f"{path}.fields", f"more_like_this only supports text/keyword fields: [{field}]")
        index.check_field(field, f"{path}.fields")
        out.append(field)
    return out


def _settings(options: dict[str, Any], path: str) -> _Settings:
    def integer(key: str, default: int, alias: str | None = None) -> int:
        value = options.get(key, options.get(alias) if alias else None)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
            raise Invalid(f"{path}.{key}", f"{value!r} is not a whole number")
        return int(value)

    stop = options.get("stop_words") or []
    if not isinstance(stop, list) or not all(isinstance(w, str) for w in stop):
        raise Invalid(f"{path}.stop_words", "needs a list of words")
    boost_terms = options.get("boost_terms", 0)
    if isinstance(boost_terms, bool) or not isinstance(boost_terms, int | float):
        raise Invalid(f"{path}.boost_terms", f"{boost_terms!r} is not a number")
    return _Settings(
        min_term_freq=integer("min_term_freq", 2),
        min_doc_freq=integer("min_doc_freq", 5),
        max_doc_freq=integer("max_doc_freq", 2**31 - 1),
        min_word_length=integer("min_word_length", 0, "min_word_len"),
        max_word_length=integer("max_word_length", 0, "max_word_len"),
        max_query_terms=integer("max_query_terms", 25),
        stop_words=frozenset(stop),
        boost_terms=float(boost_terms),
    )


def _like(value: Any, path: str) -> tuple[list[str], list[dict[str, Any]]]:
    """`like` / `unlike`: a text, an item (`{_id}` of a corpus document or `{doc}` an artificial one) or a list."""
    if value is None:
        return [], []
    texts, items = [], []
    for i, entry in enumerate(value if isinstance(value, list) else [value]):
        where = f"{path}[{i}]" if isinstance(value, list) else path
        if isinstance(entry, str | int | float) and not isinstance(entry, bool):
            texts.append(str(entry))
            continue
        if not isinstance(entry, dict):
            raise Invalid(where, "Content of 'like' parameter should either be a string or an object")
        extra = sorted(set(entry) - _ITEM_KEYS)
        if extra and extra[0] in ("per_field_analyzer", "version", "version_type"):
            raise Unsupported(f"more_like_this item {extra[0]}", where, sorted(_ITEM_KEYS))
        if extra:
            raise Invalid(where, f"failed to parse More Like This item. unknown field [{extra[0]}]")
        if ("doc" in entry) == ("_id" in entry):
            raise Invalid(where, "a more_like_this item needs either _id or doc")
        if "doc" in entry and not isinstance(entry["doc"], dict):
            raise Invalid(f"{where}.doc", "an artificial document is a mapping of field values")
        items.append({**entry, "_id": str(entry["_id"])} if "_id" in entry else entry)
    return texts, items


def _text_analyzer(index: EmbeddedIndex, field: str, analyzer: Any, path: str) -> Any:
    """The terms a like text makes: `analyzer`, else the field's index analyzer (Elasticsearch 8's
    MoreLikeThisQueryBuilder takes SearchExecutionContext.getIndexAnalyzer; a keyword field's normalizer)."""
    if analyzer is not None:
        chosen = index.mapping.analysis.analyzer(str(analyzer), f"{path}.analyzer")
        return lambda text: list(chosen.term_lists(text)[0])
    if index.kinds[field] == "keyword":
        return lambda text: [index.normalize(field, text)]
    target = index.text[field]
    return lambda text: list(target.analyzer.term_lists_end(text)[0])


def _vectors(index: EmbeddedIndex, item: dict[str, Any], fields: list[str], path: str) -> dict[str, dict[str, int]]:
    """An item's term vectors as Elasticsearch's multi-termvectors makes them: per field (the item's `fields`, else
    the query's), its terms in term order with their frequencies; a corpus document from its indexed terms, an
    artificial `doc` analyzed as indexing would; nothing for an id the corpus lacks."""
    wanted = item.get("fields") or fields
    if not isinstance(wanted, list):
        raise Invalid(f"{path}.fields", "needs a list of field names")
    out: dict[str, dict[str, int]] = {}
    for field in wanted:
        if index.kinds.get(field) not in ("text", "keyword"):
            continue
        if "doc" in item:
            values = item["doc"].get(field)
            values = [] if values is None else values if isinstance(values, list) else [values]
            counts: dict[str, int] = {}
            for value in map(str, values):
                if index.kinds[field] == "keyword":
                    terms = [index.normalize(field, value)]
                else:
                    terms = list(index.text[field].analyzer.term_lists_end(value)[0])
                for term in terms:
                    counts[term] = counts.get(term, 0) + 1
        else:
            ordinal = index.ordinal.get(item["_id"])
            if ordinal is None:
                continue
            counts = _document_terms(index, field, ordinal)
        if counts:
            out[field] = dict(sorted(counts.items()))
    return out


def _document_terms(index: EmbeddedIndex, field: str, ordinal: int) -> dict[str, int]:
    """One document's terms in a field with their frequencies, from a forward view of the postings built once."""
    key = ("mlt_forward", field)
    if key not in index.function_cache:
        target = index.postings_field(field, "more_like_this")
        terms = list(target.vocab)  # ids are handed out in insertion order
        if field in index.text:
            text = cast("TextField", target)
            tids = np.repeat(np.arange(len(terms)), np.diff(text.offsets))
            docs, freqs = text.docs, text.freqs
        else:
            keyword = cast("KeywordField", target)
            tids, docs = keyword.ids, keyword.doc_of
            freqs = np.ones(docs.size, dtype=np.float32)
        order = np.argsort(docs, kind="stable")
        starts = np.searchsorted(docs[order], np.arange(index.n + 1))
        index.function_cache[key] = (terms, tids[order], freqs[order], starts)
    terms, tids, freqs, starts = index.function_cache[key]
    lo, hi = starts[ordinal], starts[ordinal + 1]
    return {terms[t]: int(f) for t, f in zip(tids[lo:hi].tolist(), freqs[lo:hi].tolist(), strict=True)}


def _java_order(words: dict[str, int]) -> list[str]:
    """The words in the order a java.util.HashMap with them inserted in this order iterates them: by bucket of
    the spread String.hashCode in the table the map grew to, then by insertion within a bucket."""
    capacity = 16
    while len(words) > capacity * 3 // 4:
        capacity *= 2

    def bucket(word: str) -> int:
        h = string_hash(word) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return [w for _, _, w in sorted((bucket(w), i, w) for i, w in enumerate(words))]


def _select(
    index: EmbeddedIndex, words: dict[str, int], fields: list[str], settings: _Settings, path: str
) -> list[tuple[str, str, np.float32]]:
    """XMoreLikeThis.createQueue, then the queue popped as addToQuery pops it (lowest score first): (term, field,
    score) of the terms kept."""
    limit = min(settings.max_query_terms, len(words))
    if limit <= 0:
        return []
    targets = [(f, index.postings_field(f, path)) for f in fields]
    heap: list[list[Any]] = [[]]  # Lucene's PriorityQueue: 1-based, lessThan on the score
    for word in _java_order(words):
        tf = words[word]
        if settings.min_term_freq > 0 and tf < settings.min_term_freq:
            continue
        top_field, doc_freq = fields[0], 0
        for field, target in targets:
            postings = target.postings(word)
            freq = 0 if postings is None else postings.doc_freq
            top_field = field if freq > doc_freq else top_field
            doc_freq = max(freq, doc_freq)
        if (settings.min_doc_freq > 0 and doc_freq < settings.min_doc_freq) or doc_freq > settings.max_doc_freq:
            continue
        if doc_freq == 0:
            continue
        idf = F32(math.log((index.n + 1) / (doc_freq + 1)) + 1.0)  # ClassicSimilarity.idf over numDocs
        score = F32(F32(tf) * idf)
        if len(heap) - 1 < limit:
            heap.append([word, top_field, score])
            _up_heap(heap, len(heap) - 1)
        elif heap[1][2] < score:
            heap[1] = [word, top_field, score]
            _down_heap(heap, 1)
    popped = []
    while len(heap) > 1:
        popped.append(tuple(heap[1]))
        heap[1] = heap[-1]
        heap.pop()
        if len(heap) > 1:
            _down_heap(heap, 1)
    return popped


def _up_heap(heap: list[Any], i: int) -> None:
    node = heap[i]
    j = i >> 1
    while j > 0 and node[2] < heap[j][2]:
        heap[i] = heap[j]
        i, j = j, j >> 1
    heap[i] = node


def _down_heap(heap: list[Any], i: int) -> None:
    size = len(heap) - 1
    node = heap[i]
    j = i << 1
    if j + 1 <= size and heap[j + 1][2] < heap[j][2]:
        j += 1
    while j <= size and heap[j][2] < node[2]:
        heap[i] = heap[j]
        i, j = j, j << 1
        if j + 1 <= size and heap[j + 1][2] < heap[j][2]:
            j += 1
    heap[i] = node


def _part(
    index: EmbeddedIndex, chosen: list[tuple[str, str, np.float32]], settings: _Settings, spec_msm: Any, boost: float,
    path: str,
) -> Scores:  # fmt: skip
    """One part's BooleanQuery: a BM25 term clause per chosen term (boosted by score / the first popped score x
    `boost_terms` when asked), `minimum_should_match` over the clauses (Queries.applyMinimumShouldMatch)."""
    clauses = []
    best = None
    for word, field, score in chosen:
        term_boost = F32(1)
        if settings.boost_terms:
            best = score if best is None else best
            term_boost = F32(F32(F32(settings.boost_terms) * score) / best)
        target = index.postings_field(field, path)
        postings = target.postings(word)
        assert postings is not None
        weight = target.bm25.weight(float(F32(term_boost * F32(boost))), idf(postings.doc_freq, target.bm25.doc_count))
        clauses.append(([(postings.docs, target.bm25.score(weight, postings.freqs, target.norms[postings.docs]))], 1))
    if not clauses:
        return Scores.none(index.n)
    docs, sums, counts = accumulate(index, clauses)
    required = minimum_should_match(spec_msm, len(clauses), path)
    if required > 1:
        keep = counts >= required
        return Scores.of(index.n, docs[keep], sums[keep].astype(F32))
    return Scores.disjunction(index.n, docs, sums)


# intervals: the sources the embedded engine runs, with IntervalsSourceProvider's options
_INTERVAL_OPTIONS = {
    "match": {"query", "max_gaps", "ordered", "analyzer"},
    "prefix": {"prefix", "analyzer"},
    "wildcard": {"pattern", "analyzer"},
    "fuzzy": {"term", "prefix_length", "transpositions", "fuzziness", "analyzer"},
    "any_of": {"intervals"},
    "all_of": {"intervals", "max_gaps", "ordered"},
}
# what IntervalsSourceProvider's parsers read beyond that, which the embedded engine does not run
_INTERVAL_NOT_RUN = {"match": {"filter", "use_field"}, "prefix": {"use_field"}, "wildcard": {"use_field"},
                     "fuzzy": {"use_field"}, "any_of": {"filter"}, "all_of": {"filter"},
                     "regexp": {"pattern", "flags", "analyzer", "use_field"}}  # fmt: skip
_MAX_EXPANSIONS = 128  # Lucene's Intervals.DEFAULT_MAX_EXPANSIONS


@query("intervals")
def intervals(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    """Elasticsearch's IntervalQueryBuilder: Lucene's IntervalQuery over one source, scoring boost x (1 - 1 / (1 +
    f)) in float, where f sums 1 / (length - minExtent + 1) over a document's minimal intervals (in float, as
    IntervalScorer adds them). Sources: `match` (one term; several as a phrase when ordered with max_gaps 0, else
    the minimal ordered or unordered intervals, max_gaps filtering their gaps), and `prefix`, `wildcard`, `fuzzy`
    (every position of a matching term), `all_of` match rules (ordered, unordered, max_gaps) and `any_of` at the
    top (Lucene's disjunction), built with Lucene's flattening and run by ports of its iterators. filter, use_field
    and rules Lucene would pull disjunctions out of are not run here."""
    if not isinstance(spec, dict) or len(spec) != 1:
        raise Invalid(path, "expected {field: {rule: {...}}} with one field")
    field = next(iter(spec))
    rule_spec = spec[field]
    index.check_field(field, path)
    if not isinstance(rule_spec, dict):
        raise Invalid(f"{path}.{field}", "expected {rule: {...}}, e.g. {match: {query: 'a b'}}")
    options = {k: v for k, v in rule_spec.items() if k in ("boost", "_name")}
    rules = [k for k in rule_spec if k not in ("boost", "_name")]
    if len(rules) != 1:
        raise Invalid(f"{path}.{field}", f"expected one rule (match, prefix, wildcard, fuzzy, ...), got {rules}")
    if index.kinds[field] != "text":
        raise Invalid(path, f"Can only use interval queries on text fields - not on [{field}] which is of type "
                            f"[{index.fields[field].type}]")  # fmt: skip
    weight = F32(boost_of(options, f"{path}.{field}", boost))
    source = _source(index, field, {rules[0]: rule_spec[rules[0]]}, f"{path}.{field}", top=True)
    docs, values = [], []
    for doc in sorted(source.docs):
        found = source.intervals(doc)
        if not found:
            continue
        freq = F32(0)
        for start, end, _ in found:
            freq = F32(float(freq) + 1.0 / max(end - start + 1 - source.min_extent + 1, 1))
        docs.append(doc)
        values.append(weight * (F32(1) - F32(1) / (F32(1) + freq)))  # SaturationFunction, pivot 1
    return Scores.of(index.n, np.array(docs, dtype=np.int64), np.array(values, dtype=F32))


NO_MORE = 2**31 - 1  # IntervalIterator.NO_MORE_INTERVALS


@dataclasses.dataclass
class _Src:
    """An IntervalsSource as Lucene builds it: `key` its identity (what Lucene's builders compare to flatten and
    deduplicate), the documents it may match, and how to make its intervals in one of them."""

    kind: str  # leaf, phrase, ordered, unordered, maxgaps, or
    key: tuple[Any, ...]
    min_extent: int
    docs: set[int]
    subs: list[_Src] = dataclasses.field(default_factory=list)
    positions: dict[int, list[tuple[int, int]]] = dataclasses.field(default_factory=dict)
    max_gaps: int = -1

    def intervals(self, doc: int) -> list[tuple[int, int, int]]:
        """(start, end, gaps) in the order Lucene's iterator gives them."""
        if self.kind == "leaf":
            return [(s, e, 0) for s, e in self.positions.get(doc, [])]
        if self.kind == "maxgaps":
            return [i for i in self.subs[0].intervals(doc) if i[2] <= self.max_gaps]
        lists = [sub.intervals(doc) for sub in self.subs if self.kind != "or" or doc in sub.docs]
        if self.kind == "or":
            return _disjunction(lists)
        if any(not found for found in lists):
            return []
        return {"phrase": _block, "ordered": _ordered, "unordered": _unordered}[self.kind](lists)


def _leaf(key: tuple[Any, ...], positions: dict[int, list[tuple[int, int]]]) -> _Src:
    return _Src("leaf", key, 1, set(positions), positions=positions)


def _combine(kind: str, subs: list[_Src], where: str) -> _Src:
    """Intervals.phrase / ordered / unordered of two sources or more: ordered and unordered take in the sources
    of a nested one of their kind (their build's flatten); a repeated source is not run here (Lucene's
    RepeatingIntervalsSource)."""
    if kind != "phrase":
        subs = [inner for sub in subs for inner in (sub.subs if sub.kind == kind else [sub])]
    keys = [sub.key for sub in subs]
    if len(set(keys)) != len(keys):
        raise Unsupported("intervals that repeat a term or rule", where, ["distinct terms and rules"])
    docs = set.intersection(*(sub.docs for sub in subs))
    return _Src(kind, (kind, *keys), sum(sub.min_extent for sub in subs), docs, subs)


def _combine_sources(parts: list[_Src], gaps: int, ordered: bool, where: str) -> _Src:
    """Elasticsearch's IntervalBuilder.combineSources: one source stays itself; a phrase of them for ordered
    max_gaps 0; else Intervals.ordered or unordered, inside Intervals.maxgaps unless max_gaps is -1."""
    if len(parts) == 1:
        return parts[0]
    if ordered and gaps == 0:
        return _combine("phrase", parts, where)
    inner = _combine("ordered" if ordered else "unordered", parts, where)
    if gaps < 0:
        return inner
    return _Src("maxgaps", ("maxgaps", gaps, inner.key), inner.min_extent, inner.docs, [inner], max_gaps=gaps)


def _source(index: EmbeddedIndex, field: str, node: Any, path: str, top: bool = False) -> _Src:
    """One intervals rule `{rule: {...}}` as Elasticsearch's IntervalsSourceProvider builds it."""
    if not isinstance(node, dict) or len(node) != 1:
        raise Invalid(path, "expected one rule, e.g. {match: {query: 'a b'}}")
    ((rule, source),) = node.items()
    where = f"{path}.{rule}"
    if rule not in _INTERVAL_NOT_RUN:
        raise Invalid(path, f"Unknown interval type [{rule}], expecting one of [match, any_of, all_of, prefix, "
                            "wildcard, regexp], as Elasticsearch 8 refuses it")  # fmt: skip
    if rule not in _INTERVAL_OPTIONS:
        raise Unsupported(f"intervals {rule}", where, sorted(_INTERVAL_OPTIONS))
    if not isinstance(source, dict):
        raise Invalid(where, "expected a mapping of options")
    known = _INTERVAL_OPTIONS[rule] | _INTERVAL_NOT_RUN[rule]
    unknown = sorted(set(source) - known)
    if unknown:  # the rule's ObjectParser refuses a key it does not declare
        raise Invalid(where, f"{unknown_field(rule, unknown[0], known)}, as Elasticsearch 8 refuses it")
    extra = sorted(set(source) - _INTERVAL_OPTIONS[rule])
    if extra:
        raise Unsupported(f"intervals {rule}.{extra[0]}", where, sorted(_INTERVAL_OPTIONS[rule]))
    gaps = int(number(source, "max_gaps", where, -1))
    ordered = source.get("ordered", False) in (True, "true")
    if rule == "match":
        return _match_source(index, field, source, gaps, ordered, where)
    if rule in ("prefix", "wildcard", "fuzzy"):
        terms = _expand(index, field, rule, source, where)
        return _leaf((rule, tuple(terms)), _term_positions(index.text[field], terms))
    if rule == "any_of" and not top:
        raise Unsupported("an intervals any_of inside another rule", where, ["any_of at the top"])
    subs = source.get("intervals")
    if not isinstance(subs, list) or not subs:
        raise Invalid(f"{where}.intervals", "needs a list of intervals rules")
    parts = [_source(index, field, sub, f"{where}.intervals[{i}]") for i, sub in enumerate(subs)]
    if rule == "any_of":
        if len(parts) == 1:
            return parts[0]
        return _Src("or", ("or", *(p.key for p in parts)), min(p.min_extent for p in parts),
                    set().union(*(p.docs for p in parts)), parts)  # fmt: skip
    if any(p.kind == "or" or p.key[0] in ("prefix", "wildcard", "fuzzy") for p in parts):
        # Lucene pulls disjunctions up out of ordered and unordered sources
        raise Unsupported("an intervals all_of over any_of, prefix, wildcard or fuzzy", where, ["match rules"])
    return _combine_sources(parts, gaps, ordered, where)


def _match_source(
    index: EmbeddedIndex, field: str, source: dict[str, Any], gaps: int, ordered: bool, where: str
) -> _Src:
    """IntervalBuilder.analyzeText over the analyzed query (no synonyms, no position gaps)."""
    if source.get("query") is None:
        raise Invalid(where, "needs 'query'")
    terms, positions = index.search_tokens(field, str(source["query"]), source.get("analyzer"), path=where)
    if not terms:
        return _Src("leaf", ("none",), 0, set())
    if list(positions) != list(range(positions[0], positions[0] + len(terms))):
        raise Unsupported("an intervals match whose text stacks synonyms or leaves position gaps", where,
                          ["texts analyzed to one term per position"])  # fmt: skip
    target = index.text[field]
    leaves = [_leaf(("term", t), _term_positions(target, [t])) for t in terms]
    return _combine_sources(leaves, gaps, ordered, where)


class _Cursor:
    """An IntervalIterator over precomputed intervals: -1 before the first, NO_MORE after the last."""

    __slots__ = ("at", "items")

    def __init__(self, items: list[tuple[int, int, int]]) -> None:
        self.items, self.at = items, -1

    @property
    def start(self) -> int:
        return -1 if self.at < 0 else NO_MORE if self.at >= len(self.items) else self.items[self.at][0]

    @property
    def end(self) -> int:
        return -1 if self.at < 0 else NO_MORE if self.at >= len(self.items) else self.items[self.at][1]

    def next(self) -> int:
        self.at = min(self.at + 1, len(self.items))
        return self.start

    def width(self) -> int:
        return self.end - self.start + 1


def _block(lists: list[list[tuple[int, int, int]]]) -> list[tuple[int, int, int]]:
    """BlockIntervalIterator: the sources one right after another."""
    subs = [_Cursor(found) for found in lists]
    out: list[tuple[int, int, int]] = []
    while True:
        if subs[0].next() == NO_MORE:
            return out
        i = 1
        while i < len(subs):
            while subs[i].start <= subs[i - 1].end:
                if subs[i].next() == NO_MORE:
                    return out
            if subs[i].start == subs[i - 1].end + 1:
                i += 1
            else:
                if subs[0].next() == NO_MORE:
                    return out
                i = 1
        out.append((subs[0].start, subs[-1].end, 0))


def _ordered(lists: list[list[tuple[int, int, int]]]) -> list[tuple[int, int, int]]:
    """OrderedIntervalsSource's iterator (reset, then nextInterval until exhausted)."""
    subs = [_Cursor(found) for found in lists]
    subs[0].next()
    out = []
    while (found := _ordered_next(subs)) is not None:
        out.append(found)
    return out


def _ordered_next(subs: list[_Cursor]) -> tuple[int, int, int] | None:
    """OrderedIntervalIterator.nextInterval, step for step: the next (start, end, gaps), None when exhausted."""
    found = None
    last_start, minimizing, i = NO_MORE, False, 1
    while True:
        while True:
            if subs[i - 1].end >= last_start:
                return found
            if i == len(subs) or (minimizing and subs[i].start > subs[i - 1].end):
                break
            while True:
                if subs[i].end >= last_start or subs[i].next() == NO_MORE:
                    return found
                if subs[i].start > subs[i - 1].end:
                    break
            i += 1
        start = subs[0].start
        if start == NO_MORE:
            return None
        end = subs[-1].end
        found = (start, end, end - start + 1 - sum(sub.width() for sub in subs))
        last_start, i = subs[-1].start, 1
        if subs[0].next() == NO_MORE:
            return found
        minimizing = True


class _Queue:
    """Lucene's PriorityQueue (a 1-based binary heap) with its lessThan."""

    def __init__(self, less: Any) -> None:
        self.heap: list[Any] = [None]
        self.less = less

    def __len__(self) -> int:
        return len(self.heap) - 1

    def top(self) -> Any:
        return self.heap[1]

    def add(self, item: Any) -> None:
        heap, less = self.heap, self.less
        heap.append(item)
        i = len(heap) - 1
        j = i >> 1
        while j > 0 and less(item, heap[j]):
            heap[i] = heap[j]
            i, j = j, j >> 1
        heap[i] = item

    def pop(self) -> Any:
        heap, less = self.heap, self.less
        result = heap[1]
        heap[1] = heap[-1]
        heap.pop()
        size = len(heap) - 1
        if size:
            i, node = 1, heap[1]
            j = 2
            if j + 1 <= size and less(heap[j + 1], heap[j]):
                j += 1
            while j <= size and less(heap[j], node):
                heap[i] = heap[j]
                i, j = j, j << 1
                if j + 1 <= size and less(heap[j + 1], heap[j]):
                    j += 1
            heap[i] = node
        return result


def _unordered(lists: list[list[tuple[int, int, int]]]) -> list[tuple[int, int, int]]:
    """UnorderedIntervalsSource's iterator, step for step."""
    subs = [_Cursor(found) for found in lists]
    queue = _Queue(lambda a, b: a.start < b.start or (a.start == b.start and a.end >= b.end))
    queue_end = start = -1
    for sub in subs:
        if sub.next() == NO_MORE:
            break
        queue.add(sub)
        queue_end = max(queue_end, sub.end)
    out: list[tuple[int, int, int]] = []
    while True:
        while len(queue) == len(subs) and queue.top().start == start:
            sub = queue.pop()
            if sub.next() != NO_MORE:
                queue.add(sub)
                queue_end = max(queue_end, sub.end)
        if len(queue) < len(subs):
            return out
        while True:
            start, end = queue.top().start, queue_end
            found = (start, end, end - start + 1 - sum(sub.width() for sub in subs))
            if queue.top().end == end:
                break
            sub = queue.pop()
            if sub.next() != NO_MORE:
                queue.add(sub)
                queue_end = max(queue_end, sub.end)
            if not (len(queue) == len(subs) and end == queue_end):
                break
        out.append(found)


def _disjunction(lists: list[list[tuple[int, int, int]]]) -> list[tuple[int, int, int]]:
    """DisjunctionIntervalIterator: the sub-iterators' current intervals in a queue by end (then the later start
    first); each step advances every one whose interval contains the one just returned, then returns the top."""
    import heapq

    heap = [((ps[0][1], -ps[0][0]), i, 0) for i, ps in enumerate(lists) if ps]
    heapq.heapify(heap)
    out: list[tuple[int, int, int]] = []
    while heap:
        _, i, at = heap[0]
        start, end, _ = current = lists[i][at]
        out.append(current)
        while heap:
            (top_end, top_neg), i, at = heap[0]
            if not (start >= -top_neg and end <= top_end):
                break
            heapq.heappop(heap)
            if at + 1 < len(lists[i]):
                nxt = lists[i][at + 1]
                heapq.heappush(heap, ((nxt[1], -nxt[0]), i, at + 1))
    return out


def _term_positions(target: Any, terms: list[str]) -> dict[int, list[tuple[int, int]]]:
    """Every position of any of `terms`, per document, as one-position intervals in order."""
    out: dict[int, list[tuple[int, int]]] = {}
    for word in terms:
        postings = target.postings(word)
        if postings is None:
            continue
        for i, doc in enumerate(postings.docs.tolist()):
            out.setdefault(doc, []).extend((p, p) for p in target.positions_of(postings, i).tolist())
    for found in out.values():
        found.sort()
    return out


def _expand(index: EmbeddedIndex, field: str, rule: str, source: dict[str, Any], where: str) -> list[str]:
    """The terms a prefix, wildcard or fuzzy source stands for (the text lowercased, as the analyzer normalizes
    it), refused past Lucene's 128 expansions, where Elasticsearch errs."""
    target = index.text[field]
    key = {"prefix": "prefix", "wildcard": "pattern", "fuzzy": "term"}[rule]
    if source.get(key) is None:
        raise Invalid(where, f"needs '{key}'")
    value = str(source[key]).lower()
    if rule == "prefix":
        terms = prefix_terms(index, field, value, _MAX_EXPANSIONS + 1)
    elif rule == "wildcard":
        compiled = re.compile(wildcard_regex(value), re.DOTALL)
        start = literal_prefix(value)
        terms = [t for t in prefix_terms(index, field, start, 2**31) if compiled.fullmatch(t)]
    else:
        edits = edits_for(source.get("fuzziness", "auto"), value, where)
        prefix_length = int(number(source, "prefix_length", where, 0))
        transpositions = source.get("transpositions", True) not in (False, "false")
        terms = [t for t, _ in fuzzy_expansions(target, value, edits, prefix_length, transpositions, 2**31)]
    if len(terms) > _MAX_EXPANSIONS:
        raise Unsupported(f"an intervals {rule} expanding to more than {_MAX_EXPANSIONS} terms", where)
    return terms
