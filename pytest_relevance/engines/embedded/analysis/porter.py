"""Porter's original stemming algorithm exactly as Lucene's PorterStemmer runs it.

Lucene's class is a port of Martin Porter's reference C implementation, which departs from the published paper
(`bli` -> `ble`, `logi` -> `log`, words of one or two letters untouched) and therefore from Snowball's `porter`;
this is a fresh implementation of that reference behaviour, checked token for token against Lucene's output.

The reference code walks a char buffer and re-derives "is letter i a consonant" (recursively, for `y`) every time a
rule asks for the measure m() of a stem. Here the word is an immutable `str` and, next to it, its consonant/vowel
pattern as bytes (`c`/`v` per letter), computed once per word: a letter's class depends only on the letters before
it, so a stem's pattern is a prefix of the word's, and every replacement suffix is `y`-free with a fixed pattern.
Then m() is the count of `vc` in the stem's pattern (the form is [C](VC)^m[V]) and every test is a C-level string
operation. The index build stems each distinct term once, so this per-call cost is what it pays.
"""

from __future__ import annotations

__all__ = ["porter_stem"]

_VOWELS = "aeiou"
# bytes.translate table: vowels -> `v`, every other byte -> `c` (`y` is fixed up afterwards, it depends on context).
_ASCII_CV = bytes(ord("v") if chr(i) in _VOWELS else ord("c") for i in range(256))


def _pattern(word: str) -> bytes:
    """Each letter's class as the reference's cons() decides it: `y` is a vowel after a consonant, else a consonant."""
    if word.isascii() and "y" not in word:
        return word.encode("ascii").translate(_ASCII_CV)
    out = bytearray()
    consonant = False
    for i, c in enumerate(word):
        if c in _VOWELS:
            consonant = False
        elif c == "y":
            consonant = i == 0 or not consonant
        else:
            consonant = True
        out.append(99 if consonant else 118)  # b"c", b"v"
    return bytes(out)


def _cvc(word: str, pattern: bytes, end: int) -> bool:
    """True when word[:end] ends consonant-vowel-consonant and the last consonant is not w, x or y (hop -> hope)."""
    return end >= 3 and pattern.endswith(b"cvc", 0, end) and word[end - 1] not in "wxy"


def _replace(word: str, pattern: bytes, stem: int, suffix: str) -> tuple[str, bytes]:
    """word[:stem] + suffix with its pattern; `suffix` never holds a `y`, so its letters classify on their own."""
    return word[:stem] + suffix, pattern[:stem] + _SUFFIX_PATTERN[suffix]


def _step1(w: str, p: bytes) -> tuple[str, bytes]:
    """Plurals and -ed / -ing (caresses -> caress, ponies -> poni, agreed -> agree, hopping -> hop, filing -> file)."""
    if w[-1] == "s":
        if w.endswith("sses") or w.endswith("ies"):
            w, p = w[:-2], p[:-2]
        elif w[-2] != "s":
            w, p = w[:-1], p[:-1]
    if w.endswith("eed"):
        if p.count(b"vc", 0, len(w) - 3):
            w, p = w[:-1], p[:-1]
        return w, p
    if w.endswith("ed"):
        stem = len(w) - 2
    elif w.endswith("ing"):
        stem = len(w) - 3
    else:
        return w, p
    if p.find(b"v", 0, stem) < 0:
        return w, p
    w, p = w[:stem], p[:stem]
    if w.endswith("at") or w.endswith("bl") or w.endswith("iz"):
        return w + "e", p + b"v"
    if stem >= 2 and w[-1] == w[-2] and p[-1] == 99:  # a double consonant
        return (w, p) if w[-1] in "lsz" else (w[:-1], p[:-1])
    if p.count(b"vc") == 1 and _cvc(w, p, stem):
        return w + "e", p + b"v"
    return w, p


def _step2(w: str, p: bytes) -> tuple[str, bytes]:
    """A final y becomes i when the stem has a vowel (happy -> happi, but sky stays)."""
    if w[-1] == "y" and p.find(b"v", 0, len(w) - 1) >= 0:
        return w[:-1] + "i", p[:-1] + b"v"
    return w, p


def _first_rule(w: str, p: bytes, rules: tuple[tuple[str, str], ...]) -> tuple[str, bytes]:
    """The first rule whose suffix ends `w` decides: replaced when its stem has m > 0, else the step ends unchanged."""
    for suffix, replacement in rules:
        if w.endswith(suffix):
            stem = len(w) - len(suffix)
            return _replace(w, p, stem, replacement) if p.count(b"vc", 0, stem) else (w, p)
    return w, p


def _step5(w: str, p: bytes) -> tuple[str, bytes]:
    """Drops -ant, -ence, -ize ... when m > 1; the first matching suffix decides (so -ement shadows -ment)."""
    c = w[-2]
    if c == "o":
        if w.endswith("ion") and len(w) >= 4 and w[-4] in "st":
            stem = len(w) - 3
        elif w.endswith("ou"):
            stem = len(w) - 2
        else:
            return w, p
    else:
        for suffix in _STEP5.get(c, ()):
            if w.endswith(suffix):
                stem = len(w) - len(suffix)
                break
        else:
            return w, p
    return (w[:stem], p[:stem]) if p.count(b"vc", 0, stem) > 1 else (w, p)


def _step6(w: str, p: bytes) -> str:
    """Drops a final e (m > 1, or m == 1 not after cvc) and undoubles a final ll when m > 1.

    Both tests use the measure of the word as it entered this step, as the reference does (dropping the e only
    moves its end `k`, not `j`); a trailing vowel cannot change the measure anyway.
    """
    m = p.count(b"vc")
    if w[-1] == "e" and (m > 1 or (m == 1 and not _cvc(w, p, len(w) - 1))):
        w = w[:-1]
    if m > 1 and w.endswith("ll"):
        w = w[:-1]
    return w


_STEP3 = {
    "a": (("ational", "ate"), ("tional", "tion")),
    "c": (("enci", "ence"), ("anci", "ance")),
    "e": (("izer", "ize"),),
    "l": (("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")),
    "o": (("ization", "ize"), ("ation", "ate"), ("ator", "ate")),
    "s": (("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")),
    "t": (("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")),
    "g": (("logi", "log"),),
}
_STEP4 = {
    "e": (("icate", "ic"), ("ative", ""), ("alize", "al")),
    "i": (("iciti", "ic"),),
    "l": (("ical", "ic"), ("ful", "")),
    "s": (("ness", ""),),
}
_STEP5 = {
    "a": ("al",), "c": ("ance", "ence"), "e": ("er",), "i": ("ic",), "l": ("able", "ible"),
    "n": ("ant", "ement", "ment", "ent"), "s": ("ism",), "t": ("ate", "iti"), "u": ("ous",), "v": ("ive",),
    "z": ("ize",),
}  # fmt: skip
_SUFFIX_PATTERN = {suffix: _pattern(suffix) for rules in (*_STEP3.values(), *_STEP4.values()) for _, suffix in rules}


def porter_stem(word: str) -> str:
    """The stem Lucene's PorterStemFilter gives `word` (words of up to two characters are left alone)."""
    if len(word) <= 2:
        return word
    w, p = _step1(word, _pattern(word))
    w, p = _step2(w, p)
    if len(w) > 1:
        rules = _STEP3.get(w[-2])
        if rules:
            w, p = _first_rule(w, p, rules)
    rules = _STEP4.get(w[-1])
    if rules:
        w, p = _first_rule(w, p, rules)
    if len(w) > 1:
        w, p = _step5(w, p)
    return _step6(w, p)
