"""`pytest-relevance clicks`: grades from UBI logs, checked by hand on a small log, against the workbench's formula
on the shared ESCI log, and against the truth on logs drawn from a known position-bias model."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest

from pytest_relevance.cli.commands import main
from pytest_relevance.judgments.clicks import Event, Log, coec, java_3f, pbm, query_id, read_log, scale, validate
from pytest_relevance.judgments.model import load_judgments

UBI = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "ubi-esci" / "ubi_queries_events.ndjson"


def query(qid: str, text: str) -> dict:
    return {"query_id": qid, "user_query": text, "timestamp": "2024-12-10T00:00:00.000Z"}


def event(action: str, qid: str, doc: str | None, ordinal: int | None, text: str | None = "shoes") -> dict:
    attributes: dict = {}
    if doc is not None:
        attributes["object"] = {"object_id": doc, "object_id_field": "sku"}
    if ordinal is not None:
        attributes["position"] = {"ordinal": ordinal}
    found = {"action_name": action, "query_id": qid, "timestamp": "2024-12-10T00:00:01.000Z"}
    if text is not None:
        found["user_query"] = text
    return {**found, "event_attributes": attributes}


# Two searches for "shoes". s1 shows a, b, c at 0, 1, 2; s2 shows b, a, c. Clicks: a at 0 (s1), b at 0 and a at 1
# (s2). Also an add_to_cart of d, and an impression of e at ordinal 3 (= max-rank).
SMALL = [
    query("s1", "shoes"),
    query("s2", "shoes"),
    event("impression", "s1", "a", 0),
    event("impression", "s1", "b", 1),
    event("impression", "s1", "c", 2),
    event("click", "s1", "a", 0),
    event("add_to_cart", "s1", "d", 1),
    event("impression", "s1", "e", 3),
    event("impression", "s2", "b", 0),
    event("impression", "s2", "a", 1),
    event("impression", "s2", "c", 2),
    event("click", "s2", "b", 0),
    event("click", "s2", "a", 1),
]


def bulk(documents: list[dict]) -> str:
    lines = []
    for number, doc in enumerate(documents):
        index = "ubi_events" if "action_name" in doc else "ubi_queries"
        lines += [json.dumps({"index": {"_index": index, "_id": f"id{number}"}}), json.dumps(doc)]
    return "\n".join(lines) + "\n"


def grades_of(path: Path) -> dict[str, dict[str, float]]:
    return {q.text: dict(q.grades) for q in load_judgments(path).queries}


def clicks(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *args: str) -> tuple[int, str, str, Path]:
    log = tmp_path / "ubi.ndjson"
    log.write_text(text, encoding="utf-8")
    out = tmp_path / "judgments.yaml"
    code = main(["clicks", str(log), "-o", str(out), *args])
    stdout, stderr = capsys.readouterr()
    return code, stdout, stderr, out


def test_srw_by_hand(tmp_path: Path, capsys) -> None:
    # CTR(0) = 2 clicks / 2 impressions = 1, CTR(1) = 1/2, CTR(2) = 0/2; ordinal 3 is kept by the workbench's
    # `ordinal <= maxRank` filter, outside its table. a: best rank 0, 2 clicks / (1 x 2 impressions) = 1.000;
    # b: best rank 0, 1 / (1 x 2) = 0.500; c: CTR(2) = 0 -> 0; e: best rank 3 -> 0; d: only an add_to_cart,
    # no rank -> 0. Every pair is graded: the workbench has no minimum of impressions.
    code, out, _, path = clicks(tmp_path, capsys, bulk(SMALL), "--model", "srw", "--max-rank", "3")
    assert code == 0, out
    assert grades_of(path) == {"shoes": {"a": 1, "b": 0.5, "c": 0, "d": 0, "e": 0}}


def test_coec_by_hand(tmp_path: Path, capsys) -> None:
    # expected clicks sum the CTR of each impression's own position: a was shown at 0 and 1: 1 + 1/2 = 1.5, 2 clicks
    # -> 1.3333; b at 1 and 0: 1.5, 1 click -> 0.6667; c: no click and no expected click -> 0. d has no impression,
    # e is outside 0..2: neither is graded.
    code, out, err, path = clicks(tmp_path, capsys, bulk(SMALL), "--max-rank", "3", "--min-impressions", "2")
    assert code == 0, out
    assert grades_of(path) == {"shoes": {"a": 1.3333, "b": 0.6667, "c": 0}}
    assert "1 events at a position outside 0..max-rank-1" in err
    # each grade says it is a click model's, so that merged into human judgments it is still told apart
    (query,) = load_judgments(path).queries
    assert {doc: p.source for doc, p in query.provenance.items()} == dict.fromkeys("abc", "clicks:coec")


def test_weighted_actions_and_the_minimum_of_impressions(tmp_path: Path, capsys) -> None:
    # with add_to_cart weighing 3, CTR(1) = (a's click + d's and a's carts) / 2 impressions = (1 + 3 + 3) / 2
    log = [*SMALL, event("add_to_cart", "s2", "a", 1)]
    args = ("--max-rank", "3", "--min-impressions", "2", "--action", "click", "--action", "add_to_cart=3")
    code, out, err, path = clicks(tmp_path, capsys, bulk(log), *args)
    assert code == 0, out
    # a: 1 + 1 + 3 = 5 over CTR(0) + CTR(1) = 1 + 3.5 -> 1.1111
    assert grades_of(path)["shoes"]["a"] == 1.1111
    assert "1 clicks without an impression" in err  # d's cart
    path.unlink()
    code, out, err, path = clicks(tmp_path, capsys, bulk(SMALL), "--max-rank", "3")  # default: 10 impressions
    assert code == 2
    assert "no (query, document) pair has 10 impressions at positions 0..2: nothing to grade" in err
    assert not path.exists()


def test_the_three_ways_of_writing_a_log_read_the_same(tmp_path: Path) -> None:
    plain = tmp_path / "plain.ndjson"
    plain.write_text("\n".join(json.dumps(d) for d in SMALL), encoding="utf-8")
    hits = tmp_path / "hits.jsonl"
    hits.write_text("\n".join(json.dumps({"_index": "x", "_id": str(i), "_source": d}) for i, d in enumerate(SMALL)))
    body = tmp_path / "bulk.ndjson"
    body.write_text(bulk(SMALL), encoding="utf-8")
    shapes = [
        [(e.action, e.user_query, e.query_id, e.object_id, e.ordinal) for e in read_log([p]).events]
        for p in (plain, hits, body)
    ]
    assert shapes[0] == shapes[1] == shapes[2]
    assert len(shapes[0]) == len(SMALL) - 2
    assert read_log([body]).queries == {"s1": "shoes", "s2": "shoes"}


def test_validation_counts_each_kind_and_names_the_first_lines(tmp_path: Path) -> None:
    docs = [
        query("s1", "shoes"),
        event("impression", "s1", "a", 0),
        event("click", "s1", "a", 1),  # no impression of a at 1
        event("impression", "s9", "b", 0),  # no such query
        event("impression", "s1", "c", 7),  # beyond --max-rank 5
        event("impression", "s1", None, 2),  # no object
        {**event("impression", "s1", "d", 2), "timestamp": "yesterday"},
        {"application": "x"},  # neither a query nor an event
    ]
    path = tmp_path / "log.ndjson"
    lines = [json.dumps(d) for d in docs]
    lines.insert(2, json.dumps({"index": {"_id": "dup"}}))
    lines.insert(4, json.dumps({"index": {"_id": "dup"}}))
    path.write_text("\n".join(lines), encoding="utf-8")
    problems = validate(read_log([path]), 5, {"click": 1})
    assert problems.counts == {
        "click_without_impression": 1,
        "no_query": 1,
        "position_out_of_range": 1,
        "incomplete": 1,
        "bad_timestamp": 1,
        "not_ubi": 1,
        "duplicate_event_id": 1,
    }
    assert problems.examples["duplicate_event_id"] == [(str(path), 6)]
    assert problems.examples["no_query"] == [(str(path), 6)]


def test_strict_refuses_a_log_with_problems(tmp_path: Path, capsys) -> None:
    code, _, err, path = clicks(tmp_path, capsys, bulk(SMALL), "--max-rank", "3", "--strict", "--min-impressions", "1")
    assert code == 2
    assert err.count("\n") == 1
    assert "ubi.ndjson:16: 1 events at a position outside 0..max-rank-1 (position_out_of_range), the first here" in err
    assert not path.exists()


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        ("not json at all\n", (), "ubi.ndjson:1: not NDJSON (Expecting value): UBI logs are one JSON object a line"),
        ("[1, 2]\n", (), "ubi.ndjson:1: not NDJSON (a JSON list)"),
        (
            '{"index": {"_index": "ubi_events"}}\n{"index": {"_index": "ubi_events"}}\n{"action_name": "click"}\n',
            (),
            "ubi.ndjson:1: bulk action line without its document: each index/create line must be followed by the",
        ),
        ('{"action_name": "click"}\n{"create": {"_index": "ubi_events"}}\n', (), "ubi.ndjson:2: bulk action line"),
        (bulk(SMALL), ("--max-rank", "0"), "--max-rank: 0 is not a number of positions: give how many results"),
    ],
    ids=["not-json", "not-an-object", "action-without-document", "last-action-without-document", "max-rank-0"],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path, capsys, text: str, args: tuple[str, ...], message: str
) -> None:
    code, _, err, path = clicks(tmp_path, capsys, text, *(args or ("--max-rank", "3")))
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith("pytest-relevance: error: ")
    assert message in err
    assert not path.exists()
    assert list(tmp_path.iterdir()) == [tmp_path / "ubi.ndjson"]


def test_java_rounding_of_3_decimals() -> None:
    assert java_3f(1.0005) == "1.001"  # the double is 1.000499999...; Java rounds its shortest decimal, 1.0005
    assert java_3f(2.0625) == "2.063"  # an exact tie, half up (Python's format would give 2.062)
    assert java_3f(0.0) == "0.000"


def test_scale_keeps_0_lowest_and_cuts_the_positive_grades_at_quantiles() -> None:
    cuts, grades = scale([0, 0, 0, 0.5, 1, 2, 3, 4, 5], 0, 3)
    assert cuts == pytest.approx([5 / 3, 10 / 3])  # numpy's linear quantiles of 0.5, 1, 2, 3, 4, 5
    assert grades == [0, 0, 0, 1, 1, 2, 2, 3, 3]


def traffic_log(counts: dict[str, int]) -> str:
    """A log where query TEXT is searched counts[TEXT] times, each search showing and clicking doc x."""
    docs = []
    for text, searches in counts.items():
        for s in range(searches):
            qid = f"{text}-{s}"
            docs.append(query(qid, text))
            docs += [event("impression", qid, "x", 0, text), event("click", qid, "x", 0, text)]
    return bulk(docs)


def test_strata_by_traffic_share_and_seeded_samples(tmp_path: Path, capsys) -> None:
    # 10 searches of 100: "a" (40) and "b" (20) fill the head's 50% (b starts at 40% of the traffic), "c" and "d"
    # (10 each) the torso up to 80%, the rest the tail
    counts = {"a": 40, "b": 20, "c": 10, "d": 10, **{f"t{i}": 4 for i in range(5)}}
    text = traffic_log(counts)
    code, out, _, path = clicks(tmp_path, capsys, text, "--max-rank", "3", "--min-impressions", "4")
    assert code == 0, out
    judgments = load_judgments(path)
    strata = {q.text: q.stratum for q in judgments.queries}
    assert strata == {"a": "head", "b": "head", "c": "torso", "d": "torso", **{f"t{i}": "tail" for i in range(5)}}
    assert [q.id for q in judgments.queries][:1] == [query_id("a")]
    assert "head 2, torso 2, tail 5" in out
    code, _, _, path = clicks(
        tmp_path, capsys, text, "--max-rank", "3", "--min-impressions", "4", "--strata", "60/20/20"
    )
    assert {q.text: q.stratum for q in load_judgments(path).queries}["c"] == "torso"

    def sampled(seed: int) -> tuple[list[str], str]:
        args = ("--max-rank", "3", "--min-impressions", "4", "--sample", "2", "--seed", str(seed))
        code, _, _, path = clicks(tmp_path, capsys, text, *args)
        assert code == 0
        return [q.text for q in load_judgments(path).queries], path.read_text()

    first, file_text = sampled(7)
    assert Counter(strata[t] for t in first) == {"head": 2, "torso": 2, "tail": 2}
    assert sampled(7)[1] == file_text  # the same seed and log: the same file, byte for byte
    assert any(sampled(seed)[0] != first for seed in (1, 2, 3))
    version = load_judgments(path).version
    assert version.startswith("clicks:coec max-rank=3 min-impressions=4 actions=click:1 ")
    assert "sample=2 seed=3 log=sha256:" in version


def test_dates_bound_the_events(tmp_path: Path, capsys) -> None:
    late = [{**e, "timestamp": "2024-12-12T08:00:00Z"} if e.get("query_id") == "s2" else e for e in SMALL]
    args = ("--max-rank", "3", "--min-impressions", "1", "--model", "coec")
    code, _, _, path = clicks(tmp_path, capsys, bulk(late), *args, "--until", "2024-12-10")
    assert code == 0
    assert grades_of(path) == {"shoes": {"a": 1, "b": 0, "c": 0}}  # s1 only: a clicked at 0, b at 1 never
    code, _, _, path = clicks(tmp_path, capsys, bulk(late), *args, "--since", "2024-12-11")
    assert grades_of(path) == {"shoes": {"a": 1, "b": 1, "c": 0}}  # s2 only


# ---------------------------------------------------------------- the shared ESCI log against the workbench


def workbench_srw(path: Path, max_rank: int) -> dict[str, dict[str, float]]:
    """CoecClickModel.java's grades, written from its code without the package: the aggregation (top 10 actions,
    each its top maxRank ordinals, over ordinal <= maxRank), then the scroll over the same events building a
    ClickthroughRate per (user_query, object_id), then clicks / (ctr[rank] * impressions), "%.3f"."""
    from decimal import ROUND_HALF_UP, Decimal

    lines = path.read_text(encoding="utf-8").splitlines()
    sources = [json.loads(lines[i + 1]) for i in range(0, len(lines), 2) if '"ubi_events"' in lines[i]]
    hits = []
    for source in sources:
        ordinal = ((source.get("event_attributes") or {}).get("position") or {}).get("ordinal")
        if isinstance(ordinal, int) and ordinal <= max_rank:
            hits.append(source)
    buckets: dict[str, Counter[int]] = defaultdict(Counter)
    for hit in hits:
        buckets[hit["action_name"]][hit["event_attributes"]["position"]["ordinal"]] += 1
    click_counts: dict[int, int] = {}
    impression_counts: dict[int, int] = {}
    top_actions = sorted(buckets.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))[:10]
    for action, positions in top_actions:
        top_positions = sorted(positions.items(), key=lambda kv: (-kv[1], kv[0]))[:max_rank]
        for position, count in top_positions:
            if action.lower() == "click":
                click_counts[position] = count
            elif action.lower() == "impression":
                impression_counts[position] = count
    rank_ctr = {}
    for rank in range(max_rank):
        impressions = impression_counts.get(rank, 0)
        rank_ctr[rank] = click_counts.get(rank, 0) / impressions if impressions > 0 else 0.0
    rates: dict[str, dict[str, list[int]]] = defaultdict(dict)  # query -> doc -> [clicks, impressions, rank]
    for hit in hits:
        user_query = hit.get("user_query")
        obj = hit["event_attributes"].get("object")
        if user_query is None or obj is None or obj.get("object_id") is None:
            continue  # the NullPointerException the workbench catches and logs
        rate = rates[user_query].setdefault(obj["object_id"], [0, 0, 2**31 - 1])
        rank = hit["event_attributes"]["position"]["ordinal"]
        if hit["action_name"].lower() == "click":
            rate[0] += 1
            rate[2] = min(rate[2], rank)
        elif hit["action_name"].lower() == "impression":
            rate[1] += 1
            rate[2] = min(rate[2], rank)
    result: dict[str, dict[str, float]] = {}
    for user_query, docs in rates.items():
        result[user_query] = {}
        for doc, (n_clicks, n_impressions, rank) in docs.items():
            expected = rank_ctr.get(rank, 0.0) * n_impressions
            rating = n_clicks / expected if expected > 0 else 0.0
            text = Decimal(repr(rating)).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP)
            result[user_query][doc] = float(text)
    return result


@pytest.mark.skipif(not UBI.is_file(), reason="the shared UBI log (../shared/data/ubi-esci) is absent")
def test_srw_on_the_esci_log_equals_the_workbench_formula(tmp_path: Path, capsys) -> None:
    out = tmp_path / "srw.yaml"
    assert main(["clicks", str(UBI), "--model", "srw", "--max-rank", "20", "-o", str(out)]) == 0
    expected = workbench_srw(UBI, 20)
    assert grades_of(out) == expected
    assert sum(len(docs) for docs in expected.values()) > 1000
    assert sum(g > 0 for docs in expected.values() for g in docs.values()) > 100
    assert "946 events whose query_id has no ubi_queries document" in capsys.readouterr().err


# ---------------------------------------------------------------- a known position-bias model


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rho: Pearson's r of the ranks, ties given their mean rank."""

    def ranks(values: list[float]) -> np.ndarray:
        x = np.asarray(values, dtype=float)
        order = np.argsort(x, kind="stable")
        result = np.empty(len(x))
        result[order] = np.arange(len(x))
        for value in np.unique(x):
            result[x == value] = result[x == value].mean()
        return result

    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])


