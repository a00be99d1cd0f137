"""Full-text queries (match, match_phrase, multi_match), built as Elasticsearch builds them with Lucene's QueryBuilder.

A match query becomes a boolean query of one term clause per analyzed token; Lucene merges duplicate tokens into one
clause whose boost is their count, and sums the clauses' float32 scores in double. A phrase is scored once per
document with the phrase frequency (exact: occurrences; sloppy: the sum of 1 / (1 + match length)) and the sum of
its terms' idfs. A search analyzer that makes a token graph (multi-word synonyms) turns a match into one phrase per
synonym path and a match_phrase into a span query (`TokenGraph`). The score arithmetic itself is `scoring.BM25`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from pytest_relevance.engines.embedded.analysis.filters import fixed_shingles
from pytest_relevance.engines.embedded.cost import tally
from pytest_relevance.engines.embedded.java import F32, utf16_length
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unsupported
from pytest_relevance.engines.embedded.queries.options import (
    allowed,
    boost_of,
    field_spec,
    minimum_should_match,
    number,
)
from pytest_relevance.engines.embedded.queries.registry import query
from pytest_relevance.engines.embedded.queries.sloppy_phrase import SloppyPhrase
from pytest_relevance.engines.embedded.recorder import RECORDING
from pytest_relevance.engines.embedded.scores import Clause, Scores, accumulate, flat_sum
from pytest_relevance.engines.embedded.scoring import idf, idf_sum

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.analysis import Analyzer
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex
    from pytest_relevance.engines.embedded.recorder import Recorder

from pytest_relevance.engines.embedded.queries.multi_term import (
    ALL_TERMS,
    INDEX_PREFIX_CHARS,
    edits_for,
    fuzzy_expansions,
    fuzzy_options,
    fuzzy_rewrite,
    index_prefix_docs,
    rewritten,
    term_scores,
)

_FUZZY_KEYS = {"fuzziness", "prefix_length", "max_expansions", "fuzzy_transpositions", "fuzzy_rewrite"}
_MATCH_KEYS = {"query", "operator", "boost", "minimum_should_match", "zero_terms_query", "lenient", "analyzer",
               "auto_generate_synonyms_phrase_query", *_FUZZY_KEYS}  # fmt: skip


def term_clauses(
    index: EmbeddedIndex,
    field: str,
    terms: Sequence[Any],
    boost: float,
    path: str,
    fuzzy: dict[str, Any] | None = None,
    disjunction: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One term clause per entry of `terms` (duplicates merged with summed boosts, as Lucene's rewrite does):
    (ordinals, their scores summed in double, how many clauses each matches). With `fuzzy` (the match query's
    fuzziness options) each clause is a fuzzy query, scored by its `fuzzy_rewrite` (blended by default); in a pure
    `disjunction` Lucene then flattens the expansions of the clauses that are not boosted (unless the rewrite is a
    constant score) into one disjunction and merges a term reached from two tokens (boosts summed, the statistics
    of its first occurrence kept)."""
    target = index.postings_field(field, path)
    clauses: list[Clause] = []
    flat: dict[str, list[Any]] = {}  # term -> [summed boost, postings, (blended) doc freq]
    kinds: dict[str, str] = {}  # term -> the rewrite that put it in `flat`
    recorder = RECORDING.get()
    for term, count in Counter(terms).items():
        clause_boost = float(F32(count) * F32(boost))
        if isinstance(term, tuple):
            clauses.append(_synonym_clause(target, term, clause_boost, count, recorder, path, field))
            continue
        if fuzzy is not None:
            prefix_length, transpositions, max_expansions = fuzzy_options(fuzzy, path)
            rewrite = fuzzy_rewrite(fuzzy, "fuzzy_rewrite", path, max_expansions)
            edits = edits_for(fuzzy["fuzziness"], term, path)
            limit = ALL_TERMS if rewrite.size is None else rewrite.size
            expansions = fuzzy_expansions(target, term, edits, prefix_length, transpositions, limit)
            if (
                disjunction and count == 1 and rewrite.kind != "constant"
            ):  # a boolean query of term clauses, inlined into this one
                looked_up = [(t, b, target.postings(t)) for t, b in expansions]
                found = [(t, b, p) for t, b, p in looked_up if p is not None]
                shared = max((p.doc_freq for _, _, p in found), default=0)
                for t, b, p in found:
                    entry = flat.setdefault(t, [0.0, p, shared if rewrite.kind == "blended" else p.doc_freq])
                    entry[0] += b
                    kinds[t] = rewrite.kind
                continue
            # a clause of its own: its boolean query's float score, which the enclosing one sums
            one = rewritten(index, field, expansions, rewrite, clause_boost, path)
            clauses.append(([(one.docs, one.values)], count))
            continue
        postings = target.postings(term)
        if postings is None:
            continue
        scores = term_scores(target, field, term, postings, clause_boost, postings.doc_freq, recorder, path)
        clauses.append(([(postings.docs, scores)], count))
    for term, (summed, postings, doc_freq) in flat.items():
        term_boost = float(F32(F32(summed) * F32(boost)))
        if kinds[term] == "boost":  # top_terms_boost_N: BoostQuery(ConstantScoreQuery(term), summed boosts)
            clauses.append(([(postings.docs, np.full(postings.docs.size, F32(term_boost), dtype=F32))], 1))
            continue
        scores = term_scores(target, field, term, postings, term_boost, doc_freq, recorder, path)
        clauses.append(([(postings.docs, scores)], 1))
    return accumulate(index, clauses)


def synonym_groups(terms: Sequence[str], positions: Sequence[int]) -> list[Any]:
    """Analyzed tokens as Lucene's QueryBuilder sees them: a term per position, or a tuple of the terms stacked at
    one position (synonyms), which it scores as one SynonymQuery."""
    groups: list[list[str]] = []
    previous = None
    for term, position in zip(terms, positions, strict=True):
        if position == previous:
            groups[-1].append(term)
        else:
            groups.append([term])
        previous = position
    return [g[0] if len(g) == 1 else tuple(dict.fromkeys(g)) for g in groups]


