"""The right-hand side of ``assert relevance_snapshot == run``, in a module of its own as syrupy's assertion is: it
evaluates the run, asks the gate (gate.py) for the verdict, keeps the report for the session's summary and turns a
failing verdict into the text a reviewer reads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from pytest_relevance.plugin.session import State, resolve, setting, warn

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pytest_relevance.config.settings import Settings
    from pytest_relevance.evaluation.diversity import CorpusFields
    from pytest_relevance.gate.baseline_file import Entry
    from pytest_relevance.gate.pipeline import Provenance
    from pytest_relevance.gate.verdict import Verdict
    from pytest_relevance.judgments.model import Judgments
    from pytest_relevance.online.verdict import Fitted


class RelevanceSnapshot:
    """The right-hand side of ``assert relevance_snapshot == run``; its explanation is the failure text."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        state: State,
        node: pytest.Item,
        judgments: Judgments,
        settings: Settings,
        corpus: CorpusFields | None = None,
        corpus_file: Sequence[object] | None = None,
    ) -> None:
        #: `corpus`: the fields the metrics beyond relevance read (None when none is gated); `corpus_file`: the
        #: session's corpus (relevance_corpus), None when no such file exists
        self.state, self.node, self.judgments, self.corpus = state, node, judgments, corpus
        self.corpus_file = corpus_file
        self.settings = settings
        self.explanation: list[str] = []
        #: whether the test compared a run, and the first comparison that failed (its failure text): a test that
        #: caught that failure, or compared nothing, still fails (see `unreported`)
        self.compared = False
        self.failure: str | None = None

    def __repr__(self) -> str:
        return "relevance_snapshot"

    def __eq__(self, run: object) -> bool:
        from pytest_relevance.errors import RelevanceInputError

        self.compared = True
        try:
            if self._check(run):
                return True
        except RelevanceInputError as exc:
            self.explanation = [f"relevance: {exc}"]
        self.failure = self.failure or "\n".join(self.explanation)
        # pytest.fail rather than False: pytest truncates long assertion explanations to 8 lines outside -vv, which
        # would cut the movers and the what-to-do line a reviewer needs
        pytest.fail("\n".join(self.explanation), pytrace=False)

    def unreported(self) -> str | None:
        """Why a test that passed fails all the same: a comparison of it failed and the test swallowed that (an
        `except BaseException`, a `pytest.raises`), or it requested the snapshot and compared nothing. Either way the
        gate would pass without a word."""
        nodeid = self.node.nodeid
        if self.failure is not None:
            return (
                f"{self.failure}\nrelevance: {nodeid} caught this failure of relevance_snapshot and passed; a "
                "relevance failure fails the test whatever the test does with it"
            )
        if not self.compared:
            return (
                f"relevance: {nodeid} requests relevance_snapshot but compared no run with it; compare one "
                "(assert relevance_snapshot == run) or drop the fixture"
            )
        return None

    def _check(self, run: object) -> bool:
        from pytest_relevance.evaluation.evaluation import Run
        from pytest_relevance.gate.pipeline import Check, check
        from pytest_relevance.reports.terminal import (
            cannot_compare_text,
            cost_lines,
            expectation_lines,
            failure_text,
            no_baseline_text,
        )

        engine = run.engine if isinstance(run, Run) else "custom"
        nodeid, state, config, settings = self.node.nodeid, self.state, self.state.config, self.settings
        result: dict[str, Any] = {"engine": engine, "judgments": self.judgments.version}
        if isinstance(run, Run) and run.repeated > 1:
            result["repeat"] = f"repeat: {len(run)} queries x {run.repeated}, identical"
        self._record(dict(result))  # used, even if it fails below
        baseline = setting(config, "relevance_baseline")
        update = config.getoption("relevance_update")
        entry = state.baseline().get(nodeid)
        explain = None
        if isinstance(run, Run) and run.index is not None:
            explain = lambda movers, verdict: self._explain(movers, verdict, run)  # noqa: E731
        checked = check(
            run,  # type: ignore[arg-type]
            Check(
                nodeid,
                self.judgments,
                settings,
                entry=entry,
                update=update,
                reason=config.getoption("relevance_reason"),
                narrowed=config.getoption("relevance_metrics") is not None,  # one run narrowed, as -k: a note
                baseline=state.baseline_path,
                inputs={**(getattr(run, "inputs", None) or {}), **state.judgments_inputs(self.judgments)},
                corpus=self.corpus,
                corpus_size=self._corpus_size(run),
                provenance=self._provenance(),
                explain=explain,
                human=self._human(),
                clicks=self._clicks(entry, update),
            ),
        )
        verdict, report = checked.verdict, checked.report
        self._properties(report)
        # failed expectations and a cost beyond relevance_max_cost fail the test, after any metric lines
        expected = expectation_lines(report) + cost_lines(report, baseline)
        if update:  # the metrics are re-baselined; an expectation is not a baseline value, so it still fails
            self._record({**result, "report": report, "entry": verdict.entry, "updated": verdict.status == "updated"})
            self.explanation = expected
            return not expected
        self._record({**result, "report": report})
        if verdict.status == "no baseline":
            self.explanation = no_baseline_text(report, nodeid, baseline)
        elif verdict.status == "cannot compare":
            self.explanation = cannot_compare_text(report, nodeid, baseline)
        else:
            self._warn(report)
        if verdict.status == "regressed":
            self.explanation = failure_text(report, baseline, settings.alpha)
            self.explanation += [f"note: {verdict.engine_note}"] if verdict.engine_note else []
        if verdict.status == "passed":
            self.explanation = []
        self.explanation += expected
        return verdict.status == "passed" and not expected

    def _clicks(self, entry: Entry | None, update: bool) -> Fitted | None:
        """The session's click log (relevance_clicks_log) to the depth the entry keeps rankings, when there is an
        entry to estimate against: an update or a first run reads no log."""
        if not self.settings.clicks_log or entry is None or update:
            return None
        return self.state.clicks_log(entry.get("rankings_depth") or self.settings.snapshot_depth)

    def _corpus_size(self, run: object) -> int | None:
        """What coverage and coverage's floor divide by: the size the engine's run records, else (a plain mapping
        from a custom ranker) the size of the session's corpus. Without a corpus file there is none: the coverage
        line is left out of the report (coverage@k cannot be gated then: it needs relevance_corpus)."""
        size = getattr(run, "corpus_size", None)
        if size is None and self.corpus is not None:
            size = len(self.corpus)
        if size is None and self.corpus_file is not None:
            size = len(self.corpus_file)
        return size

    def _record(self, result: dict[str, Any]) -> None:
        """Keep this comparison's result for the session's summary and reports, unless an earlier comparison in the
        same test failed: every verdict counts, so a later pass does not hide it."""
        from pytest_relevance.reports.formatting import FAILING

        earlier = self.state.results.get(self.node.nodeid, {}).get("report", {})
        if earlier.get("status") not in FAILING:
            self.state.results[self.node.nodeid] = result

    def _explain(self, movers: Sequence[dict[str, Any]], verdict: Verdict, run: Any) -> str | None:
        """Why the movers' documents moved: their score trees in the baseline's state (its inputs read back from
        git by the blob ids the entry recorded) beside today's, two documents per query (-v: every one listed).
        Returns why the baseline's trees are missing, if they are."""
        import tempfile
        from pathlib import Path

        from pytest_relevance.explain.why import DEFAULT_DOCUMENTS, baseline_state, explain_movers

        config = self.state.config
        paths = {
            name: resolve(config, setting(config, key))
            for name, key in (
                ("corpus", "relevance_corpus"),
                ("index config", "relevance_index_config"),
                ("query template", "relevance_query"),
            )
        }
        limit = None if config.get_verbosity() > 0 else DEFAULT_DOCUMENTS
        recorded = (verdict.reference or {}).get("inputs")
        id_field = setting(config, "relevance_id_field")
        opened: list[Any] = []
        try:
            with tempfile.TemporaryDirectory(prefix="pytest-relevance-baseline-") as scratch:
                old, reason, opened = baseline_state(
                    recorded, run.index, paths, self.state.engine, id_field, Path(scratch)
                )
                explain_movers(movers, old, run.index, limit)
        finally:
            for index in opened:
                index.close()
        return f"why they moved: today's score trees only; {reason}" if reason else None

    def _human(self) -> Judgments | None:
        """relevance_human_judgments, loaded once a session (None when it is not set)."""
        from pytest_relevance.config.settings import HUMAN_MISSING
        from pytest_relevance.errors import RelevanceInputError

        value = self.settings.human_judgments
        if not value:
            return None
        path = resolve(self.state.config, value)
        if not path.is_file():
            raise RelevanceInputError(path, HUMAN_MISSING)
        return self.state.load_judgments(value)

    def _provenance(self) -> Provenance:
        """Where the stale-grade check and the model-graded share read from (see `provenance.assess`)."""
        from pytest_relevance.gate.pipeline import Provenance

        config, settings = self.state.config, self.settings
        corpus = resolve(config, setting(config, "relevance_corpus"))
        agreement = resolve(config, settings.judge_agreement) if settings.judge_agreement else None
        return Provenance(corpus, setting(config, "relevance_id_field"), agreement)

    def _properties(self, report: dict[str, Any]) -> None:
        """JUnit XML properties: each value with its baseline and delta, for CI dashboards that read them."""
        for row in report["rows"]:
            name = f"relevance.{row['stratum']}.{row['metric']}"
            self.node.user_properties.append((name, row["current"]))
            if row["baseline"] is not None:
                self.node.user_properties.append((f"{name}.baseline", row["baseline"]))
                self.node.user_properties.append((f"{name}.delta", row["delta"]))

    def _warn(self, report: dict[str, Any]) -> None:
        """The report's warnings, as one short RelevanceWarning for this test (so -W error and filterwarnings apply).

        Joined, they made a line of hundreds of characters on every run (values near the constant-answer floor, the
        most unjudged queries); the line counts them and says where they are in full: the -v table and the reports.
        A warning another test already gave in this session (the shared judgments have too few queries) is not said
        again.
        """
        state = self.state
        new = [warning for warning in report["warnings"] if warning not in state.said]
        state.said.update(new)
        if new:
            path, line, _ = self.node.location
            warn(
                f"{self.node.nodeid}: {len(new)} warning{'' if len(new) == 1 else 's'} about its numbers: -v lists "
                "them, as does --relevance-report",
                self.node.config.rootpath / path,
                (line or 0) + 1,  # 0-based; a node without a line (none a test function) points at the first
            )
