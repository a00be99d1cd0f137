"""The relevance_* settings, read and checked once, so that a bad value is one message naming its key.

A setting that can switch the gate off (a NaN tolerance, an alpha of 0, a typo in a tolerance override that then
applies to nothing) must never be taken silently: every value is range-checked here, at configure time, before any
index is built. The marker's overrides go through the same checks, naming the test.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pytest_relevance.metrics.ranking import (
    UNBOUNDED,
    Metric,
    MetricSpecError,
    depth,
    parse_metric,
    parse_metrics,
    reads_as_metric,
)

if TYPE_CHECKING:
    from pytest_relevance.evaluation.cost import CostLimit

UNUSED_MODES = ("warn", "fail")


class SettingError(ValueError):
    """A bad setting; the message starts with the key (or marker argument) it came from."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key


@dataclass(frozen=True)
class Tolerance:
    """How far a value may drop before it is a regression (rise, for age and exposure_gini): a default, overridable
    per stratum, metric or both.

    Written ``0.005 tail=0.02 ndcg@10=0.01 tail.mrr@10=0.03 age@10(field=released)=2``; the most specific override
    wins. Tolerances are in the metric's unit: days for age, bits for novelty (which may take one of 1 or more).
    """

    default: float = 0.005
    overrides: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def parse(cls, spec: object, source: str = "relevance_tolerance") -> Tolerance:
        if isinstance(spec, Tolerance):
            return spec
        if isinstance(spec, Mapping):
            spec = " ".join(f"{k}={_text(v, source)}" if k != "default" else _text(v, source) for k, v in spec.items())
        elif isinstance(spec, int | float) and not isinstance(spec, bool):
            spec = _text(spec, source)  # 10**400 is refused by its size, not in an OverflowError
        if not isinstance(spec, str):
            raise SettingError(source, f"cannot read tolerance {spec!r}; write e.g. 0.005 tail=0.02")
        default: float | None = None
        overrides: dict[str, float] = {}
        for part in _SEPARATOR.split(spec.strip()):
            if not part:
                continue
            key, sep, value = part.rpartition("=")
            try:
                number = float(value)
            except ValueError:
                raise SettingError(source, f"tolerance {part!r} is not a number; write e.g. 0.005 tail=0.02") from None
            key = _canonical(key)
            number = _allowed_drop(number, source, part, _unbounded(key))
            # a second default or a repeated override would silently win over the first: one value, one meaning
            if not sep and default is not None:
                raise SettingError(
                    source,
                    f"tolerance {spec!r} gives two defaults ({default:g} and {value}); write one, e.g. 0.005 tail=0.02",
                )
            if sep and key in overrides:
                raise SettingError(source, f"tolerance {spec!r} gives {key}= twice; write it once")
            if sep:
                overrides[key] = number
            else:
                default = number
        return cls(0.005 if default is None else default, overrides)

    def check_keys(self, strata: Collection[str] | None, metrics: Collection[str], source: str) -> None:
        """Every override must name a metric being gated, or a stratum of the judgments (when they are known).

        A typo (``tial=0.5``, ``ndgc@10=0.9``) would otherwise apply to nothing and look like a working setting.
        """
        for key in self.overrides:
            head, paren, options = key.partition("(")  # a dot in a metric's options (field=seller.id) is no stratum's
            stratum, dot, metric = head.rpartition(".")
            metric += paren + options
            parts = [(stratum, metric)] if dot else [(None, key), (key, None)]
            if any(_known(s, m, strata, metrics) for s, m in parts):
                continue
            valid = f"strata: {', '.join(strata)}; " if strata is not None else ""
            raise SettingError(
                source,
                f"override {key!r} names no stratum or metric being gated ({valid}metrics: {', '.join(metrics)}); "
                "write STRATUM=, METRIC= or STRATUM.METRIC=",
            )

    def get(self, stratum: str, metric: str) -> float:
        for key in (f"{stratum}.{metric}", metric, stratum):
            if key in self.overrides:
                return self.overrides[key]
        return self.default

    def __str__(self) -> str:
        return " ".join([f"{self.default:g}", *(f"{k}={v:g}" for k, v in sorted(self.overrides.items()))])


