"""The report model of one test as the plugin makes it (gate.pipeline, the one check the plugin and diff run),
for the tests of the renderers and the report model, which start from an evaluation rather than a pytest run."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_relevance.config.keys import SETTINGS
from pytest_relevance.config.settings import Settings, read
from pytest_relevance.gate.pipeline import Check, check_evaluation


def default_settings(**overrides: Any) -> Settings:
    """The plugin's defaults, but for `overrides` (Settings fields: alpha=, max_churn=, ...)."""
    return replace(read(lambda name: SETTINGS[name][1]), **overrides)


def report_of(nodeid: str, evaluation: Any, judgments: Any, entry: Any = None, **overrides: Any) -> dict[str, Any]:
    settings = default_settings(**overrides)
    return check_evaluation(evaluation, Check(nodeid, judgments, settings, entry=entry)).report