def position_biased_log(sessions: int, seed: int = 1) -> tuple[Log, dict[tuple[str, str], float]]:
    """Sessions of 20 queries x 10 documents: examination 1/(rank+1), attractiveness uniform in 0.05..0.95, and a
    ranker that mostly puts the least attractive documents first (so raw click-through rates mislead)."""
    rng = np.random.default_rng(seed)
    queries, docs = 20, 10
    alpha = rng.uniform(0.05, 0.95, (queries, docs))
    gamma = 1 / (np.arange(docs) + 1)
    asked = rng.integers(queries, size=sessions)
    orders = np.argsort(alpha[asked] - rng.normal(0, 0.5, (sessions, docs)), axis=1)
    clicked = rng.random((sessions, docs)) < gamma * alpha[asked[:, None], orders]
    texts, names = [f"query {q}" for q in range(queries)], [f"d{d}" for d in range(docs)]
    events = []
    for s, (q, order, clicks) in enumerate(zip(asked.tolist(), orders.tolist(), clicked.tolist(), strict=True)):
        text, search = texts[q], f"s{s}"
        for rank, (doc, click) in enumerate(zip(order, clicks, strict=True)):
            events.append(Event(0, 0, "impression", text, search, names[doc], rank, False, 0.0, None))
            if click:
                events.append(Event(0, 0, "click", text, search, names[doc], rank, False, 0.0, None))
    truth = {(f"query {q}", f"d{d}"): float(alpha[q, d]) for q in range(queries) for d in range(docs)}
    return Log(["synthetic"], events, {}, {}, [], [], "sha256:0"), truth


