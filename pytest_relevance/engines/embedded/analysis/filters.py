"""Token filters. Per-term ones are `MapFilter`s (fused and cached per analyzer); the rest are `StreamFilter`s.

Each function here builds one filter from already-validated parameters; `registry.py` reads the settings.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Collection
from functools import lru_cache

import regex

from pytest_relevance.engines.embedded.analysis import snowball as snowball_ext
from pytest_relevance.engines.embedded.analysis.folding_table import FOLDING
from pytest_relevance.engines.embedded.analysis.kstem import kstem as kstem_stem
from pytest_relevance.engines.embedded.analysis.porter import porter_stem
from pytest_relevance.engines.embedded.analysis.stream import MapFilter, StreamFilter, Tok, java_lower, java_upper
from pytest_relevance.engines.embedded.analysis.tokenizers import java_whitespace
from pytest_relevance.engines.embedded.java import trim as java_trim
from pytest_relevance.engines.embedded.java import utf16_length, utf16_prefix

# Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, which is also Elasticsearch's `_english_`.
ENGLISH_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)
FRENCH_ARTICLES = frozenset(["l", "m", "t", "qu", "n", "s", "j", "d", "c", "jusqu", "quoiqu", "lorsqu", "puisqu"])


def lowercase() -> MapFilter:
    return MapFilter(java_lower)


def uppercase() -> MapFilter:
    return MapFilter(java_upper)


def _is_stop(words: Collection[str], ignore_case: bool) -> Callable[[str], bool]:
    if ignore_case:
        folded = frozenset(java_lower(w) for w in words)
        return lambda term: java_lower(term) in folded
    return frozenset(words).__contains__


def stop(words: Collection[str], ignore_case: bool = False) -> MapFilter:
    """StopFilter: stop words leave a position gap."""
    is_stop = _is_stop(words, ignore_case)
    return MapFilter(lambda term: None if is_stop(term) else term)


def suggest_stop(words: Collection[str], ignore_case: bool = False) -> StreamFilter:
    """SuggestStopFilter (stop with `remove_trailing: false`, for search-as-you-type): a stop word that ends the
    text with nothing after it may be a word being typed, so it stays, marked keyword so that no stemmer touches it.
    As in Lucene, the positions of stop words removed at the very end are not carried to the stream's end."""
    is_stop = _is_stop(words, ignore_case)

    def run(tokens: list[Tok], end_inc: int, final: int) -> tuple[list[Tok], int]:
        out: list[Tok] = []
        skipped = 0
        last = len(tokens) - 1
        for index, tok in enumerate(tokens):
            if is_stop(tok.term):
                if index < last:
                    skipped += tok.inc
                    continue
                if final > tok.end:
                    break
                tok.kw = True
            tok.inc += skipped
            skipped = 0
            out.append(tok)
        return out, end_inc

    return StreamFilter(run, end_offset=True)


def keep(words: Collection[str], ignore_case: bool = False) -> MapFilter:
    """KeepWordFilter: only the listed words stay; the others leave position gaps."""
    if ignore_case:
        folded = frozenset(java_lower(w) for w in words)
        return MapFilter(lambda term: term if java_lower(term) in folded else None)
    exact = frozenset(words)
    return MapFilter(lambda term: term if term in exact else None)


def length(minimum: int, maximum: int) -> MapFilter:
    """LengthFilter, on the UTF-16 length."""
    return MapFilter(lambda term: term if minimum <= utf16_length(term) <= maximum else None)


def type_as_payload() -> MapFilter:
    """TypeAsPayloadTokenFilter (analysis-common's pre-configured `type_as_payload`): each token's type becomes its
    payload; terms and positions are unchanged, and payloads play no part in BM25, so nothing here changes."""
    return MapFilter(None)


def trim() -> MapFilter:
    """TrimFilter: Java whitespace off both ends; offsets unchanged."""
    spaces = "".join(java_whitespace)
    return MapFilter(lambda term: term.strip(spaces))


