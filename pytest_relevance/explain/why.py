"""Why a document moved: its score tree in the baseline's state beside today's, reduced to the clauses that changed.

Two trees of the same template align by path (`explain.flatten`); a clause only one side has is `added` or
`removed`. Of the clauses on both sides, the ones named are the causes: a clause whose own parameters or statistics
differ (a boost, a tie_breaker, a function's factor, a term's freq or docFreq), not every ancestor whose value only
follows from them. Terms that one side's analysis made and the other's did not are one `analysis:` part (`title
'boots' -> 'boot'`), not a removed and an added leaf. The clauses directly under the root that did not change are
named too, so a reader sees what held still (`function_score.gauss x0.93 unchanged`).

`why(doc, before_rank, after_rank, old, new)` gives one line per document, the form every report shows:
`p0569 5 -> 9: 12.31 -> 8.02; query.multi_match[title] 9.10 -> 3.03 (boost 3 -> 1); ...gauss 0.93 unchanged`.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from pytest_relevance.explain.tree import Node, flatten, line

#: clause changes named per document before "+N more"
SHOWN = 3
#: documents explained per query by default (-v: every document the query's change lists)
DEFAULT_DOCUMENTS = 2
_TERM = re.compile(r"^(?P<parent>.*)\[(?P<field>[^\[\]:]+):(?P<term>[^\[\]]*)\](?:#\d+)?$")


def _value(value: float) -> str:
    return f"{value:.4g}"


def _detail(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _score(node: Node) -> str:
    return _value(node.value) if node.matched else "no match"


def _place(rank: int | None) -> str:
    return "out" if rank is None else str(rank)


def _changed_keys(old: Node, new: Node) -> list[str]:
    keys = [key for key in dict.fromkeys([*old.details, *new.details]) if key != "description"]
    return [key for key in keys if old.details.get(key) != new.details.get(key)]


def _change_text(old: Node, new: Node, key: str) -> str:
    return f"{key} {_detail(old.details.get(key, '—'))} -> {_detail(new.details.get(key, '—'))}"


def _terms(nodes: Mapping[str, Node]) -> dict[tuple[str, str], list[str]]:
    """(parent clause, field) -> the terms its leaves hold, from `<clause>[field:term]` paths."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in nodes:
        match = _TERM.match(path)
        if match:
            found.setdefault((match["parent"], match["field"]), []).append(match["term"])
    return found


def why(doc: str, before: int | None, after: int | None, old: Node | None, new: Node | None) -> str:
    """One document's line. `old`/`new`: its tree in the baseline's state and today's (None: that side could not
    explain it, e.g. the document is not in that corpus)."""
    head = f"{doc} {_place(before)} -> {_place(after)}"
    if old is None or new is None:
        return f"{head}: {'not in the baseline corpus' if old is None else 'not in the corpus any more'}"
    parts = [
        f"{_value(old.value) if old.matched else 'no match'} -> {_value(new.value) if new.matched else 'no match'}"
    ]
    if old.matched != new.matched:  # one side has no clauses to compare: what failed is the whole story
        failed = new.details.get("failed") if old.matched else old.details.get("failed")
        said = "no longer matches" if old.matched else "matches now; did not match"
        parts.append(f"{said}{': ' + str(failed) if failed else ''}")
        return f"{head}: {'; '.join(parts)}"
    changed = changes(old, new)
    if old.value == new.value and not any(not part.endswith(" unchanged") for part in changed):
        return f"{head}: {_score(new)}, its score unchanged: other documents moved past it"
    return f"{head}: {'; '.join(parts + changed)}"


