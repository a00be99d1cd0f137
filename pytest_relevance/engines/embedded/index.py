"""The embedded index as arrays over document ordinals: one inverted index per text field, one column per other field.

Every query is answered over the whole corpus at once (numpy over ordinals 0..N-1), so its cost grows with the
postings it reads, not with Python work per matching document. Text fields keep what Lucene keeps: per term the
sorted ordinals, term frequencies and positions, per document the one-byte norm; keyword fields keep their terms
too, because a `term` query on a keyword field is BM25-scored in Elasticsearch.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.analysis.bulk import BATCH
from pytest_relevance.engines.embedded.cost import tally
from pytest_relevance.engines.embedded.scoring import BM25, BooleanSimilarity, encode_lengths

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.analysis.analyzer import Analyzer
    from pytest_relevance.engines.embedded.mapping import Similarity

POSITION_INCREMENT_GAP = 100  # Elasticsearch's default between the values of a multi-valued text field

# text -> (terms, positions); positions count increments, so a repeated position is a stacked token (a synonym)
Tokenize = Callable[[str], tuple[Sequence[str], Sequence[int]]]


@dataclass
class Postings:
    """One term's postings: ascending ordinals, float32 frequencies, and a slice into the positions of each."""

    docs: np.ndarray
    freqs: np.ndarray
    start: int  # index of the first posting, for positions

    @property
    def doc_freq(self) -> int:
        return int(self.docs.size)


class Stored:
    """A frozen field as the index cache saves it: the numpy arrays named in `_ARRAYS` and the JSON values named in
    `_VALUES`; `restore` sets them without a build and `_derive` recomputes what follows from them, so a restored
    field holds exactly what `freeze` left."""

    _ARRAYS: tuple[str, ...] = ()
    _VALUES: tuple[str, ...] = ()

    def state(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in (*self._ARRAYS, *self._VALUES)}

    def restore(self, state: Mapping[str, Any]) -> None:
        if set(state) != {*self._ARRAYS, *self._VALUES} or not all(
            isinstance(state[name], np.ndarray) for name in self._ARRAYS
        ):
            raise ValueError(f"field {getattr(self, 'name', '?')!r}: the saved state is not this field's")
        self.__dict__.update(state)
        self._derive()

    def _derive(self) -> None:
        raise NotImplementedError


class TermDictionary(Stored):
    """The views of a field's term dictionary (`vocab`, term -> id) that prefix, fuzzy and regexp expansion read."""

    vocab: dict[str, int]

    def state(self) -> dict[str, Any]:
        return {**super().state(), "terms": list(self.vocab)}  # ids are handed out in insertion order

    def restore(self, state: Mapping[str, Any]) -> None:
        state = dict(state)
        terms = state.pop("terms", None)
        if not isinstance(terms, list) or not set(map(type, terms)) <= {str}:  # one C-level pass over many terms
            raise ValueError(f"field {getattr(self, 'name', '?')!r}: the saved terms are not a list of strings")
        self.vocab = dict(zip(terms, range(len(terms)), strict=True))
        super().restore(state)

    @cached_property
    def sorted_terms(self) -> list[str]:
        """The term dictionary in Lucene's order (UTF-8 byte order is code point order)."""
        return sorted(self.vocab)

    @cached_property
    def terms_by_length(self) -> dict[int, list[str]]:
        """The terms grouped by length: a fuzzy term only compares with terms within its edit distance in length."""
        out: dict[int, list[str]] = {}
        for term in self.sorted_terms:
            out.setdefault(len(term), []).append(term)
        return out


