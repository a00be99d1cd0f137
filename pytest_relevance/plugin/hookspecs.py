"""Hooks for extensions, added to pytest with `pytest_addhooks`: a third-party package can bring its own engine."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_relevance_make_engine(name: str, config: pytest.Config) -> Any:
    """Return an engine (see `pytest_relevance.engines.base.Engine`) for `relevance_engine = name`, or None."""


@pytest.hookspec(firstresult=True)
def pytest_relevance_judge(query: Any, documents: list[dict[str, Any]]) -> Any:
    """Grade `documents` (corpus documents, each with its id field) for `query` (a `judgments.Query`: id, text,
    stratum, params, its grades so far): return {doc id: grade} for every one of them, on the judgments' own scale.

    The judge is the user's code (an LLM call, a cross-encoder, a rule): `pytest-relevance pool --judge MODULE`
    calls the module's implementation of this hook (`--judge MODULE:FUNCTION`, a function of the same signature) on
    the pooled unjudged documents; the package itself holds no network client.
    """