def truncate(size: int) -> MapFilter:
    """TruncateTokenFilter: the first `size` UTF-16 units, as Lucene counts (which can split an emoji in half)."""

    def run(term: str) -> str:
        return term if utf16_length(term) <= size else utf16_prefix(term, size)

    return MapFilter(run)


def reverse() -> MapFilter:
    return MapFilter(lambda term: term[::-1])


def apostrophe() -> MapFilter:
    """ApostropheFilter: everything from the first apostrophe on goes."""
    return MapFilter(lambda term: term.split("'", 1)[0].split("\u2019", 1)[0])


def elision(articles: Collection[str], ignore_case: bool) -> MapFilter:
    """ElisionFilter: `l'avion` -> `avion` when the part before the first apostrophe is an article."""
    table = frozenset(java_lower(a) for a in articles) if ignore_case else frozenset(articles)

    def run(term: str) -> str:
        for i, c in enumerate(term):
            if c in "'\u2019":
                head = term[:i]
                if (java_lower(head) if ignore_case else head) in table:
                    return term[i + 1 :]
                return term
        return term

    return MapFilter(run)


def possessive_english() -> MapFilter:
    """EnglishPossessiveFilter: a trailing 's (or with a curly or fullwidth apostrophe) goes."""

    def run(term: str) -> str:
        if len(term) >= 2 and term[-1] in "sS" and term[-2] in "'\u2019\uff07":
            return term[:-2]
        return term

    return MapFilter(run)


def minimal_english() -> MapFilter:
    """EnglishMinimalStemmer: plural `s` only (`ies` -> `y` unless after a/e, keeps `us`, `ss`, `aes`...)."""

    def run(s: str) -> str:
        n = len(s)
        if n < 3 or s[-1] != "s":
            return s
        c = s[-2]
        if c in "us":
            return s
        if c == "e":
            if n > 3 and s[-3] == "i" and s[-4] not in "ae":
                return s[:-3] + "y"
            if s[-3] in "iaoe":
                return s
        return s[:-1]

    return MapFilter(run, skip_keyword=True)


# the stemmers are pure functions costing microseconds in Python: one bounded cache each, shared by every analyzer
# (an index's casings and possessives of a word reach the stemmer as the same term)
porter_cached = lru_cache(maxsize=1 << 18)(porter_stem)
kstem_cached = lru_cache(maxsize=1 << 18)(kstem_stem)


def porter() -> MapFilter:
    """PorterStemFilter: Porter's original algorithm as Lucene's reference port runs it, not Snowball English."""
    return MapFilter(porter_cached, skip_keyword=True)


def kstem() -> MapFilter:
    """KStemFilter: Krovetz's dictionary-checked stemmer (`kstem`, and the stemmer `light_english`)."""
    return MapFilter(kstem_cached, skip_keyword=True)


def snowball(name: str) -> MapFilter:
    """SnowballFilter with `org.tartarus.snowball.ext.<name>Stemmer` (a name in snowball.LANGUAGES)."""
    return MapFilter(snowball_ext.stemmer(name), skip_keyword=True)


def snowball_english() -> MapFilter:
    """SnowballFilter(English): Porter2."""
    return snowball("English")


def keyword_marker(test: Callable[[str], bool]) -> MapFilter:
    return MapFilter(None, keyword=test)


def stemmer_override(rules: dict[str, str]) -> MapFilter:
    """StemmerOverrideFilter: a listed term is replaced and protected from the stemmers after it."""
    return MapFilter(lambda term: rules.get(term, term), keyword=rules.__contains__, skip_keyword=True)


def pattern_replace(compiled: regex.Pattern, replacement: str, replace_all: bool) -> MapFilter:
    return MapFilter(lambda term: compiled.sub(replacement, term, count=0 if replace_all else 1))


def decimal_digit() -> MapFilter:
    """DecimalDigitFilter: every Unicode decimal digit becomes its ASCII digit."""

    def run(term: str) -> str:
        if term.isascii():
            return term
        return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in term)

    return MapFilter(run)


def _cjk_width_char(c: str) -> str:
    code = ord(c)
    if 0xFF01 <= code <= 0xFF5E:
        return chr(code - 0xFEE0)
    if 0xFF65 <= code <= 0xFF9F:
        return unicodedata.normalize("NFKC", c)
    return c


