"""The pytest side, and the only package that imports pytest: the hooks pytest loads as the `relevance` plugin
(`hooks`), the `relevance_snapshot` assertion (`assertion`), what a session knows and decides at its end (`session`),
and the hooks extensions implement (`hookspecs`).
"""

from __future__ import annotations

from pytest_relevance.plugin.session import RelevanceWarning

__all__ = ["RelevanceWarning"]
