"""Porter's original stemming algorithm exactly as Lucene's PorterStemmer runs it.

Lucene's class is a port of Martin Porter's reference C implementation, which departs from the published paper
(`bli` -> `ble`, `logi` -> `log`, words of one or two letters untouched) and therefore from Snowball's `porter`;
this is a fresh implementation of that reference behaviour, checked token for token against Lucene's output.
"""

from __future__ import annotations

__all__ = ["porter_stem"]


class _Word:
    """The reference implementation's state: the buffer `b`, its end `k` and the suffix start `j`."""

    __slots__ = ("b", "j", "k")

    def __init__(self, word: str) -> None:
        self.b = list(word)
        self.k = len(word) - 1
        self.j = 0

    def cons(self, i: int) -> bool:
        c = self.b[i]
        if c in "aeiou":
            return False
        if c == "y":
            return True if i == 0 else not self.cons(i - 1)
        return True

    def m(self) -> int:
        """The number of consonant-vowel sequences in b[0..j]."""
        n, i, j = 0, 0, self.j
        while True:
            if i > j:
                return n
            if not self.cons(i):
                break
            i += 1
        i += 1
        while True:
            while True:
                if i > j:
                    return n
                if self.cons(i):
                    break
                i += 1
            i += 1
            n += 1
            while True:
                if i > j:
                    return n
                if not self.cons(i):
                    break
                i += 1
            i += 1

    def vowel_in_stem(self) -> bool:
        return any(not self.cons(i) for i in range(self.j + 1))

    def doublec(self, j: int) -> bool:
        return j >= 1 and self.b[j] == self.b[j - 1] and self.cons(j)

    def cvc(self, i: int) -> bool:
        if i < 2 or not self.cons(i) or self.cons(i - 1) or not self.cons(i - 2):
            return False
        return self.b[i] not in "wxy"

    def ends(self, s: str) -> bool:
        n = len(s)
        if n > self.k + 1 or "".join(self.b[self.k - n + 1 : self.k + 1]) != s:
            return False
        self.j = self.k - n
        return True

    def setto(self, s: str) -> None:
        self.b[self.j + 1 :] = list(s)
        self.k = self.j + len(s)

    def r(self, s: str) -> None:
        if self.m() > 0:
            self.setto(s)

    def step1(self) -> None:
        b = self.b
        if b[self.k] == "s":
            if self.ends("sses"):
                self.k -= 2
            elif self.ends("ies"):
                self.setto("i")
            elif b[self.k - 1] != "s":
                self.k -= 1
        del b[self.k + 1 :]
        if self.ends("eed"):
            if self.m() > 0:
                self.k -= 1
        elif (self.ends("ed") or self.ends("ing")) and self.vowel_in_stem():
            self.k = self.j
            del b[self.k + 1 :]
            if self.ends("at"):
                self.setto("ate")
            elif self.ends("bl"):
                self.setto("ble")
            elif self.ends("iz"):
                self.setto("ize")
            elif self.doublec(self.k):
                self.k -= 1
                if b[self.k + 1] in "lsz":
                    self.k += 1
            elif self.m() == 1 and self.cvc(self.k):
                self.setto("e")
        del b[self.k + 1 :]

    def step2(self) -> None:
        if self.ends("y") and self.vowel_in_stem():
            self.b[self.k] = "i"

    def _first(self, pairs: tuple[tuple[str, str], ...]) -> None:
        for suffix, replacement in pairs:
            if self.ends(suffix):
                self.r(replacement)
                return

    def step3(self) -> None:
        if self.k == 0:
            return
        table = _STEP3.get(self.b[self.k - 1])
        if table:
            self._first(table)
        del self.b[self.k + 1 :]

    def step4(self) -> None:
        table = _STEP4.get(self.b[self.k])
        if table:
            self._first(table)
        del self.b[self.k + 1 :]

    def step5(self) -> None:
        if self.k == 0:
            return
        c = self.b[self.k - 1]
        if c == "o":
            if not ((self.ends("ion") and self.j >= 0 and self.b[self.j] in "st") or self.ends("ou")):
                return
        else:
            suffixes = _STEP5.get(c)
            if not suffixes or not any(self.ends(s) for s in suffixes):
                return
        if self.m() > 1:
            self.k = self.j
            del self.b[self.k + 1 :]

    def step6(self) -> None:
        self.j = self.k
        if self.b[self.k] == "e":
            a = self.m()
            if a > 1 or (a == 1 and not self.cvc(self.k - 1)):
                self.k -= 1
        if self.b[self.k] == "l" and self.doublec(self.k) and self.m() > 1:
            self.k -= 1
        del self.b[self.k + 1 :]


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


def porter_stem(word: str) -> str:
    """The stem Lucene's PorterStemFilter gives `word` (words of up to two characters are left alone)."""
    if len(word) <= 2:
        return word
    w = _Word(word)
    w.step1()
    w.step2()
    w.step3()
    w.step4()
    w.step5()
    w.step6()
    return "".join(w.b[: w.k + 1])