def cjk_width() -> MapFilter:
    """CJKWidthFilter: full-width ASCII -> ASCII, half-width katakana -> full-width (voiced marks combined)."""

    def run(term: str) -> str:
        if term.isascii():
            return term
        out: list[str] = []
        for c in term:
            if c in "\uff9e\uff9f" and out:
                combined = unicodedata.normalize("NFC", out[-1] + ("\u3099" if c == "\uff9e" else "\u309a"))
                if len(combined) == 1:
                    out[-1] = combined
                    continue
            out.append(_cjk_width_char(c))
        return "".join(out)

    return MapFilter(run)


def fold_to_ascii(term: str) -> str:
    """ASCIIFoldingFilter.foldToASCII: every character in Lucene's table replaced, the others kept."""
    if term.isascii():
        return term
    return term.translate(_FOLDING)


_FOLDING = str.maketrans(FOLDING)


def asciifolding(preserve_original: bool = False) -> MapFilter | StreamFilter:
    """ASCIIFoldingFilter; with `preserve_original`, the folded token then the original at the same position."""
    if not preserve_original:
        return MapFilter(fold_to_ascii)

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        out = []
        for tok in tokens:
            folded = fold_to_ascii(tok.term)
            if folded == tok.term:
                out.append(tok)
            else:
                out.append(tok.copy(term=folded))
                out.append(tok.copy(inc=0))
        return out, end_inc

    return StreamFilter(run)


def limit(max_token_count: int) -> StreamFilter:
    return StreamFilter(lambda tokens, end_inc: (tokens[:max_token_count], end_inc))


def unique(only_on_same_position: bool) -> StreamFilter:
    """Elasticsearch's UniqueTokenFilter: a repeated term is dropped with its position increment (no gap)."""

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        seen: set[str] = set()
        out = []
        for tok in tokens:
            if only_on_same_position and tok.inc > 0:
                seen.clear()
            if tok.term not in seen:
                seen.add(tok.term)
                out.append(tok)
        return out, end_inc

    return StreamFilter(run)


def remove_duplicates() -> StreamFilter:
    """RemoveDuplicatesTokenFilter: the same term twice at one position is kept once."""

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        seen: set[str] = set()
        out = []
        for tok in tokens:
            if tok.inc > 0:
                seen = set()
            if tok.term in seen:
                continue
            seen.add(tok.term)
            out.append(tok)
        return out, end_inc

    return StreamFilter(run)


def classic() -> StreamFilter:
    """ClassicFilter: `'s` off the classic tokenizer's apostrophe tokens, dots out of its acronyms (by token type, so
    after another tokenizer it changes nothing)."""

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        for tok in tokens:
            if tok.type == "<APOSTROPHE>" and tok.term[-2:] in ("'s", "'S"):
                tok.term = tok.term[:-2]
            elif tok.type == "<ACRONYM>":
                tok.term = tok.term.replace(".", "")
        return tokens, end_inc

    return StreamFilter(run)


def ngram(
    min_gram: int, max_gram: int, preserve_original: bool, edges_only: bool = False, back: bool = False
) -> StreamFilter:
    """NGramTokenFilter / EdgeNGramTokenFilter: grams of each term, all with the term's offsets; the first gram
    takes the term's position, the others stack on it (counted in code points, as Lucene). `back`: the edge grams
    of the term's end, which Elasticsearch's `side: back` makes with a ReverseStringFilter before and after."""

    @lru_cache(maxsize=100_000)
    def grams_of(term: str) -> tuple[str, ...]:
        n = len(term)
        grams = []
        starts = [0] if edges_only else range(n)
        for s in starts:
            for size in range(min_gram, max_gram + 1):
                if s + size > n:
                    break
                grams.append(term[n - size :] if back else term[s : s + size])
        if preserve_original and (n < min_gram or n > max_gram):
            grams.append(term)
        return tuple(grams)

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        out = []
        gap = 0
        for tok in tokens:
            grams = grams_of(tok.term)
            if not grams:
                gap += tok.inc
                continue
            for index, gram in enumerate(grams):
                out.append(tok.copy(term=gram, inc=tok.inc + gap if index == 0 else 0))
            gap = 0
        return out, end_inc + gap

    def fast(terms: list[str], positions: list[int], last: int) -> tuple[list[str], list[int], int]:
        """The same on bare lists (the indexing path): a term without grams leaves its position empty."""
        out_terms: list[str] = []
        out_positions: list[int] = []
        for term, position in zip(terms, positions, strict=True):
            grams = grams_of(term)
            out_terms += grams
            out_positions += [position] * len(grams)
        return out_terms, out_positions, last

    return StreamFilter(run, fast)


