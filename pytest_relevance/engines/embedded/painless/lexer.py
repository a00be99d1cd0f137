"""Painless's tokens: the lexer and the names of its keywords and types."""

from __future__ import annotations

import re

from pytest_relevance.engines.embedded.painless.values import PainlessError

_TOKEN = re.compile(
    r"(?P<ws>\s+|//[^\n]*|/\*.*?\*/)"
    r"|(?P<num>0[xX][0-9a-fA-F]+[lL]?|(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?[fFdD]?|\d+(?:[eE][-+]?\d+)[fFdD]?"
    r"|\d+[lLfFdD]?)"
    r"|(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<op>>>>=|===|!==|==~|<<=|>>=|>>>|\?\.|\?:|->|::|=~|==|!=|<=|>=|&&|\|\||\+\+|--|\+=|-=|\*=|/=|%=|&=|\|=|"
    r"\^=|<<|>>|[-+*/%<>!~?:=(){}\[\],.;&|^])",
    re.S,
)


KEYWORDS = frozenset(
    ["if", "else", "while", "do", "for", "in", "continue", "break", "return", "new", "try", "catch", "throw",
     "this", "instanceof"]
)  # fmt: skip


_PRIMITIVES = ("boolean", "int", "long", "float", "double")


REFUSED_TYPES = frozenset(["char", "byte", "short"])


REFERENCES = {
    "def": "def", "String": "String", "Object": "def", "Number": "Number", "Integer": "int", "Long": "long",
    "Double": "double", "Float": "float", "Boolean": "boolean", "List": "List", "ArrayList": "List",
    "Map": "Map", "HashMap": "Map", "Collection": "List", "Iterable": "List",
}  # fmt: skip


TYPES = frozenset((*_PRIMITIVES, *REFERENCES))


class Tok:
    __slots__ = ("col", "kind", "line", "text")

    def __init__(self, kind: str, text: str, line: int, col: int) -> None:
        self.kind, self.text, self.line, self.col = kind, text, line, col


def lex(source: str) -> list[Tok]:
    tokens, at, line, line_start = [], 0, 1, 0
    while at < len(source):
        match = _TOKEN.match(source, at)
        if match is None:
            raise PainlessError(f"unexpected character {source[at]!r}", (line, at - line_start + 1))
        kind = match.lastgroup or ""
        if kind != "ws":
            tokens.append(Tok(kind, match.group(), line, at - line_start + 1))
        text = match.group()
        if "\n" in text:
            line += text.count("\n")
            line_start = at + text.rindex("\n") + 1
        at = match.end()
    tokens.append(Tok("end", "the end", line, at - line_start + 1))
    return tokens
