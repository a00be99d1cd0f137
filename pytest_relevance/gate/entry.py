"""A baseline entry: what one relevance test recorded (judgments version, engine, metric definitions, tolerance,
per-stratum and per-query values, rankings), made from an evaluation, checked for what a comparison needs and for
values that are not derived from each other, and what differs between an entry and today's run (engine, metric
definitions, inputs). The file that holds the entries is `baseline_file`."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pytest_relevance.config.settings import Tolerance
from pytest_relevance.evaluation.evaluation import Evaluation
from pytest_relevance.gate.baseline_file import Entry
from pytest_relevance.metrics.ranking import BEYOND, DIGITS, SET_LEVEL, Metric, mean, score_query

if TYPE_CHECKING:
    from pytest_relevance.judgments.model import Judgments


def missing_values(entry: Entry, strata: Collection[str], metrics: Collection[str]) -> list[str]:
    """The `stratum.metric` values a comparable entry should hold but does not (deleted by hand, or emptied)."""
    recorded = entry.get("strata", {})
    return [f"strata.{s}.{m}" for s in strata for m in metrics if m not in recorded.get(s, {})]


def unmet_needs(entry: Entry, queries: Sequence[str], metrics: Collection[str], alpha: bool, churn: bool) -> list[str]:
    """What the settings need from a comparable entry that it lacks: every query's values for `relevance_alpha` (the
    sign-flip test pairs them: without them no drop is significant, so none fails), every query's ranking for
    `relevance_max_churn` (without them no churn is measured). Either would switch a gate off without a word."""
    needs = []
    per_query = [m for m in metrics if m.partition("@")[0] not in SET_LEVEL]  # set-level ones have no query values
    if alpha:
        recorded = entry.get("queries", {})
        lacking = [q for q in queries if any(m not in recorded.get(q, {}) for m in per_query)]
        if lacking:
            needs.append(f"per-query values for {_some(lacking, queries)}, which relevance_alpha tests")
    if churn:
        rankings = entry.get("rankings") if entry.get("rankings_depth") is not None else None
        lacking = [q for q in queries if q not in (rankings or {})]
        if lacking:
            needs.append(f"rankings for {_some(lacking, queries)}, which relevance_max_churn compares")
    return needs


#: how far a value may be from what it is derived from: a stratum value is the mean of per-query values, each rounded
#: to DIGITS, then rounded itself (each rounding moves it at most half a unit in the last place)
_DERIVED = 10**-DIGITS + 1e-9


_POOLED = ("precision", "recall", "f1")  # set answers' stratum values pooled over its queries, not their mean


def inconsistency(entry: Entry, metrics: Sequence[Metric], judgments: Judgments) -> str | None:
    """Where the entry's gated values are not derived from each other (None: nowhere they can be recomputed): each
    stratum's n is the number of its queries the entry holds, each stratum value the mean of their values (pooled,
    for set answers), each query's value what its recorded ranking scores, where the ranking is deep enough.

    A hand-merged entry (one re-baseline's strata beside another's per-query values) passes a real drop: the
    strata gate the means, relevance_alpha tests the per-query values, and neither would notice the other lie."""
    from pytest_relevance.evaluation.set_answers import SetMetric

    groups = judgments.groups
    set_answers = bool(metrics) and isinstance(metrics[0], SetMetric)
    averaged = [
        m.spec for m in metrics if not getattr(m, "set_level", False) and not (set_answers and m.spec in _POOLED)
    ]
    problem = _count_problem(entry, groups) or _mean_problem(entry, groups, averaged)
    if problem or not entry.get("rankings"):
        return problem
    if set_answers:
        return _set_problem(entry, groups, judgments, metrics[0].threshold)
    return _ranking_problem(entry, judgments, metrics)


def _count_problem(entry: Entry, groups: Mapping[str, Sequence[str]]) -> str | None:
    """Each stratum's n against the per-query values the entry holds for its queries; an entry with none at all is
    compared by its strata alone (without relevance_alpha it needs no per-query values), so it has none to count."""
    queries = entry["queries"]
    if not queries:
        return None
    for stratum, ids in groups.items():
        n = entry["strata"].get(stratum, {}).get("n")
        held = sum(1 for qid in ids if qid in queries)
        if n is not None and n != held:
            return f"strata.{stratum}.n is {n}, but the entry holds per-query values for {held} of its queries"
    return None


def _mean_problem(entry: Entry, groups: Mapping[str, Sequence[str]], specs: Sequence[str]) -> str | None:
    queries = entry["queries"]
    for stratum, ids in groups.items():
        recorded = entry["strata"].get(stratum, {})
        for spec in specs:
            values = [queries[qid][spec] for qid in ids if spec in queries.get(qid, {})]
            if spec not in recorded or len(values) != len(ids):
                continue  # a value missing is said elsewhere (missing_values, unmet_needs)
            derived = mean(values)
            if abs(recorded[spec] - derived) > _DERIVED:
                return (
                    f"strata.{stratum}.{spec} is {recorded[spec]}, but the mean of its {len(ids)} queries' values "
                    f"is {derived:.4f}"
                )
    return None


def _ranking_problem(entry: Entry, judgments: Judgments, metrics: Sequence[Metric]) -> str | None:
    """Per-query values against what the recorded rankings score, for the metrics whose cut-off they reach (a
    metric without one, or one that reads the corpus, cannot be recomputed from them)."""
    depth = entry.get("rankings_depth")
    if depth is None:
        return None
    reached = [m for m in metrics if m.name not in BEYOND and m.k is not None and m.k <= depth]
    for qid, ranking in entry["rankings"].items():
        recorded = entry["queries"].get(qid)
        if recorded is None or qid not in judgments or not reached:
            continue
        scored = score_query(judgments[qid].grades, ranking, reached).values
        problem = _query_problem(qid, recorded, scored)
        if problem:
            return problem
    return None


def _set_problem(
    entry: Entry, groups: Mapping[str, Sequence[str]], judgments: Judgments, threshold: float
) -> str | None:
    """Set answers are kept whole: every query's values and every stratum's pooled values are recomputed."""
    from pytest_relevance.evaluation.set_answers import expected, score

    wanted, answers = expected(judgments, threshold), entry["rankings"]
    answered = {qid: set(labels) for qid, labels in answers.items()}
    for qid, recorded in entry["queries"].items():
        if qid in answered and qid in wanted:
            problem = _query_problem(qid, recorded, score({qid: wanted[qid]}, answered))
            if problem:
                return problem
    for stratum, ids in groups.items():
        recorded = entry["strata"].get(stratum, {})
        if not all(qid in answered for qid in ids):
            continue
        pooled = score({qid: wanted[qid] for qid in ids}, answered)
        for spec in _POOLED:
            if spec in recorded and abs(recorded[spec] - pooled[spec]) > _DERIVED:
                return f"strata.{stratum}.{spec} is {recorded[spec]}, but its queries' answers give {pooled[spec]:.4f}"
    return None


def _query_problem(qid: str, recorded: Mapping[str, float], scored: Mapping[str, float]) -> str | None:
    for spec, value in scored.items():
        if spec in recorded and abs(recorded[spec] - round(value, DIGITS)) > _DERIVED:
            return f"queries.{qid}.{spec} is {recorded[spec]}, but its recorded ranking scores {value:.4f}"
    return None


def _some(lacking: Sequence[str], queries: Sequence[str]) -> str:
    shown = ", ".join(lacking[:3]) + (", ..." if len(lacking) > 3 else "")
    return f"{len(lacking)} of {len(queries)} queries ({shown})"


def make_entry(
    evaluation: Evaluation,
    judgments: str,
    engine: str,
    tolerance: Tolerance,
    reason: str | None,
    depth: int | None = None,
    inputs: Mapping[str, Any] | None = None,
    cost: Mapping[str, Any] | None = None,
) -> Entry:
    """The entry for one test; `depth` is `relevance_snapshot_depth` (None: the default rule of `snapshot_depth`);
    `inputs` the fingerprints of what it was measured on (see `fingerprints`); `cost` the counted work of each query
    and stratum (`gate.cost.cost_record`) under relevance_max_cost."""
    from pytest_relevance.evaluation.set_answers import SetMetric
    from pytest_relevance.gate.ranking_diff import snapshot_depth

    strata = {
        name: {**{spec: round(v, DIGITS) for spec, v in values.items()}, "n": evaluation.counts[name]}
        for name, values in evaluation.strata.items()
    }
    queries = {
        qid: {spec: round(v, DIGITS) for spec, v in values.items()} for qid, values in evaluation.per_query.items()
    }
    if isinstance(evaluation.metrics[0], SetMetric):  # set answers are kept whole: a cut would invent changes
        kept = None
    else:
        kept = snapshot_depth(evaluation.metrics) if depth is None else snapshot_depth(evaluation.metrics, depth)
    return {
        "judgments": judgments,
        "engine": engine,
        "metrics": {m.spec: m.definition() for m in evaluation.metrics},
        "metric_order": [m.spec for m in evaluation.metrics],  # the file sorts keys; reports keep the configured order
        "tolerance": str(tolerance),
        "strata": strata,
        "queries": queries,
        "rankings": {qid: evaluation.run.get(qid, [])[:kept] for qid in evaluation.per_query},
        "rankings_depth": kept,
        "reason": reason,
        **({"inputs": dict(inputs)} if inputs else {}),
        **({"cost": dict(cost)} if cost is not None else {}),
    }


_STRATA = {"all": 0, "head": 1, "torso": 2, "tail": 3}


_FAMILIES = ("ndcg", "map", "mrr", "p", "recall")


def stratum_key(name: str) -> tuple[int, str]:
    """The pytest reports' order: all, head, torso, tail, then the others by name."""
    return _STRATA.get(name, len(_STRATA)), name