def shingle(
    min_size: int, max_size: int, output_unigrams: bool, unigrams_if_no_shingles: bool, separator: str, filler: str
) -> StreamFilter:
    """ShingleFilter: at each position the unigram, then the shingles of min..max tokens starting there (position
    length = their token count). A position gap (a removed stop word) is a `filler` token that shingles include and
    may start with, but that is never output alone; its offsets are those of the next token's start."""

    def run(tokens: list[Tok], end_inc: int, final: int) -> tuple[list[Tok], int]:
        window: list[Tok] = []
        real: list[bool] = []
        for tok in tokens:
            for _ in range(tok.inc - 1):
                window.append(Tok(filler, tok.start, tok.start))
                real.append(False)
            window.append(tok)
            real.append(True)
        if window:  # stop words at the end are fillers too (Lucene's end() position increment), ending the text
            for _ in range(end_inc):
                window.append(Tok(filler, final, final))
                real.append(False)
        base = 0 if output_unigrams else min_size - 1  # without unigrams, lengths count from the smallest shingle
        out: list[Tok] = []
        gap = 0
        made_shingle = False
        # Lucene's ShingleFilter loses the text's last token when a gap comes right before it and shingles are at
        # least three tokens long (seen against Lucene 9.9): it is neither a unigram nor the start of anything
        last = len(window) - 1
        lost = last if min_size > 2 and last > 0 and real[last] and not real[last - 1] else -1
        for i, tok in enumerate(window):
            emitted = False
            if i == lost:
                gap += 1
                continue
            if output_unigrams and real[i]:
                out.append(tok.copy(inc=1, plen=1))
                emitted = True
            for size in range(min_size, max_size + 1):
                if i + size > len(window) or not any(real[i : i + size]):
                    continue
                parts = window[i : i + size]
                term = separator.join(p.term for p in parts)
                inc = 0 if emitted else 1  # a start with nothing to output takes no position
                out.append(Tok(term, tok.start, parts[-1].end, inc=inc, plen=size - base, type="shingle"))
                emitted = True
                made_shingle = True
            gap = 0 if emitted else gap + 1
        if not made_shingle and not output_unigrams and unigrams_if_no_shingles:
            return [tok for index, tok in enumerate(tokens) if index != len(tokens) - 1 or lost < 0], end_inc
        return out, gap if window else end_inc

    return StreamFilter(run, end_offset=True)


class StackedTokens(ValueError):
    """A FixedShingleFilter input with tokens stacked at one position (synonyms, preserved originals), whose
    shingle graph the embedded engine does not build."""


def fixed_shingles(
    terms: list[str], positions: list[int], last: int, size: int, separator: str, filler: str
) -> list[tuple[int, int, str]]:
    """Lucene's FixedShingleFilter over a stream without stacked tokens: (first token, last token taken, shingle)
    for each token that starts a shingle of exactly `size` positions. A gap is `filler`s (up to the shingle's end,
    and the token after a gap too wide is not taken); at the stream's end the trailing positions (`last` minus the
    last token's position) are fillers too, and a token with too few positions after it starts nothing."""
    out = []
    count = len(terms)
    for i in range(count):
        parts, slot, until = [terms[i]], 1, i
        for j in range(i + 1, count + 1):
            if slot >= size:
                break
            if j == count:
                if slot + last - positions[-1] < size:
                    parts = []
                else:
                    parts += [filler] * (size - slot)
                break
            inc = positions[j] - positions[j - 1]
            if inc == 0:
                raise StackedTokens(
                    f"a search_as_you_type field's analyzer stacks tokens at one position ({terms[j - 1]!r} and "
                    f"{terms[j]!r}: synonyms, kept originals), whose shingle graph the embedded engine does not build; "
                    "the elasticsearch engine supports it"
                )
            if inc > 1 and slot + inc > size:
                parts += [filler] * (size - slot)
                break
            parts += [filler] * (inc - 1)
            slot += inc
            parts.append(terms[j])
            until = j
        if parts:
            out.append((i, until, separator.join(parts)))
    return out


