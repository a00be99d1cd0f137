"""The analyzer: a chain of char filters -> tokenizer -> token filters run as Lucene runs it, with the fast paths
(fused per-term filters, cached vocabularies, batched index plans) that keep indexing a corpus quick, and the
`Token` it reports (offsets in UTF-16 code units, as Lucene)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from typing import cast

from pytest_relevance.engines.embedded.analysis.bulk import terms_each
from pytest_relevance.engines.embedded.analysis.stream import MapFilter, StreamFilter, Tok
from pytest_relevance.engines.embedded.java import utf16_offsets

# text -> (filtered text, correct: filtered offset -> original offset)
CharFilter = Callable[[str], tuple[str, Callable[[int], int]]]
Tokenizer = Callable[[str], list[Tok]]

_CACHE_LIMIT = 500_000


@dataclass(frozen=True, slots=True)
class Token:
    """One token as Elasticsearch's `_analyze` reports it (offsets in UTF-16 code units, as Lucene)."""

    term: str
    position: int
    start_offset: int
    end_offset: int
    position_length: int = 1

    def as_elasticsearch(self) -> dict[str, object]:
        """The `_analyze` response entry: positionLength only when above 1, as Elasticsearch prints it."""
        out: dict[str, object] = {
            "token": self.term,
            "start_offset": self.start_offset,
            "end_offset": self.end_offset,
            "position": self.position,
        }
        if self.position_length > 1:
            out["positionLength"] = self.position_length
        return out


def _fuse(filters: Sequence[MapFilter]) -> Callable[[str, bool], tuple[str, bool] | None]:
    """One cached function for a run of per-term filters: (term, keyword) -> (term, keyword), or None if dropped."""
    steps = [(f.fn, f.keyword, f.skip_keyword) for f in filters]
    cache: dict[tuple[str, bool], tuple[str, bool] | None] = {}

    def run(term: str, kw: bool) -> tuple[str, bool] | None:
        key = (term, kw)
        try:
            return cache[key]
        except KeyError:
            pass
        out: str | None = term
        for fn, marks, skip in steps:
            if skip and kw:
                continue
            before = out
            if fn is not None:
                out = fn(cast(str, out))  # a str: the loop stops at the first None
                if out is None:
                    break
            if marks is not None and not kw:
                kw = marks(cast(str, before))
        result = None if out is None else (out, kw)
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = result
        return result

    return run