def metric_key(spec: str) -> tuple[int, str, int, str]:
    """The default metrics' order (ndcg, map, mrr, p, recall; others by name), shallow cut-offs first: for entries
    written before baselines recorded the configured order (`metric_order`)."""
    name, _, rest = spec.partition("@")
    cut = rest.split(",", 1)[0]
    family = _FAMILIES.index(name) if name in _FAMILIES else len(_FAMILIES)
    return family, name, int(cut) if cut.isdigit() else 0, spec


def incompatibilities(
    entry: Mapping[str, Any], judgments: str | None, engine: str, definitions: Mapping[str, object | None]
) -> list[str]:
    """Why numbers measured with these judgments, engine and metric definitions (spec -> definition) cannot be
    compared with the entry's at all; each reason says what to do. The gate and `pytest-relevance compare` both ask
    this. A definition of None is unknown (a JSON report written before reports recorded them): only its presence in
    the entry is checked."""
    problems = []
    if entry.get("judgments") != judgments:
        problems.append(
            f"the judgments changed: baseline version {entry.get('judgments')!r}, now {judgments!r}. "
            "Re-baseline a judgment refresh in a commit of its own (--relevance-update), so that the score change "
            "it causes is not mixed with a ranking change"
        )
    if engine_family(str(entry.get("engine"))) != engine_family(engine):
        problems.append(
            f"the engine changed: baseline measured on {entry.get('engine')!r}, now {engine!r}; numbers from "
            "different engines are never compared. Re-baseline with --relevance-update"
        )
    recorded = entry.get("metrics", {})
    for spec, definition in definitions.items():
        if spec not in recorded:
            problems.append(f"metric {spec} is not in the baseline; add it with --relevance-update")
        elif None not in (definition, recorded[spec]) and recorded[spec] != _jsonable(definition):
            problems.append(
                f"metric {spec} is defined differently in the baseline ({recorded[spec]} vs {definition}); "
                "re-baseline with --relevance-update"
            )
    return problems