def fixed_shingle(size: int, separator: str = " ", filler: str = "", trailing: int | None = None) -> StreamFilter:
    """FixedShingleFilter(size, separator, filler), as Elasticsearch's search_as_you_type wraps an analyzer with
    it: shingles of exactly `size` positions only, never unigrams, each at its first token's position (tokens that
    start none leave their positions to the next shingle, or to the stream's end). `trailing` is Elasticsearch's
    TrailingShingleTokenFilter before it (the `_index_prefix` field): the stream's end increment becomes
    `trailing`, so that the last tokens start shingles padded with fillers."""

    def fast(terms: list[str], positions: list[int], last: int) -> tuple[list[str], list[int], int]:
        if trailing is not None:
            last = (positions[-1] if positions else -1) + trailing
        made = fixed_shingles(terms, positions, last, size, separator, filler)
        return [term for _, _, term in made], [positions[i] for i, _, _ in made], last

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        positions, position = [], -1
        for tok in tokens:
            position += tok.inc
            positions.append(position)
        if trailing is not None:
            end_inc = trailing
        made = fixed_shingles([t.term for t in tokens], positions, position + end_inc, size, separator, filler)
        out, previous = [], -1
        for i, until, term in made:
            out.append(Tok(term, tokens[i].start, tokens[until].end, inc=positions[i] - previous, type="shingle"))
            previous = positions[i]
        return out, position + end_inc - previous

    return StreamFilter(run, fast)


def keyword_repeat() -> StreamFilter:
    """KeywordRepeatFilter: each token twice at one position, first marked keyword (so stemmers keep it)."""

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        out = []
        for tok in tokens:
            out.append(tok.copy(kw=True))
            out.append(tok.copy(inc=0))
        return out, end_inc

    return StreamFilter(run)


# WordDelimiterIterator's character classes.
_LOWER, _UPPER, _DIGIT, _DELIM = 1, 2, 4, 8
_ALPHA = _LOWER | _UPPER


def _wd_type(c: str) -> int:
    if c < "\u0100":  # Lucene's table for Latin-1: Java's isLowerCase, isUpperCase, isDigit, else a delimiter
        return _LOWER if c.islower() else _UPPER if c.isupper() else _DIGIT if "0" <= c <= "9" else _DELIM
    if c >= "\U00010000":  # Java sees two surrogates, typed ALPHA | DIGIT
        return _ALPHA | _DIGIT
    category = unicodedata.category(c)
    if category == "Lu":
        return _UPPER
    if category == "Ll":
        return _LOWER
    if category in ("Lt", "Lm", "Lo", "Mn", "Me", "Mc"):
        return _ALPHA
    if category in ("Nd", "Nl", "No"):
        return _DIGIT
    if category == "Cs":
        return _ALPHA | _DIGIT
    return _DELIM


# type_table names, as Elasticsearch's WordDelimiter(Graph)TokenFilterFactory reads them.
WD_TYPES = {"LOWER": _LOWER, "UPPER": _UPPER, "ALPHA": _ALPHA, "DIGIT": _DIGIT, "ALPHANUM": _ALPHA | _DIGIT,
            "SUBWORD_DELIM": _DELIM}  # fmt: skip
_WD_RULE = regex.compile(r"(.*)\s*=>\s*(.*)\s*$")