def _synonym_clause(
    target: Any, terms: tuple[str, ...], boost: float, count: int, recorder: Recorder | None, path: str, field: str
) -> Clause:
    """Lucene's SynonymQuery: one pseudo-term whose frequency is the sum of the terms' frequencies in a document
    and whose document frequency is the largest of theirs."""
    found = [p for p in map(target.postings, terms) if p is not None]
    if not found:
        return ([], count)
    docs, where = np.unique(np.concatenate([p.docs for p in found]), return_inverse=True)
    freqs = np.bincount(where, weights=np.concatenate([p.freqs for p in found]).astype(np.float64)).astype(F32)
    doc_freq = max(p.doc_freq for p in found)
    term_idf = idf(doc_freq, target.bm25.doc_count)
    scores = target.bm25.score(target.bm25.weight(boost, term_idf), freqs, target.norms[docs])
    if recorder is not None:
        term = f"({'|'.join(terms)})"
        recorder.bm25(f"{path}[{field}:{term}]", field, term, target, boost, doc_freq, term_idf, docs, freqs, scores)
    return ([(docs, scores)], count)


def term_disjunction(
    index: EmbeddedIndex,
    field: str,
    terms: Sequence[Any],
    boost: float,
    required: int | None,
    path: str,
    fuzzy: dict[str, Any] | None = None,
) -> Scores:
    """A boolean query of term clauses; a document matches when it holds at least `required` of them (None: one)."""
    if not terms:
        return Scores.none(index.n)
    docs, total, hits = term_clauses(index, field, terms, boost, path, fuzzy, required is None or required <= 1)
    if required is not None and required > 1:
        keep = hits >= required
        return Scores.of(index.n, docs[keep], total[keep].astype(F32))
    return Scores.disjunction(index.n, docs, total)


def no_terms(index: EmbeddedIndex, zero_terms_query: Any, boost: float, path: str) -> Scores:
    """What a full-text query whose text analyzes to no token matches: nothing, or with `zero_terms_query: all`
    every document (Elasticsearch's MatchQueryParser.zeroTermsQuery, a match_all scoring the boost); any other
    value is Elasticsearch's parse error."""
    mode = "none" if zero_terms_query is None else str(zero_terms_query).lower()
    if mode not in ("none", "all"):
        raise Invalid(f"{path}.zero_terms_query", f"Unsupported zero_terms_query value [{zero_terms_query}]")
    if mode == "all":
        return Scores.constant(np.ones(index.n, dtype=bool), boost)
    return Scores.none(index.n)


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
        try:
            return index.equal(field, [text], boost, path)
        except Invalid:
            # Elasticsearch's MatchQueryParser.termQuery: with `lenient`, a text that does not fit the field's type
            # becomes a MatchNoDocsQuery for that field instead of failing the whole search
            if options.get("lenient"):
                return Scores.none(index.n)
            raise
    terms: list[Any]
    if kind == "text":
        graph = index.search_graph(field, str(text), options.get("analyzer"), path=path)
        if len(graph[0]) > 1 and max(graph[2]) > 1:
            if options.get("fuzziness") is not None:
                raise Unsupported(
                    "fuzziness on a query with multi-word synonyms (a synonym_graph search analyzer)", path
                )
            return graph_match(index, field, TokenGraph(*graph), options, boost, path)
        terms = synonym_groups(graph[0], graph[1])
    else:
        terms = [index.normalize(field, str(text))]
    if not terms:
        return no_terms(index, options.get("zero_terms_query"), boost, path)
    if operator == "and":
        required = len(terms)
    elif "minimum_should_match" in options and len(terms) > 1:
        required = max(minimum_should_match(options["minimum_should_match"], len(terms), path), 1)
    else:
        required = None
    fuzzy = options if options.get("fuzziness") is not None else None
    return term_disjunction(index, field, terms, boost, required, path, fuzzy)


def refuse_cutoff_frequency(options: dict[str, Any], name: str, path: str) -> None:
    """Elasticsearch 8 removed `cutoff_frequency` (its parser refuses the key); said as its refusal, not as a gap
    of the embedded engine."""
    if "cutoff_frequency" in options:
        raise Invalid(f"{path}.cutoff_frequency", f"[{name}] query does not support [cutoff_frequency] in "
                      "Elasticsearch 8 (removed; the query skips non-competitive blocks by itself)")  # fmt: skip


@query("match")
def match(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "query")
    refuse_cutoff_frequency(options, "match", path)
    allowed(options, _MATCH_KEYS, path, every="match")
    return match_field(index, field, options, path, boost_of(options, path, boost)).boosted(options.get("boost"))


def phrase(
    index: EmbeddedIndex,
    field: str,
    text: str,
    slop: int,
    boost: float,
    path: str,
    analyzer: str | None = None,
    zero_terms_query: Any = None,
) -> Scores:
    """A phrase query on a text field: documents holding every term at the query's relative positions (within
    `slop` moves), scored with the phrase frequency. Tokens stacked at one position (synonyms) form one group, as
    Lucene's QueryBuilder makes a MultiPhraseQuery of them, or a SynonymQuery when they are the only position (as
    a match query's); multi-word synonyms make it a graph query."""
    shingled = _on_shingles(index, field, text, slop, analyzer, path)
    if shingled is not None:
        shingle, shingle_terms, shingle_starts = shingled
        return phrase_groups(index, shingle, [[t] for t in shingle_terms], shingle_starts, 0, boost, path)
    terms, positions, lengths = index.search_graph(field, text, analyzer, quote=True, path=path)
    if not terms:
        return no_terms(index, zero_terms_query, boost, path)
    if len(terms) > 1 and max(lengths) > 1:
        return graph_phrase(index, field, TokenGraph(terms, positions, lengths), slop, boost, path)
    groups: list[list[str]] = []
    starts: list[int] = []
    for term, position in zip(terms, positions, strict=True):
        if starts and starts[-1] == position:
            groups[-1].append(term)
        else:
            groups.append([term])
            starts.append(position)
    if len(groups) == 1 and len(set(groups[0])) > 1:  # QueryBuilder: one position is no phrase but a SynonymQuery
        return term_disjunction(index, field, [tuple(dict.fromkeys(groups[0]))], boost, None, path)
    return phrase_groups(index, field, groups, starts, slop, boost, path)


