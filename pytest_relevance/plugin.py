"""pytest glue for pytest-relevance (filled in with the plugin core)."""

from __future__ import annotations
