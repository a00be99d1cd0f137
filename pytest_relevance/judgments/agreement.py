"""Agreement between two sets of grades (a model judge and humans, or two raters): Cohen's kappa and the confusion
matrix on the (query, document) pairs both graded.

Kappa, not the share of equal grades: two raters who both call 90% of documents irrelevant agree on 81% of pairs by
chance alone, and kappa counts only the agreement beyond that. The weighted forms count a 3 against a 2 as a smaller
disagreement than a 3 against a 0, which is what matters for graded gain. As scikit-learn's `cohen_kappa_score`
does, the categories are the grades either side used, sorted, and the weights are the distances between their
positions in that list (not between the grade values), so continuous grades are categories as given.

Pure logic, no pytest: the CLI and the reports both use it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_relevance.judgments.model import Judgments

WEIGHTINGS = ("unweighted", "linear", "quadratic")


@dataclass(frozen=True)
class Agreement:
    """The confusion matrix of two raters (rows: first, columns: second) over `grades`, and kappa per weighting.

    A kappa is None when it is undefined: both raters gave every pair the same single grade, so chance agreement is
    already perfect and there is nothing beyond it to measure.
    """

    grades: tuple[float, ...]
    matrix: tuple[tuple[int, ...], ...]
    kappa: dict[str, float | None]

    @property
    def pairs(self) -> int:
        return sum(map(sum, self.matrix))


def shared_grades(first: Judgments, second: Judgments) -> list[tuple[float, float]]:
    """(first's grade, second's grade) for every (query id, doc id) both graded, in the first file's order."""
    shared = []
    for query in first.queries:
        if query.id not in second:
            continue
        other = second[query.id].grades
        shared += [(grade, other[doc]) for doc, grade in query.grades.items() if doc in other]
    return shared


def agreement(pairs: Sequence[tuple[float, float]]) -> Agreement:
    """Kappa = 1 - sum(w * observed) / sum(w * expected), where expected is the outer product of the two raters'
    grade frequencies (what independent raters with the same habits would produce) and w is 0 on the diagonal:
    1 off it (unweighted), |i - j| (linear) or (i - j)^2 (quadratic)."""
    if not pairs:
        raise ValueError("agreement needs at least one pair graded by both")
    grades = tuple(sorted({grade for pair in pairs for grade in pair}))
    index = {grade: i for i, grade in enumerate(grades)}
    size = len(grades)
    counts = [[0] * size for _ in range(size)]
    for a, b in pairs:
        counts[index[a]][index[b]] += 1
    total = len(pairs)
    rows = [sum(row) for row in counts]
    columns = [sum(counts[i][j] for i in range(size)) for j in range(size)]
    weights: dict[str, Callable[[int, int], float]] = {
        "unweighted": lambda i, j: float(i != j),
        "linear": lambda i, j: float(abs(i - j)),
        "quadratic": lambda i, j: float((i - j) ** 2),
    }
    kappa: dict[str, float | None] = {}
    for name in WEIGHTINGS:
        weight = weights[name]
        cells = [(i, j) for i in range(size) for j in range(size)]
        observed = sum(weight(i, j) * counts[i][j] for i, j in cells) / total
        expected = sum(weight(i, j) * rows[i] * columns[j] for i, j in cells) / (total * total)
        kappa[name] = 1.0 - observed / expected if expected else None
    return Agreement(grades, tuple(map(tuple, counts)), kappa)