def phrase_groups(
    index: EmbeddedIndex, field: str, groups: list[list[str]], positions: list[int], slop: int, boost: float, path: str
) -> Scores:
    """Lucene's (Multi)PhraseQuery: at each position any term of its group; the idf is the sum of every term's."""
    if not groups:
        return Scores.none(index.n)
    if len(groups) == 1:
        return term_disjunction(index, field, list(dict.fromkeys(groups[0])), boost, None, path)
    target = index.text[field]
    if not target.has_positions:
        raise Invalid(path, f"field {field!r} was indexed without position data; a phrase query needs positions")
    members = [[p for p in (target.postings(t) for t in dict.fromkeys(group)) if p is not None] for group in groups]
    if any(not group for group in members):
        return Scores.none(index.n)
    candidates = None
    for group in members:
        docs = group[0].docs if len(group) == 1 else np.unique(np.concatenate([p.docs for p in group]))
        candidates = docs if candidates is None else np.intersect1d(candidates, docs, assume_unique=True)
    assert candidates is not None
    freqs = np.zeros(candidates.size, dtype=F32)
    offsets = [pos - positions[0] for pos in positions]
    sloppy = SloppyPhrase(groups, offsets, slop) if slop else None
    located = [[(p, np.searchsorted(p.docs, candidates)) for p in group] for group in members]
    # a term that alone fills r query positions needs r document positions (Lucene finds no match otherwise); the
    # first candidate is always walked, as Lucene finds a sloppy phrase's repeat groups on it
    possible = np.ones(candidates.size, dtype=bool)
    for term, repeats in Counter(group[0] for group in groups if len(set(group)) == 1).items():
        if repeats > 1 and (found := target.postings(term)) is not None:
            possible &= found.freqs[np.searchsorted(found.docs, candidates)] >= repeats
    for i in range(candidates.size):
        if i and not possible[i]:
            continue
        doc = candidates[i]
        lists = []
        for pairs in located:
            parts = [
                target.positions_of(p, int(at[i])) for p, at in pairs if at[i] < p.docs.size and p.docs[at[i]] == doc
            ]
            lists.append(parts[0] if len(parts) == 1 else np.unique(np.concatenate(parts)))
        freqs[i] = _exact_freq(lists, offsets) if sloppy is None else sloppy.freq([p.tolist() for p in lists])
    keep = freqs > 0
    docs, freqs = candidates[keep], freqs[keep]
    doc_freqs = [p.doc_freq for group in members for p in group]
    phrase_idf = idf_sum(doc_freqs, target.bm25.doc_count)
    scores = target.bm25.score(target.bm25.weight(boost, phrase_idf), freqs, target.norms[docs])
    recorder = RECORDING.get()
    if recorder is not None:
        text = '"' + " ".join(g[0] if len(g) == 1 else f"({'|'.join(g)})" for g in groups) + '"'
        recorder.bm25(f"{path}[{field}:{text}]", field, text, target, boost, max(doc_freqs), phrase_idf, docs, freqs,
                      scores)  # fmt: skip
    return Scores.of(index.n, docs, scores)


def _exact_freq(lists: list[np.ndarray], offsets: list[int]) -> float:
    starts = lists[0] - offsets[0]
    for positions, offset in zip(lists[1:], offsets[1:], strict=True):
        starts = np.intersect1d(starts, positions - offset, assume_unique=True)
    return float(starts.size)


@query("match_phrase")
def match_phrase(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "query")
    allowed(options, {"query", "slop", "boost", "analyzer", "zero_terms_query"}, path, every="match_phrase")
    if options.get("query") is None:
        raise Invalid(path, "needs 'query' (the phrase to search for)")
    slop = number(options, "slop", path, 0)
    if slop < 0 or slop != int(slop):
        raise Invalid(f"{path}.slop", f"{options['slop']!r} is not a whole number >= 0")
    boost = boost_of(options, path, boost)
    if index.kinds[field] != "text":
        return match_field(index, field, {"query": options["query"]}, path, boost)
    text, zero_terms = str(options["query"]), options.get("zero_terms_query")
    return phrase(index, field, text, int(slop), boost, path, options.get("analyzer"), zero_terms)


def prefix_terms(index: EmbeddedIndex, field: str, prefix: str, limit: int) -> list[str]:
    """The first `limit` terms starting with `prefix`, in term order (Elasticsearch's getPrefixTerms)."""
    import bisect

    terms = index.postings_field(field, "").sorted_terms
    out: list[str] = []
    for term in terms[bisect.bisect_left(terms, prefix) :]:
        if not term.startswith(prefix) or len(out) >= limit:
            break
        out.append(term)
    tally("expansions", len(out))
    return out


def phrase_prefix(
    index: EmbeddedIndex,
    field: str,
    text: str,
    slop: int,
    max_expansions: int,
    boost: float,
    path: str,
    analyzer: str | None = None,
    zero_terms_query: Any = None,
) -> Scores:
    """Elasticsearch's MultiPhrasePrefixQuery: a phrase whose last position is any term starting with the last
    token (the first `max_expansions` in term order). A search_as_you_type field searches its subfields instead
    (`_on_shingles`, `_on_index_prefix`)."""
    shingled = _on_shingles(index, field, text, slop, analyzer, path)
    if shingled is not None:
        return _on_index_prefix(index, *shingled, max_expansions, boost, path)
    terms, positions = index.search_tokens(field, text, analyzer, quote=True, path=path)
    if not terms:
        return no_terms(index, zero_terms_query, boost, path)
    if index.fields[field].shingle_size and slop == 0:
        return _on_index_prefix(index, field, list(terms), positions, max_expansions, boost, path)
    return _expanded_phrase(index, field, list(terms), positions, slop, max_expansions, boost, path)


