"""The online check a relevance test makes when the project has a click log (`relevance_clicks_log`): the DR
estimate of the run's change in clicks against the baseline entry's rankings, the line the failure text, `-v` and
the reports show, and the rule `relevance_online_tolerance` gates on.

The log is read, validated and fitted once (`fit`; the plugin keeps the result for the session, since a log may be
large), then every test's rankings are estimated against it (`against`). Nothing here knows pytest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.clicks import read_log, validate
from pytest_relevance.online.click_model import PBM, fit_pbm
from pytest_relevance.online.estimators import FLOOR, Estimate, estimate
from pytest_relevance.online.logged import Sessions, sessions

#: the actions counted as clicks, as `pytest-relevance online` counts them
ACTIONS = {"click": 1.0}


@dataclass(frozen=True)
class Fitted:
    """A click log read to its top `depth` positions, and the position-based model fitted to it. `problems`: the
    validation's findings (events it could not use), said beside every estimate made from it."""

    files: tuple[str, ...]
    depth: int
    data: Sessions
    model: PBM
    problems: tuple[str, ...]


def fit(events: Sequence[str | Path], depth: int) -> Fitted:
    """Read and validate the log as `pytest-relevance clicks` does (a bad line is an error naming the file and
    line), then fit the PBM. A log without one search with an impression in the top `depth` is an error too: every
    estimate from it would be "not estimable" without saying why."""
    log = read_log(events)
    problems = tuple(validate(log, depth, ACTIONS).lines())
    data = sessions(log, depth, ACTIONS)
    if not len(data):
        raise RelevanceInputError(
            log.files[0],
            f"no search with an impression at positions 0..{depth - 1}: nothing to estimate clicks from; check that "
            "the log has impression events with a position ordinal and an object id",
        )
    return Fitted(tuple(log.files), depth, data, fit_pbm(data), problems)


@dataclass(frozen=True)
class OnlineCheck:
    """The DR estimate of a run against the baseline's rankings, over the top `depth`; `queries`: how many of the
    log's query texts both had a ranking for."""

    estimate: Estimate
    depth: int
    queries: int = 0

    def line(self) -> str:
        """`estimated clicks@10: -3.1% [-4.9, -1.2], DR, support 0.84`: the change relative to the baseline's
        clicks, or why there is no number."""
        e = self.estimate
        if not e.estimable or e.delta is None or e.ci is None or not e.baseline:
            return f"estimated clicks@{self.depth}: not estimable, DR, support {e.support.slots:.2f}"
        scale = 100 / e.baseline

        def percent(value: float) -> str:  # 0.0, never -0.0: an unchanged run is "+0.0% [+0.0, +0.0]"
            return f"{round(value * scale, 1) + 0.0:+.1f}"

        return (
            f"estimated clicks@{self.depth}: {percent(e.delta)}% [{percent(e.ci[0])}, {percent(e.ci[1])}], DR, "
            f"support {e.support.slots:.2f}"
        )

    def fails(self, tolerance: float, floor: float = FLOOR) -> bool:
        """True when the whole interval lies below minus `tolerance` (a share of the baseline's clicks: 0.02 is 2%)
        and the log supports the candidate's slots at least `floor`: a drop users would notice."""
        e = self.estimate
        if not e.estimable or e.ci is None or not e.baseline or e.support.slots < floor:
            return False
        return e.ci[1] / e.baseline < -tolerance

    def section(self, tolerance: float | None, floor: float, fitted: Fitted) -> dict[str, Any]:
        """The report's `online` part (see gate.report's schema): the line, the numbers behind it, the rule."""
        e = self.estimate
        relative = e.delta / e.baseline if e.delta is not None and e.baseline else None
        ci = list(e.ci) if e.ci is not None else None
        return {
            "line": self.line(),
            "estimator": "dr",
            "assumes": e.assumes,
            "k": self.depth,
            "baseline": e.baseline,
            "current": e.candidate,
            "delta": e.delta,
            "ci": ci,
            "relative": relative,
            "relative_ci": [x / e.baseline for x in ci] if ci is not None and e.baseline else None,
            "estimable": e.estimable and relative is not None,
            "support": {"slots": e.support.slots, "ess": e.support.ess, "max_weight": e.support.max_weight},
            "queries": self.queries,
            "searches": len(fitted.data),
            "propensity": fitted.model.propensity_source,
            "log": list(fitted.files),
            "problems": list(fitted.problems),
            "tolerance": tolerance,
            "min_support": floor,
            "failed": tolerance is not None and self.fails(tolerance, floor),
        }


def against(
    fitted: Fitted,
    baseline: Mapping[str, Sequence[str]],
    run: Mapping[str, Sequence[str]],
    floor: float = FLOOR,
    seed: int = 0,
) -> OnlineCheck:
    """The run's DR estimate against the baseline; rankings keyed by query text, as the log's user_query has them."""
    report = estimate(fitted.data, fitted.model, baseline, run, ("dr",), seed, floor, by_stratum=False)
    return OnlineCheck(report.estimates["all"]["dr"], fitted.depth, report.queries["all"])


def unavailable(depth: int, why: str) -> dict[str, Any]:
    """The report's `online` part when nothing could be estimated: the line says why, no number."""
    return {"line": f"estimated clicks@{depth}: not estimable, {why}", "estimable": False, "failed": False}


def check(
    events: Sequence[str | Path],
    baseline: Mapping[str, Sequence[str]],
    run: Mapping[str, Sequence[str]],
    depth: int,
    seed: int = 0,
) -> OnlineCheck:
    """`fit` then `against`, for one comparison."""
    return against(fit(events, depth), baseline, run, seed=seed)