class TextField(TermDictionary):
    """An inverted index over one text field, built in one pass with numpy sorts (no per-posting Python objects).

    Tokens are collected as one flat stream of term ids in document order, with per value its token count and the
    positions it spans. When the analyzer has an `IndexPlan`, values are analyzed in batches: the tokenizer cuts a
    whole batch, per-term filters run once per distinct term (cached as tokenizer term -> term id), and only stream
    filters such as synonyms run text by text. Removed terms stay in the stream as -1 until `freeze`; where no
    stream filter runs, positions are not stored at all but derived from the token counts.
    """

    # what the build fills; `freeze` lets it go
    _BUFFERS = ("_tids", "_rel", "_ntok", "_span", "_values_per_doc", "_vocab", "_pending", "_prefix", "_term_ids")
    _ARRAYS = ("positions", "pos_offsets", "docs", "freqs", "offsets", "has_value", "norms")
    _VALUES = ("doc_count", "sum_total_term_freq", "n_docs")

    def __init__(
        self,
        name: str,
        analyzer: Analyzer,
        search_tokenize: Tokenize,
        quote_tokenize: Tokenize,
        similarity: Similarity,
        norms: bool = True,
        index_options: str = "positions",
        gap: int = POSITION_INCREMENT_GAP,
        memos: dict[Callable[[str], str | None], _Memo] | None = None,
    ) -> None:
        """`memos` (per-term function -> its results so far) is shared by the fields of one build: fields with the
        same analyzer (title and description, both `english`) analyze each distinct term once between them."""
        self.name, self.analyzer = name, analyzer
        self.search_tokenize, self.quote_tokenize = search_tokenize, quote_tokenize
        self.similarity, self.with_norms, self.gap = similarity, norms, gap
        self.has_positions = index_options in ("positions", "offsets")
        self.has_freqs = index_options != "docs"
        self._vocab: _Vocabulary = _Vocabulary()
        self._tids, self._values_per_doc = array("i"), array("i")
        self._ntok, self._span = array("i"), array("i")  # per value: tokens in the stream, positions spanned
        self._pending: list[str] = []
        self._plan = plan = analyzer.index_plan
        # positions relative to their value; None while they follow from the token counts (no stream filter)
        self._rel: array | None = None if plan is not None and not plan.middle else array("i")
        self.add: Callable[[Sequence[str]], None]  # index the next document's values
        if plan is None:
            self.add = self._add_stream
            self._term_ids: dict[str, int] = self._vocab
        else:
            self.add = self._add_batched
            memos = {} if memos is None else memos
            self._prefix = memos.setdefault(plan.prefix, _Memo(plan.prefix))
            last = plan.suffix if plan.middle else plan.prefix
            analyze = None if last is None else memos.setdefault(last, _Memo(last)).__getitem__
            self._term_ids = _Memo(partial(_term_id, analyze, self._vocab))

    def _add_batched(self, values: Sequence[str]) -> None:
        self._pending += values
        self._values_per_doc.append(len(values))
        if len(self._pending) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        plan = self._plan
        assert plan is not None
        terms, counts = plan.split_many(self._pending)
        self._pending = []
        if not plan.middle:
            self._tids.extend(map(self._term_ids.__getitem__, terms))
            self._ntok.extend(counts)
            self._span.extend(counts)
            return
        assert self._rel is not None
        mapped = list(map(self._prefix.__getitem__, terms))
        out: list[str] = []
        start = 0
        for count in counts:
            value = mapped[start : start + count]
            start += count
            if None in value:
                positions = [i for i, term in enumerate(value) if term is not None]
                value = [term for term in value if term is not None]
            else:
                positions = list(range(count))
            last = count - 1
            for stage in plan.middle:
                value, positions, last = stage(value, positions, last)
            out += value
            self._rel.extend(positions)
            self._ntok.append(len(value))
            self._span.append(last + 1)
        self._tids.extend(map(self._term_ids.__getitem__, out))

    def _add_stream(self, values: Sequence[str]) -> None:
        """Index the next document's values through the whole token stream (a tokenizer or a filter without a list
        form: n-grams, shingles, word delimiters...)."""
        assert self._rel is not None
        for value in values:
            terms, positions, last = self.analyzer.term_lists_end(value)
            self._tids.extend(map(self._term_ids.__getitem__, terms))
            self._rel.extend(positions)
            self._ntok.append(len(terms))
            self._span.append(last + 1)
        self._values_per_doc.append(len(values))

    def _stream_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(term ids, documents, positions) of every indexed token in document order; per document the number of
        tokens and the length that norms encode. Positions follow Lucene's FieldInvertState: a value after the
        first starts `gap` positions after where the previous one ended (its trailing removed tokens included)."""
        if self._pending:
            self._flush()
        tids = np.frombuffer(self._tids, dtype=np.int32)
        per_doc = np.frombuffer(self._values_per_doc, dtype=np.int32)
        ntok = np.frombuffer(self._ntok, dtype=np.int32)
        span = np.frombuffer(self._span, dtype=np.int32).astype(np.int64)
        n_docs = per_doc.size
        value_doc = np.repeat(np.arange(n_docs, dtype=np.int32), per_doc)
        first_value = np.cumsum(per_doc) - per_doc  # each document's first value
        span_start = np.cumsum(span) - span  # positions spanned by all earlier values
        gaps = (np.arange(ntok.size) - first_value[value_doc]) * self.gap
        value_base = span_start - span_start[first_value[value_doc]] + gaps
        if self._rel is None:
            token_start = np.cumsum(ntok, dtype=np.int64) - ntok
            shift = np.repeat((token_start - value_base).astype(np.int32), ntok)
            positions = np.arange(tids.size, dtype=np.int32) - shift
        else:
            positions = np.frombuffer(self._rel, dtype=np.int32) + np.repeat(value_base.astype(np.int32), ntok)
        docs = np.repeat(value_doc, ntok)
        if tids.size and tids.min() < 0:
            kept = tids >= 0
            tids, docs, positions = tids[kept], docs[kept], positions[kept]
        tokens = np.bincount(docs, minlength=n_docs)
        lengths = tokens.astype(np.int64)
        if self._rel is not None and self.similarity.discount_overlaps and docs.size > 1:
            # a token at the position of the one before it (a stacked synonym) adds no length, as in Lucene
            stacked = (docs[1:] == docs[:-1]) & (positions[1:] == positions[:-1])
            lengths -= np.bincount(docs[1:][stacked], minlength=n_docs)
        return tids, docs, positions, tokens, lengths

    def freeze(self) -> None:
        """Sort the token stream by (term, doc, position) into CSR postings; compute norms and statistics."""
        tids, docs, pos, tokens, lengths = self._stream_arrays()
        # the stream is in (doc, position) order already (position increments are never negative), so ordering by
        # (term, place in the stream) gives (term, doc, position) order: one sort of 64-bit keys holding both, about
        # three times faster than a stable argsort of the terms
        key = (tids.astype(np.int64) << 32) | np.arange(tids.size, dtype=np.int64)
        key.sort()
        order = key & 0xFFFFFFFF
        tids = (key >> 32).astype(np.int32)
        docs, self.positions = docs[order], pos[order]
        # a posting starts wherever the (term, doc) pair changes
        change = np.ones(tids.size, dtype=bool)
        if tids.size:
            change[1:] = (tids[1:] != tids[:-1]) | (docs[1:] != docs[:-1])
        starts = np.flatnonzero(change)
        self.pos_offsets = np.append(starts, tids.size).astype(np.int64)
        self.docs = docs[starts]
        self.freqs = np.diff(self.pos_offsets).astype(np.float32)
        if not self.has_freqs:
            self.freqs = np.ones_like(self.freqs)
        posting_tids = tids[starts]
        self.offsets = np.searchsorted(posting_tids, np.arange(len(self._vocab) + 1)).astype(np.int64)
        n_docs = lengths.size
        self.has_value = tokens > 0
        self.norms = encode_lengths(lengths) if self.with_norms else np.ones(n_docs, dtype=np.uint8)
        self.doc_count = int(self.has_value.sum())
        # without frequencies Lucene reports the sum of document frequencies as the sum of term frequencies
        self.sum_total_term_freq = int(tids.size) if self.has_freqs else int(self.docs.size)
        self.vocab = dict(self._vocab)
        self.n_docs = n_docs
        self._derive()

    def _derive(self) -> None:
        self.bm25 = similarity_for(self.similarity, self.doc_count, self.sum_total_term_freq)
        self.expansions: dict[tuple[Any, ...], list[tuple[str, float]]] = {}  # fuzzy term -> kept expansions
        for name in self._BUFFERS:
            self.__dict__.pop(name, None)

    def postings(self, term: str) -> Postings | None:
        tid = self.vocab.get(term)
        if tid is None:
            return None
        lo, hi = int(self.offsets[tid]), int(self.offsets[tid + 1])
        tally("postings_read", hi - lo)
        return Postings(self.docs[lo:hi], self.freqs[lo:hi], lo)

    def positions_of(self, postings: Postings, index: int) -> np.ndarray:
        """The positions of the posting at `index` within `postings` (ascending)."""
        at = postings.start + index
        return self.positions[self.pos_offsets[at] : self.pos_offsets[at + 1]]


def similarity_for(similarity: Similarity, doc_count: int, sum_total_term_freq: int) -> BM25 | BooleanSimilarity:
    if similarity.kind == "boolean":
        return BooleanSimilarity(doc_count)
    return BM25(similarity.k1, similarity.b, doc_count, sum_total_term_freq)


class _Vocabulary(dict):
    """term -> id, handing out the next id to a new term (so a whole token list maps with one C-level `map`)."""

    def __missing__(self, term: str) -> int:
        self[term] = value = len(self)
        return value


class _Memo(dict):
    """A function's results by argument, computed on a miss: mapping a batch of terms stays one C-level `map`."""

    def __init__(self, fn: Callable[[str], Any]) -> None:
        super().__init__()
        self._fn = fn

    def __missing__(self, key: str) -> Any:
        self[key] = value = self._fn(key)
        return value


