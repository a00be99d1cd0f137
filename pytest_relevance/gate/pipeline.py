"""One relevance check, the sequence every caller runs: evaluate -> decide -> explain the movers -> the online
estimate (with a click log) -> provenance -> diagnose -> the report model.

The `relevance_snapshot` assertion, `pytest-relevance diff` and the tests of the reports all call `check`, so a rule
added to any step (a stale-grade check, a corpus size for coverage, an explanation) reaches all of them at once. What
differs between callers is data in `Check` (the baseline entry, whether this is an update, where the corpus is) and
one callable: how to explain why documents moved, which needs an engine and git and so belongs to the caller.

The result is immutable: the verdict `decide` returns is never changed afterwards; the explained movers are a new
verdict (`dataclasses.replace`), and the report model is built last, from the final verdict and the diagnostics.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation.diagnostics import Diagnostics, diagnose
from pytest_relevance.evaluation.evaluation import Evaluation, Run, evaluate
from pytest_relevance.evaluation.expectations import Result, check_expectations
from pytest_relevance.evaluation.set_answers import evaluate_sets, is_set_run
from pytest_relevance.evaluation.significance import change_p
from pytest_relevance.gate.cost import CostCheck, check_cost, cost_record
from pytest_relevance.gate.cost import inconsistency as cost_inconsistency
from pytest_relevance.gate.report import build
from pytest_relevance.gate.verdict import Compared, Verdict, decide, update_command
from pytest_relevance.judgments.provenance import assess
from pytest_relevance.metrics.ranking import DIGITS

if TYPE_CHECKING:
    from pytest_relevance.config.settings import Settings
    from pytest_relevance.evaluation.cost import QueryCost
    from pytest_relevance.evaluation.diversity import CorpusFields
    from pytest_relevance.gate.baseline_file import Entry
    from pytest_relevance.judgments.model import Judgments
    from pytest_relevance.online.verdict import Fitted

#: explains the movers a regressed verdict lists: fills each mover's `why` (and `trees`) in the copies it is given,
#: and returns why the baseline's side is missing, if it is (None when both sides were explained)
Explainer = Callable[[Sequence[dict[str, Any]], Verdict], "str | None"]


@dataclass(frozen=True)
class Provenance:
    """Where the stale-grade check and the model-graded share read from: the corpus file (hashed only when a grade
    records a hash), its id field, and the judge's measured agreement (an `agreement --format json` file)."""

    corpus: Path
    id_field: str = "id"
    agreement: Path | None = None


@dataclass(frozen=True)
class Check:
    """What one check needs besides the run."""

    nodeid: str
    judgments: Judgments
    settings: Settings
    #: the baseline entry compared with (None: none yet)
    entry: Entry | None = None
    #: `--relevance-update`: decide writes a new entry instead of judging
    update: bool = False
    reason: str | None = None
    #: a --relevance-metrics flag narrowed this run's metrics (a metric the entry gates and the run does not is a note)
    narrowed: bool = False
    baseline: Path | None = None
    #: the fingerprints of the inputs the run was measured on (the entry records them)
    inputs: Mapping[str, Any] = field(default_factory=dict)
    #: the corpus fields the metrics beyond relevance read, and the corpus size coverage divides by
    corpus: CorpusFields | None = None
    corpus_size: int | None = None
    provenance: Provenance | None = None
    #: explains the movers of a regressed verdict (of every compared verdict with `explain_every_change`: a diff)
    explain: Explainer | None = None
    explain_every_change: bool = False
    #: a p-value for every row that changed, not only for the regressions the gate tests (a diff shows them all)
    every_p: bool = False
    #: people's grades of a sample of the judge-graded queries (relevance_human_judgments): the judge-corrected
    #: estimates beside the plain numbers, and what relevance_judge_correction = ppi gates on
    human: Judgments | None = None
    #: relevance_clicks_log, read and fitted once a session (`online.verdict.fit`): the run's change in clicks is
    #: estimated against the entry's rankings (None: no log)
    clicks: Fitted | None = None


@dataclass(frozen=True)
class Checked:
    """The check's result: the evaluation, the final verdict, the diagnostics and the report model built from them.

    `expectations`: the judgments' known-item expectations checked on this run (report["expectations"] has them
    with their why-lines); a failed one fails the test whatever the verdict, and an update does not baseline it.
    """

    evaluation: Evaluation
    verdict: Verdict
    diagnostics: Diagnostics
    report: dict[str, Any]
    expectations: tuple[Result, ...] = ()
    #: the cost counters against the entry's under relevance_max_cost (None: not set); an exceeded rule fails the
    #: test, as a failed expectation does
    cost: CostCheck | None = None

    @property
    def failed(self) -> list[Result]:
        """The expectations that failed."""
        return [result for result in self.expectations if not result.passed]


