"""Recorded results as a check's inputs: `pytest-relevance compare` decides on two files with the gate's own check.

A record is one test of a JSON report, or a baseline entry read as one (`report.from_baseline`). The earlier record
becomes the `Entry` the check compares with, the later one the `Evaluation` it judges, and `judgments_of` gives the
judgments as far as a record knows them, so that compare says what the gate would (cannot compare, regression,
not significant) instead of a rule of its own that could drift from the gate's.

What a record does not keep, the check cannot use: a record keeps no grades, so the entry made from it keeps no
rankings (the gate would rescore them against grades it does not have) and the diagnostics that read grades (floors,
judged@k, hints) are not the record's; and a record does not say which queries a stratum holds, so only the "all"
stratum has per-query evidence (p-values, intervals), and `relevance_alpha` applies only where "all" is every
stratum there is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from pytest_relevance.config.settings import SettingError, Settings, Tolerance
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.evaluation.evaluation import Evaluation
from pytest_relevance.gate.baseline_file import Entry
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.metrics.ranking import Metric, parse_metric

#: the default tolerance, for a report that recorded none
DEFAULT_TOLERANCE = "0.005"


@dataclass(frozen=True, slots=True)
class RecordedMetric(Metric):
    """A metric under its recorded spec whose definition is the one recorded (a hand edit included, which the check
    must see to refuse the comparison), or, for a report written before reports recorded definitions, the spec's."""

    recorded: Mapping[str, object] | None = field(default=None, compare=False)

    def definition(self) -> dict[str, object]:
        return dict(self.recorded) if self.recorded is not None else Metric.definition(self)


def value(row: Mapping[str, Any]) -> float:
    """A row's value: the measured one, or for a baseline entry (nothing measured) the recorded one."""
    shown: float = row["current"] if row["current"] is not None else row["baseline"]
    return shown


def definitions(record: Mapping[str, Any]) -> dict[str, Any]:
    """spec -> recorded definition; a report written before reports recorded them: its specs, definitions None."""
    return record.get("metrics") or dict.fromkeys(row["metric"] for row in record["rows"])


def per_query(record: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """query -> metric -> the value the record measured (or, for a baseline entry, recorded)."""
    return {
        qid: {
            spec: shown["current"] if shown.get("current") is not None else shown["baseline"]
            for spec, shown in values.items()
            if shown.get("current") is not None or shown.get("baseline") is not None
        }
        for qid, values in record["per_query"].items()
    }


def entry_of(record: Mapping[str, Any]) -> Entry:
    """The record as the baseline entry a check compares with: no rankings (see the module's docstring)."""
    strata: dict[str, dict[str, float]] = {}
    for row in record["rows"]:
        strata.setdefault(row["stratum"], {"n": row["n"]})[row["metric"]] = value(row)
    specs = definitions(record)
    return {
        "judgments": record.get("judgments"),
        "engine": record.get("engine"),
        "metrics": specs,
        "metric_order": list(dict.fromkeys(row["metric"] for row in record["rows"])) or list(specs),
        "tolerance": record.get("tolerance"),
        "strata": strata,
        "queries": per_query(record),
    }


def evaluation_of(record: Mapping[str, Any]) -> Evaluation:
    """The record as the evaluation a check judges, its rows in the record's order."""
    from pytest_relevance.evaluation.set_answers import SetMetric

    strata: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = {}
    for row in record["rows"]:
        strata.setdefault(row["stratum"], {})[row["metric"]] = value(row)
        counts[row["stratum"]] = row["n"]
    metrics: list[Metric] = []
    for spec, definition in definitions(record).items():
        if definition is not None and "pooling" in definition:  # set answers
            metrics.append(SetMetric(spec, definition.get("threshold", 1)))  # type: ignore[arg-type]
        else:
            parsed = parse_metric(spec)
            kept = {f.name: getattr(parsed, f.name) for f in fields(parsed) if f.init and f.name != "recorded"}
            metrics.append(RecordedMetric(**kept, recorded=definition))
    return Evaluation(metrics, per_query(record), strata, counts, dict(record.get("rankings") or {}))


def judgments_of(record: Mapping[str, Any], source: str) -> Judgments:
    """The judgments as far as the record knows them: its version and its queries, with neither text, stratum nor
    grades (it keeps none)."""
    queries = tuple(Query(qid, "") for qid in record["per_query"])
    return Judgments(queries, record.get("judgments"), source)  # type: ignore[arg-type]


def settings_of(record: Mapping[str, Any], defaults: Settings, source: str) -> Settings:
    """The settings the record was decided under, as far as it says: its tolerance, and its relevance_alpha where
    the check can apply it (every stratum is "all": the only one whose queries a record names)."""
    try:  # a bad tolerance (a hand edit) is the file's error, not the plugin's ini key's
        tolerance = Tolerance.parse(record.get("tolerance") or DEFAULT_TOLERANCE, f"test {record['test']!r}")
    except SettingError as exc:
        raise RelevanceInputError(source, str(exc)) from None
    significance = record.get("significance") or {}
    alpha = significance.get("alpha") if {row["stratum"] for row in record["rows"]} <= {"all"} else None
    scope = significance.get("scope") or defaults.alpha_scope
    return replace(defaults, tolerance=tolerance, alpha=alpha, alpha_scope=scope, max_churn=None)