def _term_id(analyze: Callable[[str], str | None] | None, vocab: _Vocabulary, term: str) -> int:
    """The id of what `analyze` makes of a term (the term itself without it), -1 when it removes the term."""
    if analyze is not None:
        found = analyze(term)
        if found is None:
            return -1
        term = found
    return vocab[term]


class KeywordField(TermDictionary):
    """Exact terms per document (keyword): a term dictionary, and for each term the documents holding it."""

    _ARRAYS = ("ids", "doc_of", "offsets", "has_value", "norms")
    _VALUES = ("doc_count",)

    def __init__(self, name: str, similarity: Similarity) -> None:
        self.name, self.similarity = name, similarity
        self.vocab: dict[str, int] = {}
        self._ids, self._docs = array("i"), array("i")

    def add(self, ordinal: int, values: Sequence[str]) -> None:
        for value in dict.fromkeys(values):
            self._ids.append(self.vocab.setdefault(value, len(self.vocab)))
            self._docs.append(ordinal)

    def freeze(self, n_docs: int) -> None:
        ids, docs = np.frombuffer(self._ids, dtype=np.int32), np.frombuffer(self._docs, dtype=np.int32)
        order = np.lexsort((docs, ids))
        self.ids, self.doc_of = ids[order], docs[order]
        self.offsets = np.searchsorted(self.ids, np.arange(len(self.vocab) + 1)).astype(np.int64)
        self.has_value = np.zeros(n_docs, dtype=bool)
        self.has_value[self.doc_of] = True
        self.doc_count = int(self.has_value.sum())
        self.norms = np.ones(n_docs, dtype=np.uint8)
        self._derive()

    @property
    def sum_total_term_freq(self) -> int:
        """Keyword fields index documents only (no frequencies): Lucene then reports the sum of document
        frequencies as the sum of term frequencies (what BM25's average length and a cross_fields blend read)."""
        return int(self.ids.size)

    def _derive(self) -> None:
        # no norms either: every document's norm is 1
        self.bm25 = similarity_for(self.similarity, self.doc_count, self.sum_total_term_freq)
        self.expansions: dict[tuple[Any, ...], list[tuple[str, float]]] = {}
        self.__dict__.pop("_ids", None)
        self.__dict__.pop("_docs", None)

    def docs_of(self, value: str) -> np.ndarray:
        tid = self.vocab.get(value)
        if tid is None:
            return np.empty(0, dtype=np.int32)
        return self.doc_of[self.offsets[tid] : self.offsets[tid + 1]]

    def postings(self, term: str) -> Postings | None:
        docs = self.docs_of(term)
        tally("postings_read", docs.size)
        return Postings(docs, np.ones(docs.size, dtype=np.float32), 0) if docs.size else None


