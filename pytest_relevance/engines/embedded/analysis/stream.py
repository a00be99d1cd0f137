"""The token stream every component works on, and the Lucene conventions it keeps.

A stream is a list of `Tok` plus the position increment left over at its end (trailing removed tokens still count
when a field has several values, as in Lucene's `TokenStream.end()`). Offsets are code-point indices into the text
the tokenizer saw, corrected back to the original text by the char filters; `Analyzer` converts them to UTF-16 code
units at the very end, only when the text has characters outside the BMP.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["MapFilter", "StreamFilter", "Tok", "java_lower", "java_upper"]


class Tok:
    """One token in flight: `inc` is Lucene's position increment, `plen` its position length, `kw` the keyword flag
    (set by keyword_marker / stemmer_override, honoured by the stemmers)."""

    __slots__ = ("end", "inc", "kw", "plen", "start", "term", "type")

    def __init__(
        self, term: str, start: int, end: int, inc: int = 1, plen: int = 1, type: str = "word", kw: bool = False
    ) -> None:
        self.term = term
        self.start = start
        self.end = end
        self.inc = inc
        self.plen = plen
        self.type = type
        self.kw = kw

    def copy(self, **changes: object) -> Tok:
        new = Tok(self.term, self.start, self.end, self.inc, self.plen, self.type, self.kw)
        for key, value in changes.items():
            setattr(new, key, value)
        return new

    def __repr__(self) -> str:
        return f"Tok({self.term!r}, {self.start}, {self.end}, inc={self.inc}, plen={self.plen}, type={self.type!r})"


class MapFilter:
    """A filter that maps each term on its own (None drops it, keeping its position as a gap).

    Runs of these are fused into one cached function per analyzer, which is what makes indexing fast: a term seen
    before costs one dict lookup for the whole run. `keyword` marks terms (keyword_marker); `skip_keyword` filters
    (the stemmers) leave marked terms alone.
    """

    __slots__ = ("fn", "keyword", "skip_keyword")

    def __init__(
        self,
        fn: Callable[[str], str | None] | None,
        *,
        keyword: Callable[[str], bool] | None = None,
        skip_keyword: bool = False,
    ) -> None:
        self.fn = fn
        self.keyword = keyword
        self.skip_keyword = skip_keyword


class StreamFilter:
    """A filter that needs the whole stream (graphs, n-grams, shingles): `fn(tokens, end_inc) -> (tokens, end_inc)`.

    `fast`, when given, does the same on bare parallel lists of terms and positions plus the position of the
    stream's end: `fast(terms, positions, last) -> (terms, positions, last)` (the indexing path). With
    `end_offset`, `fn` also gets the text's final offset (Lucene's end() offset) as a third argument.
    `disables_graph` is Elasticsearch's DisableGraphAttribute: queries ignore the position lengths it makes."""

    __slots__ = ("disables_graph", "end_offset", "fast", "fn")

    def __init__(
        self,
        fn: Callable[..., tuple[list[Tok], int]],
        fast: Callable[[list[str], list[int], int], tuple[list[str], list[int], int]] | None = None,
        end_offset: bool = False,
    ) -> None:
        self.fn = fn
        self.fast = fast
        self.end_offset = end_offset
        self.disables_graph = False


def _special_lower() -> dict[str, str]:
    """Characters whose Python lower() is not Java's per-code-point Character.toLowerCase."""
    return {"\u0130": "i"}


_LOWER = _special_lower()
_UPPER: dict[str, str] = {}


def java_lower(term: str) -> str:
    """Lucene's LowerCaseFilter: Character.toLowerCase per code point (no final-sigma rule, no expansion)."""
    if term.isascii():
        return term.lower()
    return "".join([_LOWER.get(c) or (c.lower() if len(c.lower()) == 1 else c) for c in term])


def java_upper(term: str) -> str:
    """Lucene's UpperCaseFilter: Character.toUpperCase per code point (ß stays ß, no expansion)."""
    if term.isascii():
        return term.upper()
    return "".join([_UPPER.get(c) or (c.upper() if len(c.upper()) == 1 else c) for c in term])
