"""Hooks for extensions, added to pytest with `pytest_addhooks`: a third-party package can bring its own engine
(declared in `engines.hookspec`) and a judge for `pytest-relevance pool --judge` (declared in `judgments.hookspec`),
each beside the code that calls it, so that the command line calls them without pytest.
"""

from __future__ import annotations

from pytest_relevance.engines.hookspec import pytest_relevance_make_engine
from pytest_relevance.judgments.hookspec import pytest_relevance_judge

__all__ = ["pytest_relevance_judge", "pytest_relevance_make_engine"]
