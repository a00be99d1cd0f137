"""The engine protocol, and the fixture index that renders judged queries through it.

An engine opens an index from a corpus and an index config (an Elasticsearch create-index body), answers many
rendered search bodies at once, and closes. Everything else (templates, the frozen clock, depth, determinism checks)
is engine-independent and lives in `FixtureIndex`, so a new engine is a few dozen lines.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation.evaluation import Run
from pytest_relevance.explain.tree import Node
from pytest_relevance.inputs.templates import render, render_all
from pytest_relevance.judgments.model import Judgments

Hits = list[tuple[str, float]]


class Index(Protocol):
    """An opened index. `identity` names engine and version; baselines refuse to compare across identities."""

    identity: str

    def search_many(self, bodies: Mapping[str, dict[str, Any]], size: int, source: str) -> dict[str, Hits]:
        """query id -> [(doc id, score)], best first, ties broken by doc id; errors name `source` (the template)."""
        ...

    def analyze(self, texts: Sequence[str], analyzer: str | None, field: str | None) -> list[dict[str, Any]]:
        """Elasticsearch's `_analyze`: tokens as its response lists them (token, offsets, position, positionLength
        when above 1), by analyzer name or by field."""
        ...

    def explain(
        self, body: dict[str, Any], doc_ids: Sequence[str], size: int, source: str, query_id: str
    ) -> dict[str, Node]:
        """doc id -> its score tree for one rendered body (`pytest_relevance.explain.tree.Node`), the root's value the
        score `search_many` gives it at this size; a document the index does not have is a RelevanceInputError."""
        ...

    def close(self) -> None: ...


class Engine(Protocol):
    def open(self, corpus: Sequence[dict[str, Any]], index_config: dict[str, Any], id_field: str) -> Index: ...

    def sibling(self, suffix: str) -> Engine:
        """An engine that opens an index beside this one's (optional: without it a failure explains today's trees
        alone)."""
        ...


def _id_shape(text: str) -> str | None:
    """`q#` for `q022`: an id's letters with its digit runs as #, or None for a string that is no id (spaces, no
    digit)."""
    if not text or any(c.isspace() for c in text) or not any(c.isdigit() for c in text):
        return None
    return re.sub(r"\d+", "#", text)


class FixtureIndex:
    """What `relevance_index` gives a test: `run()` for every judged query, `search()` for one."""

    def __init__(
        self,
        index: Index,
        template: dict[str, Any],
        judgments: Judgments,
        instant: datetime,
        depth: int,
        template_source: str,
        repeat: int = 1,
        corpus_size: int | None = None,
        inputs: dict[str, Any] | None = None,
    ) -> None:
        #: `inputs`: the fingerprints of the corpus, index config and template (fingerprints.index_inputs)
        self.index, self.template, self.judgments, self.corpus_size = index, template, judgments, corpus_size
        self.inputs = inputs
        self.instant, self.depth, self.template_source, self.repeat = instant, depth, template_source, repeat

    def for_test(self, judgments: Judgments, instant: datetime, depth: int) -> FixtureIndex:
        """The same index seen by one test: its judgments, its frozen instant, its deepest cut-off."""
        view = copy.copy(self)
        view.judgments, view.instant, view.depth = judgments, instant, depth
        return view

    def with_state(self, index: Index, template: dict[str, Any], inputs: dict[str, Any]) -> FixtureIndex:
        """The same queries, judgments and instant on another state of the inputs (the baseline's index or
        template), for explaining what changed between the two."""
        view = copy.copy(self)
        view.index, view.template, view.inputs = index, template, inputs
        return view

    @property
    def identity(self) -> str:
        return self.index.identity

    def bodies(self) -> dict[str, dict[str, Any]]:
        return render_all(self.template, self.judgments.queries, self.instant, self.template_source)

    def run(self, size: int | None = None) -> Run:
        """Every judged query, rendered with its params, at the configured depth (the largest cut-off, >= 10)."""
        bodies = self.bodies()
        depth = size or self.depth
        first = self.index.search_many(bodies, depth, self.template_source)
        for attempt in range(1, self.repeat):
            again = self.index.search_many(bodies, depth, self.template_source)
            for qid, hits in first.items():
                if [d for d, _ in again[qid]] != [d for d, _ in hits]:
                    raise RelevanceInputError(
                        self.template_source,
                        f"query {qid!r} ranked differently on repetition {attempt + 1} of {self.repeat}: the engine "
                        "is not deterministic for it (ties without a tiebreak, or a refresh race)",
                    )
        rankings = {qid: [doc for doc, _ in hits] for qid, hits in first.items()}
        return Run(rankings, self.identity, self.corpus_size, self.repeat, self.inputs, self)

    def search(self, text: str, size: int | None = None, **params: Any) -> Hits:
        """One query through the template, e.g. ``relevance_index.search("usb cable", category="computers")``."""
        body = render(self.template, text, params, self.instant, "<search>", self.template_source)
        return self.index.search_many({"<search>": body}, size or self.depth, self.template_source)["<search>"]

    def explain(self, text_or_query_id: str, doc_ids: Sequence[str], **params: Any) -> dict[str, Node]:
        """Why each document scores what it does: `relevance_index.explain("q022", ["p0569", "p0140"])`.

        A judged query's id renders that query with its params (`params` add to them or override them); any other
        string is a free text, as `search` takes it. The result maps each doc id to the root of its score tree
        (`pytest_relevance.explain.tree`), whose value is the document's score in `run()` and `search()`.
        """
        explain = getattr(self.index, "explain", None)
        if explain is None:  # an engine of a plugin written before explanations
            raise RelevanceInputError(
                "relevance_engine",
                f"the {self.identity} engine cannot explain scores: its index has no explain() "
                "(pytest_relevance.engines.base.Index)",
            )
        text, judged, query_id = self.query_of(text_or_query_id)
        body = render(self.template, text, {**judged, **params}, self.instant, query_id, self.template_source)
        return explain(body, list(doc_ids), self.depth, self.template_source, query_id)

    def query_of(self, text_or_query_id: str) -> tuple[str, Mapping[str, Any], str]:
        """(text, params, query id) of a judged query's id, or of a free text; a string shaped like the judgments'
        ids (`q999` beside `q001`...) that none of them is would search for an id, so it is an error."""
        if text_or_query_id in self.judgments:
            judged = self.judgments[text_or_query_id]
            return judged.text, judged.params, judged.id
        shape = _id_shape(text_or_query_id)
        if shape is not None and any(_id_shape(q.id) == shape for q in self.judgments.queries):
            ids = [q.id for q in self.judgments.queries]
            raise RelevanceInputError(
                self.judgments.source,
                f"no query with the id {text_or_query_id!r} (its ids run {ids[0]} .. {ids[-1]}); give a judged "
                "query's id or the text to search for",
            )
        return text_or_query_id, {}, "<explain>"

    def analyze(
        self, text: str | Sequence[str], analyzer: str | None = None, field: str | None = None
    ) -> list[dict[str, Any]]:
        """What an analyzer, or a field's analyzer, makes of a text: `relevance_index.analyze("Wi-Fi", field="title")`.

        For debugging an analyzer change; the tokens are those of Elasticsearch's `_analyze` on either engine.
        """
        return self.index.analyze([text] if isinstance(text, str) else list(text), analyzer, field)

    def close(self) -> None:
        self.index.close()
