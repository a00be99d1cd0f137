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
#: how many times a counted run times each query: the advisory wall-clock is the median of these
TIMED_REPEATS = 3
#: the documents an engine indexes: dicts (each with its id field), in a sequence that may parse its file lazily
Documents = Sequence[dict[str, Any]]


class Index(Protocol):
    """An opened index: what the plugin, `diff` and the CLI call, and all an engine must provide.

    `identity` names engine and version (`embedded 9 (...)`, `elasticsearch 8.13.0`); baselines refuse to compare
    numbers across identities. Two further methods are optional, looked up when a user asks for them, each failing
    with a clear message where an index lacks it: `analyze(texts, analyzer, field) -> list[dict]` (Elasticsearch's
    `_analyze` tokens, for `relevance_index.analyze`) and `explain(body, doc_ids, size, source, query_id) ->
    dict[str, Node]` (score trees, for `relevance_index.explain` and the why-lines of a failure). An index may also
    expose `ids`, its documents' ids in corpus order, so that the plugin need not read the corpus to list them, and
    `profile(bodies, size, source, repeats) -> dict[str, QueryCost]` (`evaluation.cost`: the counts of each body's
    search and the seconds of each of `repeats` runs), which relevance_max_cost needs.
    """

    identity: str

    def search_many(self, bodies: Mapping[str, dict[str, Any]], size: int, source: str) -> dict[str, Hits]:
        """query id -> [(doc id, score)], best first, ties broken by doc id; errors name `source` (the template)."""
        ...

    def close(self) -> None:
        """Release what `open` made (an index on a server is deleted here, and only one this engine created)."""
        ...


class Engine(Protocol):
    """Opens an index from the corpus and an index config (an Elasticsearch create-index body).

    A third-party engine is an object with this method, returned by a `pytest_relevance_make_engine` hook
    (`engines.hookspec`) for its `relevance_engine` name. It may also have `sibling(suffix) -> Engine`, an engine
    that opens a second index beside the first (the baseline's state, to explain why documents moved); without it a
    failure explains today's trees alone.
    """

    def open(self, corpus: Documents, index_config: dict[str, Any], id_field: str, source: str) -> Index:
        """Index every document of `corpus` (`id_field` holds its id) under `index_config`; `source` names the index
        config's file in error messages, as the engines' own refusals name it."""
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
        counted: bool = False,
    ) -> None:
        #: `inputs`: the fingerprints of the corpus, index config and template (fingerprints.index_inputs);
        #: `counted`: run() also counts each query's work (relevance_max_cost), when the index can (`profile`)
        self.index, self.template, self.judgments, self.corpus_size = index, template, judgments, corpus_size
        self.inputs, self.counted = inputs, counted
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
        profile = getattr(self.index, "profile", None) if self.counted else None  # optional in the protocol
        cost = profile(bodies, depth, self.template_source, TIMED_REPEATS) if profile is not None else None
        return Run(rankings, self.identity, self.corpus_size, self.repeat, self.inputs, self, cost)

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
        if explain is None:  # optional in the protocol
            raise RelevanceInputError(
                "relevance_engine",
                f"the {self.identity} engine cannot explain scores: its index has no explain() "
                "(pytest_relevance.engines.base.Index)",
            )
        text, judged, query_id = self.query_of(text_or_query_id)
        body = render(self.template, text, {**judged, **params}, self.instant, query_id, self.template_source)
        trees: dict[str, Node] = explain(body, list(doc_ids), self.depth, self.template_source, query_id)
        return trees

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
        analyze = getattr(self.index, "analyze", None)
        if analyze is None:  # optional in the protocol
            raise RelevanceInputError(
                "relevance_engine",
                f"the {self.identity} engine cannot analyze text: its index has no analyze() "
                "(pytest_relevance.engines.base.Index)",
            )
        result: list[dict[str, Any]] = analyze([text] if isinstance(text, str) else list(text), analyzer, field)
        return result

    def close(self) -> None:
        self.index.close()
