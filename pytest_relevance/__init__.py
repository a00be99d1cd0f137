"""pytest-relevance: search relevance as a build-time check.

How a run flows, each arrow one module, one way (tests/test_imports.py fails on an import cycle)::

    corpus.py, judgments.py, templates.py  the inputs, read and checked
      -> engines/ (embedded/, elasticsearch.py)  the fixture index, built (or loaded from the cache) once
      -> engines/base.py FixtureIndex.run()  the run: every judged query, under the frozen clock (clock.py)
      -> evaluation.py (metrics.py, sets.py)  the evaluation: per query, per stratum
         + diagnostics.py  what depends on the run and the judgments only: floors, judged@k, coverage, hints
      -> gate.py (baseline.py, churn.py, rankings.py)  the verdict: passed, regressed, no baseline, cannot
         compare, updated or unchanged, with the comparison (rows and p-values, movers, churn)
      -> reports/data.py  the report model, built from the verdict and the diagnostics alone
      -> reports/terminal.py, markdown.py, html.py (sharing reports/formatting.py)  renderings
      -> reports/sinks.py  files and GitHub's step summary; baseline.py writes an update atomically

The pytest side is plugin.py (options, ini keys from keys.py, fixtures, hooks), assertion.py (the
`relevance_snapshot` assertion, which asks gate.py) and session.py (what a session knows and decides at its end).

The public names load on first use: pytest imports this package for the plugin on every run, relevance tests or not.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "Metric": "pytest_relevance.metrics.ranking",
    "MetricSpecError": "pytest_relevance.metrics.ranking",
    "parse_metric": "pytest_relevance.metrics.ranking",
    "parse_metrics": "pytest_relevance.metrics.ranking",
    "score_query": "pytest_relevance.metrics.ranking",
    "Judgments": "pytest_relevance.judgments.model",
    "load_judgments": "pytest_relevance.judgments.model",
    "Run": "pytest_relevance.evaluation.evaluation",
    "evaluate": "pytest_relevance.evaluation.evaluation",
    "RelevanceInputError": "pytest_relevance.errors",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'pytest_relevance' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_EXPORTS[name]), name)
