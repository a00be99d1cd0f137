"""How a sweep picks the variants it tries, within a trial budget: every point of the grid, a seeded random sample
of it, or TPE (optuna's Tree-structured Parzen Estimator, an optional extra) that proposes each next variant from
the tune-part scores of the earlier ones. Each strategy is `ask()` -> the next parameters (None when done) and
`tell(params, score)`; the sweep counts every distinct variant tried, whichever strategy chose it, because the
correction is for the number of variants looked at.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.tune.space import Space

STRATEGIES = ("grid", "random", "tpe")
DEFAULT_TRIALS = 50  # random and tpe, when --trials is not given


class Strategy(Protocol):
    def ask(self) -> dict[str, Any] | None: ...

    def tell(self, params: dict[str, Any], score: float) -> None: ...


class Grid:
    def __init__(self, space: Space, trials: int | None) -> None:
        if trials is not None and trials < space.size:
            raise RelevanceInputError(
                "--trials",
                f"the grid has {space.size} points and the budget is {trials}; raise --trials, or use "
                "--strategy random (a seeded sample of the grid) or tpe",
            )
        self.points = space.grid()

    def ask(self) -> dict[str, Any] | None:
        return next(self.points, None)

    def tell(self, params: dict[str, Any], score: float) -> None:
        """The grid tries every point whatever the scores."""


class Random:
    """`trials` distinct points of the grid, drawn with the seed (all of them when the grid is no larger)."""

    def __init__(self, space: Space, trials: int | None, seed: int) -> None:
        count = min(trials or DEFAULT_TRIALS, space.size)
        self.space = space
        self.order = iter(random.Random(seed).sample(range(space.size), count))

    def ask(self) -> dict[str, Any] | None:
        index = next(self.order, None)
        return None if index is None else self.space.point(index)

    def tell(self, params: dict[str, Any], score: float) -> None:
        """Random sampling does not learn."""


class Tpe:
    """optuna's TPE sampler, seeded: ranges as stepped numbers, lists and files as categories."""

    def __init__(self, space: Space, trials: int | None, seed: int) -> None:
        try:
            import optuna
        except ImportError:
            raise RelevanceInputError("--strategy tpe", "needs optuna: pip install 'pytest-relevance[tune]'") from None
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.space, self.left = space, min(trials or DEFAULT_TRIALS, space.size)
        self.study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed))
        self.pending: dict[tuple[Any, ...], list[Any]] = {}
        self.seen: dict[tuple[Any, ...], float] = {}
        self.asks = 0

    def ask(self) -> dict[str, Any] | None:
        """The next variant not tried yet; a proposal already tried is told its known score, and after ten times the
        budget in proposals (TPE circling a small space) the sweep stops with what it has."""
        while self.left > 0 and self.asks < 10 * (len(self.seen) + self.left):
            self.asks += 1
            trial = self.study.ask()
            params = {p.name: self._suggest(trial, p) for p in self.space.params}
            key = tuple(params.values())
            if key in self.seen:
                self.study.tell(trial, self.seen[key])
                continue
            self.pending.setdefault(key, []).append(trial)
            self.left -= 1
            return params
        return None

    def tell(self, params: dict[str, Any], score: float) -> None:
        key = tuple(params.values())
        self.seen[key] = score
        for trial in self.pending.pop(key, []):
            self.study.tell(trial, score)

    @staticmethod
    def _suggest(trial: Any, param: Any) -> Any:
        if param.bounds is not None:
            low, high, step = param.bounds
            value = trial.suggest_float(param.name, low, high, step=step)
            # the grid's own value (same type, same rounding), so that a variant is the same variant whoever chose it
            return min(param.values, key=lambda v: abs(v - value))
        return trial.suggest_categorical(param.name, list(param.values))


def make(name: str, space: Space, trials: int | None, seed: int) -> Strategy:
    if trials is not None and trials < 1:
        raise RelevanceInputError("--trials", f"{trials} is not a whole number >= 1")
    if name == "grid":
        return Grid(space, trials)
    if name == "random":
        return Random(space, trials, seed)
    if name == "tpe":
        return Tpe(space, trials, seed)
    raise RelevanceInputError("--strategy", f"{name!r} is not one of {', '.join(STRATEGIES)}")
