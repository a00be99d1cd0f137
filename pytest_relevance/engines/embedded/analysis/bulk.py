"""UAX#29 word segmentation of many texts at once, with numpy.

Indexing a corpus spends most of its time cutting words: a regex costs about a quarter of a microsecond per word,
which at millions of words is the biggest share of a session's index build. For most text the rules are local: a
word is a run of letters (WB=ALetter), digits (Numeric) and connectors such as `_` (ExtendNumLet) that holds a letter
or digit, joined across one `:` `.` `'` (U+2019 too)... between letters (WB6/7) or one `.` `,` `;` `'`... between digits
(WB11/12); every other character ends it. So a whole batch of texts is classified per character as one array, every
character outside a word becomes a space, and `str.split` returns the words; per text counts come from where the
words start. A text holding a character these rules do not cover (combining marks, emoji, ideographs, Hebrew,
Katakana, South-East Asian scripts...) takes the general pattern on its own. The tests check it against that
pattern, which the Lucene reference data checks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import numpy as np
import regex

from pytest_relevance.engines.embedded.analysis.emoji import PICTOGRAPHS

_LETTER, _DIGIT, _CONNECTOR, _JOINS_LETTERS, _JOINS_DIGITS, _UNSAFE = 1, 2, 4, 8, 16, 32
_UNKNOWN = 255
BATCH = 4096  # texts per batch: about a megabyte of catalogue text, small enough to stay in cache


@cache
def _properties() -> tuple[regex.Pattern, ...]:
    """Unsafe characters, letters, digits, connectors, and the two kinds of joiners, by Unicode property (the same
    property data as the general pattern)."""
    unsafe = (
        r"[\p{WB=Extend}\p{WB=Format}\p{WB=ZWJ}\p{WB=Katakana}\p{WB=Hebrew_Letter}\p{WB=Regional_Indicator}"
        r"\p{WB=Double_Quote}\p{LB=SA}\p{Ideographic}\p{Script=Hiragana}\p{Extended_Pictographic}"
        r"\p{Emoji_Presentation}\p{Cs}" + PICTOGRAPHS + "]"
    )
    quote = r"\p{WB=MidNumLet}\p{WB=Single_Quote}"
    return tuple(
        regex.compile(pattern, regex.V1)
        for pattern in (
            unsafe, r"\p{WB=ALetter}", r"\p{WB=Numeric}", r"\p{WB=ExtendNumLet}",
            rf"[\p{{WB=MidLetter}}{quote}]", rf"[\p{{WB=MidNum}}{quote}]",
        )
    )  # fmt: skip


@cache
def _table() -> np.ndarray:
    """Each code point's class bits, filled in as code points are first met."""
    return np.full(0x110000, _UNKNOWN, dtype=np.uint8)


def _classify(code: int) -> int:
    unsafe, letter, digit, connector, joins_letters, joins_digits = _properties()
    char = chr(code)
    if unsafe.match(char):
        return _UNSAFE
    bits = _LETTER if letter.match(char) else _DIGIT if digit.match(char) else 0
    if connector.match(char):
        bits |= _CONNECTOR
    if joins_letters.match(char):
        bits |= _JOINS_LETTERS
    if joins_digits.match(char):
        bits |= _JOINS_DIGITS
    # words are cut out with `str.split`: a word character that Python counts as a space (U+202F, a connector
    # since Unicode 11) would cut its word in two
    return _UNSAFE if bits and char.isspace() else bits


def _classes(codes: np.ndarray) -> np.ndarray:
    table = _table()
    classes = table[codes]
    unknown = classes == _UNKNOWN
    if unknown.any():
        for code in np.unique(codes[unknown]).tolist():
            table[code] = _classify(code)
        classes = table[codes]
    return classes


def standard_terms_many(
    values: Sequence[str], max_len: int, terms: Callable[[str], list[str]]
) -> tuple[list[str], list[int]]:
    """The standard tokenizer's terms of every text, concatenated, and how many each text has.

    `terms` segments one text (the general path), for the texts holding a character the local rules do not cover;
    the others stay one batch. A word longer than `max_len` (which Lucene cuts) sends the whole batch the general
    way."""
    found = _words(values, max_len)
    if found is None:
        return terms_each(values, terms)
    batch_words, batch_counts, unsafe = found
    if not unsafe:
        return batch_words, batch_counts
    words: list[str] = []
    at = 0
    for index, value in enumerate(values):
        if index in unsafe:
            one = terms(value)
            words += one
            batch_counts[index] = len(one)
        else:
            words += batch_words[at : at + batch_counts[index]]
            at += batch_counts[index]
    return words, batch_counts


def _words(values: Sequence[str], max_len: int) -> tuple[list[str], list[int], set[int]] | None:
    """The words of the texts, each one's count, and the indexes of the texts holding an unsafe character (no words
    counted for them); None when a word is longer than max_len."""
    joined = "\n".join(values)
    try:
        codec, codes = "latin-1", np.frombuffer(joined.encode("latin-1"), dtype=np.uint8)
    except UnicodeEncodeError:
        codec = "utf-32-le"
        codes = np.frombuffer(joined.encode(codec, "surrogatepass"), dtype=np.uint32)
    classes = _classes(codes)
    value_starts = np.cumsum([0, *(len(value) + 1 for value in values[:-1])])
    in_word = (classes & (_LETTER | _DIGIT | _CONNECTOR)) != 0
    if codes.size > 2:
        letters, digits = (classes & _LETTER) != 0, (classes & _DIGIT) != 0
        inner = classes[1:-1]
        in_word[1:-1] |= ((inner & _JOINS_LETTERS) != 0) & letters[:-2] & letters[2:]
        in_word[1:-1] |= ((inner & _JOINS_DIGITS) != 0) & digits[:-2] & digits[2:]
    unsafe: set[int] = set()
    if classes.size and classes.max() >= _UNSAFE:  # the class bits of safe characters stay below it
        rows = np.searchsorted(value_starts, np.flatnonzero(classes == _UNSAFE), side="right") - 1
        unsafe = set(rows.tolist())
        for index in unsafe:  # their words come from the general pattern
            in_word[value_starts[index] : value_starts[index] + len(values[index])] = False
    edges = np.flatnonzero(np.diff(in_word, prepend=False, append=False))
    starts, ends = edges[::2], edges[1::2]
    if starts.size and int((ends - starts).max()) > max_len:
        return None
    if starts.size and (classes & _CONNECTOR).any():
        # a run of connectors alone (`___`) is no word: blank the runs without a letter or digit
        alnum = ((classes & (_LETTER | _DIGIT)) != 0) & in_word  # a segment of reduceat runs to the next start
        empty = np.add.reduceat(alnum, starts) == 0
        for start, end in zip(starts[empty].tolist(), ends[empty].tolist(), strict=True):
            in_word[start:end] = False
        starts = starts[~empty]
    words = np.where(in_word, codes, 32).astype(codes.dtype).tobytes().decode(codec).split()
    counts = np.bincount(np.searchsorted(value_starts, starts, side="right") - 1, minlength=len(values))
    return words, counts.tolist(), unsafe


def terms_each(values: Sequence[str], terms: Callable[[str], list[str]]) -> tuple[list[str], list[int]]:
    """The same, one text at a time, for any tokenizer's `terms`."""
    words: list[str] = []
    counts: list[int] = []
    for value in values:
        found = terms(value)
        words += found
        counts.append(len(found))
    return words, counts
