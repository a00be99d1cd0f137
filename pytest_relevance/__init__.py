"""pytest-relevance: search relevance as a build-time check.

The public names load on first use: pytest imports this package for the plugin on every run, relevance tests or not.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "Metric": "pytest_relevance.metrics",
    "MetricSpecError": "pytest_relevance.metrics",
    "parse_metric": "pytest_relevance.metrics",
    "parse_metrics": "pytest_relevance.metrics",
    "score_query": "pytest_relevance.metrics",
    "Judgments": "pytest_relevance.judgments",
    "load_judgments": "pytest_relevance.judgments",
    "Run": "pytest_relevance.evaluation",
    "evaluate": "pytest_relevance.evaluation",
    "RelevanceInputError": "pytest_relevance.errors",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'pytest_relevance' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_EXPORTS[name]), name)
