"""Shared test setup."""

from __future__ import annotations

# pytester's in-process runs drop modules first imported during the inner run; yaml's C extension cannot be imported
# twice, so a re-imported yaml would pair with a stale libyaml. Importing it here keeps one yaml for the whole session.
import yaml  # noqa: F401