def _map_stage(filters: Sequence[MapFilter]) -> Callable[[list[Tok], int], tuple[list[Tok], int]]:
    """A stream stage running fused per-term filters; unmarked terms hit a plain dict (the common case)."""
    fused = _fuse(filters)
    plain: dict[str, tuple[str, bool] | bool] = {}

    def stage(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        get = plain.get
        out = []
        gap = 0
        for tok in tokens:
            result: tuple[str, bool] | bool | None
            if tok.kw:
                result = fused(tok.term, True) or False
            else:
                result = get(tok.term)
                if result is None:
                    if len(plain) >= _CACHE_LIMIT:
                        plain.clear()
                    result = plain[tok.term] = fused(tok.term, False) or False
            if result is False:
                gap += tok.inc
                continue
            tok.term, tok.kw = cast("tuple[str, bool]", result)
            if gap:
                tok.inc += gap
                gap = 0
            out.append(tok)
        return out, end_inc + gap

    return stage


def _term_function(filters: Sequence[MapFilter]) -> Callable[[str], str | None]:
    """A run of per-term filters as one function of a term (None when a filter removes it)."""
    if any(f.keyword is not None for f in filters):
        fused = _fuse(filters)

        def marked(term: str) -> str | None:
            found = fused(term, False)
            return None if found is None else found[0]

        return marked
    steps = [f.fn for f in filters if f.fn is not None]  # without keyword marks the filters simply compose

    def composed(term: str) -> str | None:
        out: str | None = term
        for step in steps:
            out = step(out)  # type: ignore[arg-type]
            if out is None:
                break
        return out

    return composed


def _split_filtered(
    values: Sequence[str], split_many: Callable[[Sequence[str]], tuple[list[str], list[int]]], filtered: Callable
) -> tuple[list[str], list[int]]:
    return split_many([filtered(value) for value in values])


@dataclass(frozen=True, slots=True)
class IndexPlan:
    """An analyzer cut for indexing many texts: the tokenizer's terms of a whole batch (`split_many`: all terms and
    each text's count), the per-term filters before the first stream filter (`prefix`: the whole chain when there
    is no stream filter), the list-form stages from the first stream filter to the last (`middle`, run per text on
    terms and positions), and the per-term filters after them (`suffix`). A per-term function's result depends on
    the term alone, so an index caches it per distinct term and a term seen before costs one dict lookup."""

    split_many: Callable[[Sequence[str]], tuple[list[str], list[int]]]
    prefix: Callable[[str], str | None]
    middle: tuple[Callable[[list[str], list[int], int], tuple[list[str], list[int], int]], ...]
    suffix: Callable[[str], str | None] | None


_QUERY_TEXTS = 4096  # query texts an analyzer remembers (a gate's queries are run once per field)


def chain_stages(
    filters: Sequence[MapFilter | StreamFilter],
) -> tuple[tuple[Callable[..., tuple[list[Tok], int]], bool], ...]:
    """Token filters as stream stages, each with whether it wants the text's final offset: runs of per-term filters
    fused into one stage. The `condition` filter runs its wrapped chain through the same stages."""
    stages: list[tuple[Callable[..., tuple[list[Tok], int]], bool]] = []
    run: list[MapFilter] = []
    for f in [*filters, None]:
        if isinstance(f, MapFilter):
            run.append(f)
            continue
        if run:
            stages.append((_map_stage(run), False))
            run = []
        if f is not None:
            stages.append((f.fn, f.end_offset))
    return tuple(stages)


class Analyzer:
    """A named chain of char filters, one tokenizer and token filters (or a normalizer: keyword tokenizer)."""

    def __init__(
        self,
        name: str,
        tokenizer: Tokenizer,
        filters: Sequence[MapFilter | StreamFilter] = (),
        char_filters: Sequence[CharFilter] = (),
        position_increment_gap: int = 100,
    ) -> None:
        self.name = name
        self.position_increment_gap = position_increment_gap
        self._tokenizer = tokenizer
        self._char_filters = tuple(char_filters)
        self._filters = tuple(filters)
        self._stages = chain_stages(filters)
        self._fast = self._fast_stages(filters)
        self._graph_queries = not any(isinstance(f, StreamFilter) and f.disables_graph for f in filters)
        self._queries: dict[str, tuple[list[str], list[int], list[int]]] = {}

    def __repr__(self) -> str:
        return f"Analyzer({self.name!r})"

    def wrapped(self, extra: Sequence[StreamFilter]) -> Analyzer:
        """This analyzer with more filters at the end, under the same name: Lucene's AnalyzerWrapper, as
        Elasticsearch wraps a field's analyzers for the subfields it indexes on its own (search_as_you_type)."""
        return Analyzer(
            self.name, self._tokenizer, [*self._filters, *extra], self._char_filters, self.position_increment_gap
        )

    def _stream(self, text: str) -> tuple[list[Tok], int, int]:
        """Tokens with corrected code-point offsets, the trailing position increment and the final offset."""
        corrections = []
        for char_filter in self._char_filters:
            text, correct = char_filter(text)
            corrections.append(correct)
        tokens = self._tokenizer(text)
        final = len(text)
        if corrections:
            corrections.reverse()
            for tok in tokens:
                start, end = tok.start, tok.end
                for correct in corrections:
                    start, end = correct(start), correct(end)
                tok.start, tok.end = start, end
            for correct in corrections:
                final = correct(final)
        end_inc = 0
        for stage, wants_final in self._stages:
            tokens, end_inc = stage(tokens, end_inc, final) if wants_final else stage(tokens, end_inc)
        return tokens, end_inc, final

    def analyze(self, text: str) -> list[Token]:
        """The tokens Elasticsearch's `_analyze` reports for one text."""
        return self.analyze_values([text])

    def analyze_values(self, values: Iterable[str], position_increment_gap: int | None = None) -> list[Token]:
        """Tokens of a multi-valued field, as Lucene indexes it: each value after the first starts
        `position_increment_gap` positions after the previous one's end, offsets continue after its end + 1."""
        gap = self.position_increment_gap if position_increment_gap is None else position_increment_gap
        out: list[Token] = []
        position, offset = -1, 0
        for index, value in enumerate(values):
            if index:
                position += gap
                offset += 1
            tokens, end_inc, final = self._stream(value)
            units = utf16_offsets(value)
            for tok in tokens:
                position += tok.inc
                start, end = (tok.start, tok.end) if units is None else (units(tok.start), units(tok.end))
                out.append(Token(tok.term, position, start + offset, end + offset, tok.plen))
            position += end_inc
            offset += final if units is None else units(final)
        return out

    def terms(self, text: str) -> list[str]:
        """Just the terms, in order."""
        return [term for term, _ in self.term_positions(text)]

    def term_positions(self, text: str) -> list[tuple[str, int]]:
        """(term, position) pairs: what an index needs. When every stage has a fast form, no token objects are
        made: the tokenizer's strings go through the stages as parallel lists of terms and positions."""
        terms, positions, _ = self.term_lists_end(text)
        return list(zip(terms, positions, strict=True))

    def term_lists(self, text: str) -> tuple[list[str], list[int]]:
        """The same as two parallel lists, terms and positions (no pairs to build or to take apart)."""
        terms, positions, _ = self.term_lists_end(text)
        return terms, positions

    def query_lists(self, text: str) -> tuple[list[str], list[int], list[int]]:
        """Terms, positions and position lengths, for a query: a length above 1 marks a token graph (multi-word
        synonyms), which Elasticsearch turns into one query per path unless a component disables graph queries.

        Each text is analyzed once per analyzer (the fields of a multi_match mostly share their search analyzer,
        so the second field reads the first one's lists); the caller gets copies it may change."""
        known = self._queries.get(text)
        if known is None:
            if len(self._queries) >= _QUERY_TEXTS:
                self._queries.clear()
            known = self._queries[text] = self._query_lists(text)
        return list(known[0]), list(known[1]), list(known[2])

    def _query_lists(self, text: str) -> tuple[list[str], list[int], list[int]]:
        """Such a token always shares its position with another one, so without stacked tokens the fast lists
        serve."""
        terms, positions = self.term_lists(text)
        if not self._graph_queries or len(set(positions)) == len(positions):
            return terms, positions, [1] * len(terms)
        lengths: list[int] = []
        terms, positions, position = [], [], -1
        for tok in self._stream(text)[0]:
            position += tok.inc
            terms.append(tok.term)
            positions.append(position)
            lengths.append(tok.plen)
        return terms, positions, lengths

    @cached_property
    def index_plan(self) -> IndexPlan | None:
        """How an index can run this analyzer over many texts without token objects (char filters run on each text
        first: terms and positions need no offsets); None when some component needs them (a tokenizer whose tokens
        can leave gaps, a filter without a list form). One per analyzer, so that fields sharing an analyzer share
        its caches."""
        if self._fast is None:
            return None
        filters = self._filters
        streams = [i for i, f in enumerate(filters) if not isinstance(f, MapFilter)]
        first, last = (streams[0], streams[-1] + 1) if streams else (len(filters), len(filters))
        middle = self._fast_stages(filters[first:last]) or ()
        each = partial(terms_each, terms=self._tokenizer.terms)  # type: ignore[attr-defined]
        split_many = getattr(self._tokenizer, "terms_many", each)
        if self._char_filters:
            split_many = partial(_split_filtered, split_many=split_many, filtered=self._filtered)
        return IndexPlan(
            split_many,
            _term_function(filters[:first]),  # type: ignore[arg-type]
            middle,
            _term_function(filters[last:]) if streams else None,  # type: ignore[arg-type]
        )

    def term_lists_end(self, text: str) -> tuple[list[str], list[int], int]:
        """Terms, positions, and the position of the end of the stream (trailing removed tokens included): where
        the next value of a multi-valued field continues from, as Lucene's FieldInvertState does."""
        if self._fast is None:
            tokens, end_inc, _ = self._stream(text)
            terms, positions, position = [], [], -1
            for tok in tokens:
                position += tok.inc
                terms.append(tok.term)
                positions.append(position)
            return terms, positions, position + end_inc
        terms = self._tokenizer.terms(self._filtered(text))  # type: ignore[attr-defined]
        positions = list(range(len(terms)))
        last = len(terms) - 1
        for stage in self._fast:
            terms, positions, last = stage(terms, positions, last)
        return terms, positions, last

    def _filtered(self, text: str) -> str:
        """The text after the char filters, without their offset corrections (terms and positions need none)."""
        for char_filter in self._char_filters:
            text = char_filter(text)[0]
        return text

    def _fast_stages(self, filters: Sequence[MapFilter | StreamFilter]) -> tuple | None:
        """The stages on bare term lists, or None when a component has no such form (a tokenizer whose tokens can
        leave gaps, a stream filter without `fast`, a keyword mark that must cross a stage)."""
        if not hasattr(self._tokenizer, "terms"):
            return None
        maps_only = all(isinstance(f, MapFilter) for f in filters)
        stages: list[Callable] = []
        run: list[MapFilter] = []
        for f in [*filters, None]:
            if isinstance(f, MapFilter):
                if f.keyword is not None and not maps_only:
                    return None
                run.append(f)
                continue
            if run:
                stages.append(_fast_map_stage(run))
                run = []
            if f is not None:
                if f.fast is None:
                    return None
                stages.append(f.fast)
        return tuple(stages)


def _fast_map_stage(
    filters: Sequence[MapFilter],
) -> Callable[[list[str], list[int], int], tuple[list[str], list[int], int]]:
    """Per-term filters on bare lists: one C-level dict lookup per term once the vocabulary is cached."""
    fused = _fuse(filters)
    cache: dict[str, str | bool] = {}  # term -> analyzed term, False when dropped

    def stage(terms: list[str], positions: list[int], last: int) -> tuple[list[str], list[int], int]:
        mapped = list(map(cache.get, terms))
        if None in mapped:
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            for index, term in enumerate(mapped):
                if term is None:
                    found = fused(terms[index], False)
                    mapped[index] = cache[terms[index]] = False if found is None else found[0]
        if False in mapped:
            keep = [index for index, term in enumerate(mapped) if term is not False]
            return cast("list[str]", [mapped[index] for index in keep]), [positions[index] for index in keep], last
        return cast("list[str]", mapped), positions, last

    return stage