def changes(old: Node, new: Node) -> list[str]:
    """What differs between two trees of one document: analysis, then the clauses that changed (outermost first),
    added and removed clauses, then what held still under the root."""
    a, b = flatten(old), flatten(new)
    parts: list[str] = []
    terms_a, terms_b = _terms(a), _terms(b)
    analysed: set[str] = set()
    for key in dict.fromkeys([*terms_a, *terms_b]):
        was, now = terms_a.get(key, []), terms_b.get(key, [])
        if key in terms_a and key in terms_b and sorted(was) != sorted(now):
            parts.append(f"analysis: {key[1]} {' '.join(map(repr, was))} -> {' '.join(map(repr, now))}")
            analysed |= {f"{key[0]}[{key[1]}:{t}]" for t in was + now}
    causes = _causes(old, b, frozenset())
    removed = [p for p in a if p not in b and p not in analysed and not _under(p, a, b)]
    added = [p for p in b if p not in a and p not in analysed and not _under(p, b, a)]
    causes += [f"removed: {p} {_value(a[p].value)}" for p in removed]
    causes += [f"added: {p} {_value(b[p].value)}" for p in added]
    if len(causes) > SHOWN:
        causes = [*causes[:SHOWN], f"+{len(causes) - SHOWN} more"]
    parts += causes
    still = [
        f"{child.path} {_value(child.value)} unchanged"
        for child in old.children
        if child.path in b and b[child.path].value == child.value and not _changed_keys(child, b[child.path])
    ]
    return parts + still[:2]


def _causes(node: Node, other: Mapping[str, Node], inherited: frozenset[str]) -> list[str]:
    """The clauses of `node`'s tree whose own parameters or statistics changed, outermost first. A clause that
    changed only what an ancestor already named (the boost a multi_match passes down to its terms) is not named
    again, nor one that gave nothing on either side (a term the document lacks)."""
    found: list[str] = []
    twin = other.get(node.path)
    keys = inherited
    if twin is not None:
        changed = {key: _change_text(node, twin, key) for key in _changed_keys(node, twin)}
        if node.matched != twin.matched and (node.value or twin.value):
            found.append(f"{node.path} {'no longer matches' if node.matched else 'matches now'}")
        elif changed and not set(changed) <= inherited and (node.value or twin.value):
            shown = [text for key, text in changed.items() if key not in inherited]
            found.append(f"{node.path} {_value(node.value)} -> {_value(twin.value)} ({', '.join(shown)})")
        keys = inherited | set(changed)
    for child in node.children:
        found += _causes(child, other, keys)
    return found


def _under(path: str, own: Mapping[str, Node], other: Mapping[str, Node]) -> bool:
    """Whether `path` sits under a clause that is itself only on its side (named once, at the top)."""
    return any(path != p and path.startswith(p) and p not in other for p in own)


def moved(change: Mapping[str, Any], limit: int | None) -> list[tuple[str, int | None, int | None]]:
    """(doc, rank before, rank after) of the documents a query's change lists (`rankings.diff` data): the relevant
    ones that fell or rose first (they made the metric move), then those that came in, each group by how far they
    moved; `limit` of them, or all with None."""
    seen: dict[str, tuple[int, int | None, int | None]] = {}
    for name in ("fell", "rose", "came"):
        for move in change.get(name) or []:
            seen.setdefault(move["doc"], (int(name == "came"), move["before"], move["after"]))
    depth = 1 + max((r for _, *pair in seen.values() for r in pair if r is not None), default=0)

    def order(item: tuple[str, tuple[int, int | None, int | None]]) -> tuple[int, int]:
        group, before, after = item[1]
        return group, -abs((after or depth) - (before or depth))

    ranked = sorted(seen.items(), key=order)
    return [(doc, before, after) for doc, (_, before, after) in ranked[: limit if limit is not None else None]]


def tree_rows(tree: Node, other: Mapping[str, Node]) -> list[tuple[int, str, bool]]:
    """(depth, line, changed) per node of `tree`: changed where the other state's tree lacks the clause or gives it
    another value (the HTML report marks those)."""
    return [
        (depth, line(node), node.path not in other or other[node.path].value != node.value)
        for depth, node in tree.walk()
    ]


def today_only(doc: str, before: int | None, after: int | None, new: Node) -> str:
    """A document's line when the baseline's tree cannot be rebuilt: today's value and what it is made of."""
    parts = [f"now {_value(new.value)}" if new.matched else "no match now"]
    parts += [f"{child.path} {_value(child.value)}" for child in new.children[:SHOWN]]
    return f"{doc} {_place(before)} -> {_place(after)}: {'; '.join(parts)}"


class Explainer(Protocol):
    """What explains documents for a query: `FixtureIndex.explain`."""

    def explain(self, query: str, doc_ids: Sequence[str]) -> Mapping[str, Node]: ...


