"""The gate's decision for one relevance test, as a pure function: (the baseline entry or none, the evaluation, the
settings, check or update) -> a `Verdict`.

Every rule the `relevance_snapshot` assertion applies lives here and is unit-tested without pytest: when numbers
cannot be compared at all (judgments, engine or a metric definition changed), when an entry edited by hand is bad
input, when a metric the settings dropped keeps the gate from passing, what an update writes, and whether a drop is a
regression (beyond tolerance, significant where `relevance_alpha` asks, or churn beyond `relevance_max_churn`). The
comparison computes, once, everything that depends on the baseline: the rows with their p-values, the queries that
moved and what moved in them, churn. The report model (`gate.report`) is built from the verdict alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_relevance.config.settings import Settings
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation.evaluation import Evaluation
from pytest_relevance.gate import churn
from pytest_relevance.gate import ranking_diff as rankings
from pytest_relevance.gate.baseline_file import Entry
from pytest_relevance.gate.compare import Comparison, Row, compare, query_movers
from pytest_relevance.gate.decisions import Evidence, weigh
from pytest_relevance.gate.entry import (
    engine_note,
    incompatibilities,
    inconsistency,
    make_entry,
    metric_key,
    missing_values,
    same_values,
    since_baseline,
    stratum_key,
    ungated,
    unmet_needs,
    unversioned_judgments_change,
)
from pytest_relevance.judgments.model import Judgments

if TYPE_CHECKING:
    from pytest_relevance.evaluation.ppi import Correction

MOVERS = 5  # queries listed as lost, and as gained
STATUSES = ("passed", "regressed", "no baseline", "cannot compare", "updated", "unchanged")


def _quoted(text: str) -> str:
    """A shell word in single quotes: node ids hold `[`, `]` and spaces that a shell would expand or split."""
    return "'" + text.replace("'", "'\\''") + "'"


def update_command(nodeid: str, reason: str) -> str:
    """The command that re-baselines one test, and no other."""
    return f"pytest --relevance-update {_quoted(nodeid)} --relevance-reason {_quoted(reason)}"


@dataclass(frozen=True)
class Compared:
    """One stratum x metric against the reference: the row, the p-value of a drop beyond tolerance (None
    otherwise), and its status (`not significant` where relevance_alpha forgives the drop); `evidence` holds the
    p-value adjusted over the test, the interval of the delta and the minimum detectable effect."""

    row: Row
    p: float | None
    status: str
    evidence: Evidence | None = None


@dataclass(frozen=True)
class Verdict:
    """What the gate decided for one test, and everything about the comparison that the reports show."""

    status: str
    engine: str
    judgments: str | None
    tolerance: str
    evaluation: Evaluation
    #: the entry the values were compared with (for an update without a comparable entry, the new entry itself, so
    #: every delta is 0); None: nothing to compare with
    reference: Entry | None
    rows: list[Compared]
    #: {"metric", "stratum", "lost": [mover], "gained": [mover], "depth"}, each mover with what moved in its ranking
    #: (within the baseline's top `depth`)
    movers: dict[str, Any]
    churn: dict[str, Any] | None
    #: what an update writes (the old entry itself when nothing but the reason would change); None on a check
    entry: Entry | None = None
    #: for an update measured against itself: "new entry" (there was none) or "not compared"
    against: str | None = None
    #: a new version of the same engine measured the numbers (compared anyway), which a failure repeats
    engine_note: str | None = None
    #: metrics the entry holds that this run does not gate, where that does not fail the test
    ungated: str | None = None
    #: which inputs differ from the entry's (`baseline.since_baseline`); None without an entry
    since: str | None = None
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: why the movers' explanations show today's score trees alone (set by whoever explains them), else None
    explained: str | None = None
    #: relevance_alpha (None: every drop beyond tolerance fails) and what it bounds: "test" or "comparison"
    alpha: float | None = None
    scope: str = "test"
    #: how the p-values were adjusted over the test's rows (max-T or Holm, named); None: each row on its own
    adjustment: str | None = None
    #: the judge-corrected (PPI) estimates (None: no human grades were given), and relevance_judge_correction
    correction: Correction | None = None
    judge_correction: str = "none"

    @property
    def notes(self) -> list[str]:
        """Said beside the numbers: the engine note, then the ungated metrics."""
        return [said for said in (self.engine_note, self.ungated) if said]


def decide(
    nodeid: str,
    entry: Entry | None,
    evaluation: Evaluation,
    judgments: Judgments,
    engine: str,
    settings: Settings,
    *,
    update: bool = False,
    reason: str | None = "",
    narrowed: bool = False,
    baseline: Path | str | None = "relevance-baseline.json",
    inputs: Mapping[str, Any] | None = None,
    cost: Mapping[str, Any] | None = None,
    human: Judgments | None = None,
) -> Verdict:
    """The verdict on `evaluation` against `entry`. `narrowed`: a --relevance-metrics flag narrowed this run's
    metrics, so a metric the entry holds and the run does not gate is a note (as -k is), never a failure.

    A hand-edited entry that lacks values the comparison needs, or whose values are not derived from each other, is
    bad input (RelevanceInputError naming `baseline`) on a check; an update replaces it. `inputs` are the
    fingerprints of what the run was measured on: the entry records them, and the verdict says which differ from the
    entry's; `cost` the counted work an update records (`gate.cost.cost_record`; None: not counted). `human`:
    people's grades of a sample of the judge-graded queries (`ppi.corrected`), whose estimates the verdict carries
    and, with `relevance_judge_correction = ppi`, decides on.
    """
    from pytest_relevance.evaluation.set_answers import SetMetric

    metrics = evaluation.metrics
    definitions = {m.spec: m.definition() for m in metrics}
    problems = incompatibilities(entry, judgments.version, engine, definitions) if entry else []
    unversioned = unversioned_judgments_change(entry, inputs or {}, judgments.version) if entry else None
    problems += [unversioned] if unversioned else []
    if entry is not None and not problems:
        specs = [m.spec for m in metrics]
        missing = missing_values(entry, list(evaluation.strata), specs)
        if missing and not update:
            raise RelevanceInputError(
                baseline,
                f"entry {nodeid!r} has no {', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}: the "
                "file was edited by hand; restore it (git checkout -- FILE) or re-baseline with --relevance-update",
            )
        gated_churn = settings.max_churn is not None and not isinstance(metrics[0], SetMetric)
        needs = unmet_needs(entry, list(evaluation.per_query), specs, settings.alpha is not None, gated_churn)
        if needs and not update:
            raise RelevanceInputError(
                baseline,
                f"entry {nodeid!r} has no {needs[0]}: the file was edited by hand (or predates the setting); "
                f"restore it (git checkout -- FILE) or re-baseline: {update_command(nodeid, '<why>')}",
            )
        inconsistent = None if update else inconsistency(entry, metrics, judgments)
        if inconsistent:
            raise RelevanceInputError(
                baseline,
                f"entry {nodeid!r}: {inconsistent}: its values are not derived from each other (edited or merged by "
                f"hand); restore it (git checkout -- FILE) or re-baseline: {update_command(nodeid, '<why>')}",
            )
        problems = [f"the baseline lacks {', '.join(missing[:3])}"] if missing else []
    comparable = entry is not None and not problems
    dropped = ungated(entry, metrics) if comparable and not update else None  # type: ignore[arg-type]
    if dropped and settings.unused == "fail" and not narrowed:
        problems, comparable = [dropped], False
    new = None
    if update:
        new = make_entry(
            evaluation, judgments.version, engine, settings.tolerance, reason, settings.snapshot_depth, inputs, cost
        )
        if entry is not None and same_values(entry, new):
            new = entry  # nothing changed: the entry keeps its reason
    # an update compares with the old entry when it can, else with itself (every delta 0); a test with no
    # comparable entry is compared with an empty one, so its numbers are still shown
    reference = entry if comparable else new
    comparison = compare(reference or {}, evaluation, settings.tolerance)
    correction = _correction(reference, comparison, evaluation, judgments, human)
    rows, movers, churned, warnings, adjustment = _assess(
        reference, comparison, evaluation, judgments, settings, correction
    )
    note = engine_note(entry, engine) if comparable else None  # type: ignore[arg-type]
    against = None
    if update:
        status = "updated" if new is not entry else "unchanged"
        if not comparable:  # measured against itself: every delta 0, which is no change anyone made
            against = "new entry" if entry is None else "not compared"
    elif entry is None:
        status = "no baseline"
    elif problems:
        status = "cannot compare"
    else:
        failed = any(c.status == "regression" for c in rows) or bool(churned and churned["exceeded"])
        status = "regressed" if failed else "passed"
    return Verdict(
        status=status,
        engine=engine,
        judgments=judgments.version,
        tolerance=str(settings.tolerance),
        evaluation=evaluation,
        reference=reference,
        rows=rows,
        movers=movers,
        churn=churned,
        entry=new,
        against=against,
        engine_note=note,
        ungated=dropped if comparable else None,
        warnings=warnings,
        problems=problems if status == "cannot compare" else [],
        since=since_baseline(entry, inputs) if entry is not None and inputs else None,
        alpha=settings.alpha,
        scope=settings.alpha_scope,
        adjustment=adjustment,
        correction=correction,
        judge_correction=settings.judge_correction,
    )


def _correction(
    reference: Entry | None,
    comparison: Comparison,
    evaluation: Evaluation,
    judgments: Judgments,
    human: Judgments | None,
) -> Correction | None:
    """The judge-corrected estimates of the values, and of their changes against `reference` (None: no human grades
    given, or set answers, which have no ranking to score on human grades)."""
    from pytest_relevance.evaluation.set_answers import SetMetric

    if human is None or isinstance(evaluation.metrics[0], SetMetric):
        return None
    from pytest_relevance.evaluation.ppi import corrected

    old = (reference or {}).get("queries") or None
    return corrected(evaluation, judgments, human, old, comparison.rankings, comparison.depth)


def _assess(
    reference: Entry | None,
    comparison: Comparison,
    evaluation: Evaluation,
    judgments: Judgments,
    settings: Settings,
    correction: Correction | None = None,
) -> tuple[list[Compared], dict[str, Any], dict[str, Any] | None, list[str], str | None]:
    """The comparison's rows with their significance, the movers and what moved in them, churn, what the reports
    should warn about the comparison, and how the p-values were adjusted over the test."""
    from pytest_relevance.evaluation.set_answers import SetMetric

    metrics = evaluation.metrics
    by_spec = {m.spec: m for m in metrics}
    set_answers = isinstance(metrics[0], SetMetric)
    old_queries = (reference or {}).get("queries", {})
    groups = judgments.groups
    weighed = weigh(comparison, evaluation, judgments, settings, old_queries, correction)
    # p unrounded: reports round it once, to the digits they print (`formatting.p_text`)
    rows = [Compared(row, e.p, e.status, e) for row, e in zip(comparison.rows, weighed.evidence, strict=True)]
    mover_stratum, mover_metric, moved = "all", metrics[0].spec, comparison.movers
    regressed = [c for c in rows if c.status == "regression"]
    if regressed:  # the queries that dropped most on what regressed, not on the first metric over all queries
        worst = min(regressed, key=lambda c: (_worse(c.row), stratum_key(c.row.stratum), metric_key(c.row.metric)))
        mover_stratum, mover_metric = worst.row.stratum, worst.row.metric
        moved = query_movers(old_queries, evaluation.per_query, mover_metric, set(groups.get(mover_stratum, ())))
    sign = 1 if getattr(by_spec[mover_metric], "higher_is_better", True) else -1  # age: a query that aged lost
    movers = [_mover(m, judgments) for m in moved]
    lost = sorted((m for m in movers if sign * m["delta"] < 0), key=lambda m: (sign * m["delta"], m["query"]))
    gained = sorted((m for m in movers if sign * m["delta"] > 0), key=lambda m: (-sign * m["delta"], m["query"]))
    lost, gained = lost[:MOVERS], gained[:MOVERS]
    threshold = getattr(metrics[0], "threshold", 1)
    for mover in lost + gained:
        mover["change"] = _change(mover["query"], evaluation, judgments, comparison, set_answers, threshold)
    churned, warnings = None, list(weighed.warnings)
    if comparison.rankings is not None and comparison.depth is not None:
        churned = _churn(evaluation, judgments, comparison, settings.max_churn)
    elif reference is not None and not set_answers:
        warnings.append(
            "the baseline entry has no rankings (written by an older version), so only scores are compared: "
            "re-baseline with --relevance-update to keep each query's top k and see what moved"
        )
    movers_of = {
        "metric": mover_metric,
        "stratum": mover_stratum,
        "lost": lost,
        "gained": gained,
        "depth": comparison.depth if comparison.rankings is not None else None,
    }
    return rows, movers_of, churned, warnings, weighed.adjustment


def _worse(row: Row) -> float:
    """How much worse a row got, as a negative number: its delta, or minus it where lower is better."""
    assert row.delta is not None
    return row.delta if row.higher_is_better else -row.delta


def _mover(mover: Any, judgments: Judgments) -> dict[str, Any]:
    query = judgments[mover.query]
    return {
        "query": query.id,
        "text": query.text,
        "stratum": query.stratum,
        "baseline": mover.before,
        "current": mover.after,
        "delta": mover.delta,
    }


def _change(
    qid: str,
    evaluation: Evaluation,
    judgments: Judgments,
    comparison: Comparison,
    set_answers: bool,
    threshold: float,
) -> dict[str, Any]:
    """What moved in one query: the before/after of its top k, the labels an answer misses or adds, or (with no
    baseline rankings) the current top 3."""
    grades = judgments[qid].grades
    current = evaluation.run.get(qid, [])
    if set_answers:
        return rankings.set_diff({d for d, g in grades.items() if g >= threshold}, current)
    if comparison.rankings is not None and comparison.depth is not None and qid in comparison.rankings:
        return rankings.diff(comparison.rankings[qid], current, grades, comparison.depth, threshold).as_dict()
    return rankings.top(current, grades)


def _churn(evaluation: Evaluation, judgments: Judgments, comparison: Comparison, limit: float | None) -> dict[str, Any]:
    assert comparison.rankings is not None and comparison.depth is not None
    per_query = churn.per_query(comparison.rankings, evaluation.run, comparison.depth)
    strata = churn.per_stratum(per_query, judgments.groups)
    return {
        "k": comparison.depth,
        "p": churn.P,
        "variant": churn.VARIANT,
        "max": limit,
        "per_stratum": strata,
        "exceeded": churn.exceeded(strata, limit),
        "most_changed": churn.most_changed(per_query, judgments),
    }
