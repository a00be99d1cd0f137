"""Fixtures of the pytester tests: `mode` runs a test without xdist and with -n 2, `project` is the small project
of tests/plugin_project.py (a module may build its own `project` instead)."""

from __future__ import annotations

import pytest
from plugin_project import make_project


@pytest.fixture(params=[[], ["-n", "2"]], ids=["no-xdist", "xdist"])
def mode(request: pytest.FixtureRequest) -> list[str]:
    return request.param


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    return make_project(pytester)
