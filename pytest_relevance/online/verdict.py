"""The online check a relevance test makes when the project has a click log: the DR estimate of the run's change
in clicks against the baseline's rankings, the line the failure text, `-v` and the reports show, and the rule
`relevance_online_tolerance` gates on. The plugin's wiring (ini keys, failure text, reports) is not done yet; this
is the part of it that needs no pytest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_relevance.judgments.clicks import read_log
from pytest_relevance.online.click_model import fit_pbm
from pytest_relevance.online.estimators import FLOOR, Estimate, estimate
from pytest_relevance.online.logged import sessions


@dataclass(frozen=True)
class OnlineCheck:
    """The DR estimate of a run against the baseline's rankings, over the top `depth`."""

    estimate: Estimate
    depth: int

    def line(self) -> str:
        """`estimated clicks@10: -3.1% [-4.9, -1.2], DR, support 0.84`: the change relative to the baseline's
        clicks, or why there is no number."""
        e = self.estimate
        if not e.estimable or e.delta is None or e.ci is None or not e.baseline:
            return f"estimated clicks@{self.depth}: not estimable, DR, support {e.support.slots:.2f}"
        scale = 100 / e.baseline
        low, high = e.ci[0] * scale, e.ci[1] * scale
        return (
            f"estimated clicks@{self.depth}: {e.delta * scale:+.1f}% [{low:+.1f}, {high:+.1f}], DR, "
            f"support {e.support.slots:.2f}"
        )

    def fails(self, tolerance: float, floor: float = FLOOR) -> bool:
        """True when the whole interval lies below minus `tolerance` (a share of the baseline's clicks: 0.02 is 2%)
        and the log supports the candidate's slots at least `floor`: a drop users would notice."""
        e = self.estimate
        if not e.estimable or e.ci is None or not e.baseline or e.support.slots < floor:
            return False
        return e.ci[1] / e.baseline < -tolerance


def check(
    events: Sequence[str | Path],
    baseline: Mapping[str, Sequence[str]],
    run: Mapping[str, Sequence[str]],
    depth: int,
    seed: int = 0,
) -> OnlineCheck:
    """Rankings keyed by query text, as the log's user_query has them."""
    data = sessions(read_log(events), depth, {"click": 1.0})
    report = estimate(data, fit_pbm(data), baseline, run, ("dr",), seed, by_stratum=False)
    return OnlineCheck(report.estimates["all"]["dr"], depth)
