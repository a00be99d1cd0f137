"""How much the rankings changed, whatever the judgments say: rank-biased overlap and top-k overlap.

Every metric is blind to change among unjudged documents: a template change that swaps the whole top 10 for unjudged
documents moves no NDCG. Comparing the current rankings with the baseline's catches it.

RBO is the extrapolated variant for lists of uneven length, RBO_ext of Webber, Moffat and Zobel, "A similarity
measure for indefinite rankings" (TOIS 2010), eq. 32: with X_d the overlap of the two prefixes of depth d, l and s
the lengths of the longer and the shorter list,

    RBO_ext = (1-p)/p * (sum_{d=1..l} X_d/d * p^d + sum_{d=s+1..l} X_s*(d-s)/(s*d) * p^d) + ((X_l-X_s)/l + X_s/s) * p^l

which is eq. 30 when both lists have the same length. It is 1 for identical lists, 0 for disjoint ones, and weights
the top: with p = 0.9 the first 10 ranks carry about 86% of the weight.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_relevance.judgments.model import Judgments
from pytest_relevance.metrics.ranking import mean

P = 0.9
VARIANT = "RBO_ext (extrapolated, uneven lengths; Webber et al. 2010, eq. 32)"
SHOWN = 5


def _unique(ranking: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ranking))


def rbo(before: Sequence[str], after: Sequence[str], p: float = P) -> float:
    """RBO_ext of two rankings (duplicates keep their first place); two empty rankings agree."""
    a, b = _unique(before), _unique(after)
    if not a or not b:
        return 1.0 if not a and not b else 0.0
    longer, shorter = (a, b) if len(a) >= len(b) else (b, a)
    l_len, s_len = len(longer), len(shorter)
    in_shorter = set(shorter)
    seen_long: set[str] = set()
    seen_short: set[str] = set()
    shared = 0
    shared_s = 0
    total = 0.0
    weight = 1.0
    for d in range(1, l_len + 1):
        weight *= p
        item = longer[d - 1]
        if d <= s_len:
            other = shorter[d - 1]
            if item == other:
                shared += 1
            else:
                shared += (item in seen_short) + (other in seen_long)
            seen_long.add(item)
            seen_short.add(other)
            if d == s_len:
                shared_s = shared
        else:
            shared += item in in_shorter
            total += shared_s * (d - s_len) / (s_len * d) * weight
        total += shared / d * weight
    return (1 - p) / p * total + ((shared - shared_s) / l_len + shared_s / s_len) * weight


def overlap(before: Sequence[str], after: Sequence[str]) -> float:
    """Top-k overlap: shared documents over the longer list's size (1.0 when both are empty)."""
    a, b = set(before), set(after)
    size = max(len(_unique(before)), len(_unique(after)))
    return len(a & b) / size if size else 1.0


@dataclass(frozen=True)
class QueryChurn:
    query: str
    rbo: float
    overlap: float
    new: tuple[str, ...]  # documents in the current top k that were not in the baseline's


def per_query(before: Mapping[str, Sequence[str]], after: Mapping[str, Sequence[str]], k: int) -> list[QueryChurn]:
    """Every query with a baseline ranking, compared at the baseline's depth k."""
    out = []
    for qid, old in before.items():
        old_top, new_top = list(old[:k]), list(after.get(qid, [])[:k])
        known = set(old_top)
        new = tuple(d for d in _unique(new_top) if d not in known)
        out.append(QueryChurn(qid, rbo(old_top, new_top), overlap(old_top, new_top), new))
    return out


def per_stratum(churn: Sequence[QueryChurn], groups: Mapping[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """Mean RBO and mean top-k overlap per stratum, over the queries the baseline has rankings for."""
    by_id = {c.query: c for c in churn}
    out = {}
    for name, ids in groups.items():
        found = [by_id[q] for q in ids if q in by_id]
        out[name] = {
            "rbo": round(mean(c.rbo for c in found), 4),
            "overlap": round(mean(c.overlap for c in found), 4),
            "n": len(found),
        }
    return out


def most_changed(churn: Sequence[QueryChurn], judgments: Judgments, n: int = SHOWN) -> list[dict[str, object]]:
    """The queries whose rankings changed most (lowest RBO), with how many of their new documents are unjudged."""
    changed = sorted((c for c in churn if c.rbo < 1.0), key=lambda c: (c.rbo, c.query))[:n]
    return [
        {
            "query": c.query,
            "text": judgments[c.query].text,
            "stratum": judgments[c.query].stratum,
            "rbo": round(c.rbo, 4),
            "overlap": round(c.overlap, 4),
            "new": len(c.new),
            "unjudged": sum(1 for d in c.new if d not in judgments[c.query].grades),
        }
        for c in changed
        if c.query in judgments
    ]


def exceeded(strata: Mapping[str, Mapping[str, float]], limit: float | None) -> list[str]:
    """Strata whose churn (1 - mean RBO) is beyond `relevance_max_churn`; none when the limit is off."""
    if limit is None:
        return []
    return [name for name, values in strata.items() if values["n"] and 1 - values["rbo"] > limit + 1e-9]


def failure_lines(report_churn: Mapping[str, Any], baseline: str) -> list[str]:
    """The failure text for churn beyond `relevance_max_churn`, even when no metric moved."""
    strata = report_churn["per_stratum"]
    lines = [
        f"relevance churn beyond relevance_max_churn {report_churn['max']:g} against {baseline} "
        f"(1 - mean RBO@{report_churn['k']}, p={report_churn['p']})"
    ]
    for name in report_churn["exceeded"]:
        values = strata[name]
        lines.append(
            f"  {name}: churn {1 - values['rbo']:.4f} (RBO {values['rbo']:.4f}, overlap {values['overlap']:.4f}, "
            f"{values['n']} queries)"
        )
    lines.append("queries that changed most:")
    for item in report_churn["most_changed"]:
        stratum = f" [{item['stratum']}]" if item["stratum"] else ""
        lines.append(
            f"  {item['query']} {_cut(item['text'])!r}{stratum}: RBO {item['rbo']:.4f}, {item['new']} new in the top "
            f"{report_churn['k']}, {item['unjudged']} of them unjudged"
        )
    lines.append(
        "unjudged documents score 0, so no metric sees this change: judge them (pytest-relevance pool, then merge) "
        "or, if intended, re-baseline"
    )
    return lines


def _cut(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
