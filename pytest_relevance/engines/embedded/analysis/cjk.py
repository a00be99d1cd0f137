"""CJKBigramFilter (`cjk_bigram`) and the `cjk` analyzer, as Lucene 9.9.1 and Elasticsearch's factories build them.

The filter reads the token types the standard tokenizer gives (`<IDEOGRAPHIC>`, `<HIRAGANA>`, `<KATAKANA>`,
`<HANGUL>`, see `tokenizers.uax29_type`): adjacent CJK tokens (each starting where the previous one ended) are cut
into overlapping bigrams of code points, and a CJK character with no neighbour stays a unigram; with
`output_unigrams` every character is also a unigram, each bigram at the position of its first one with position
length 2. Bigrams and unigrams are new tokens (Lucene's clearAttributes): position increment 1, no keyword mark.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_relevance.engines.embedded.analysis import filters, tokenizers
from pytest_relevance.engines.embedded.analysis.light_stemmers import cjk_stop_words
from pytest_relevance.engines.embedded.analysis.stream import StreamFilter, Tok

__all__ = ["CJK_ANALYZERS", "CJK_FILTERS", "CJK_OPTIONS", "cjk_bigram"]

_SCRIPTS = {"han": "<IDEOGRAPHIC>", "hiragana": "<HIRAGANA>", "katakana": "<KATAKANA>", "hangul": "<HANGUL>"}


def cjk_bigram(types: frozenset[str], output_unigrams: bool) -> StreamFilter:
    """CJKBigramFilter(flags, outputUnigrams) for the token types in `types`."""

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        out: list[Tok] = []
        buf: list[tuple[str, int, int]] = []  # code point, start, end
        index = 0
        last_end = 0
        bigram_next = False
        pending: Tok | None = None  # Lucene's loneState: a token peeked at, revisited after a unigram
        stream = iter(tokens)

        def lone() -> bool:  # hasBufferedUnigram
            return len(buf) - index == 1 if output_unigrams else len(buf) == 1 and index == 0

        def unigram() -> None:
            char, start, end = buf[index]
            out.append(Tok(char, start, end, type="<SINGLE>"))

        while True:
            if len(buf) - index > 1:  # hasBufferedBigram
                if output_unigrams and not bigram_next:
                    unigram()
                else:
                    (a, start, _), (b, _, end) = buf[index], buf[index + 1]
                    plen = 2 if output_unigrams else 1
                    out.append(Tok(a + b, start, end, inc=0 if output_unigrams else 1, plen=plen, type="<DOUBLE>"))
                    index += 1
                if output_unigrams:
                    bigram_next = not bigram_next
                continue
            tok, pending = (pending, None) if pending is not None else (next(stream, None), None)
            if tok is None:
                if lone():
                    unigram()
                    index += 1
                    continue
                return out, end_inc
            if tok.type not in types:
                if lone():
                    pending = tok
                    unigram()
                    index += 1
                    continue
                out.append(tok)
                continue
            if tok.start != last_end:  # not adjacent to the buffered characters: start over
                if lone():
                    pending = tok
                    unigram()
                    index += 1
                    continue
                buf, index = [], 0
            last_end = tok.end
            if tok.end - tok.start != len(tok.term):  # offsets changed by a char filter: every character keeps them
                buf += [(c, tok.start, tok.end) for c in tok.term]
            else:
                buf += [(c, tok.start + i, tok.start + i + 1) for i, c in enumerate(tok.term)]

    made = StreamFilter(run)
    made.disables_graph = output_unigrams  # Elasticsearch adds DisableGraphAttribute when unigrams are output
    return made


def _cjk_bigram(reg: Any, spec: Mapping, path: str) -> StreamFilter:
    """CJKBigramFilterFactory: every script but the `ignored_scripts` (names it does not know are ignored)."""
    ignored = {str(name) for name in reg.param(spec, "ignored_scripts", path, [], list)}
    types = frozenset(kind for script, kind in _SCRIPTS.items() if script not in ignored)
    return cjk_bigram(types, reg.param(spec, "output_unigrams", path, False, bool))


def _cjk_analyzer(reg: Any, spec: Mapping, path: str) -> tuple[Callable, list]:
    """CJKAnalyzer: standard tokenizer, cjk_width, lowercase, cjk_bigram (all scripts), stop (CJKAnalyzer's own
    default words, which Elasticsearch's provider uses)."""
    words = reg.word_list(spec, "stopwords", path, None, named=True)
    words = cjk_stop_words() if words is None else words
    chain = [filters.cjk_width(), filters.lowercase(), cjk_bigram(frozenset(_SCRIPTS.values()), False)]
    return tokenizers.standard(), [*chain, filters.stop(words)]


CJK_FILTERS = {"cjk_bigram": _cjk_bigram}
CJK_OPTIONS = {"cjk_bigram": ("ignored_scripts", "output_unigrams")}
CJK_ANALYZERS = {"cjk": _cjk_analyzer}
