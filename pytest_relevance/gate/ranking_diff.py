"""Before/after of one query's ranking: what a reviewer needs to see *why* a score moved.

A score says that a query dropped; the diff says which relevant documents fell (from position 3 to 12, or out of the
top k) and what came in instead (graded, or `?` when nobody has judged it yet). Pure functions over ranked id lists,
so the failure text and every report render the same facts.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_relevance.errors import RelevanceInputError

#: shown per kind of change in one line; the rest is counted ("+2 more")
SHOWN = 4


def snapshot_depth(metrics: Iterable[object], configured: int = 10) -> int:
    """How many ranked ids per query the baseline keeps: `relevance_snapshot_depth` (default 10), or the deepest
    metric cut-off when that is smaller (ids below every cut-off explain no number)."""
    cuts = [k for k in (getattr(m, "k", None) for m in metrics) if k is not None]
    if configured < 1:
        raise RelevanceInputError("relevance_snapshot_depth", f"{configured} must be >= 1 (ranked ids kept per query)")
    return min([configured, max(cuts)]) if cuts else configured


@dataclass(frozen=True)
class Move:
    """One document's change: positions are 1-based, None means outside the ranking (or the baseline's top k)."""

    doc: str
    grade: float | None  # None: unjudged
    before: int | None
    after: int | None

    def as_dict(self) -> dict[str, object]:
        return {"doc": self.doc, "grade": self.grade, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class RankingDiff:
    """Relevant documents that fell (down or out) or rose, and the documents new in the top k."""

    fell: list[Move]
    rose: list[Move]
    came: list[Move]

    def as_dict(self) -> dict[str, list[dict[str, object]]]:
        return {name: [m.as_dict() for m in getattr(self, name)] for name in ("fell", "rose", "came")}


def diff(
    before: Sequence[str], after: Sequence[str], grades: Mapping[str, float], k: int, threshold: float = 1
) -> RankingDiff:
    """Compare the baseline's top k with the current ranking (positions after k still count: `3 -> 12`)."""
    old = _positions(before[:k])
    new = _positions(after)
    fell, rose, came = [], [], []
    for doc, was in old.items():
        grade = grades.get(doc)
        if grade is None or grade < threshold:
            continue
        now = new.get(doc)
        if now is None or now > was:
            fell.append(Move(doc, grade, was, now))
        elif now < was:
            rose.append(Move(doc, grade, was, now))
    for doc, now in new.items():
        if now <= k and doc not in old:
            came.append(Move(doc, grades.get(doc), None, now))
    fell.sort(key=lambda m: (-(m.grade or 0), m.before or 0))
    rose.sort(key=lambda m: (-(m.grade or 0), m.after or 0))
    return RankingDiff(fell, rose, came)


def _positions(ranking: Iterable[str]) -> dict[str, int]:
    """doc -> first 1-based position (a duplicate keeps its first place, as the metrics count it)."""
    out: dict[str, int] = {}
    for position, doc in enumerate(ranking, 1):
        out.setdefault(doc, position)
    return out


def grade_text(grade: float | None) -> str:
    if grade is None:
        return "?"
    return str(int(grade)) if float(grade).is_integer() else f"{grade:g}"


def _place(position: object) -> str:
    return "out" if position is None else str(position)


def _listed(items: Sequence[str]) -> str:
    extra = f", +{len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return ", ".join(items[:SHOWN]) + extra


def render(change: Mapping[str, Any]) -> list[str]:
    """`fell: p0087 (3) 1 -> 12, p0140 (3) 2 -> out` / `rose: ...` / `in: p0999 (?) at 1`, from `as_dict` data;
    for set answers `missing: a, b` / `extra: c`."""
    lines = []
    for name in ("fell", "rose"):
        moves = change.get(name) or []
        if moves:
            shown = [f"{m['doc']} ({grade_text(m['grade'])}) {m['before']} -> {_place(m['after'])}" for m in moves]
            lines.append(f"{name}: {_listed(shown)}")
    if change.get("came"):
        shown = [f"{m['doc']} ({grade_text(m['grade'])}) at {m['after']}" for m in change["came"]]
        lines.append(f"in: {_listed(shown)}")
    for name in ("missing", "extra"):
        labels = change.get(name)
        if labels:
            lines.append(f"{name}: {_listed([str(label) for label in labels])}")
    if change.get("top") is not None:
        shown = [f"{m['doc']} ({grade_text(m['grade'])})" for m in change["top"]]
        lines.append(f"top {len(shown)}: {', '.join(shown) or 'nothing returned'}")
    return lines or ["same top documents"]


def set_diff(wanted: Collection[str], answer: Collection[str]) -> dict[str, list[str]]:
    """Set answers: the expected labels the answer misses and the labels it adds."""
    return {"missing": sorted(set(wanted) - set(answer)), "extra": sorted(set(answer) - set(wanted))}


def top(ranking: Sequence[str], grades: Mapping[str, float], n: int = 3) -> dict[str, list[dict[str, object]]]:
    """Without baseline rankings, the current top n with grades is all there is to show."""
    return {"top": [{"doc": doc, "grade": grades.get(doc)} for doc in ranking[:n]]}