def _known(stratum: str | None, metric: str | None, strata: Collection[str] | None, metrics: Collection[str]) -> bool:
    if metric is not None and metric not in metrics:
        return False
    if stratum is None:
        return True
    if strata is None:  # strata are known once the judgments are loaded; before that, anything not a metric passes
        return metric is not None or not reads_as_metric(stratum)
    return stratum in strata


def _text(value: object, source: str) -> str:
    """A marker's value as the text an ini value would be, so both are read and refused alike."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return str(value)
    try:
        number = float(value)
    except OverflowError:  # 10**400: no float holds it
        raise SettingError(
            source, "tolerance is too large to be a number; a tolerance is an allowed drop, 0-1"
        ) from None
    return str(value) if isinstance(value, int) and abs(number) < 1e16 else str(number)


_SEPARATOR = re.compile(r"[\s,]+(?![^()]*\))")  # between overrides, not between a metric's options


def _canonical(key: str) -> str:
    """An override's key with its metric written as the metric's spec: `age@10(field=released, within=30d)` names
    the same metric as `age@10(field=released,within=30d)`, which is how the gate looks it up."""
    if "(" not in key:
        return key
    head, paren, options = key.partition("(")
    stratum, dot, metric = head.rpartition(".")
    try:
        return stratum + dot + parse_metric(metric + paren + options).spec
    except MetricSpecError:
        return key


def _unbounded(key: str) -> bool:
    """Whether an override names only a metric that is not a share (age in days, novelty in bits): its tolerance
    may be 1 or more. The metric is the part after the stratum's dot, a dot inside the options aside."""
    head, _, _ = key.partition("(")
    name = head.rpartition(".")[2].partition("@")[0].lower()
    return bool(key) and name in UNBOUNDED


def _allowed_drop(value: float, source: str, part: str, unbounded: bool = False) -> float:
    if not math.isfinite(value):
        raise SettingError(source, f"tolerance {part!r} is not a finite number; a tolerance is an allowed drop, 0-1")
    if value < 0:
        raise SettingError(source, f"tolerance {part!r} is negative; a tolerance is an allowed drop, >= 0")
    if value >= 1 and not unbounded:  # a share's drop cannot exceed 1, so such a tolerance switches the gate off
        raise SettingError(
            source, f"tolerance {part!r} is 1 or more; every metric is in [0, 1], so no drop could exceed it"
        )
    return value


