"""Char filters: text -> (filtered text, offset correction), as Lucene's BaseCharFilter keeps it.

A correction is Lucene's table of (output offset, cumulative difference): an offset maps back by the last entry at
or before it, so a token ending where markup was removed stretches over that markup, exactly as in Elasticsearch.
"""

from __future__ import annotations

import html.entities
from bisect import bisect_right
from collections.abc import Callable, Mapping
from functools import cache

import regex

__all__ = ["html_strip", "mapping", "parse_mapping_rule", "pattern_replace"]

Correct = Callable[[int], int]


class _Builder:
    """Output text plus Lucene's offset-correction table, built one replacement at a time."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.out_len = 0
        self.cum = 0
        self.offsets: list[int] = []
        self.diffs: list[int] = []

    def _add(self, offset: int, diff: int) -> None:
        if self.offsets and self.offsets[-1] == offset:
            self.diffs[-1] = diff
        else:
            self.offsets.append(offset)
            self.diffs.append(diff)

    def keep(self, text: str) -> None:
        self.parts.append(text)
        self.out_len += len(text)

    def replace(self, matched_len: int, replacement: str) -> None:
        """`matched_len` input characters become `replacement` (MappingCharFilter's bookkeeping)."""
        diff = matched_len - len(replacement)
        start = self.out_len
        if diff > 0:
            self.cum += diff
            self._add(start + len(replacement), self.cum)
        elif diff < 0:
            for extra in range(-diff):
                self._add(start + matched_len + extra, self.cum - extra - 1)
            self.cum += diff
        self.keep(replacement)

    def result(self) -> tuple[str, Correct]:
        offsets, diffs = self.offsets, self.diffs

        def correct(offset: int) -> int:
            index = bisect_right(offsets, offset)
            return offset + diffs[index - 1] if index else offset

        return "".join(self.parts), correct


def _identity(offset: int) -> int:
    return offset


def parse_mapping_rule(line: str) -> tuple[str, str]:
    """One `"source" => "target"` rule of a mapping char filter (quotes optional, Java escapes allowed)."""
    source, arrow, target = line.partition("=>")
    if not arrow:
        raise ValueError("expected 'source => target'")
    source, target = _unescape(source.strip()), _unescape(target.strip())
    if not source:
        raise ValueError("the source of a mapping is empty")
    return source, target


def _unescape(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    simple = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "u" and i + 6 <= len(text):
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(simple.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def mapping(rules: Mapping[str, str]) -> Callable[[str], tuple[str, Correct]]:
    """MappingCharFilter: at each position the longest matching source is replaced."""
    if not rules:
        return lambda text: (text, _identity)
    compiled = regex.compile("|".join(regex.escape(s) for s in sorted(rules, key=len, reverse=True)))

    def run(text: str) -> tuple[str, Correct]:
        if compiled.search(text) is None:
            return text, _identity
        out = _Builder()
        last = 0
        for m in compiled.finditer(text):
            out.keep(text[last : m.start()])
            out.replace(m.end() - m.start(), rules[m.group()])
            last = m.end()
        out.keep(text[last:])
        return out.result()

    return run


def pattern_replace(compiled: regex.Pattern, replacement: str) -> Callable[[str], tuple[str, Correct]]:
    """PatternReplaceCharFilter: every match replaced (group references allowed)."""

    def run(text: str) -> tuple[str, Correct]:
        out = _Builder()
        last = 0
        for m in compiled.finditer(text):
            out.keep(text[last : m.start()])
            out.replace(m.end() - m.start(), m.expand(replacement))
            last = m.end()
        if last == 0 and not out.parts:
            return text, _identity
        out.keep(text[last:])
        return out.result()

    return run


# HTMLStripCharFilter: inline elements go without a trace (`x<b>y` is one word, as browsers render it), every other
# tag and whole scripts and styles become a newline, so words on either side stay apart; comments, processing
# instructions and declarations go whole; CDATA keeps its text; entities are decoded.
_INLINE = frozenset(
    [
        "a",
        "abbr",
        "acronym",
        "b",
        "basefont",
        "bdo",
        "big",
        "cite",
        "code",
        "dfn",
        "em",
        "font",
        "i",
        "img",
        "input",
        "kbd",
        "label",
        "q",
        "s",
        "samp",
        "select",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "textarea",
        "tt",
        "u",
        "var",
    ]
)
_ATTR = r"""(?:\s+[^\s"'<>/=&]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'<>]+))?)"""


@cache
def _html_pattern() -> regex.Pattern:
    """Comments, scripts, CDATA, declarations, tags and entities (compiled when an html_strip is first built)."""
    return regex.compile(
        r"(?P<comment><!--.*?(?:-->|\Z))"
        r"|(?P<script><(?P<skind>script|style)\b" + _ATTR + r"*\s*>.*?(?:</(?P=skind)\s*>|\Z))"
        r"|(?P<cdata><!\[CDATA\[(?P<cdtext>.*?)\]\]>)"
        r"|(?P<decl><[!?][^>]*>)"
        r"|(?P<tag></?\s*(?P<name>[A-Za-z][-.:_A-Za-z0-9]*)" + _ATTR + r"*\s*/?>)"
        r"|(?P<unclosed></?\s*[A-Za-z][-.:_A-Za-z0-9]*\Z)"  # a bare tag name the text ends in: gone
        # an entity ends with `;`, or without one at the very end of the text
        r"|(?P<entity>&(?:#[xX](?P<hex>[0-9a-fA-F]+)|#(?P<dec>[0-9]+)|(?P<named>[A-Za-z][A-Za-z0-9]*))(?:;|\Z))",
        regex.DOTALL | regex.IGNORECASE,
    )


def _entity(m: regex.Match) -> str | None:
    if m.group("hex") or m.group("dec"):
        code = int(m.group("hex"), 16) if m.group("hex") else int(m.group("dec"))
        return chr(code) if code <= 0x10FFFF else None
    name = m.group("named")
    return " " if name == "nbsp" else html.entities.html5.get(name + ";")  # Lucene makes &nbsp; a plain space


def html_strip(escaped_tags: frozenset[str] = frozenset()) -> Callable[[str], tuple[str, Correct]]:
    escaped = frozenset(t.lower() for t in escaped_tags)
    pattern = _html_pattern()

    def run(text: str) -> tuple[str, Correct]:
        if "<" not in text and "&" not in text:
            return text, _identity
        out = _Builder()
        last = 0
        for m in pattern.finditer(text):
            kind = m.lastgroup if m.lastgroup in ("comment", "cdata", "decl", "unclosed") else None
            if kind is None:
                kind = next(k for k in ("script", "tag", "entity") if m.group(k) is not None)
            matched = m.end() - m.start()
            if kind == "entity":
                decoded = _entity(m)
                if decoded is None:
                    continue
                out.keep(text[last : m.start()])
                out.replace(matched, decoded)
            elif kind == "cdata":
                out.keep(text[last : m.start()])
                out.replace(len("<![CDATA["), "")
                out.keep(m.group("cdtext"))
                out.replace(len("]]>"), "")
            else:
                name = (m.group("name") or m.group("skind") or "").lower()
                if kind in ("tag", "script") and name in escaped:
                    continue
                out.keep(text[last : m.start()])
                out.replace(matched, "\n" if kind == "script" or (kind == "tag" and name not in _INLINE) else "")
            last = m.end()
        if last == 0:
            return text, _identity
        out.keep(text[last:])
        return out.result()

    return run
