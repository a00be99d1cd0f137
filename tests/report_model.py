"""The report model of one test as the plugin makes it (gate.decide, then the diagnostics, then reports.data.build),
for the tests of the renderers and the report model, which start from an evaluation rather than a pytest run."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_relevance.config.keys import SETTINGS
from pytest_relevance.config.settings import Settings, read
from pytest_relevance.evaluation.diagnostics import diagnose
from pytest_relevance.gate.report import build
from pytest_relevance.gate.verdict import decide


def default_settings(**overrides: Any) -> Settings:
    """The plugin's defaults, but for `overrides` (Settings fields: alpha=, max_churn=, ...)."""
    return replace(read(lambda name: SETTINGS[name][1]), **overrides)


def report_of(nodeid: str, evaluation: Any, judgments: Any, entry: Any = None, **overrides: Any) -> dict[str, Any]:
    settings = default_settings(**overrides)
    verdict = decide(nodeid, entry, evaluation, judgments, "custom", settings)
    diagnostics = diagnose(evaluation, judgments, settings.min_judged, settings.floor_margin, None)
    return build(nodeid, verdict, diagnostics)