def parse_wd_type_rule(rule: str) -> tuple[str, int]:
    """One `char => TYPE` rule of a word delimiter's type_table, parsed as Elasticsearch's parseTypes does (the
    source trimmed, then Java escapes \\uXXXX, \\n, \\t...; exactly one character)."""
    found = _WD_RULE.search(rule)
    if found is None:
        raise ValueError("expected 'character => TYPE'")
    source, kind = java_trim(found.group(1)), java_trim(found.group(2))
    chars, i = [], 0
    while i < len(source):
        c = source[i]
        i += 1
        if c == "\\":
            if i >= len(source):
                raise ValueError("a backslash ends the character")
            c = source[i]
            i += 1
            if c == "u":
                if i + 3 >= len(source) or not regex.fullmatch(r"[0-9a-fA-F]{4}", source[i : i + 4]):
                    raise ValueError("\\u needs four hex digits")
                c = chr(int(source[i : i + 4], 16))
                i += 4
            else:
                c = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(c, c)
        chars.append(c)
    if len(chars) != 1 or chars[0] > "\uffff":  # Java counts UTF-16 units
        raise ValueError("only a single character of the BMP is allowed before '=>'")
    if kind not in WD_TYPES:
        raise ValueError(f"the type must be one of {', '.join(WD_TYPES)}")
    if "\ud800" <= chars[0] <= "\udfff":
        raise ValueError("a surrogate cannot be typed here (terms hold whole characters)")
    return chars[0], WD_TYPES[kind]


def _wd_break(last: int, now: int, split_case: bool, split_numerics: bool) -> bool:
    if now & last:
        return False
    if not split_case and last & _ALPHA and now & _ALPHA:
        return False
    if last & _UPPER and now & _ALPHA:
        return False
    return split_numerics or not ((last & _ALPHA and now & _DIGIT) or (last & _DIGIT and now & _ALPHA))


def _wd_parts(
    term: str, split_case: bool, split_numerics: bool, possessive: bool, char_type: Callable[[str], int] = _wd_type
) -> tuple[list[tuple[int, int, int]], bool]:
    """(start, end, type) of the subwords of `term`, as WordDelimiterIterator cuts it, and whether it is a single word
    between delimiters (`--x--`, `C++`, `x's`), which Lucene keeps whatever the generate flags say."""
    types = [char_type(c) for c in term]
    n = len(term)

    def ends_possessive(pos: int) -> bool:
        return (
            possessive
            and pos > 2
            and term[pos - 2] == "'"
            and term[pos - 1] in "sS"
            and bool(types[pos - 3] & _ALPHA)
            and (pos == n or types[pos] == _DELIM)
        )

    lo, hi = 0, n
    while lo < n and types[lo] == _DELIM:
        lo += 1
    while hi > lo and types[hi - 1] == _DELIM:
        hi -= 1
    span = hi - 2 if ends_possessive(hi) else hi  # a final possessive is skipped only where a part ends before it
    parts = []
    current = lo
    while current < hi:
        while current < hi and types[current] == _DELIM:
            current += 1
        if current >= hi:
            break
        last = types[current]
        end = current + 1
        while end < hi and not _wd_break(last, types[end], split_case, split_numerics):
            last = types[end]
            end += 1
        parts.append((current, end, types[current]))
        current = end
        if end < hi - 1 and ends_possessive(end + 2):
            current += 2
    return parts, len(parts) == 1 and parts[0][0] == lo and parts[0][1] == span


