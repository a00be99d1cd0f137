"""Tokenizers: text -> list of `Tok` with code-point offsets, as Lucene's tokenizers cut it.

The standard tokenizer is Unicode word segmentation (UAX#29): the `regex` package's WORD flag gives exactly its
word boundaries, and Lucene keeps the segments that hold a letter, digit, ideograph, kana, South-East Asian run or
emoji, splitting any longer than `max_token_length`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import regex

from pytest_relevance.engines.embedded.analysis.bulk import standard_terms_many
from pytest_relevance.engines.embedded.analysis.emoji import PICTOGRAPHS
from pytest_relevance.engines.embedded.analysis.stream import Tok, java_lower

__all__ = [
    "char_group",
    "classic",
    "edge_ngram",
    "java_whitespace",
    "keyword",
    "letter",
    "lowercase",
    "ngram",
    "path_hierarchy",
    "pattern",
    "simple_pattern",
    "simple_pattern_split",
    "standard",
    "whitespace",
]

_EMOJI = f"[{PICTOGRAPHS}]"
_EMOJI_ONE = _EMOJI + r"[\U0001f3fb-\U0001f3ff]?(?:\ufe0f|[[\p{WB=Extend}\p{WB=Format}\p{WB=ZWJ}]--[\ufe0f]]*)"
_EMOJI_SEQ = _EMOJI_ONE + r"(?:\u200d" + _EMOJI_ONE + r"|(?<=\u200d)" + _EMOJI_ONE + r")*"
_JOINED = r"[\p{WB=Extend}\p{WB=Format}\p{WB=ZWJ}]*"
# A skin tone is an emoji of its own in Lucene's tables (E_Modifier), today a WB=Extend that joins what precedes it:
# one with nothing to join (after a space, punctuation or the start) starts an emoji token, as in Lucene.
_LONE_MODIFIER = (
    r"(?<![\p{WB=ALetter}\p{WB=Hebrew_Letter}\p{WB=Numeric}\p{WB=Katakana}\p{WB=ExtendNumLet}\p{WB=Extend}"
    r"\p{WB=Format}\p{WB=ZWJ}" + PICTOGRAPHS + r"])(?=[\U0001f3fb-\U0001f3ff])"
)
# Words: underscores (ExtendNumLet) join letters, digits and katakana, not ideographs, kana or emoji, which are tokens
# of their own; a zero-width joiner before a pictograph starts an emoji token.
_STANDARD = regex.compile(
    r"(?wsV1)\p{LB=SA}[\p{LB=SA}\p{WB=Extend}\p{WB=Format}\p{WB=ZWJ}]*"
    r"|\b(?:\p{WB=ExtendNumLet}" + _JOINED + r")*[\p{WB=ALetter}\p{WB=Hebrew_Letter}\p{WB=Numeric}\p{WB=Katakana}]"
    r".*?(?:\b|(?<=\u200d)(?=" + _EMOJI + r"))"  # a word's joiner does not pull the emoji after it in
    r"|\b[\p{Ideographic}\p{Script=Hiragana}].*?\b"
    r"|\b\p{WB=Regional_Indicator}(?=\p{WB=Regional_Indicator}).*?\b"  # a flag: a lone indicator makes nothing
    r"|(?:\b|(?<=\u200d)|" + _LONE_MODIFIER + ")" + _EMOJI_SEQ + r"|\u200d(?=" + _EMOJI + ")" + _EMOJI_SEQ
)
# The same segmentation for ASCII text, spelled out (about twice as fast): runs of letters, digits and underscores,
# joined across one `:` `.` `'` between letters (WB6/7) or one `.` `,` `;` `'` between digits (WB11/12).
_STANDARD_ASCII = re.compile(
    r"_*[A-Za-z0-9][A-Za-z0-9_]*"
    r"(?:(?:(?<=[A-Za-z])[:.'](?=[A-Za-z])|(?<=[0-9])[.,;'](?=[0-9]))[A-Za-z0-9_]+)*"
)
# The Latin-1 letters (À-Ö, Ø-ö, ø-ÿ) are ALetter like A-Z, so text whose only non-ASCII characters are those
# segments by the same spelled-out rules (accented Western European text, four times faster than `_STANDARD`);
# any other character (ª, µ, º, the soft hyphen, the middle dot, ...) takes the general pattern.
_LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff"
_STANDARD_LATIN = re.compile(
    rf"_*[{_LATIN}0-9][{_LATIN}0-9_]*"
    rf"(?:(?:(?<=[{_LATIN}])[:.'](?=[{_LATIN}])|(?<=[0-9])[.,;'](?=[0-9]))[{_LATIN}0-9_]+)*"
)
_BEYOND_LATIN = re.compile("[^\x00-\x7f\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff]")


def _standard_pattern(text: str) -> re.Pattern | regex.Pattern:
    return _STANDARD_ASCII if text.isascii() else _STANDARD if _BEYOND_LATIN.search(text) else _STANDARD_LATIN


# Java's Character.isWhitespace: Unicode space separators except the no-break ones, and the ASCII controls.
_JAVA_SPACE = (
    "\t\n\u000b\f\r\u001c\u001d\u001e\u001f \u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2008\u2009\u200a"
    "\u2028\u2029\u205f\u3000"
)
java_whitespace = frozenset(_JAVA_SPACE)
_WHITESPACE = regex.compile("[^" + regex.escape(_JAVA_SPACE) + "]+")
_LETTER = regex.compile(r"\p{L}+")


def _chunks(
    pattern: regex.Pattern,
    max_len: int,
    lower: bool = False,
    choose: Callable[[str], re.Pattern | regex.Pattern] | None = None,
) -> Callable[[str], list[Tok]]:
    """Tokens as the matches of `pattern` (or of the faster equivalent `choose(text)` picks for the text, when
    given), each cut into pieces of at most `max_len` characters (Lucene splits an over-long token and goes on with
    the rest as the next token)."""
    choose = choose or (lambda text: pattern)

    # a token longer than max_len needs a run of more than max_len characters that are not Java whitespace
    long_run = re.compile(f"[^{re.escape(_JAVA_SPACE)}]{{{max_len + 1}}}")

    def tokenize(text: str) -> list[Tok]:
        found = choose(text).finditer(text)
        out = [Tok(m.group(), *m.span()) for m in found]
        if len(text) > max_len and long_run.search(text) and max((t.end - t.start for t in out), default=0) > max_len:
            out = [
                Tok(tok.term[piece : piece + max_len], tok.start + piece, min(tok.start + piece + max_len, tok.end))
                for tok in out
                for piece in range(0, tok.end - tok.start, max_len)
            ]
        if lower:
            for tok in out:
                tok.term = java_lower(tok.term)
        return out

    def terms(text: str) -> list[str]:
        """The same terms without token objects (the indexing fast path)."""
        found = choose(text).findall(text)
        if len(text) > max_len and found and max(map(len, found)) > max_len:
            return [tok.term for tok in tokenize(text)]
        if lower:
            return [java_lower(term) for term in found]
        return found

    tokenize.terms = terms  # type: ignore[attr-defined]
    return tokenize


def standard(max_token_length: int = 255) -> Callable[[str], list[Tok]]:
    """StandardTokenizer: UAX#29 words; `terms_many` segments a batch of texts at once (see `bulk.py`)."""
    untyped = _chunks(_STANDARD, max_token_length, choose=_standard_pattern)
    terms = untyped.terms  # type: ignore[attr-defined]

    def tokenize(text: str) -> list[Tok]:
        out = untyped(text)
        if not text.isascii():
            for tok in out:
                tok.type = uax29_type(tok.term)
        return out

    tokenize.terms = terms  # type: ignore[attr-defined]
    tokenize.terms_many = lambda values: standard_terms_many(values, max_token_length, terms)  # type: ignore[attr-defined]
    return tokenize