def check(run: Mapping[str, Any], spec: Check) -> Checked:
    """Evaluate `run` (rankings, scored rankings or set answers) and take the gate's decision on it."""
    if not isinstance(run, Run):
        return check_evaluation(evaluate_run(run, spec), spec)
    template = getattr(run.index, "template", None)  # a riser's clause is quoted from it
    return check_evaluation(evaluate_run(run, spec), spec, run.engine, run.cost, template)


def check_evaluation(
    evaluation: Evaluation,
    spec: Check,
    engine: str = "custom",
    cost: Mapping[str, QueryCost] | None = None,
    template: Mapping[str, Any] | None = None,
) -> Checked:
    """The check of a run already evaluated (the tests of the reports start from an evaluation); `engine` is the
    identity of the engine that made the run ("custom" for a user's ranker), `cost` its counted work per query (None:
    not counted) and `template` the query template it rendered."""
    limits = spec.settings.max_cost
    verdict = decide(
        spec.nodeid,
        spec.entry,
        evaluation,
        spec.judgments,
        engine,
        spec.settings,
        update=spec.update,
        reason=spec.reason,
        narrowed=spec.narrowed,
        baseline=spec.baseline,
        inputs=dict(spec.inputs),
        cost=cost_record(cost, spec.judgments.groups, limits, template) if limits and cost is not None else None,
        human=spec.human,
    )
    costed = cost_of(spec, verdict, cost, template) if limits else None
    if spec.every_p and spec.entry is not None:
        verdict = with_every_p(verdict, spec.entry, evaluation, spec.judgments)
    compared = verdict.reference is not None and not spec.update
    if spec.explain is not None and (verdict.status == "regressed" or (spec.explain_every_change and compared)):
        verdict = explained(verdict, spec.explain)
    online = online_section(evaluation, spec, verdict)
    if online is not None and online["failed"] and verdict.status == "passed":
        verdict = replace(verdict, status="regressed")
    stale: Sequence[str] = ()
    graded = None
    if spec.provenance is not None:
        where = spec.provenance
        stale, graded = assess(spec.judgments, evaluation, spec.settings, where.corpus, where.id_field, where.agreement)
    settings = spec.settings
    diagnostics = diagnose(
        evaluation, spec.judgments, settings.min_judged, settings.floor_margin, spec.corpus_size, stale, graded
    )
    results = expectations_of(evaluation, spec.judgments)
    cost_data = costed.as_dict() if costed is not None else None
    report = build(spec.nodeid, verdict, diagnostics, expectation_report(results, spec, verdict), online, cost_data)
    return Checked(evaluation, verdict, diagnostics, report, tuple(results), costed)


def cost_of(
    spec: Check, verdict: Verdict, cost: Mapping[str, QueryCost] | None, template: Mapping[str, Any] | None
) -> CostCheck:
    """Today's counts against the entry's under relevance_max_cost. On a check, an entry it can compare with must
    hold counts derived from each other (else bad input, as for its metrics); an update compares with the old
    entry's counts where it has them, and never fails on them."""
    groups, texts = spec.judgments.groups, {q.id: q.text for q in spec.judgments.queries}
    compared = verdict.status in ("passed", "regressed") or (spec.update and verdict.against is None)
    recorded = spec.entry.get("cost") if compared and spec.entry is not None else None
    problem = "no cost counters" if recorded is None else cost_inconsistency(recorded, groups)
    if problem and compared and cost is not None and not spec.update:
        raise RelevanceInputError(
            spec.baseline or "the baseline",
            f"entry {spec.nodeid!r} has {problem}: relevance_max_cost compares them (the entry predates the "
            f"setting, or was edited by hand); re-baseline: {update_command(spec.nodeid, '<why>')}",
        )
    if problem:
        recorded = None  # an update replaces a damaged record; there is nothing to show it against
    checked = check_cost(spec.settings.max_cost, cost, recorded, groups, texts, template)
    return replace(checked, rows=tuple({**row, "exceeded": False} for row in checked.rows)) if spec.update else checked


def online_section(evaluation: Evaluation, spec: Check, verdict: Verdict) -> dict[str, Any] | None:
    """The run's estimated change in clicks against the entry's rankings, as the report's `online` part (None: no
    click log, or nothing compared: an update, no entry, an entry that cannot be compared, set answers). The
    rankings are matched to the log's user_query through the judgments' query texts. `failed`: the drop is beyond
    relevance_online_tolerance, which fails a test that passed otherwise (`check_evaluation`)."""
    from pytest_relevance.evaluation.set_answers import SetMetric

    fitted = spec.clicks
    if fitted is None or spec.update or verdict.reference is None or spec.entry is None:
        return None
    if isinstance(evaluation.metrics[0], SetMetric):
        return None
    from pytest_relevance.online.verdict import against, unavailable

    before = spec.entry.get("rankings") if spec.entry.get("rankings_depth") is not None else None
    if not before:
        return unavailable(fitted.depth, "the baseline entry keeps no rankings (a --relevance-update records them)")
    texts = {q.id: q.text for q in spec.judgments.queries}
    baseline = {texts[qid]: docs for qid, docs in before.items() if qid in texts}
    run = {texts[qid]: docs for qid, docs in evaluation.run.items() if qid in texts}
    settings = spec.settings
    found = against(fitted, baseline, run, settings.online_min_support)
    if not found.queries:
        return unavailable(fitted.depth, "no judged query's text is a user_query of the log")
    return found.section(settings.online_tolerance, settings.online_min_support, fitted)


