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
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.painless import from_json
from pytest_relevance.engines.embedded.queries import (
    F32,
    Invalid,
    Scores,
    Unsupported,
    accumulate,
    allowed,
    boost_of,
    field_spec,
    flat_sum,
    minimum_should_match,
    number,
    query,
)
from pytest_relevance.engines.embedded.queries.full_text import prefix_terms
from pytest_relevance.engines.embedded.queries.multi_term import (
    edits_for,
    fuzzy_expansions,
    literal_prefix,
    wildcard_regex,
)
from pytest_relevance.engines.embedded.queries.scripts import compile_script, run_script
from pytest_relevance.engines.embedded.queries.term_level import term
from pytest_relevance.engines.embedded.scoring import idf

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded import EmbeddedIndex

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
        length = len(word.encode("utf-16-le")) // 2
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
            tids = np.repeat(np.arange(len(terms)), np.diff(target.offsets))
            docs, freqs = target.docs, target.freqs
        else:
            tids, docs = target.ids, target.doc_of
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
        h = 0
        units = word.encode("utf-16-be")
        for i in range(0, len(units), 2):
            h = (31 * h + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
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
}
_MAX_EXPANSIONS = 128  # Lucene's Intervals.DEFAULT_MAX_EXPANSIONS


@query("intervals")
def intervals(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    """Elasticsearch's IntervalQueryBuilder: Lucene's IntervalQuery over one source, scoring boost x (1 - 1 / (1 +
    f)) in float, where f sums 1 / (length - minExtent + 1) over a document's minimal intervals (in float, as
    IntervalScorer adds them). Sources: `match` (one term; several as a phrase when ordered with max_gaps 0, else
    the minimal ordered or unordered intervals, max_gaps filtering their gaps), and `prefix`, `wildcard`, `fuzzy`
    (every position of a matching term), and `any_of` over those (Lucene's disjunction: the sources' intervals by
    end, leaving out one that contains the interval before it). all_of, filter and use_field are not run here."""
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
    per_doc, min_extent = _source(index, field, {rules[0]: rule_spec[rules[0]]}, f"{path}.{field}", top=True)
    docs = np.array(sorted(per_doc), dtype=np.int64)
    values = np.empty(docs.size, dtype=F32)
    for i, doc in enumerate(docs.tolist()):
        freq = F32(0)
        for start, end in per_doc[doc]:
            freq = F32(float(freq) + 1.0 / max(end - start + 1 - min_extent + 1, 1))
        values[i] = weight * (F32(1) - F32(1) / (F32(1) + freq))  # SaturationFunction, pivot 1
    return Scores.of(index.n, docs, values)


def _source(
    index: EmbeddedIndex, field: str, node: Any, path: str, top: bool = False
) -> tuple[dict[int, list[tuple[int, int]]], int]:
    """One intervals rule `{rule: {...}}`: its intervals per document (in the order Lucene's iterator gives them)
    and its minExtent."""
    if not isinstance(node, dict) or len(node) != 1:
        raise Invalid(path, "expected one rule, e.g. {match: {query: 'a b'}}")
    ((rule, source),) = node.items()
    where = f"{path}.{rule}"
    if rule not in _INTERVAL_OPTIONS or (rule == "any_of" and not top):
        raise Unsupported(f"intervals {rule}" if top else f"an intervals {rule} inside any_of", where,
                          sorted(_INTERVAL_OPTIONS))  # fmt: skip
    if not isinstance(source, dict):
        raise Invalid(where, "expected a mapping of options")
    extra = sorted(set(source) - _INTERVAL_OPTIONS[rule])
    if extra:
        raise Unsupported(f"intervals {rule}.{extra[0]}", where, sorted(_INTERVAL_OPTIONS[rule]))
    if rule == "match":
        return _match_intervals(index, field, source, where)
    if rule != "any_of":
        return _term_positions(index.text[field], _expand(index, field, rule, source, where)), 1
    subs = source.get("intervals")
    if not isinstance(subs, list) or not subs:
        raise Invalid(f"{where}.intervals", "needs a list of intervals rules")
    parts = [_source(index, field, sub, f"{where}.intervals[{i}]") for i, sub in enumerate(subs)]
    out: dict[int, list[tuple[int, int]]] = {}
    for doc in set().union(*(found for found, _ in parts)):
        out[doc] = _disjunction([found[doc] for found, _ in parts if doc in found])
    return out, min(extent for _, extent in parts)


def _disjunction(lists: list[list[tuple[int, int]]]) -> list[tuple[int, int]]:
    """DisjunctionIntervalIterator: the sub-iterators' current intervals in a queue by end (then the later start
    first); each step advances every one whose interval contains the one just returned, then returns the top."""
    import heapq

    heap = [((ps[0][1], -ps[0][0]), i, 0) for i, ps in enumerate(lists) if ps]
    heapq.heapify(heap)
    out: list[tuple[int, int]] = []
    while heap:
        (end, neg_start), _, _ = heap[0]
        out.append((-neg_start, end))
        start = -neg_start
        while heap:
            (top_end, top_neg), i, at = heap[0]
            if not (start >= -top_neg and end <= top_end):
                break
            heapq.heappop(heap)
            if at + 1 < len(lists[i]):
                nxt = lists[i][at + 1]
                heapq.heappush(heap, ((nxt[1], -nxt[0]), i, at + 1))
    return out


def _match_intervals(
    index: EmbeddedIndex, field: str, source: dict[str, Any], where: str
) -> tuple[dict[int, list[tuple[int, int]]], int]:
    """A match source's intervals per document and its minExtent (Elasticsearch's IntervalBuilder)."""
    if source.get("query") is None:
        raise Invalid(where, "needs 'query'")
    terms, positions = index.search_tokens(field, str(source["query"]), source.get("analyzer"), path=where)
    if len(terms) != len(set(terms)) or list(positions) != list(range(positions[0], positions[0] + len(terms))):
        raise Unsupported("an intervals match whose text repeats a term, stacks synonyms or leaves position gaps",
                          where)  # fmt: skip
    gaps = int(number(source, "max_gaps", where, -1))
    ordered = source.get("ordered", False) in (True, "true")
    target = index.text[field]
    lists = [_term_positions(target, [t]) for t in terms]
    if not terms or any(not found for found in lists):
        return {}, len(terms)
    docs = set(lists[0]).intersection(*lists[1:])
    out: dict[int, list[tuple[int, int]]] = {}
    for doc in docs:
        per_term = [[p for p, _ in found[doc]] for found in lists]
        if len(per_term) == 1:
            found = [(p, p) for p in per_term[0]]
        elif ordered and gaps == 0:
            starts = set(per_term[0]).intersection(*({p - i for p in ps} for i, ps in enumerate(per_term) if i))
            found = [(s, s + len(terms) - 1) for s in sorted(starts)]
        else:
            found = _minimal(per_term, ordered)
            if gaps >= 0:
                found = [(s, e) for s, e in found if e - s + 1 - len(terms) <= gaps]
        if found:
            out[doc] = found
    return out, len(terms)


def _minimal(per_term: list[list[int]], ordered: bool) -> list[tuple[int, int]]:
    """The minimal intervals holding one position of every term (in the terms' order when `ordered`): for each
    end, the latest start; an interval is kept unless a kept one lies within it."""
    candidates = []
    if ordered:
        import bisect

        for end in per_term[-1]:
            at = end
            for positions in reversed(per_term[:-1]):
                i = bisect.bisect_left(positions, at) - 1
                if i < 0:
                    break
                at = positions[i]
            else:
                candidates.append((at, end))
    else:
        merged = sorted((p, t) for t, ps in enumerate(per_term) for p in ps)
        last = [-1] * len(per_term)
        for p, t in merged:
            last[t] = p
            if min(last) >= 0:
                candidates.append((min(last), p))
    out: list[tuple[int, int]] = []
    for start, end in candidates:  # ascending ends: keep strictly later starts
        if out and start <= out[-1][0]:
            continue
        out.append((start, end))
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
