"""The judge's hook, declared with pluggy's marker for pytest's project name (what `pytest.hookspec` is), so that
`pool --judge` loads a judge through a plugin manager without importing pytest, and the plugin registers the same spec.
"""

from __future__ import annotations

from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(firstresult=True)
def pytest_relevance_judge(query: Any, documents: list[dict[str, Any]]) -> Any:
    """Grade `documents` (corpus documents, each with its id field) for `query` (a `judgments.Query`: id, text,
    stratum, params, its grades so far): return {doc id: grade} for every one of them, on the judgments' own scale.

    The judge is the user's code (an LLM call, a cross-encoder, a rule): `pytest-relevance pool --judge MODULE`
    calls the module's implementation of this hook (`--judge MODULE:FUNCTION`, a function of the same signature) on
    the pooled unjudged documents; the package itself holds no network client.
    """