class NumericField(Stored):
    """Numbers, dates (epoch milliseconds) and booleans (0/1) as flat (ordinal, value) pairs, ascending by ordinal."""

    _ARRAYS = ("values", "doc_of", "has_value", "first")
    _VALUES = ("n_docs", "single")

    def __init__(self, name: str) -> None:
        self.name = name
        self._values, self._docs = array("d"), array("i")

    def add(self, ordinal: int, values: Sequence[float]) -> None:
        for value in sorted(values):
            self._values.append(value)
            self._docs.append(ordinal)

    def freeze(self, n_docs: int) -> None:
        self.values = np.frombuffer(self._values, dtype=np.float64).copy()
        self.doc_of = np.frombuffer(self._docs, dtype=np.int32).copy()
        self.n_docs = n_docs
        self.single = bool(self.doc_of.size == 0 or np.all(np.diff(self.doc_of) > 0))
        self.has_value = np.zeros(n_docs, dtype=bool)
        self.has_value[self.doc_of] = True
        # the smallest value per document (NaN when absent): what Elasticsearch's doc values give first
        self.first = np.full(n_docs, np.nan)
        self.first[self.doc_of[::-1]] = self.values[::-1]
        self._derive()

    def _derive(self) -> None:
        self.__dict__.pop("_values", None)
        self.__dict__.pop("_docs", None)

    def any(self, condition: np.ndarray) -> np.ndarray:
        """Documents with at least one value where `condition` (over the flat values) holds."""
        mask = np.zeros(self.n_docs, dtype=bool)
        mask[self.doc_of[condition]] = True
        return mask

    def min_per_doc(self, derived: np.ndarray) -> np.ndarray:
        """The smallest of a per-value quantity (e.g. a distance) per document; NaN where the field is absent."""
        if self.single:
            out = np.full(self.n_docs, np.nan)
            out[self.doc_of] = derived
            return out
        out = np.full(self.n_docs, np.inf)
        np.minimum.at(out, self.doc_of, derived)
        out[~self.has_value] = np.nan
        return out