@dataclass(frozen=True)
class Settings:
    """Every relevance_* value the gate uses, checked."""

    metrics: tuple[Metric, ...]
    tolerance: Tolerance
    now: datetime
    min_judged: float
    floor_margin: float
    alpha: float | None
    unused: str
    snapshot_depth: int
    max_churn: float | None
    #: grades dated longer ago than this before `now` are stale (None: never, by age)
    max_judgment_age: timedelta | None = None
    #: an `agreement --format json` file: the judge's kappa the reports show beside model-graded numbers
    judge_agreement: str = ""
    #: what `alpha` bounds: "test" (any false regression verdict of a test) or "comparison" (each row's)
    alpha_scope: str = "test"
    #: relevance_max_cost's rules (empty: the work of a query is neither counted nor gated)
    max_cost: tuple[CostLimit, ...] = ()
    #: people's grades of a sample of the judge-graded queries (a judgments file; "": none), and whether the gate
    #: compares the judge-corrected estimates they give ("ppi") or reports them beside the plain numbers ("none")
    human_judgments: str = ""
    judge_correction: str = "none"
    #: relevance_clicks_log as written (the plugin resolves the paths): with one, every test estimates its clicks
    clicks_log: tuple[str, ...] = ()
    #: the drop in estimated clicks (a share of the baseline's) that fails a test; None: the estimate is only shown
    online_tolerance: float | None = None
    #: below this share of supported top-k slots the estimate is "not estimable"
    online_min_support: float = 0.5

    @property
    def depth(self) -> int:
        return depth(self.metrics)

    @property
    def report(self) -> dict[str, Any]:
        """The values the reports read."""
        return {
            "alpha": self.alpha,
            "alpha_scope": self.alpha_scope,
            "min_judged": self.min_judged,
            "floor_margin": self.floor_margin,
            "max_churn": self.max_churn,
            "snapshot_depth": self.snapshot_depth,
        }

    def for_marker(self, kwargs: Mapping[str, Any], test: str) -> Settings:
        """This test's settings: the marker's metrics, tolerance and now override the configured ones."""
        known = {"metrics", "tolerance", "judgments", "now"}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise SettingError(
                f"{test}: @pytest.mark.relevance",
                f"unknown argument {unknown[0]!r} (known: {', '.join(sorted(known))})",
            )
        out = self
        if kwargs.get("metrics") is not None:
            out = replace(out, metrics=_metrics(kwargs["metrics"], f"{test}: relevance marker metrics"))
        if kwargs.get("tolerance") is not None:
            out = replace(out, tolerance=Tolerance.parse(kwargs["tolerance"], f"{test}: relevance marker tolerance"))
        if kwargs.get("now") is not None:
            out = replace(out, now=_instant(kwargs["now"], f"{test}: relevance marker now"))
        out.tolerance.check_keys(None, [m.spec for m in out.metrics], f"{test}: tolerance")
        return out


def _metrics(value: object, key: str) -> tuple[Metric, ...]:
    if not isinstance(value, str | list | tuple):
        raise SettingError(key, f"{value!r} is not a list of metrics; write e.g. 'ndcg@10 mrr@10'")
    try:
        return tuple(parse_metrics(value))
    except MetricSpecError as exc:
        raise SettingError(key, str(exc)) from None


