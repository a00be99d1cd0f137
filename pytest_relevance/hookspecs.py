"""Hooks for extensions, added to pytest with `pytest_addhooks`: a third-party package can bring its own engine."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_relevance_make_engine(name: str, config: pytest.Config) -> Any:
    """Return an engine (see `pytest_relevance.engines.base.Engine`) for `relevance_engine = name`, or None."""
