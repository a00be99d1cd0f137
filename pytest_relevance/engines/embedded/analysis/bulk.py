"""UAX#29 word segmentation of many texts at once, with numpy, for text made of ASCII and Latin-1 letters.

Indexing a corpus spends most of its time cutting words: a regex costs about a quarter of a microsecond per word,
which at millions of words is the biggest share of a session's index build. For the texts whose characters the
spelled-out fast patterns in `tokenizers.py` cover (ASCII, and Latin-1 letters), the rules are local: a word is a
run of letters, digits and underscores that holds a letter or digit, joined across one `:` `.` `'` between letters
(WB6/7) or one `.` `,` `;` `'` between digits (WB11/12); every other character ends it. So a whole batch of texts
is classified per character as one array, every character outside a word becomes a space, and `str.split` returns
the words; per text counts come from where the words start. The tests check it against the general UAX#29 pattern.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

_LETTER, _DIGIT, _UNDERSCORE, _JOINS_LETTERS, _JOINS_DIGITS = 1, 2, 4, 8, 16
_CLASSES = np.zeros(256, dtype=np.uint8)
for _code in [*range(0x41, 0x5B), *range(0x61, 0x7B), *range(0xC0, 0xD7), *range(0xD8, 0xF7), *range(0xF8, 0x100)]:
    _CLASSES[_code] = _LETTER
_CLASSES[0x30:0x3A] = _DIGIT
_CLASSES[ord("_")] = _UNDERSCORE
for _char in ":.'":
    _CLASSES[ord(_char)] |= _JOINS_LETTERS
for _char in ".,;'":
    _CLASSES[ord(_char)] |= _JOINS_DIGITS

BATCH = 4096  # texts per batch: about a megabyte of catalogue text, small enough to stay in cache


def standard_terms_many(
    values: Sequence[str], max_len: int, terms: Callable[[str], list[str]], beyond_latin: Callable[[str], object]
) -> tuple[list[str], list[int]]:
    """The standard tokenizer's terms of every text, concatenated, and how many each text has.

    `terms` segments one text (the general path), `beyond_latin(text)` is true when a text holds a character the
    local rules do not cover (a curly quote, a dash, CJK...): such texts take the general path one by one, the others
    stay one batch. A word longer than `max_len` (which Lucene cuts) sends the whole batch the general way."""
    joined = "\n".join(values)
    if not beyond_latin(joined):
        found = _latin_words(values, joined, max_len)
        return terms_each(values, terms) if found is None else found
    latin = [not beyond_latin(value) for value in values]
    subset = [value for value, ok in zip(values, latin, strict=True) if ok]
    found = _latin_words(subset, "\n".join(subset), max_len) if subset else None
    if found is None:
        return terms_each(values, terms)
    batch_words, batch_counts = found
    words: list[str] = []
    counts: list[int] = []
    taken = iter(batch_counts)
    at = 0
    for value, ok in zip(values, latin, strict=True):
        if ok:
            count = next(taken)
            words += batch_words[at : at + count]
            at += count
        else:
            one = terms(value)
            words += one
            count = len(one)
        counts.append(count)
    return words, counts


def _latin_words(values: Sequence[str], joined: str, max_len: int) -> tuple[list[str], list[int]] | None:
    """The words of texts of ASCII and Latin-1 letters joined by newlines (None when one is longer than max_len)."""
    codes = np.frombuffer(joined.encode("latin-1"), dtype=np.uint8)
    classes = _CLASSES[codes]
    in_word = (classes & (_LETTER | _DIGIT | _UNDERSCORE)) != 0
    if codes.size > 2:
        letters, digits = (classes & _LETTER) != 0, (classes & _DIGIT) != 0
        inner = classes[1:-1]
        in_word[1:-1] |= ((inner & _JOINS_LETTERS) != 0) & letters[:-2] & letters[2:]
        in_word[1:-1] |= ((inner & _JOINS_DIGITS) != 0) & digits[:-2] & digits[2:]
    edges = np.flatnonzero(np.diff(in_word, prepend=False, append=False))
    starts, ends = edges[::2], edges[1::2]
    if starts.size and int((ends - starts).max()) > max_len:
        return None
    if _UNDERSCORE in classes:
        # a run of underscores alone is no word: blank the runs without a letter or digit
        alnum = (classes & (_LETTER | _DIGIT)) != 0
        empty = np.add.reduceat(alnum, starts) == 0 if starts.size else np.zeros(0, dtype=bool)
        for start, end in zip(starts[empty].tolist(), ends[empty].tolist(), strict=True):
            in_word[start:end] = False
        starts = starts[~empty]
    words = np.where(in_word, codes, 32).tobytes().decode("latin-1").split()
    value_starts = np.cumsum([0, *(len(value) + 1 for value in values[:-1])])
    counts = np.bincount(np.searchsorted(value_starts, starts, side="right") - 1, minlength=len(values))
    return words, counts.tolist()


def terms_each(values: Sequence[str], terms: Callable[[str], list[str]]) -> tuple[list[str], list[int]]:
    """The same, one text at a time, for any tokenizer's `terms`."""
    words: list[str] = []
    counts: list[int] = []
    for value in values:
        found = terms(value)
        words += found
        counts.append(len(found))
    return words, counts