_EXTENDING = r"[\p{WB=Extend}\p{WB=Format}\p{WB=ZWJ}]*"
# the grammar's earlier rules win a tie: an ideograph or kana that is also a word character (々, 〆) is a word
_WORDLIKE = r"[\p{WB=ALetter}\p{WB=Numeric}\p{WB=Katakana}]"
_CJK_TYPES = [
    ("<IDEOGRAPHIC>", regex.compile(rf"(?V1)[\p{{Script=Han}}--{_WORDLIKE}]{_EXTENDING}")),
    ("<HIRAGANA>", regex.compile(rf"(?V1)[\p{{Script=Hiragana}}--{_WORDLIKE}]{_EXTENDING}")),
    ("<KATAKANA>", regex.compile(rf"(?V1)(?:\p{{WB=Katakana}}{_EXTENDING})+")),
    ("<HANGUL>", regex.compile(rf"(?V1)(?:[\p{{Script=Hangul}}&&\p{{WB=ALetter}}]{_EXTENDING})+")),
]


def uax29_type(term: str) -> str:
    """The CJK token types of StandardTokenizer's grammar, which cjk_bigram reads: one ideograph or hiragana, or a run
    of only katakana or only Hangul (a longer match of the word rule, such as Hangul with Latin letters, is a word).
    Every other token keeps the default type, as nothing else here reads it."""
    if term.isascii():
        return "word"
    for kind, pattern in _CJK_TYPES:
        if pattern.fullmatch(term):
            return kind
    return "word"


