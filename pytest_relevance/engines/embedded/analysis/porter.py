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
# bytes.translate table: vowels -> `v`, `y` kept (its class depends on the letter before), every other byte -> `c`.
_ASCII_CV = bytes(ord("v") if chr(i) in _VOWELS else i if chr(i) == "y" else ord("c") for i in range(256))


def _pattern(word: str) -> bytes:
    """Each letter's class as the reference's cons() decides it: `y` is a vowel after a consonant, else a consonant."""
    if not word.isascii():
        return _pattern_any(word)
    pattern = word.encode().translate(_ASCII_CV)
    if 121 in pattern:  # a `y`: each pass settles every `y` whose previous letter is settled, so the loop ends
        if pattern[0] == 121:  # a leading `y` is a consonant
            pattern = b"c" + pattern[1:]
        while 121 in pattern:
            pattern = pattern.replace(b"cy", b"cv").replace(b"vy", b"vc")
    return pattern


def _pattern_any(word: str) -> bytes:
    """_pattern for words with non-ASCII letters (all consonants to the reference), one letter at a time."""
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


def _step1(w: str, p: bytes) -> tuple[str, bytes]:
    """Plurals and -ed / -ing (caresses -> caress, ponies -> poni, agreed -> agree, hopping -> hop, filing -> file)."""
    last = w[-1]
    if last == "s":
        if w.endswith(("sses", "ies")):
            w, p = w[:-2], p[:-2]
        elif w[-2] != "s":
            w, p = w[:-1], p[:-1]
        last = w[-1]
    if last == "d":
        if w.endswith("eed"):
            return (w[:-1], p[:-1]) if p.count(b"vc", 0, len(w) - 3) else (w, p)
        if not w.endswith("ed"):
            return w, p
        stem = len(w) - 2
    elif last == "g" and w.endswith("ing"):
        stem = len(w) - 3
    else:
        return w, p
    if 118 not in p[:stem]:  # no vowel in the stem
        return w, p
    w, p = w[:stem], p[:stem]
    if w.endswith(("at", "bl", "iz")):
        return w + "e", p + b"v"
    if stem >= 2 and w[-1] == w[-2] and p[-1] == 99:  # a double consonant
        return (w, p) if w[-1] in "lsz" else (w[:-1], p[:-1])
    if p.count(b"vc") == 1 and _cvc(w, p, stem):
        return w + "e", p + b"v"
    return w, p


def _first_rule(w: str, p: bytes, rules: tuple[tuple[str, str], ...]) -> tuple[str, bytes]:
    """The first rule whose suffix ends `w` decides: replaced when its stem has m > 0, else the step ends unchanged.

    The replacements hold no `y`, so their letters' classes (`_SUFFIX_PATTERN`) do not depend on the stem.
    """
    for suffix, replacement in rules:
        if w.endswith(suffix):
            stem = len(w) - len(suffix)
            if p.count(b"vc", 0, stem):
                return w[:stem] + replacement, p[:stem] + _SUFFIX_PATTERN[replacement]
            return w, p
    return w, p


def _step5(w: str, p: bytes) -> tuple[str, bytes]:
    """Drops -ant, -ence, -ize ... when m > 1; the first matching suffix decides (so -ement shadows -ment)."""
    c = w[-2]  # `w` ends with one of _STEP5_ENDINGS, so it has two letters
    if c == "o":
        if w.endswith("ion") and len(w) >= 4 and w[-4] in "st":
            stem = len(w) - 3
        elif w.endswith("ou"):
            stem = len(w) - 2
        else:
            return w, p
    else:
        for suffix in _STEP5[c]:
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
    if w[-1] == "e":
        m = p.count(b"vc")
        if m > 1:
            return w[:-2] if w.endswith("lle") else w[:-1]
        return w[:-1] if m == 1 and not _cvc(w, p, len(w) - 1) else w
    return w[:-1] if w.endswith("ll") and p.count(b"vc") > 1 else w


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
# Every suffix a step could act on, for one C-level endswith() that lets most words skip the step. A word that passes
# has a table entry under the letter its step is keyed by: every suffix filed under a key has that letter there.
_STEP3_ENDINGS = tuple(suffix for rules in _STEP3.values() for suffix, _ in rules)
_STEP4_ENDINGS = tuple(suffix for rules in _STEP4.values() for suffix, _ in rules)
_STEP5_ENDINGS = (*(suffix for suffixes in _STEP5.values() for suffix in suffixes), "ion", "ou")


def porter_stem(word: str) -> str:
    """The stem Lucene's PorterStemFilter gives `word` (words of up to two characters are left alone)."""
    if len(word) <= 2:
        return word
    w, p = _step1(word, _pattern(word))
    if w[-1] == "y" and 118 in p[:-1]:  # step 2: y -> i when the stem has a vowel (happy -> happi, sky stays)
        w, p = w[:-1] + "i", p[:-1] + b"v"
    if w.endswith(_STEP3_ENDINGS):  # step 3: ational -> ate, ...; keyed by the penultimate letter
        w, p = _first_rule(w, p, _STEP3[w[-2]])
    if w.endswith(_STEP4_ENDINGS):  # step 4: icate -> ic, ...; keyed by the last letter
        w, p = _first_rule(w, p, _STEP4[w[-1]])
    if w.endswith(_STEP5_ENDINGS):  # step 5: drops -ance, -ment, ...; keyed by the penultimate letter
        w, p = _step5(w, p)
    return _step6(w, p)