def word_delimiter(
    flags: dict[str, bool], protected: frozenset[str], graph: bool, type_table: dict[str, int] | None = None
) -> StreamFilter:
    """WordDelimiterGraphFilter / WordDelimiterFilter: subwords on delimiters, case changes and letter-digit
    changes, with optional catenations and the original; graph form orders by start position, longest first.
    `type_table` retypes characters (from parse_wd_type_rule), the others keep Lucene's default types."""
    char_type = _wd_type if not type_table else lambda c: type_table.get(c) or _wd_type(c)
    split_case = flags["split_on_case_change"]
    split_numerics = flags["split_on_numerics"]
    possessive = flags["stem_english_possessive"]
    words, numbers = flags["generate_word_parts"], flags["generate_number_parts"]
    cat_words, cat_numbers, cat_all = flags["catenate_words"], flags["catenate_numbers"], flags["catenate_all"]
    preserve = flags["preserve_original"]

    def generated(kind: int) -> bool:
        return bool((words and kind & _ALPHA) or (numbers and kind & _DIGIT))

    def concatenated(kind: int) -> bool:
        return bool((cat_words and kind & _ALPHA) or (cat_numbers and kind & _DIGIT))

    def expand(tok: Tok) -> list[tuple[int, int, int, Tok]] | None:
        """(start position, end position, rank, token) relative to the token, as WordDelimiterGraphFilter buffers
        them: positions count generated parts (a catenation of parts not generated takes one of its own), rank
        orders ties (original, catenate_all, a run's catenation, a part). None passes the token through."""
        term = tok.term
        if term in protected or (flags["ignore_keywords"] and tok.kw):
            return None
        parts, single = _wd_parts(term, split_case, split_numerics, possessive, char_type)
        if len(parts) == 1 and parts[0][0] == 0 and parts[0][1] == len(term):
            return None
        exact_offsets = flags["adjust_offsets"] and tok.end - tok.start == len(term)

        def make(first: int, last: int) -> Tok:
            text = "".join(term[s:e] for s, e, _ in parts[first:last])
            if exact_offsets:
                return tok.copy(term=text, start=tok.start + parts[first][0], end=tok.start + parts[last - 1][1])
            return tok.copy(term=text)

        out: list[tuple[int, int, int, Tok]] = []
        position = 0
        if single:
            out.append((0, 1, 3, make(0, 1)))
            position = 1
        elif parts:
            run: list[int] = []  # [kind, start position, first part] of the catenation being built
            whole: list[int] = []  # the same for catenate_all
            last_count = 0
            for index, (_, _, char_kind) in enumerate(parts):
                kind = _ALPHA if char_kind in (_LOWER, _UPPER) else char_kind
                if run and not run[0] & kind:
                    position, last_count = flush(run, index, position, out, make)
                    run = []
                if concatenated(kind):
                    run = run or [kind, position, index]
                if cat_all:
                    whole = whole or [kind, position, index]
                if generated(kind):
                    out.append((position, position + 1, 3, make(index, index + 1)))
                    position += 1
            if run:
                position, last_count = flush(run, len(parts), position, out, make)
            if whole and len(parts) - whole[2] > last_count:
                if position == whole[1]:
                    position += 1
                out.append((whole[1], position, 1, make(whole[2], len(parts))))
        if preserve:
            out.append((0, max(position, 1), 0, tok.copy()))
        return out

    def flush(run: list[int], stop: int, position: int, out: list, make: Callable) -> tuple[int, int]:
        """A run's catenation, written unless it is a single part that is generated anyway."""
        kind, start, first = run
        if position == start:  # no part of it is generated: it takes a position of its own
            position += 1
        if stop - first != 1 or not generated(kind):
            out.append((start, position, 2, make(first, stop)))
        return position, stop - first

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        out: list[Tok] = []
        gap = 0
        for tok in tokens:
            pieces = expand(tok)
            if pieces is None:
                tok.inc += gap
                gap = 0
                out.append(tok)
                continue
            if not pieces:  # only delimiters: dropped, leaving a gap
                gap += tok.inc
                continue
            pieces.sort(key=lambda p: (p[0], -p[1], p[2]))
            last = None
            for start, end, _, piece in pieces:
                piece.plen = end - start
                piece.inc = (tok.inc + gap) if last is None else start - last
                last = start
                out.append(piece)
            gap = 0
        return out, end_inc + gap

    if not graph:
        return _legacy_word_delimiter(flags, protected, generated, concatenated, char_type)
    return StreamFilter(run)


