"""Score explanations: one engine-neutral tree per document (`tree`), and why a document moved between two states of
the configuration (`why`).
"""

from __future__ import annotations

from pytest_relevance.explain.tree import Node, flatten

__all__ = ["Node", "flatten"]