def test_coec_and_pbm_recover_attractiveness_where_raw_ctr_does_not() -> None:
    log, truth = position_biased_log(10_000)
    shown: Counter[tuple[str, str]] = Counter()
    hits: Counter[tuple[str, str]] = Counter()
    for e in log.events:
        (shown if e.action == "impression" else hits)[(e.user_query, e.object_id)] += 1  # type: ignore[index]
    pairs = sorted(truth)
    true = [truth[p] for p in pairs]
    raw = [hits[p] / shown[p] for p in pairs]
    by_coec = coec(log, log.events, 10, {"click": 1}).grades
    by_pbm = pbm(log, log.events, 10, {"click": 1}).grades
    assert spearman([by_coec[q][d] for q, d in pairs], true) >= 0.9
    assert spearman([by_pbm[q][d] for q, d in pairs], true) >= 0.9
    assert spearman(raw, true) < 0.9


def test_pbm_on_the_command_line(tmp_path: Path, capsys) -> None:
    code, out, _, path = clicks(
        tmp_path, capsys, bulk(SMALL), "--model", "pbm", "--max-rank", "3", "--min-impressions", "2"
    )
    assert code == 0, out
    grades = grades_of(path)["shoes"]
    assert set(grades) == {"a", "b", "c"}
    assert grades["a"] > grades["b"] > grades["c"]
    assert "clicks:pbm max-rank=3" in load_judgments(path).version