def whitespace(max_token_length: int = 255) -> Callable[[str], list[Tok]]:
    """WhitespaceTokenizer: runs of non-whitespace in Java's sense (no-break spaces are not whitespace)."""
    return _chunks(_WHITESPACE, max_token_length)


def letter(max_token_length: int = 255) -> Callable[[str], list[Tok]]:
    """LetterTokenizer: runs of Unicode letters."""
    return _chunks(_LETTER, max_token_length)


def lowercase(max_token_length: int = 255) -> Callable[[str], list[Tok]]:
    """LowerCaseTokenizer: the letter tokenizer, lowercased."""
    return _chunks(_LETTER, max_token_length, lower=True)


def keyword() -> Callable[[str], list[Tok]]:
    """KeywordTokenizer: the whole text as one token (an empty text gives one empty token, as in Lucene)."""
    return lambda text: [Tok(text, 0, len(text))]


def pattern(compiled: regex.Pattern, group: int = -1) -> Callable[[str], list[Tok]]:
    """PatternTokenizer: the text between matches (group -1), or the given group of each match; empty ones dropped."""
    if group >= 0:

        def groups(text: str) -> list[Tok]:
            out = []
            for m in compiled.finditer(text):
                start, end = m.span(group)
                if end > start:
                    out.append(Tok(text[start:end], start, end))
            return out

        return groups

    def split(text: str) -> list[Tok]:
        out = []
        last = 0
        for m in compiled.finditer(text):
            if m.start() > last:
                out.append(Tok(text[last : m.start()], last, m.start()))
            last = m.end()
        if len(text) > last:
            out.append(Tok(text[last:], last, len(text)))
        return out

    return split


def simple_pattern(compiled: regex.Pattern) -> Callable[[str], list[Tok]]:
    """SimplePatternTokenizer: the non-empty matches of the pattern."""
    return lambda text: [Tok(m.group(), m.start(), m.end()) for m in compiled.finditer(text) if m.end() > m.start()]


def simple_pattern_split(compiled: regex.Pattern) -> Callable[[str], list[Tok]]:
    """SimplePatternSplitTokenizer: the non-empty text between matches."""
    return pattern(compiled, -1)


def char_group(is_split: Callable[[str], bool], max_token_length: int = 255) -> Callable[[str], list[Tok]]:
    """CharGroupTokenizer: runs of characters that are not split characters."""

    def tokenize(text: str) -> list[Tok]:
        out = []
        start = None
        for i, c in enumerate(text):
            if is_split(c):
                if start is not None:
                    out.append(Tok(text[start:i], start, i))
                    start = None
            elif start is None:
                start = i
            elif i - start >= max_token_length:
                out.append(Tok(text[start:i], start, i))
                start = i
        if start is not None:
            out.append(Tok(text[start:], start, len(text)))
        return out

    return tokenize


def ngram(
    min_gram: int, max_gram: int, is_token_char: Callable[[str], bool] | None, edges_only: bool = False
) -> Callable[[str], list[Tok]]:
    """NGramTokenizer / EdgeNGramTokenizer: grams of each run of token characters (the whole text when no
    `token_chars`), by start then length; edge grams only from the start of a run."""

    def tokenize(text: str) -> list[Tok]:
        runs = []
        if is_token_char is None:
            runs = [(0, len(text))] if text else []
        else:
            start = None
            for i, c in enumerate(text):
                if is_token_char(c):
                    if start is None:
                        start = i
                elif start is not None:
                    runs.append((start, i))
                    start = None
            if start is not None:
                runs.append((start, len(text)))
        out = []
        for run_start, run_end in runs:
            starts = [run_start] if edges_only else range(run_start, run_end)
            for s in starts:
                for size in range(min_gram, max_gram + 1):
                    if s + size > run_end:
                        break
                    out.append(Tok(text[s : s + size], s, s + size))
        return out

    return tokenize


def edge_ngram(min_gram: int, max_gram: int, is_token_char: Callable[[str], bool] | None) -> Callable[[str], list[Tok]]:
    """EdgeNGramTokenizer."""
    return ngram(min_gram, max_gram, is_token_char, edges_only=True)


