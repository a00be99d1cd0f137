"""Where grades came from, and whether they still hold: model-made grades and their measured trust, stale grades.

A number that rests on grades a model made is only as good as the model's agreement with people, so the reports
say how much of the headline gain is model-graded and, when an agreement is known (`pytest-relevance agreement
--format json`, named by `relevance_judge_agreement`), the judge's kappa beside it. A grade goes stale when the
document it judged has changed since (its content hash differs) or when it is older than
`relevance_max_judgment_age`: the gate warns, and `pytest-relevance pool` puts such grades up for re-judging.

Pure logic, no pytest: the CLI and the reports both use it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.judgments.model import Judgments
from pytest_relevance.metrics.ranking import Metric

SHOWN = 3  # (query, document) pairs a warning names
_AGE = re.compile(r"([1-9][0-9]*)([dw])")


def content_hash(document: Mapping[str, Any]) -> str:
    """A short hash of a document's whole content (every field, keys sorted), as a grade records it: a document
    edited since it was judged hashes otherwise, whatever the order its fields are written in."""
    text = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return f"sha256:{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def today() -> str:
    """The UTC date a grade made now is dated with: by `pool --judge`, or re-judged through `merge`."""
    return datetime.now(UTC).date().isoformat()


def parse_age(text: str) -> timedelta:
    """`180d` or `26w`: how old a grade may be. Days and weeks only: months and years have no fixed length."""
    found = _AGE.fullmatch(text.strip())
    if found is None:
        raise ValueError(f"{text!r} is not an age: write days or weeks, e.g. 180d or 26w")
    return timedelta(days=int(found[1]) * (7 if found[2] == "w" else 1))


def judged_at(written: str) -> datetime:
    """A provenance date (ISO date or instant, as `judgments.checked_provenance` writes it) as an aware instant: a
    date is its midnight UTC."""
    if len(written) == 10:
        return datetime.combine(date.fromisoformat(written), datetime.min.time(), UTC)
    moment = datetime.fromisoformat(written)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def stale_grades(
    judgments: Judgments,
    now: datetime,
    max_age: timedelta | None,
    hashes: Callable[[], Mapping[str, str] | None],
) -> dict[tuple[str, str], str]:
    """(query id, doc id) -> why the grade is stale: its document changed since it was judged (the hash it was
    judged with differs from `hashes()`, the corpus's; asked only when some grade has a hash, None: no corpus to
    tell), or it was judged longer than `max_age` before `now`. A document the corpus lacks is another warning's."""
    found: dict[tuple[str, str], str] = {}
    hashed = any(p.hash for q in judgments.queries for p in q.provenance.values())
    current = hashes() if hashed else None
    for query in judgments.queries:
        for doc, given in query.provenance.items():
            if given.hash and current is not None and doc in current and current[doc] != given.hash:
                found[query.id, doc] = "content changed"
            elif max_age is not None and given.date and now - judged_at(given.date) > max_age:
                found[query.id, doc] = f"judged {given.date}, over {max_age.days}d before {now.date().isoformat()}"
    return found


def stale_warnings(
    judgments: Judgments,
    now: datetime,
    max_age: timedelta | None,
    hashes: Callable[[], Mapping[str, str] | None],
) -> list[str]:
    """The stale grades, one warning for the changed documents and one for the old grades, each naming a few."""
    stale = stale_grades(judgments, now, max_age, hashes)
    changed = [pair for pair, why in stale.items() if why == "content changed"]
    old = [pair for pair, why in stale.items() if why != "content changed"]
    again = "re-judge them: pytest-relevance pool ... --corpus CORPUS" + (
        f" --max-age {max_age.days}d" if max_age is not None else ""
    )
    warnings = []
    if changed:
        warnings.append(
            f"{len(changed)} grade(s) judged a document whose content has changed since ({_pairs(changed)}): "
            f"the grade may no longer hold; {again}"
        )
    if old and max_age is not None:
        warnings.append(
            f"{len(old)} grade(s) older than relevance_max_judgment_age {max_age.days}d ({_pairs(old)}); {again}"
        )
    return warnings


def _pairs(pairs: list[tuple[str, str]]) -> str:
    shown = ", ".join(f"{qid}/{doc}" for qid, doc in pairs[:SHOWN])
    return shown + (f" and {len(pairs) - SHOWN} more" if len(pairs) > SHOWN else "")


