"""pytest-relevance: search relevance as a build-time check."""

from __future__ import annotations

from pytest_relevance.metrics import Metric, MetricSpecError, parse_metric, parse_metrics, score_query

__all__ = ["Metric", "MetricSpecError", "parse_metric", "parse_metrics", "score_query"]