def path_hierarchy(
    delimiter: str = "/", replacement: str | None = None, skip: int = 0, reverse: bool = False
) -> Callable[[str], list[Tok]]:
    """PathHierarchyTokenizer and its reversed form: every prefix (or suffix) of the path, stacked at position 0."""
    replace = delimiter if replacement is None else replacement

    def forward(text: str) -> list[Tok]:
        cuts = [i for i, c in enumerate(text) if c == delimiter]
        ends = [*[i for i in cuts if i > 0], len(text)] if text else []
        start = 0
        if skip:
            parts = [i for i in cuts if i > 0] if text.startswith(delimiter) else cuts
            if len(parts) < skip:
                return []
            start = parts[skip - 1]
            ends = [e for e in ends if e > start]
        out = []
        for index, end in enumerate(dict.fromkeys(ends)):
            term = text[start:end].replace(delimiter, replace)
            out.append(Tok(term, start, end, inc=1 if index == 0 else 0))
        return out

    def backward(text: str) -> list[Tok]:
        cuts = [i for i, c in enumerate(text) if c == delimiter]
        end = len(text)
        if skip:
            tail = [i for i in cuts if i < len(text) - 1] if text.endswith(delimiter) else cuts
            if len(tail) < skip:
                return []
            end = tail[-skip] + 1  # the skipped components go, the delimiter before them stays
        starts = [0, *[i + 1 for i in cuts if i + 1 < end]] if text else []
        out = []
        for index, start in enumerate(s for s in starts if s < end):
            if index == 0 and text.startswith(delimiter):
                start = 0
            out.append(Tok(text[start:end].replace(delimiter, replace), start, end, inc=1 if index == 0 else 0))
        return out

    return backward if reverse else forward


# ClassicTokenizer's JFlex grammar, tried at each position with longest-match-wins as JFlex does.
_CJ = (
    r"\u3100-\u312f\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\u3300-\u337f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    r"\uff65-\uff9f"
)
# The grammar's classes: letters are BMP letters but not CJ or letters newer than its Unicode (capital sharp s); the
# Thai block (vowel signs included) joins alphanumerics, but not letters or numbers with punctuation.
_CL_LETTER = rf"[\p{{L}}--[{_CJ}\u1e9e\U00010000-\U0010ffff]]"
_CL_DIGIT = r"[\p{Nd}--[\U00010000-\U0010ffff]]"
_CL_THAI = r"[\u0e00-\u0e59]"
_CL_ALNUM = rf"(?:{_CL_LETTER}|{_CL_THAI}|{_CL_DIGIT})+"
_CL_HAS_DIGIT = rf"(?:{_CL_LETTER}|{_CL_DIGIT})*{_CL_DIGIT}(?:{_CL_LETTER}|{_CL_DIGIT})*"
_CL_ALPHA = rf"{_CL_LETTER}+"
_CL_P = r"[_\-/.,]"
_CLASSIC_RULES = [
    ("<ALPHANUM>", _CL_ALNUM),
    ("<APOSTROPHE>", rf"{_CL_ALPHA}(?:'{_CL_ALPHA})+"),
    ("<ACRONYM>", rf"{_CL_LETTER}\.(?:{_CL_LETTER}\.)+"),
    ("<COMPANY>", rf"{_CL_ALPHA}[&@]{_CL_ALPHA}"),
    ("<EMAIL>", rf"{_CL_ALNUM}(?:[._\-]{_CL_ALNUM})*@{_CL_ALNUM}(?:[.\-]{_CL_ALNUM})+"),
    ("<HOST>", rf"{_CL_ALNUM}(?:\.{_CL_ALNUM})+"),
    (
        "<NUM>",
        rf"{_CL_ALNUM}{_CL_P}{_CL_HAS_DIGIT}|{_CL_HAS_DIGIT}{_CL_P}{_CL_ALNUM}"
        rf"|{_CL_ALNUM}(?:{_CL_P}{_CL_HAS_DIGIT}{_CL_P}{_CL_ALNUM})+"
        rf"|{_CL_HAS_DIGIT}(?:{_CL_P}{_CL_ALNUM}{_CL_P}{_CL_HAS_DIGIT})+"
        rf"|{_CL_ALNUM}{_CL_P}{_CL_HAS_DIGIT}(?:{_CL_P}{_CL_ALNUM}{_CL_P}{_CL_HAS_DIGIT})+"
        rf"|{_CL_HAS_DIGIT}{_CL_P}{_CL_ALNUM}(?:{_CL_P}{_CL_HAS_DIGIT}{_CL_P}{_CL_ALNUM})+",
    ),
    ("<ACRONYM_DEP>", rf"{_CL_ALNUM}\.(?:{_CL_ALNUM}\.)+"),
    ("<CJ>", rf"[{_CJ}]"),
]