def model_share(
    judgments: Judgments, run: Mapping[str, list[str]], metrics: list[Metric], group: str = "all"
) -> tuple[str, float] | None:
    """(metric, share): of the first NDCG metric's value over `group`, the share that model-made grades give, the
    part of each query's DCG from documents a judge graded (over that query's IDCG), summed over the queries, over
    the value's own sum. None without an NDCG metric, model-made grade or gain."""
    metric = next((m for m in metrics if getattr(m, "name", None) == "ndcg"), None)
    if metric is None or not any(q.judges for q in judgments.queries):
        return None
    total = model = 0.0
    exp = metric.gain == "exp"

    def gain(grade: float) -> float:
        return 2.0**grade - 1.0 if exp else grade

    for qid in judgments.groups[group]:
        query = judgments[qid]
        ideal = sorted((gain(g) for g in query.grades.values() if g > 0), reverse=True)[: metric.k]
        idcg = sum(value / math.log2(i + 2) for i, value in enumerate(ideal))
        if not idcg:
            continue
        seen: set[str] = set()
        for i, doc in enumerate(run.get(qid, [])[: metric.k]):
            if doc in seen or query.grades.get(doc, 0) <= 0:
                continue
            seen.add(doc)
            part = gain(query.grades[doc]) / math.log2(i + 2) / idcg
            total += part
            model += part if doc in query.judges else 0.0
    return (metric.spec, model / total) if total else None


def read_agreement(path: Path) -> dict[str, Any]:
    """An agreement of a judge with humans, as `pytest-relevance agreement --format json` writes it: the pairs and
    kappa the reports show beside model-graded numbers."""
    if not path.is_file():
        raise RelevanceInputError(
            path, "agreement file not found: write it with pytest-relevance agreement JUDGE HUMAN --format json > FILE"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        data = None
    if not (
        isinstance(data, dict)
        and isinstance(data.get("pairs"), int)
        and isinstance(data.get("kappa"), dict)
        and isinstance(data["kappa"].get("unweighted"), float | int | None)
    ):
        raise RelevanceInputError(
            path, "not an agreement: write it with pytest-relevance agreement JUDGE HUMAN --format json > FILE"
        )
    return data


def model_graded(
    judgments: Judgments,
    run: Mapping[str, list[str]],
    metrics: list[Metric],
    agreement: Mapping[str, Any] | None,
) -> dict[str, Any] | None:
    """The report's `model_graded`: {"metric", "share", "judges", "kappa" (unweighted, or null), "pairs" (or
    null)}, or None when no gain rests on a model-made grade."""
    found = model_share(judgments, run, metrics)
    if found is None:
        return None
    judges = sorted({name for q in judgments.queries for name in q.judges.values()})
    kappa = agreement["kappa"].get("unweighted") if agreement else None
    return {
        "metric": found[0],
        "share": found[1],  # unrounded, as kappa: the report prints each once, to its own digits
        "judges": judges,
        "kappa": kappa,
        "pairs": agreement["pairs"] if agreement else None,
    }


def assess(
    judgments: Judgments, evaluation: Any, settings: Any, corpus: Path, id_field: str, agreement: Path | None
) -> tuple[list[str], dict[str, Any] | None]:
    """A test's stale-grade warnings (listed with the others, counted by its RelevanceWarning) and its report's
    `model_graded`. The corpus is hashed only when a grade records a hash, once per corpus version (None when there
    is no corpus file: a custom run's gate may have none)."""
    warnings = stale_warnings(
        judgments, settings.now, settings.max_judgment_age, lambda: corpus_hashes(corpus, id_field)
    )
    known = read_agreement(agreement) if agreement is not None else None
    return warnings, model_graded(judgments, getattr(evaluation, "run", {}), evaluation.metrics, known)


def corpus_hashes(path: Path, id_field: str) -> dict[str, str] | None:
    """doc id -> `content_hash` of the corpus file, or None without one; remembered per (file, size, mtime)."""
    if not path.is_file():
        return None
    stat = path.stat()
    return _hashes(str(path), id_field, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _hashes(path: str, id_field: str, size: int, mtime: int) -> dict[str, str]:
    from pytest_relevance.inputs.corpus import load_corpus

    return {str(doc[id_field]): content_hash(doc) for doc in load_corpus(path, id_field)}