def since_baseline(entry: Entry, inputs: Mapping[str, Any]) -> str:
    """Which inputs differ from the ones the entry was measured on, in one line: `since the baseline: query template
    changed; corpus, index config, judgments unchanged`. The index config counts the files it references; the
    judgments count their meaning (a reformatted file is no change). An input this run has no fingerprint of (a
    custom ranker's run has no corpus or template) is not named."""
    from pytest_relevance.util.fingerprints import INPUTS

    recorded = entry.get("inputs")
    if not recorded:
        return (
            "since the baseline: not known, the entry records no input fingerprints (written before they existed); "
            "re-baseline with --relevance-update to record them"
        )
    keys = {
        "corpus": ("corpus",),
        "index config": ("index config", "index config files"),
        "query template": ("query template",),
        "judgments": ("judgments meaning",),
    }
    changed: list[str] = []
    same: list[str] = []
    for name in INPUTS:
        if name not in inputs:
            continue
        differs = any(recorded.get(key) != inputs.get(key) for key in keys[name])
        (changed if differs else same).append(name)
    parts = [f"{', '.join(changed)} changed"] if changed else []
    parts += [f"{', '.join(same)} unchanged"] if same else []
    return f"since the baseline: {'; '.join(parts)}"


def unversioned_judgments_change(entry: Entry, inputs: Mapping[str, Any], version: str | None) -> str | None:
    """Judgments whose content changed while their declared `version:` did not: their numbers cannot be compared
    (a removed grade would pass as a ranking regression), and re-baselining is not the fix, a new version is."""
    recorded = entry.get("inputs") or {}
    before, now = recorded.get("judgments meaning"), inputs.get("judgments meaning")
    if before is None or now is None or before == now or entry.get("judgments") != version:
        return None
    return (
        f"the judgments changed without a new version: their content differs from the baseline's, but both say "
        f"version {version!r}. Give the judgments file a new `version:`, then re-baseline with --relevance-update in "
        "a commit of its own"
    )