def _expanded_phrase(
    index: EmbeddedIndex,
    field: str,
    terms: list[str],
    positions: list[int],
    slop: int,
    max_expansions: int,
    boost: float,
    path: str,
) -> Scores:
    """MultiPhrasePrefixQuery over analyzed tokens: the last one expanded to the terms it starts."""
    expanded = prefix_terms(index, field, terms[-1], max_expansions)
    if not expanded:
        return Scores.none(index.n)
    groups = [[t] for t in terms[:-1]] + [expanded]
    return phrase_groups(index, field, groups, positions, slop, boost, path)


def _on_shingles(
    index: EmbeddedIndex, field: str, text: str, slop: int, analyzer: str | None, path: str
) -> tuple[str, list[str], list[int]] | None:
    """SearchAsYouTypeFieldType.phraseQuery and phrasePrefixQuery: on a search_as_you_type root, a phrase of
    several positions without slop or gaps is searched on the shingle subfield of that many positions (the largest
    one for more), its tokens made into shingles of that size by a FixedShingleFilter: (subfield, shingles, their
    positions). None: the query stays on the field itself."""
    spec = index.fields[field]
    if not spec.shingle_fields or slop > 0:
        return None
    chain: Analyzer | None
    if analyzer is not None:
        chain = index.mapping.analysis.analyzer(str(analyzer), f"{path}.analyzer")
    else:
        chain = spec.search_quote_analyzer or spec.search_analyzer
    assert chain is not None
    terms, positions, last = chain.term_lists_end(text)
    if not terms or positions[-1] + 1 <= 1 or any(b - a > 1 for a, b in zip([-1, *positions], positions, strict=False)):
        return None
    if not index.text[field].has_positions:
        raise Invalid(path, f"field:[{field}] was indexed without position data; cannot run PhraseQuery")
    shingle = spec.shingle_fields[min(positions[-1] + 1 - 2, len(spec.shingle_fields) - 1)]
    made = fixed_shingles(terms, positions, last, index.fields[shingle].shingle_size, " ", "")
    return shingle, [term for _, _, term in made], [positions[i] for i, _, _ in made]


def _on_index_prefix(
    index: EmbeddedIndex,
    field: str,
    terms: list[str],
    positions: list[int],
    max_expansions: int,
    boost: float,
    path: str,
) -> Scores:
    """ShingleFieldType.phrasePrefixQuery without slop (TextFieldMapper.createPhrasePrefixQuery with the prefix
    field): a last token of at most 20 characters is a term of `._index_prefix` (its edge n-grams), alone a term
    query there, after other tokens the last clause of an ordered span near on the shingle field, masked as that
    field's; a longer one is expanded on the shingle field itself."""
    prefix = index.fields[field].prefix_field
    if prefix is None or prefix not in index.text or utf16_length(terms[-1]) > INDEX_PREFIX_CHARS:
        return _expanded_phrase(index, field, terms, positions, 0, max_expansions, boost, path)
    if len(terms) == 1:
        return term_disjunction(index, prefix, [terms[0]], boost, None, path)
    clauses: list[Any] = []
    for i, term in enumerate(terms):
        if i and positions[i] - positions[i - 1] > 1:
            clauses.append(("gap", positions[i] - positions[i - 1] - 1))
        clauses.append(("masked", prefix, term) if i == len(terms) - 1 else ("term", term))
    return _span_scores(index, field, ("near", clauses), boost, path)


@query("match_phrase_prefix")
def match_phrase_prefix(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "query")
    keys = {"query", "slop", "boost", "max_expansions", "zero_terms_query", "analyzer"}
    allowed(options, keys, path, every="match_phrase_prefix")
    if options.get("query") is None:
        raise Invalid(path, "needs 'query' (the text to search for)")
    slop = int(number(options, "slop", path, 0))
    expansions = int(number(options, "max_expansions", path, 50))
    if index.kinds[field] != "text":
        raise Unsupported(f"match_phrase_prefix on the {index.kinds[field]} field {field!r}", path)
    boost = boost_of(options, path, boost)
    text, analyzer, zero_terms = str(options["query"]), options.get("analyzer"), options.get("zero_terms_query")
    return phrase_prefix(index, field, text, slop, expansions, boost, path, analyzer, zero_terms)


def bool_prefix(index: EmbeddedIndex, field: str, options: dict[str, Any], path: str, boost: float) -> Scores:
    """Elasticsearch's match_bool_prefix: a term clause per token but the last, which is a (constant score) prefix
    query (on a search_as_you_type field one term of its `._index_prefix`); operator and minimum_should_match count
    clauses as match does. A pure disjunction keeps its double sums (`Scores.exact`), as Lucene's
    BooleanQuery.rewrite flattens it into an enclosing disjunction (a multi_match's tie 1 dis_max)."""
    if index.kinds[field] != "text":
        return match_field(index, field, options, path, boost)
    terms = index.search_terms(field, str(options["query"]), options.get("analyzer"), path)
    if not terms:
        return Scores.none(index.n)
    fuzzy = options if options.get("fuzziness") is not None else None
    clauses = len(terms)
    docs, total, count = term_clauses(index, field, terms[:-1], boost, path, fuzzy)
    last = index_prefix_docs(index, field, terms[-1])
    if last is None:
        target = index.postings_field(field, path)
        found = [p.docs for p in map(target.postings, prefix_terms(index, field, terms[-1], 2**31)) if p is not None]
        last = np.unique(np.concatenate(found)) if found else np.empty(0, dtype=np.int64)
    union = np.union1d(docs, last)
    at = np.searchsorted(union, docs)
    sums, counts = np.zeros(union.size), np.zeros(union.size, dtype=np.int32)
    sums[at], counts[at] = total, count
    in_last = np.isin(union, last, assume_unique=True)
    sums += np.where(in_last, float(F32(boost)), 0.0)
    counts += in_last
    operator = str(options.get("operator", "or")).lower()
    if operator == "and":
        required = clauses
    elif options.get("minimum_should_match") is not None:
        required = max(minimum_should_match(options["minimum_should_match"], clauses, path), 1)
    else:
        required = 1
    keep = counts >= required
    if required == 1 and operator != "and":
        return Scores.disjunction(index.n, union[keep], sums[keep])
    return Scores.of(index.n, union[keep], sums[keep].astype(F32))