def expectations_of(evaluation: Evaluation, judgments: Judgments) -> list[Result]:
    """The judgments' expectations checked on the evaluated run (set answers have no ranks: only `absent` applies)."""
    from pytest_relevance.evaluation.set_answers import SetMetric

    ranked = not isinstance(evaluation.metrics[0], SetMetric)
    texts = {q.id: q.text for q in judgments.queries}
    return check_expectations(judgments.expectations, evaluation.run, texts, ranked)


def expectation_report(results: Sequence[Result], spec: Check, verdict: Verdict) -> list[dict[str, Any]]:
    """The expectations as report data; a failed one's documents explained by the movers' explainer, each as a
    document that moved from its rank in the baseline entry's rankings (None: not there) to today's. Without an
    entry that keeps rankings there is no before: today's score trees alone, each line `doc at RANK: ...`."""
    listed = [_expectation_data(result) for result in results]
    failed = [item for item in listed if not item["passed"]]
    if not failed or spec.explain is None:
        return listed
    before = (spec.entry or {}).get("rankings")
    if not before:
        verdict = replace(verdict, reference=None)
    movers = []
    for item in failed:
        ranking = list((before or {}).get(item["query"], []))
        moves = [
            {"doc": doc, "grade": None, "before": ranking.index(doc) + 1 if doc in ranking else None, "after": rank}
            for doc, rank in item["ranks"].items()
        ]
        movers.append({"query": item["query"], "change": {"fell": moves}})
    try:
        note = spec.explain(movers, verdict)
        if not before:
            note = "why: today's score trees only (no baseline rankings to compare with)"
    except Exception as exc:  # as for the movers: a failed explanation must not hide the failed expectation
        note = f"why: not explained ({type(exc).__name__}: {exc})"
    for item, mover in zip(failed, movers, strict=True):
        lines = mover.get("why") or []
        item["why"] = lines if before else [_today(line, item["ranks"]) for line in lines]
        if note:
            item["explained"] = note
    return listed


def _today(line: str, ranks: Mapping[str, int | None]) -> str:
    """A why-line without a baseline: `p0012 at 2: now 41.2; ...` (its `out -> 2` head compared nothing)."""
    doc, _, rest = line.partition(" ")
    rank = ranks.get(doc)
    return f"{doc} {'not in the ranking' if rank is None else f'at {rank}'}: {rest.partition(': ')[2]}"


def _expectation_data(result: Result) -> dict[str, Any]:
    expectation = result.expectation
    return {
        "query": expectation.query,
        "kind": expectation.kind,
        "docs": list(expectation.docs),
        "n": expectation.n,
        "expected": expectation.text(),
        "passed": result.passed,
        "reason": result.reason,
        "ranks": dict(result.ranks),
        "line": expectation.line,
    }


def evaluate_run(run: Mapping[str, Any], spec: Check) -> Evaluation:
    """Set answers are scored as sets (precision, recall, F1, exact, contains) whatever the metrics say; rankings by
    the configured metrics."""
    settings = spec.settings
    if is_set_run(run):
        threshold = next((m.threshold for m in settings.metrics if m.name != "ndcg"), 1)
        return evaluate_sets(run, spec.judgments, threshold)
    return evaluate(run, spec.judgments, settings.metrics, spec.corpus, settings.now)


def explained(verdict: Verdict, explain: Explainer) -> Verdict:
    """The verdict with its movers explained: copies of the movers are handed to `explain`, never the verdict's own.
    An explanation that fails does not hide the regression it explains: the failure says it was not explained."""
    movers = copy.deepcopy(verdict.movers)
    listed = [*movers.get("lost", []), *movers.get("gained", [])]
    try:
        note = explain(listed, verdict)
    except Exception as exc:  # a bug or a refusal while explaining must not turn a regression into an error
        return replace(verdict, explained=f"why they moved: not explained ({type(exc).__name__}: {exc})")
    return replace(verdict, movers=movers, explained=note)


def with_every_p(verdict: Verdict, entry: Entry, evaluation: Evaluation, judgments: Judgments) -> Verdict:
    """The verdict with the sign-flip p-value of every changed row, as a regression's is computed."""
    by_spec = {m.spec: m for m in evaluation.metrics}

    def p_of(compared: Compared) -> Compared:
        row = compared.row
        if compared.p is not None or not row.delta:
            return compared
        p = change_p(
            by_spec[row.metric],
            judgments.groups[row.stratum],
            evaluation,
            entry["queries"],
            entry.get("rankings"),
            entry.get("rankings_depth"),
            DIGITS,
        )
        return replace(compared, p=p)

    return replace(verdict, rows=[p_of(compared) for compared in verdict.rows])