def ungated(entry: Entry, metrics: Sequence[Metric]) -> str | None:
    """What to say when the entry holds metrics this run does not gate: a metric dropped from the settings must not
    quietly leave the gate (it leaves by re-baselining, like an unused entry)."""
    gated = {metric.spec for metric in metrics}
    dropped = [spec for spec in entry.get("metrics", {}) if spec not in gated]
    if not dropped:
        return None
    return (
        f"{'metrics' if len(dropped) > 1 else 'metric'} {', '.join(dropped)} in the baseline but not gated by this "
        "run; a metric leaves the gate by re-baselining (--relevance-update), in a commit that says so"
    )


def engine_family(identity: str) -> str:
    """The engine without its version: `embedded tantivy 0.27.0` -> `embedded tantivy`, `elasticsearch 8.13.4` ->
    `elasticsearch`. Another family is another engine; another version of the same one is still compared."""
    return " ".join(token for token in identity.split() if not token[:1].isdigit())


def engine_note(entry: Entry, engine: str) -> str | None:
    """Said next to the numbers when a new version of the same engine measured them (compared anyway, not blind)."""
    if entry.get("engine") == engine:
        return None
    return (
        f"the engine version changed: baseline measured on {entry.get('engine')!r}, now {engine!r}; compared "
        "anyway. Once reviewed, re-baseline with --relevance-update to record the new version"
    )


def same_values(old: Entry, new: Entry) -> bool:
    """Whether an update would change nothing but the reason: then the entry, and its reason, stay as they are."""
    return {k: v for k, v in old.items() if k != "reason"} == {k: v for k, v in new.items() if k != "reason"}


def _jsonable(value: object) -> object:
    return json.loads(json.dumps(value))


def changed_values(old: Entry | None, new: Entry) -> list[tuple[str, float | None, float]]:
    """(stratum.metric, old, new) for every stratum value an update changes, for the update summary."""
    changes = []
    old_strata = (old or {}).get("strata", {})
    for stratum, values in new["strata"].items():
        for spec, value in values.items():
            if spec == "n":
                continue
            before = old_strata.get(stratum, {}).get(spec)
            if before != value:
                changes.append((f"{stratum}.{spec}", before, value))
    return changes
