"""The engine hook, declared with pluggy's marker for pytest's project name (what `pytest.hookspec` is), so that
the command line finds a plugin's engine without importing pytest, and the plugin registers the same spec.
"""

from __future__ import annotations

from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(firstresult=True)
def pytest_relevance_make_engine(name: str, config: Any) -> Any:
    """Return an engine (`pytest_relevance.engines.base.Engine`) for `relevance_engine = name`, or None.

    Under pytest `config` is the `pytest.Config`; on the command line (`pytest-relevance diff`, `explain`) it is a
    stand-in with the same `getini(name)`, `getoption(name, default=None)` and `rootpath`, answered from the project's
    pytest ini file and the command's flags.
    """