class GeoField(Stored):
    """geo_point values as flat (ordinal, latitude, longitude) triples."""

    _ARRAYS = ("lat", "lon", "doc_of", "has_value")
    _VALUES = ("n_docs",)

    def __init__(self, name: str) -> None:
        self.name = name
        self._lat, self._lon, self._docs = array("d"), array("d"), array("i")

    def add(self, ordinal: int, points: Sequence[tuple[float, float]]) -> None:
        for lat, lon in points:
            self._lat.append(lat)
            self._lon.append(lon)
            self._docs.append(ordinal)

    def freeze(self, n_docs: int) -> None:
        self.lat = np.frombuffer(self._lat, dtype=np.float64).copy()
        self.lon = np.frombuffer(self._lon, dtype=np.float64).copy()
        self.doc_of = np.frombuffer(self._docs, dtype=np.int32).copy()
        self.n_docs = n_docs
        self.has_value = np.zeros(n_docs, dtype=bool)
        self.has_value[self.doc_of] = True
        self._derive()

    def _derive(self) -> None:
        for name in ("_lat", "_lon", "_docs"):
            self.__dict__.pop(name, None)

    def any(self, condition: np.ndarray) -> np.ndarray:
        mask = np.zeros(self.n_docs, dtype=bool)
        mask[self.doc_of[condition]] = True
        return mask