# ---------------------------------------------------------------- hostile logs and options (issue #36)


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        (
            bulk(SMALL) + json.dumps(event("click", "s1", "a", 0)).replace('"ordinal": 0', '"ordinal": ' + "7" * 5000),
            (),
            "ubi.ndjson:27: not NDJSON (a number of 5000 digits, more than the 4300",
        ),
        ("[" * 100_000 + "]" * 100_000 + "\n", (), "ubi.ndjson:1: not NDJSON (nested 100000 levels deep"),
        (bulk(SMALL), ("--max-rank", str(10**12)), "--max-rank: 1000000000000 is not a number of positions"),
        (bulk(SMALL), ("--max-rank", "10001"), "from 1 to 10,000"),
        (bulk(SMALL), ("--max-rank", "3", "--scale", "0-1000000"), "LOW < HIGH <= 100"),
        (bulk(SMALL), ("--max-rank", "3", "--scale", "0-" + "9" * 5000), "'0-999"),
    ],
    ids=["huge-position", "deep-json", "max-rank-10^12", "max-rank-above-bound", "scale-too-wide", "scale-huge"],
)
def test_hostile_logs_and_options_are_one_line(
    tmp_path: Path, capsys, text: str, args: tuple[str, ...], message: str
) -> None:
    code, _, err, _ = clicks(tmp_path, capsys, text, *(args or ("--max-rank", "3")))
    assert (code, err.count("\n")) == (2, 1), err
    assert err.startswith("pytest-relevance: error: ")
    assert message in err
    assert list(tmp_path.iterdir()) == [tmp_path / "ubi.ndjson"]


