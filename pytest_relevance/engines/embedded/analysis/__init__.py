"""Elasticsearch's text analysis in pure Python, token for token as Lucene 9 produces it.

An `Analyzer` (`analyzer.py`) is a chain: char filters -> tokenizer -> token filters, each a small function from
`registry.py`. `Analysis` (`index_analysis.py`) holds the analyzers, normalizers and components an index config
defines in `settings.analysis`, on top of the built-ins. Offsets are reported as Lucene reports them, in UTF-16
code units. Callers import from this facade.
"""

from __future__ import annotations

from pytest_relevance.engines.embedded.analysis.analyzer import Analyzer, CharFilter, IndexPlan, Token, Tokenizer
from pytest_relevance.engines.embedded.analysis.index_analysis import Analysis

__all__ = ["Analysis", "Analyzer", "CharFilter", "IndexPlan", "Token", "Tokenizer"]