@cache
def _classic_patterns() -> tuple[list[tuple[str, regex.Pattern]], regex.Pattern]:
    """The classic grammar's rules and where a token can start, compiled when an analyzer first uses them (their
    Unicode classes take milliseconds to compile, which every session would otherwise pay at import)."""
    rules = [(name, regex.compile(rule, regex.V1 | regex.POSIX)) for name, rule in _CLASSIC_RULES]
    return rules, regex.compile(rf"(?V1){_CL_LETTER}|{_CL_THAI}|{_CL_DIGIT}|[{_CJ}]")


def classic(max_token_length: int = 255) -> Callable[[str], list[Tok]]:
    """ClassicTokenizer (the pre-UAX#29 grammar): words, acronyms, companies, e-mails, hosts and numbers with
    punctuation; a token longer than `max_token_length` is dropped, leaving a position gap."""
    rules, token_start = _classic_patterns()

    def tokenize(text: str) -> list[Tok]:
        out: list[Tok] = []
        gap = 0
        at = 0
        while True:
            m = token_start.search(text, at)
            if m is None:
                return out
            at = m.start()
            best, kind = at, ""
            for name, rule in rules:
                found = rule.match(text, at)
                if found is not None and found.end() > best:
                    best, kind = found.end(), name
            if not kind:
                at += 1
                continue
            term = text[at:best]
            if kind == "<ACRONYM_DEP>":  # Lucene drops the trailing dot from the term, not from the offsets
                kind, term = "<HOST>", term[:-1]
            if best - at <= max_token_length:
                out.append(Tok(term, at, best, inc=1 + gap, type=kind))
                gap = 0
            else:
                gap += 1
            at = best
        return out

    return tokenize


def uax_url_email(max_token_length: int = 255) -> Callable[[str], list[Tok]]:
    """UAX29URLEmailTokenizer: the standard tokenizer, except that where a URL or an e-mail address is longer than
    the word starting at the same place, it is one token (JFlex's longest match). Top-level domains are any 2-63
    letters, where Lucene checks IANA's list."""
    mailto, url_email = _url_patterns()

    def tokenize(text: str) -> list[Tok]:
        out: list[Tok] = []
        pattern = _standard_pattern(text)
        at = 0
        while True:
            word = pattern.search(text, at)
            if word is None:
                return out
            if mailto.match(text, word.start()):  # Lucene's grammar splits `mailto:` off an address
                out.append(Tok(text[word.start() : word.start() + 6], word.start(), word.start() + 6))
                at = word.start() + 7
                continue
            special = url_email.match(text, word.start())
            if special is not None and special.end() > word.end():
                kind = "<EMAIL>" if "@" in special.group() and "://" not in special.group() else "<URL>"
                out.append(Tok(special.group(), special.start(), special.end(), type=kind))
                at = special.end()
                continue
            start, end = word.span()
            for piece in range(start, end, max_token_length):
                term = text[piece : min(piece + max_token_length, end)]
                out.append(Tok(term, piece, min(piece + max_token_length, end), type=uax29_type(term)))
            at = end

    return tokenize


_PCHAR = r"(?:[a-z0-9\-._~!$&'()*+;=:@]|%[0-9a-f]{2})"
_LABEL = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
_IPV4 = r"\d{1,3}(?:\.\d{1,3}){3}"
_HOST_STRICT = rf"(?:(?:{_LABEL}\.)+[a-z]{{2,63}}(?![a-z0-9-])|{_IPV4})"
_HOST_LOOSE = rf"(?:{_LABEL}(?:\.{_LABEL})*|{_IPV4})"
_REST = rf"(?::\d+)?(?:/{_PCHAR}*)*(?:\?(?:{_PCHAR}|[/?])*)?(?:\#(?:{_PCHAR}|[/?])*)?"
_ATOM = r"[a-z0-9!#$%&'*+/=?^_`{|}~-]+"
_EMAIL = rf"{_ATOM}(?:\.{_ATOM})*@{_HOST_STRICT}\.?"


@cache
def _url_patterns() -> tuple[regex.Pattern, regex.Pattern]:
    """`mailto:` before an address, and a URL or an e-mail address (compiled on first use, as the classic grammar)."""
    url_email = regex.compile(
        rf"(?i)https?://{_HOST_LOOSE}{_REST}"
        rf"|(?:ftp|file)://(?:{_HOST_STRICT}(?::\d+)?(?:/{_PCHAR}*)*|(?:/{_PCHAR}*)+)"
        rf"|{_EMAIL}"
        rf"|{_HOST_STRICT}(?:\.(?=[^a-z0-9.\-]))?{_REST}",  # a final dot counts when text follows (as Lucene has it)
        regex.POSIX,
    )
    return regex.compile(rf"(?i)mailto:(?={_EMAIL})"), url_email