def _trees(explainer: Explainer, qid: str, ids: list[str]) -> Mapping[str, Node]:
    """The trees of the documents one state's corpus has: a document the other corpus alone holds is left out
    (one request for all, one per document only when some are missing)."""
    from pytest_relevance.errors import RelevanceInputError

    try:
        return explainer.explain(qid, ids)
    except RelevanceInputError:
        found: dict[str, Node] = {}
        for doc in ids:
            with contextlib.suppress(RelevanceInputError):
                found.update(explainer.explain(qid, [doc]))
        return found


def explain_movers(movers: Sequence[dict[str, Any]], old: Explainer | None, new: Explainer, limit: int | None) -> None:
    """Set each mover's `why` (one line per document it lists, the ones that moved most first; `limit` of them)
    and `trees` (doc -> both states' trees as rows, for the HTML report). `old` None: the baseline's state could
    not be rebuilt, so today's trees are explained alone."""
    for mover in movers:
        docs = moved(mover.get("change") or {}, limit)
        ids = [doc for doc, _, _ in docs]
        new_trees = _trees(new, mover["query"], ids)
        old_trees = _trees(old, mover["query"], ids) if old is not None else None
        lines, trees = [], {}
        for doc, before, after in docs:
            now = new_trees.get(doc)
            if old_trees is None:
                lines += [today_only(doc, before, after, now)] if now is not None else []
                continue
            was = old_trees.get(doc)
            lines.append(why(doc, before, after, was, now))
            if was is not None and now is not None:
                trees[doc] = {"baseline": tree_rows(was, flatten(now)), "current": tree_rows(now, flatten(was))}
        mover["why"], mover["trees"] = lines, trees


#: what a baseline entry's input fingerprints hold per input (fingerprints.index_inputs)
_INDEX_KEYS = ("corpus", "index config", "index config files")


def baseline_state(
    recorded: Mapping[str, Any] | None,
    current: Any,
    paths: Mapping[str, Path],
    engine: Any,
    id_field: str,
    scratch: Path,
) -> tuple[Any, str | None, list[Any]]:
    """The fixture index as the baseline entry's inputs were (their blob ids read back from git): `current` itself
    when nothing changed, `current` with the baseline's template when only that changed, else a second index
    opened on `engine` (only the embedded engine's own, or one Elasticsearch index of the plugin's). Returns
    (the explainer or None, why not, the indexes opened for the caller to close). `paths`: today's files of
    "corpus", "index config" and "query template"."""
    from pytest_relevance.errors import RelevanceInputError
    from pytest_relevance.inputs.corpus import CorpusFile, load_mapping
    from pytest_relevance.inputs.templates import load_template
    from pytest_relevance.util import revisions

    today = current.inputs or {}
    if not recorded or any(key not in recorded for key in ("corpus", "index config", "query template")):
        return None, "the baseline entry records no input fingerprints, so its trees cannot be rebuilt", []
    same_index = all(recorded.get(key) == today.get(key) for key in _INDEX_KEYS)
    if same_index and recorded["query template"] == today.get("query template"):
        return current, None, []
    blobs = {paths["query template"]: recorded["query template"]}
    if not same_index:
        blobs[paths["corpus"]] = recorded["corpus"]
        blobs[paths["index config"]] = recorded["index config"]
        for name, blob in (recorded.get("index config files") or {}).items():
            if blob is not None:
                blobs[paths["index config"].parent / name] = blob
    try:
        written = revisions.from_blobs(blobs, revisions.toplevel(paths["query template"].parent), scratch)
    except RelevanceInputError as exc:
        return None, f"the baseline's inputs cannot be read back ({exc})", []
    if written is None:
        return None, "git does not have every input the baseline was measured on (commit them to explain)", []
    template = load_template(written[paths["query template"]])
    if same_index:
        return current.with_state(current.index, template, recorded), None, []
    sibling = getattr(engine, "sibling", None)
    if sibling is None:
        return None, "the engine cannot open a second index for the baseline's inputs", []
    config_path = written[paths["index config"]]
    corpus = CorpusFile(written[paths["corpus"]], id_field)
    index = sibling("baseline").open(corpus, load_mapping(config_path), id_field, str(config_path))
    return current.with_state(index, template, recorded), None, [index]