def _instant(value: object, key: str) -> datetime:
    from pytest_relevance.inputs.clock import parse_instant

    try:
        return parse_instant(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise SettingError(key, f"{value!r} is not an ISO 8601 instant; write e.g. 2026-01-15T12:00:00Z") from None


def _share(text: str, key: str, *, open_low: bool = False, open_high: bool = False) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SettingError(key, f"{text!r} is not a number") from None
    low_ok = value > 0 if open_low else value >= 0
    high_ok = value < 1 if open_high else value <= 1
    if not (math.isfinite(value) and low_ok and high_ok):
        bounds = f"{'(' if open_low else '['}0, 1{')' if open_high else ']'}"
        raise SettingError(key, f"{text!r} is out of range: it must be in {bounds}")
    return value


def _alpha(text: str) -> float:
    """A level the sign-flip test can reach: below its smallest p-value nothing is significant, so nothing fails."""
    from pytest_relevance.evaluation.significance import EXACT_UP_TO, ROUNDS, SMALLEST_P

    value = _share(text, "relevance_alpha", open_low=True, open_high=True)
    if value <= SMALLEST_P:
        raise SettingError(
            "relevance_alpha",
            f"{text!r} is at or below 1/{ROUNDS + 1}, the smallest p-value the sign-flip test gives ({ROUNDS:,} random "
            f"sign flips; 2/2^n for n <= {EXACT_UP_TO} changed queries), so no drop would be significant; "
            "write e.g. 0.05",
        )
    return value


def positive_int(text: str, key: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise SettingError(key, f"{text!r} is not a whole number") from None
    if value < 1:
        raise SettingError(key, f"{value} must be >= 1")
    return value


def read(get: Callable[[str], str]) -> Settings:
    """Read and check the settings; `get(key)` returns the flag, ini or default value as text."""
    metrics = _metrics(get("relevance_metrics"), "relevance_metrics")
    tolerance = Tolerance.parse(get("relevance_tolerance"))
    tolerance.check_keys(None, [m.spec for m in metrics], "relevance_tolerance")
    alpha, churn = get("relevance_alpha"), get("relevance_max_churn")
    unused = get("relevance_unused")
    if unused not in UNUSED_MODES:
        raise SettingError("relevance_unused", f"{unused!r} is not one of {', '.join(UNUSED_MODES)}")
    scope = _scope(get("relevance_alpha_scope"))
    clicks_log, online_tolerance = tuple(get("relevance_clicks_log").split()), get("relevance_online_tolerance")
    if online_tolerance and not clicks_log:  # a gate that would never fail, taken silently otherwise
        raise SettingError(
            "relevance_online_tolerance", "is set but relevance_clicks_log is not: give the click log it gates on"
        )
    return Settings(
        metrics=metrics,
        tolerance=tolerance,
        now=_instant(get("relevance_now"), "relevance_now"),
        min_judged=_share(get("relevance_min_judged"), "relevance_min_judged"),
        floor_margin=_share(get("relevance_floor_margin"), "relevance_floor_margin"),
        alpha=_alpha(alpha) if alpha else None,
        unused=unused,
        snapshot_depth=positive_int(get("relevance_snapshot_depth"), "relevance_snapshot_depth"),
        max_churn=_share(churn, "relevance_max_churn", open_low=True) if churn else None,
        max_judgment_age=_age(get("relevance_max_judgment_age")),
        judge_agreement=get("relevance_judge_agreement"),
        alpha_scope=scope,
        max_cost=_max_cost(get("relevance_max_cost")),
        human_judgments=get("relevance_human_judgments"),
        judge_correction=_correction(get("relevance_judge_correction"), get("relevance_human_judgments")),
        clicks_log=clicks_log,
        online_tolerance=_share(online_tolerance, "relevance_online_tolerance", open_high=True)
        if online_tolerance
        else None,
        online_min_support=_share(get("relevance_online_min_support"), "relevance_online_min_support"),
    )


def _max_cost(text: str) -> tuple[CostLimit, ...]:
    if not text.strip():  # the default, taken on every run: nothing to import for it
        return ()
    from pytest_relevance.evaluation.cost import parse_limits

    try:
        return parse_limits(text)
    except ValueError as exc:
        raise SettingError("relevance_max_cost", str(exc)) from None


def _scope(text: str) -> str:
    if text == "test":  # the default, taken on every run: nothing to import for it
        return text
    from pytest_relevance.evaluation.significance import SCOPES

    if text not in SCOPES:
        raise SettingError(
            "relevance_alpha_scope",
            f"{text!r} is not one of {', '.join(SCOPES)}: test bounds a test's chance of any false regression "
            "verdict by relevance_alpha, comparison each stratum x metric's",
        )
    return text


#: said where relevance_human_judgments names no file (the plugin and `diff` both read it)
HUMAN_MISSING = (
    "human judgments file not found; set relevance_human_judgments to the judgments file of people's grades of the "
    "judge-graded documents (or leave it empty)"
)


def _correction(text: str, human: str) -> str:
    """`none` or `ppi`; `ppi` needs the human grades it corrects the judge by."""
    if text == "none":  # the default, taken on every run: nothing to import for it
        return text
    from pytest_relevance.evaluation.ppi import MODES

    if text not in MODES:
        raise SettingError(
            "relevance_judge_correction",
            f"{text!r} is not one of {', '.join(MODES)}: none reports the judge-corrected (PPI) estimates beside the "
            "plain numbers, ppi gates on them",
        )
    if not human:
        raise SettingError(
            "relevance_judge_correction",
            "ppi corrects the judge's grades by people's grades of a sample of the same queries, and none are "
            "named: set relevance_human_judgments = FILE (a judgments file), or relevance_judge_correction = none",
        )
    return text


def _age(text: str) -> timedelta | None:
    if not text:
        return None
    from pytest_relevance.judgments.provenance import parse_age

    try:
        return parse_age(text)
    except ValueError as exc:
        raise SettingError("relevance_max_judgment_age", str(exc)) from None
