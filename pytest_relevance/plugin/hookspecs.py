"""Hooks for extensions, added to pytest with `pytest_addhooks`: a third-party package can bring its own engine,
and a judge for `pytest-relevance pool --judge` (declared beside the judge, in `judgments.hookspec`)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_relevance.judgments.hookspec import pytest_relevance_judge

__all__ = ["pytest_relevance_judge", "pytest_relevance_make_engine"]


@pytest.hookspec(firstresult=True)
def pytest_relevance_make_engine(name: str, config: pytest.Config) -> Any:
    """Return an engine (see `pytest_relevance.engines.base.Engine`) for `relevance_engine = name`, or None."""