def _legacy_word_delimiter(
    flags: dict[str, bool],
    protected: frozenset[str],
    generated: Callable,
    concatenated: Callable,
    char_type: Callable[[str], int],
) -> StreamFilter:
    """WordDelimiterFilter (the legacy `word_delimiter`), as its state machine runs: the original first, then parts
    and catenations buffered with increments fixed when made (the first after the original at 0, catenations on
    the part before them) and sorted by start offset, larger increment first."""
    split_case, split_numerics = flags["split_on_case_change"], flags["split_on_numerics"]
    possessive, preserve, cat_all = flags["stem_english_possessive"], flags["preserve_original"], flags["catenate_all"]

    def run(tokens: list[Tok], end_inc: int) -> tuple[list[Tok], int]:
        state = _LegacyState()
        out: list[Tok] = []
        for tok in tokens:
            state.accum += tok.inc
            term = tok.term
            parts, single = _wd_parts(term, split_case, split_numerics, possessive, char_type)
            if (len(parts) == 1 and parts[0][:2] == (0, len(term))) or term in protected:
                out.append(tok.copy(inc=state.accum))
                state.accum, state.first = 0, False
                continue
            if not parts and not preserve:
                if tok.inc == 1 and not state.first:
                    state.accum -= 1
                continue
            state.start_word(tok, parts, flags["adjust_offsets"], preserve)
            if preserve:
                out.append(tok.copy(inc=state.accum))
                state.accum, state.first = 0, False
            if single:
                out.append(state.piece(0, 1, False))
                state.first = False
                continue
            buffered: list[Tok] = []
            run_kind, run_first, whole, last_count = 0, -1, -1, 0
            index = 0
            while index < len(parts):
                kind = _ALPHA if parts[index][2] in (_LOWER, _UPPER) else parts[index][2]
                if run_first >= 0 and not run_kind & kind:  # an incompatible part ends the catenation
                    last_count = index - run_first
                    if last_count != 1 or not generated(run_kind):
                        buffered.append(state.piece(run_first, index, True))
                    state.output = False
                    run_first = -1
                    continue
                if concatenated(kind) and run_first < 0:
                    run_kind, run_first = kind, index
                if cat_all and whole < 0:
                    whole = index
                if generated(kind):
                    buffered.append(state.piece(index, index + 1, False))
                index += 1
            if run_first >= 0:
                last_count = len(parts) - run_first
                if last_count != 1 or not generated(run_kind):
                    buffered.append(state.piece(run_first, len(parts), True))
            if whole >= 0 and len(parts) - whole > last_count:
                buffered.append(state.piece(whole, len(parts), True))
            buffered.sort(key=lambda t: (t.start, -t.inc))
            for made in buffered:
                if state.first and made.inc == 0:
                    made.inc = 1
                state.first = False
                out.append(made)
        return out, end_inc + state.accum

    return StreamFilter(run)


class _LegacyState:
    """WordDelimiterFilter's counters: the position increment carried between tokens, and per word whether a
    token has been made yet and whether the original has been followed."""

    def __init__(self) -> None:
        self.accum = 0
        self.first = True
        self.output = False
        self.after_original = True
        self.tok: Tok | None = None
        self.parts: list[tuple[int, int, int]] = []
        self.exact = False

    def start_word(self, tok: Tok, parts: list[tuple[int, int, int]], adjust: bool, preserve: bool) -> None:
        self.tok, self.parts = tok, parts
        self.exact = adjust and tok.end - tok.start == len(tok.term)
        self.output, self.after_original = False, not preserve

    def position(self, inject: bool) -> int:
        accum = self.accum
        if self.output:
            self.accum = 0
            return 0 if inject else max(1, accum)
        self.output = True
        if not self.after_original:  # the first token after the original stacks on it
            self.after_original = True
            return 0
        self.accum = 0
        return max(1, accum)

    def piece(self, first: int, last: int, inject: bool) -> Tok:
        """Parts first..last-1 as one token (a part, or a catenation when `inject`)."""
        tok, parts = self.tok, self.parts
        assert tok is not None
        text = "".join(tok.term[a:b] for a, b, _ in parts[first:last])
        start, end = (
            (tok.start + parts[first][0], tok.start + parts[last - 1][1]) if self.exact else (tok.start, tok.end)
        )
        return tok.copy(term=text, start=start, end=end, inc=self.position(inject), plen=1)
