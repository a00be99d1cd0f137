"""The query errors: a construct the embedded engine does not run (`Unsupported`), a parameter Elasticsearch
refuses too (`Invalid`), a field the mappings lack (`Unmapped`)."""

from __future__ import annotations


class Unsupported(Exception):
    """A construct the embedded engine does not run (the Elasticsearch engine does); `among` is what it runs in
    that place (None: the query types)."""

    def __init__(self, construct: str, path: str, among: list[str] | None = None) -> None:
        super().__init__(construct)
        self.construct, self.path, self.among = construct, path, among


class Invalid(Exception):
    """A parameter that is wrong for Elasticsearch too (a non-number boost, a decay of 1, a missing query)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(problem)
        self.path, self.problem = path, problem


class Unmapped(Invalid):
    """A field the mappings lack: a leaf query on it matches nothing (see `registry.MATCH_NONE_WHEN_UNMAPPED`);
    anywhere else (sorts, functions, vectors, geo, nested) Elasticsearch refuses it too."""