def test_a_timestamp_of_400_digits_is_a_bad_timestamp(tmp_path: Path, capsys) -> None:
    huge = json.dumps(event("click", "s1", "a", 0)).replace('"2024-12-10T00:00:01.000Z"', "1" * 400)
    code, _, err, _ = clicks(tmp_path, capsys, bulk(SMALL) + huge + "\n", "--max-rank", "3", "--min-impressions", "1")
    assert code == 0
    assert "1 events whose timestamp is missing or not an ISO 8601 date-time" in err
    code, _, err, _ = clicks(tmp_path, capsys, bulk(SMALL) + huge + "\n", "--max-rank", "3", "--strict")
    assert (code, err.count("\n")) == (2, 1)
    assert "and 1 other problems" in err  # the bad timestamp, beside SMALL's position out of range


@pytest.mark.parametrize("output", ["folder.yaml", "missing/judgments.yaml"])
def test_an_output_that_cannot_be_written_is_one_line_and_leaves_nothing(tmp_path: Path, capsys, output: str) -> None:
    (tmp_path / "folder.yaml").mkdir()
    log = tmp_path / "ubi.ndjson"
    log.write_text(bulk(SMALL))
    code = main(["clicks", str(log), "-o", str(tmp_path / output), "--max-rank", "3", "--min-impressions", "1"])
    err = capsys.readouterr().err
    assert (code, err.count("\n")) == (2, 1), err
    assert "is a folder" in err if output == "folder.yaml" else "does not exist" in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["folder.yaml", "ubi.ndjson"]  # no temporary file left


