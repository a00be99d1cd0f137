"""Elasticsearch's named stop lists (`_french_`, `_german_`, ...), read lazily from Lucene's own words.

`stopwords.txt.gz` beside this module holds every list of Elasticsearch 8's Analysis.NAMED_STOP_WORDS, each the
`getDefaultStopSet()` of the Lucene 9.9.1 analyzer Elasticsearch names, written by tests/lucene_extra/languages.py
from the oracle's jar (never hand-copied). It is read on the first lookup of a list other than `_english_`, so an
English-only index never pays for the other 34 languages.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator, Mapping
from functools import cache
from importlib.resources import files

from pytest_relevance.engines.embedded.analysis import filters


@cache
def _lists() -> dict[str, frozenset[str]]:
    """name -> words. No Lucene default set ignores case (the generator checks), so each is a plain set."""
    data = gzip.decompress(files(__package__).joinpath("stopwords.txt.gz").read_bytes()).decode("utf-8")
    out = {}
    for line in data.splitlines():
        name, *words = line.split("\t")
        out[name] = frozenset(words)
    return out


class _NamedLists(Mapping[str, frozenset[str]]):
    """The lists by name; `_english_` is filters.ENGLISH_STOP_WORDS (the same words) without reading the file."""

    def __getitem__(self, name: str) -> frozenset[str]:
        if name == "_english_":
            return filters.ENGLISH_STOP_WORDS
        return _lists()[name]

    def __contains__(self, name: object) -> bool:
        return name == "_english_" or name in _lists()

    def __iter__(self) -> Iterator[str]:
        return iter(_lists())

    def __len__(self) -> int:
        return len(_lists())


NAMED = _NamedLists()