@query("match_bool_prefix")
def match_bool_prefix(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    field, options = field_spec(index, spec, path, "query")
    keys = {"query", "operator", "minimum_should_match", "boost", "analyzer", *_FUZZY_KEYS}
    allowed(options, keys, path, every="match_bool_prefix")
    if options.get("query") is None:
        raise Invalid(path, "needs 'query' (the text to search for)")
    return bool_prefix(index, field, options, path, boost_of(options, path, boost)).boosted(options.get("boost"))


def dis_max(index: EmbeddedIndex, parts: list[Scores], tie: float) -> Scores:
    """Lucene's DisjunctionMaxScorer: the best clause plus tie x the others (summed in double), cast to float.
    DisjunctionMaxQuery.rewrite makes a tie 1 dis_max a BooleanQuery of should clauses, flattened (`flat_sum`)."""
    if tie == 1.0:
        return flat_sum(index, parts)
    parts = [p for p in parts if p.docs.size]
    if not parts:
        return Scores.none(index.n)
    if len(parts) == 1:
        return parts[0]
    total, best, seen = index.scratch_sum, index.scratch_best, index.scratch_mark
    for part in parts:
        values = part.values.astype(np.float64)
        total[part.docs] += values
        best[part.docs] = np.maximum(best[part.docs], values)
        seen[part.docs] = True
    docs = np.flatnonzero(seen)
    sums, top = total[docs], best[docs]
    total[docs] = best[docs] = 0.0
    seen[docs] = False
    return Scores.of(index.n, docs, (top + (sums - top) * float(F32(tie))).astype(F32))


def field_weights(index: EmbeddedIndex, fields: Any, path: str) -> list[tuple[str, float]]:
    """`["title^3", "description"]` -> [(field, boost)]; a `*` pattern expands over the mapped fields."""
    if isinstance(fields, str):
        fields = [fields]
    if not isinstance(fields, list) or not fields:
        raise Invalid(f"{path}.fields", "needs a list of fields, e.g. ['title^3', 'description']")
    out: list[tuple[str, float]] = []
    for entry in fields:
        name, _, weight = str(entry).partition("^")
        try:
            boost = float(weight) if weight else 1.0
        except ValueError:
            raise Invalid(f"{path}.fields", f"{entry!r}: the boost after ^ is not a number") from None
        if "*" in name:
            import fnmatch

            # as QueryParserHelper expands a pattern: only fields that can be searched (a text field with
            # index: false has no postings)
            matches = [
                f
                for f in index.kinds
                if fnmatch.fnmatchcase(f, name) and (f in index.text or index.kinds[f] == "keyword")
            ]
            out.extend((f, boost) for f in matches)
            continue
        if name not in index.kinds:  # Elasticsearch leaves an unmapped field out (no field at all: no match)
            continue
        index.check_field(name, f"{path}.fields")
        out.append((name, boost))
    return out


@query("multi_match")
def multi_match(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    if isinstance(spec, dict):
        refuse_cutoff_frequency(spec, "multi_match", path)
    options = allowed(
        spec, {"query", "fields", "type", "tie_breaker", "operator", "boost", "minimum_should_match", "slop",
               "zero_terms_query", "lenient", "auto_generate_synonyms_phrase_query", "analyzer", "max_expansions",
               *_FUZZY_KEYS}, path, every="multi_match"
    )  # fmt: skip
    kind = options.get("type", "best_fields")
    if kind not in ("best_fields", "most_fields", "phrase", "phrase_prefix", "bool_prefix", "cross_fields"):
        raise Unsupported(f"multi_match type {kind}", path)
    # MultiMatchQueryBuilder.fromXContent refuses these pairs rather than dropping the option
    if options.get("fuzziness") is not None and kind in ("cross_fields", "phrase", "phrase_prefix"):
        raise Invalid(f"{path}.fuzziness", f"Fuzziness not allowed for type [{kind}]")
    if kind == "bool_prefix" and number(options, "slop", path, 0) != 0:
        raise Invalid(f"{path}.slop", "[slop] not allowed for type [bool_prefix]")
    if options.get("query") is None:
        raise Invalid(path, "needs 'query' (the text to search for)")
    boost = boost_of(options, path, boost)
    tie = number(options, "tie_breaker", path, 1.0 if kind in ("most_fields", "bool_prefix") else 0.0)
    weights = field_weights(index, options.get("fields") or "*", path)
    if not weights:
        return Scores.none(index.n)
    recorder = RECORDING.get()
    if recorder is not None:
        recorder.note(path, kind="max" if tie == 0 else "dis_max", type=kind, tie_breaker=tie)
    if kind == "cross_fields":
        return cross_fields(index, options, weights, boost, tie, path).boosted(options.get("boost"))
    parts = []
    for field, weight in weights:
        if recorder is not None:
            recorder.open()
        field_boost = float(F32(weight) * F32(boost))
        text, slop = str(options["query"]), int(number(options, "slop", path, 0))
        analyzer = options.get("analyzer")
        zero_terms = options.get("zero_terms_query")
        if kind == "phrase" and index.kinds[field] == "text":
            parts.append(phrase(index, field, text, slop, field_boost, path, analyzer, zero_terms))
        elif kind == "phrase_prefix" and index.kinds[field] == "text":
            expansions = int(number(options, "max_expansions", path, 50))
            parts.append(phrase_prefix(index, field, text, slop, expansions, field_boost, path, analyzer, zero_terms))
        elif kind == "bool_prefix":
            parts.append(bool_prefix(index, field, options, path, field_boost))
        else:
            per_field = {k: options[k] for k in ("query", "operator", "minimum_should_match", "zero_terms_query",
                                                 "analyzer", "auto_generate_synonyms_phrase_query", "lenient",
                                                 *_FUZZY_KEYS)
                         if k in options}  # fmt: skip
            parts.append(match_field(index, field, per_field, path, field_boost))
        parts[-1] = parts[-1].boosted(weight)  # MultiMatchQueryParser: a BoostQuery around the field's query
        if recorder is not None:
            recorder.close(f"{path}[{field}]", "sum", parts[-1], field=field, boost=weight)
    return dis_max(index, parts, tie).boosted(options.get("boost"))


def cross_fields(
    index: EmbeddedIndex, options: dict[str, Any], fields: list[tuple[str, float]], boost: float, tie: float, path: str
) -> Scores:
    """Elasticsearch's cross_fields: the fields that share a search analyzer form one group, in which each query term
    is one clause: a dis_max over the fields of that term with blended statistics (the most frequent field gets
    the largest document frequency, each less frequent one 1 less, as Elasticsearch's BlendedTermQuery), so a
    term is as rare in every field as it is in the fields overall. Groups combine as a dis_max."""
    groups: dict[int, list[tuple[str, float]]] = {}
    for field, weight in fields:
        if index.kinds[field] == "text":
            key = id(index.fields[field].search_analyzer)
        else:
            key = id(index.fields[field].normalizer) if index.kinds[field] == "keyword" else -len(groups) - 1
        groups.setdefault(key, []).append((field, weight))
    per_field_keys = ("query", "operator", "minimum_should_match", "zero_terms_query", "analyzer", "lenient")
    per_field: dict[str, Any] = {k: options[k] for k in per_field_keys if k in options}
    parts = []
    recorder = RECORDING.get()
    for members in groups.values():
        if len(members) == 1 or index.kinds[members[0][0]] not in ("text", "keyword"):
            for field, weight in members:
                if recorder is not None:
                    recorder.open()
                part = match_field(index, field, per_field, path, float(F32(weight) * F32(boost)))
                parts.append(part.boosted(weight))
                if recorder is not None:
                    recorder.close(f"{path}[{field}]", "sum", parts[-1], field=field, boost=weight)
            continue
        if recorder is not None:
            recorder.open()
        parts.append(_blended_group(index, options, members, boost, tie, path))
        if recorder is not None:  # the fields that share an analyzer, blended: a sum over the terms
            names = "+".join(field for field, _ in members)
            recorder.close(f"{path}[{names}]", "sum", parts[-1], field=names)
    return dis_max(index, parts, tie)


def _blended_group(
    index: EmbeddedIndex, options: dict[str, Any], members: list[tuple[str, float]], boost: float, tie: float, path: str
) -> Scores:
    first = members[0][0]
    text = str(options["query"])
    if index.kinds[first] == "text":
        terms = list(index.search_terms(first, text, options.get("analyzer"), path))
    else:
        terms = [index.normalize(first, text)]
    if not terms:
        return Scores.none(index.n)
    clauses: list[Clause] = []
    recorder = RECORDING.get()
    for term, count in Counter(terms).items():
        if recorder is not None:
            recorder.open()
        targets = [(index.postings_field(f, path), w) for f, w in members]
        found = [(t, w, t.postings(term)) for t, w in targets]
        doc_freqs = _blend([0 if p is None else p.doc_freq for _, _, p in found],
                           [t.sum_total_term_freq for t, _, _ in found], index.n)  # fmt: skip
        field_scores = []
        for (target, weight, postings), doc_freq in zip(found, doc_freqs, strict=True):
            if postings is None:
                continue
            term_boost = float(F32(F32(weight) * F32(count)) * F32(boost))
            scores = term_scores(target, target.name, term, postings, term_boost, doc_freq, recorder, path)
            field_scores.append(Scores.of(index.n, postings.docs, scores))
        clause = dis_max(index, field_scores, tie)
        if recorder is not None:  # one term over the group's fields
            fields = "+".join(field for field, _ in members)
            recorder.close(f"{path}[{fields}][{term}]", "max" if tie == 0 else "dis_max", clause, term=term,
                           tie_breaker=tie)  # fmt: skip
        if clause.docs.size:
            clauses.append(([(clause.docs, clause.values)], count))
    docs, total, hits = accumulate(index, clauses)
    operator = str(options.get("operator", "or")).lower()
    if operator == "and":
        required = len(terms)
    elif options.get("minimum_should_match") is not None and len(terms) > 1:
        required = max(minimum_should_match(options["minimum_should_match"], len(terms), path), 1)
    else:
        required = 1
    keep = hits >= required
    return Scores.of(index.n, docs[keep], total[keep].astype(F32))


def _blend(doc_freqs: list[int], sum_ttfs: list[int], max_doc: int) -> list[int]:
    """Elasticsearch's BlendedTermQuery.blend, document frequencies only (BM25 reads nothing else of them)."""
    if len(doc_freqs) <= 1 or max(doc_freqs) == 0:
        return doc_freqs
    present = [ttf for df, ttf in zip(doc_freqs, sum_ttfs, strict=True) if df > 0]
    max_doc = min(max_doc, min(present))
    order = sorted(range(len(doc_freqs)), key=lambda i: -doc_freqs[i])  # stable: descending document frequency
    out = list(doc_freqs)
    previous, actual = doc_freqs[order[0]], min(max_doc, max(doc_freqs))
    for i in order:
        if doc_freqs[i] == 0:
            break
        if previous > doc_freqs[i]:
            actual -= 1
        out[i] = min(max_doc, actual)
        previous = doc_freqs[i]
    return out


# ---------------------------------------------------------------- token graphs (multi-word synonyms)

GraphToken = tuple[str, int]  # (term, position increment) of one token on a path through the graph


class TokenGraph:
    """Lucene's GraphTokenStreamFiniteStrings: the query's tokens as transitions between states (a token of
    position length n spans n states; a removed stop word widens the transition of the token after it, which keeps
    its position increment), so that each multi-word synonym is a path of its own."""

    def __init__(self, terms: Sequence[str], positions: Sequence[int], lengths: Sequence[int]) -> None:
        self.out: dict[int, list[tuple[int, int]]] = {}  # state -> [(destination, token id)] in token order
        self.tokens: list[GraphToken] = []
        position, previous_inc, gap, final, last = -1, 1, 0, 0, -1
        for term, at, length in zip(terms, positions, lengths, strict=True):
            inc = at - last
            last = at
            if inc == 0:
                position -= gap
            else:
                position += 1
                gap = inc - 1
            end = position + length + gap
            final = max(final, end)
            self.out.setdefault(position, []).append((end, len(self.tokens)))
            self.tokens.append((term, previous_inc if inc == 0 else inc))
            position += gap
            if inc > 0:
                previous_inc = inc
        self.final = final

    def segments(self) -> list[tuple[int, int]]:
        """(start, end) between the articulation points: the states every path goes through."""
        crossed = {s for start, edges in self.out.items() for end, _ in edges for s in range(start + 1, end)}
        cuts = [s for s in sorted(self.out) if s > 0 and s not in crossed]
        bounds = [0, *cuts, self.final]
        return list(itertools.pairwise(bounds))

    def has_side_path(self, state: int) -> bool:
        return len({end for end, _ in self.out[state]}) > 1

    def terms_at(self, state: int) -> list[str]:
        return [self.tokens[t][0] for _, t in self.out[state]]

    def paths(self, start: int, end: int) -> list[list[GraphToken]]:
        """Every path from `start` to `end`, in Lucene's order (by token ids, depth first)."""
        if start == end:
            return [[]]
        return [
            [self.tokens[t], *rest]
            for dest, t in self.out.get(start, [])
            if dest <= end
            for rest in self.paths(dest, end)
        ]


def _path_positions(path: list[GraphToken]) -> list[int]:
    return list(itertools.accumulate(inc for _, inc in path))


class Leaves(Protocol):
    """The leaf queries a graph query is built of: term clauses (a tuple being the terms stacked at one position)
    and phrases, a phrase being the clauses of a disjunction (Lucene's rewrite inlines a pure disjunction into
    the one it is a clause of, so they are summed with their siblings, not first with each other). match's are
    one field's (`FieldLeaves`); combined_fields builds the same graph from its own."""

    has_positions: bool

    def terms(self, terms: Sequence[Any], boost: float, required: int | None) -> Scores: ...

    def phrase(self, terms: list[str], positions: list[int], boost: float) -> list[Scores]: ...


class FieldLeaves:
    """The leaf queries of a graph query on one field."""

    def __init__(self, index: EmbeddedIndex, field: str, path: str) -> None:
        self.index, self.field, self.path = index, field, path
        self.has_positions = index.text[field].has_positions

    def terms(self, terms: Sequence[Any], boost: float, required: int | None) -> Scores:
        return term_disjunction(self.index, self.field, terms, boost, required, self.path)

    def phrase(self, terms: list[str], positions: list[int], boost: float) -> list[Scores]:
        return [phrase_groups(self.index, self.field, [[t] for t in terms], positions, 0, boost, self.path)]


def _path_query(leaves: Leaves, path: list[GraphToken], phrase: bool, boost: float) -> list[Scores]:
    """One side path as QueryBuilder builds it: a term query, else a phrase (auto_generate_synonyms_phrase_query)
    or all of its terms (a conjunction); as the clauses of a disjunction."""
    terms = [term for term, _ in path]
    if len(terms) == 1:
        return [leaves.terms(terms, boost, None)]
    if phrase:
        return leaves.phrase(terms, _path_positions(path), boost)
    return [leaves.terms(terms, boost, len(terms))]


def sum_of(index: EmbeddedIndex, parts: list[tuple[Scores, int]], required: int = 1) -> Scores:
    """A boolean query of scored clauses: the float scores summed in double, cast to float."""
    docs, total, hits = accumulate(index, [([(s.docs, s.values)], count) for s, count in parts if s.docs.size])
    keep = hits >= required
    return Scores.of(index.n, docs[keep], total[keep].astype(F32))


def graph_match(
    index: EmbeddedIndex,
    field: str,
    graph: TokenGraph,
    options: dict[str, Any],
    boost: float,
    path: str,
    leaves: Leaves | None = None,
) -> Scores:
    """Lucene's QueryBuilder.analyzeGraphBoolean (as Elasticsearch's MatchQueryParser calls it): one clause per
    segment between articulation points; a segment with side paths is a disjunction of one query per path (a
    phrase unless `auto_generate_synonyms_phrase_query` is false), otherwise a term or synonym query. Lucene's
    rewrite merges identical clauses (boosts summed) and, in a pure disjunction, inlines each segment's
    disjunction into the top level."""
    auto = options.get("auto_generate_synonyms_phrase_query", True)
    if auto not in (True, False, "true", "false"):
        raise Invalid(f"{path}.auto_generate_synonyms_phrase_query", f"{auto!r} is not true or false")
    leaf = leaves or FieldLeaves(index, field, path)
    phrase = auto in (True, "true") and leaf.has_positions
    operator = str(options.get("operator", "or")).lower()
    segments: list[Any] = []
    for start, end in graph.segments():
        if graph.has_side_path(start):
            segments.append(tuple(("path", tuple(p)) for p in graph.paths(start, end)))
        else:
            terms = tuple(dict.fromkeys(graph.terms_at(start)))
            segments.append(("term", terms[0] if len(terms) == 1 else terms))
    required = None
    if operator == "and":
        required = len(segments)
    elif "minimum_should_match" in options:
        required = minimum_should_match(options["minimum_should_match"], len(segments), path) or None
    flat = required is None
    keys = [k for s in segments for k in (s if flat and isinstance(s[0], tuple) else [s])]

    def clauses(key: Any, clause_boost: float) -> list[Scores]:
        if key[0] == "term":
            return [leaf.terms([key[1]], clause_boost, None)]
        if key[0] == "path":
            return _path_query(leaf, list(key[1]), phrase, clause_boost)
        return [c for k in key for c in clauses(k, clause_boost)]  # a segment's side paths: one disjunction

    parts: list[tuple[Scores, int]] = []
    for key, count in Counter(keys).items():
        found = clauses(key, float(F32(count) * F32(boost)))
        if flat or len(found) == 1:
            parts.extend((c, count) for c in found)
        else:
            parts.append((sum_of(index, [(c, 1) for c in found]), count))
    return sum_of(index, parts, required or 1)


def graph_phrase(index: EmbeddedIndex, field: str, graph: TokenGraph, slop: int, boost: float, path: str) -> Scores:
    """Elasticsearch's MatchQueryParser.analyzeGraphPhrase: with a slop, a disjunction of one phrase per path
    through the whole graph; without, one span query: an ordered span near (slop 0) of the segments, a segment
    with side paths being a span or of one span near per path (a removed stop word inside a path is a gap; one
    before a segment without side paths is lost, as in Elasticsearch)."""
    if slop > 0:
        alternatives = []
        for tokens in graph.paths(0, graph.final):
            terms = [term for term, _ in tokens]
            groups = [[t] for t in terms]
            alternatives.append((phrase_groups(index, field, groups, _path_positions(tokens), slop, boost, path), 1))
        return sum_of(index, alternatives)
    clauses: list[Any] = []
    for start, end in graph.segments():
        if graph.has_side_path(start):
            options = []
            for tokens in graph.paths(start, end):
                near: list[Any] = []
                for term, inc in tokens:
                    if inc > 1:
                        near.append(("gap", inc - 1))
                    near.append(("term", term))
                options.append(near[0] if len(near) == 1 else ("near", near))
            clauses.append(("or", options))
        else:
            terms = graph.terms_at(start)
            clauses.append(("term", terms[0]) if len(terms) == 1 else ("or", [("term", t) for t in terms]))
    return _span_scores(index, field, clauses[0] if len(clauses) == 1 else ("near", clauses), boost, path)


_NO_MORE = 2**31 - 1


def _span_scores(index: EmbeddedIndex, field: str, span: Any, boost: float, path: str) -> Scores:
    """A span query scored as Lucene's SpanScorer: frequency = the number of matches (each of width 0), idf = the
    sum over its distinct terms (in term order) that the index holds."""
    target = index.text[field]
    if not target.has_positions:
        raise Invalid(path, f"field {field!r} was indexed without position data; a phrase query needs positions")
    postings: dict[tuple[str, str], Any] = {}  # (field, term): a masked term is another field's

    def docs_of(node: Any) -> np.ndarray | None:  # None: every document (a gap)
        if node[0] == "gap":
            return None
        if node[0] in ("term", "masked"):
            key = _span_term(node, field)
            found = postings.setdefault(key, index.text[key[0]].postings(key[1]))
            return found.docs if found is not None else np.empty(0, dtype=np.int64)
        sets = [docs_of(child) for child in node[1]]
        if node[0] == "or":
            return np.unique(np.concatenate([s for s in sets if s is not None]))
        result = None
        for s in sets:
            if s is not None:
                result = s if result is None else np.intersect1d(result, s, assume_unique=True)
        return result

    candidates = docs_of(span)
    assert candidates is not None
    freqs = np.zeros(candidates.size, dtype=F32)
    for i, doc in enumerate(candidates.tolist()):
        freqs[i] = len(_spans(span, doc, index, field, postings))
    keep = freqs > 0
    docs, freqs = candidates[keep], freqs[keep]
    ordered = sorted(postings, key=lambda key: (key[0], key[1].encode()))  # Lucene's Term order: field, then bytes
    doc_freqs = [postings[key].doc_freq for key in ordered if postings[key] is not None]
    span_idf = idf_sum(doc_freqs, target.bm25.doc_count)
    scores = target.bm25.score(target.bm25.weight(boost, span_idf), freqs, target.norms[docs])
    recorder = RECORDING.get()
    if recorder is not None:
        text = '"' + " ".join(term if name == field else f"{name}:{term}" for name, term in ordered) + '"'
        recorder.bm25(f"{path}[{field}:span {text}]", field, f"span {text}", target, boost, max(doc_freqs, default=0),
                      span_idf, docs, freqs, scores)  # fmt: skip
    return Scores.of(index.n, docs, scores)


def _span_term(node: Any, field: str) -> tuple[str, str]:
    """(field, term) of a span term node: `("term", t)` is on the span's field; `("masked", f, t)` is
    FieldMaskingSpanQuery(SpanTermQuery(f:t)), another field's positions scored as the span's field."""
    return (field, node[1]) if node[0] == "term" else (node[1], node[2])


def _spans(
    node: Any, doc: int, index: EmbeddedIndex, field: str, postings: dict[tuple[str, str], Any]
) -> list[tuple[int, int]]:
    """The (start, end) spans of a term, span or, or ordered span near with slop 0 in one document, in Lucene's
    order; the near advances lazily as NearSpansOrdered does (each sub-span only moves forward)."""
    if node[0] in ("term", "masked"):
        key = _span_term(node, field)
        found = postings[key]
        if found is None:
            return []
        at = int(np.searchsorted(found.docs, doc))
        if at >= found.docs.size or found.docs[at] != doc:
            return []
        return [(int(p), int(p) + 1) for p in index.text[key[0]].positions_of(found, at)]
    if node[0] == "or":
        return sorted(span for child in node[1] for span in _spans(child, doc, index, field, postings))
    subs = [None if child[0] == "gap" else _spans(child, doc, index, field, postings) for child in node[1]]
    if any(s is not None and not s for s in subs):
        return []
    cursors = [-1] * len(subs)
    gaps = [child[1] if child[0] == "gap" else 0 for child in node[1]]

    def start(i: int) -> int:
        sub = subs[i]
        if sub is None:
            return cursors[i]
        return sub[cursors[i]][0] if 0 <= cursors[i] < len(sub) else (-1 if cursors[i] < 0 else _NO_MORE)

    def end(i: int) -> int:
        sub = subs[i]
        return cursors[i] + gaps[i] if sub is None else sub[cursors[i]][1]

    matches: list[tuple[int, int]] = []
    while True:
        cursors[0] += 1
        if start(0) == _NO_MORE:
            return matches
        width = 0
        for i in range(1, len(subs)):
            previous_end = end(i - 1)
            if subs[i] is None:
                cursors[i] = previous_end
            else:
                while start(i) < previous_end:
                    cursors[i] += 1
            if start(i) == _NO_MORE:
                return matches
            width += start(i) - previous_end
        if width == 0:
            matches.append((start(0), end(len(subs) - 1)))
