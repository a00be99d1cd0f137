"""pytest-relevance: search relevance as a build-time check.

The packages, in the order the data flows (each imports only those before it; `import-linter` checks it in CI):

- `errors`, `util`: bad-input errors; files, locks, git. No domain.
- `metrics`: trec_eval-exact ranking metrics, pure.
- `inputs`, `judgments`: the corpus, the query template, the frozen clock; every source of grades -> `Judgments`.
- `evaluation`: Run x Judgments -> `Evaluation` (per query, per stratum), and what keeps it honest (floors, judged@k).
- `config`: the relevance_* settings, read and checked once.
- `explain`, `engines`: engine-neutral score trees; the `Engine`/`Index` protocol, the embedded and the
  Elasticsearch engines behind it.
- `gate`: the baseline file and the decision for one test (a frozen `Verdict`).
- `reports`: the report model and its renderings (terminal, Markdown, JSON, HTML).
- `plugin`, `cli`: pytest's side (the only package that imports pytest) and the console script.

What users and engine authors may import is `__all__` below; the names load on first use, because pytest imports
this package for the plugin on every run, relevance tests or not.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_relevance.engines.base import Engine, FixtureIndex, Hits, Index
    from pytest_relevance.errors import RelevanceInputError
    from pytest_relevance.evaluation.cost import QueryCost
    from pytest_relevance.evaluation.evaluation import Evaluation, Run, evaluate
    from pytest_relevance.explain.tree import Node
    from pytest_relevance.gate.verdict import Verdict
    from pytest_relevance.judgments.model import Judgments, Query, load_judgments
    from pytest_relevance.metrics.ranking import Metric, MetricSpecError, parse_metric, parse_metrics, score_query

_EXPORTS = {
    "Engine": "pytest_relevance.engines.base",
    "Evaluation": "pytest_relevance.evaluation.evaluation",
    "FixtureIndex": "pytest_relevance.engines.base",
    "Hits": "pytest_relevance.engines.base",
    "Index": "pytest_relevance.engines.base",
    "Judgments": "pytest_relevance.judgments.model",
    "Metric": "pytest_relevance.metrics.ranking",
    "MetricSpecError": "pytest_relevance.metrics.ranking",
    "Node": "pytest_relevance.explain.tree",
    "Query": "pytest_relevance.judgments.model",
    "QueryCost": "pytest_relevance.evaluation.cost",
    "RelevanceInputError": "pytest_relevance.errors",
    "Run": "pytest_relevance.evaluation.evaluation",
    "Verdict": "pytest_relevance.gate.verdict",
    "evaluate": "pytest_relevance.evaluation.evaluation",
    "load_judgments": "pytest_relevance.judgments.model",
    "parse_metric": "pytest_relevance.metrics.ranking",
    "parse_metrics": "pytest_relevance.metrics.ranking",
    "score_query": "pytest_relevance.metrics.ranking",
}
__all__ = [
    "Engine",
    "Evaluation",
    "FixtureIndex",
    "Hits",
    "Index",
    "Judgments",
    "Metric",
    "MetricSpecError",
    "Node",
    "Query",
    "QueryCost",
    "RelevanceInputError",
    "Run",
    "Verdict",
    "evaluate",
    "load_judgments",
    "parse_metric",
    "parse_metrics",
    "score_query",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'pytest_relevance' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