def renamed(documents: list[dict], names: dict[str, str]) -> list[dict]:
    return [
        {**doc, "action_name": names.get(doc["action_name"], doc["action_name"])} if "action_name" in doc else doc
        for doc in documents
    ]


@pytest.mark.parametrize("model", ["coec", "srw", "pbm"])
def test_every_model_reads_action_names_in_any_case(tmp_path: Path, capsys, model: str) -> None:
    args = ("--max-rank", "3", "--model", model, "--min-impressions", "1")
    code, *_, out = clicks(tmp_path, capsys, bulk(SMALL), *args)
    assert code == 0
    lower = grades_of(out)
    shouting = renamed(SMALL, {"click": "Click", "impression": "IMPRESSION"})
    code, *_, out = clicks(tmp_path, capsys, bulk(shouting), *args, *(("--action", "CLICK") if model != "srw" else ()))
    assert code == 0
    assert grades_of(out) == lower
    assert any(g > 0 for g in lower["shoes"].values())


@pytest.mark.parametrize("model", ["coec", "srw", "pbm"])
def test_every_model_grades_an_event_under_its_own_user_query_only(tmp_path: Path, capsys, model: str) -> None:
    # "boots" is searched as b1 (its ubi_queries text); its events carry no user_query. UBI's query_id names one
    # search, the workbench reads the event's user_query: no model grades these events, and each says so.
    untexted = [query("b1", "boots"), event("impression", "b1", "z", 0, None), event("click", "b1", "z", 0, None)]
    args = ("--max-rank", "3", "--model", model, "--min-impressions", "1")
    code, _, err, out = clicks(tmp_path, capsys, bulk(SMALL + untexted), *args)
    assert code == 0
    assert set(grades_of(out)) == {"shoes"}
    assert "2 impressions or clicks without an object id, a position ordinal or a query text" in err


def test_query_ids_come_from_the_judgments_given_so_agreement_meets_them(tmp_path: Path, capsys) -> None:
    human = tmp_path / "human.yaml"
    human.write_text("version: v1\nqueries:\n  - {id: q-shoes, text: shoes, grades: {a: 3, b: 2, c: 0}}\n")
    code, stdout, _, out = clicks(
        tmp_path, capsys, bulk(SMALL), "--max-rank", "3", "--min-impressions", "1", "--scale", "0-3",
        "--judgments", str(human),
    )  # fmt: skip
    assert code == 0
    assert [q.id for q in load_judgments(out).queries] == ["q-shoes"]
    assert "1 of the queries have their ids from" in stdout
    assert main(["agreement", str(out), str(human)]) == 0
    assert "3 (query, document) pairs graded in both" in capsys.readouterr().out
    code, *_, out = clicks(tmp_path, capsys, bulk(SMALL), "--max-rank", "3", "--min-impressions", "1")
    assert [q.id for q in load_judgments(out).queries] == [query_id("shoes")]  # without: the text's hash
