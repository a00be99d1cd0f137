"""Bad input, one case a row: each ends in one line naming the file and line or the key, never a traceback, and
leaves the baseline byte for byte as it was.

Every row starts from a project with a good baseline, changes one thing, runs pytest, and checks the exit code, the
exact message line, and the baseline file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

JUDGMENTS = """\
version: v1
queries:
  - {id: h1, text: alpha, stratum: head, grades: {a: 3, b: 1}}
  - {id: h2, text: beta, stratum: head, grades: {c: 2}}
  - {id: t1, text: gamma, stratum: tail, grades: {d: 1}}
"""
RUN = {"h1": ["a", "b"], "h2": ["c"], "t1": ["x", "d"]}
TEST = """\
import json, pathlib

def test_quality(relevance_snapshot):
    assert relevance_snapshot == json.loads((pathlib.Path(__file__).parent / "run.json").read_text())
"""
INI = "[pytest]\nrelevance_judgments = judgments.yaml\nrelevance_metrics = ndcg@10 mrr\n"
NODE = "test_rel.py::test_quality"


@dataclass
class Case:
    id: str
    message: str  # the exact line, or its end after a prefix such as "ERROR: "
    ret: int = 1
    args: tuple[str, ...] = ()
    files: dict[str, str] = field(default_factory=dict)
    edit_baseline: Callable[[dict], object] | None = None
    raw_baseline: bytes | None = None
    test: str | None = None
    update_repairs: bool = False  # --relevance-update may rewrite the entry (what the message recommends)


def _entry(edit: Callable[[dict], None]) -> Callable[[dict], object]:
    def apply(data: dict) -> dict:
        edit(data["entries"][NODE])
        return data

    return apply


def _raw(text: str) -> str:
    """A key or value written into the baseline's JSON as `text` itself, unquoted (see `_unraw`)."""
    return f"<raw:{text}>"


def _unraw(text: str) -> str:
    return re.sub(r'"<raw:((?:[^"\\]|\\.)*)>"', lambda m: json.loads(f'"{m.group(1)}"'), text)


def _overflowed(entry: dict) -> dict:
    copy = json.loads(json.dumps(entry))
    copy["strata"]["all"]["mrr"] = _raw("1e999")
    return copy


def _set(data: dict, path: str, value: object) -> None:
    *parents, last = path.split(".")
    for key in parents:
        data = data[key]
    data[last] = value


UNREACHABLE = (
    "is at or below 1/10001, the smallest p-value the sign-flip test gives (10,000 random sign flips; 2/2^n for n <= 14 "
    "changed queries), so no drop would be significant; write e.g. 0.05"
)
ABOVE_ONE = "is 1 or more; every metric is in [0, 1], so no drop could exceed it"
SETTINGS = [
    (
        "tolerance-nan",
        "relevance_tolerance = nan",
        "relevance_tolerance: tolerance 'nan' is not a finite number; a tolerance is an allowed drop, 0-1",
    ),
    (
        "tolerance-stratum-nan",
        "relevance_tolerance = 0.005 tail=nan",
        "relevance_tolerance: tolerance 'tail=nan' is not a finite number; a tolerance is an allowed drop, 0-1",
    ),
    (
        "tolerance-inf",
        "relevance_tolerance = inf",
        "relevance_tolerance: tolerance 'inf' is not a finite number; a tolerance is an allowed drop, 0-1",
    ),
    (
        "tolerance-negative",
        "relevance_tolerance = -0.1",
        "relevance_tolerance: tolerance '-0.1' is negative; a tolerance is an allowed drop, >= 0",
    ),
    (
        "tolerance-word",
        "relevance_tolerance = small",
        "relevance_tolerance: tolerance 'small' is not a number; write e.g. 0.005 tail=0.02",
    ),
    (
        "tolerance-metric-typo",
        "relevance_tolerance = 0.005 ndgc@10=0.9",
        "relevance_tolerance: override 'ndgc@10' names no stratum or metric being gated (metrics: ndcg@10, mrr); write STRATUM=, METRIC= or STRATUM.METRIC=",
    ),
    (
        "tolerance-dotted-typo",
        "relevance_tolerance = 0.005 tail.ndgc@10=0.9",
        "relevance_tolerance: override 'tail.ndgc@10' names no stratum or metric being gated (metrics: ndcg@10, mrr); write STRATUM=, METRIC= or STRATUM.METRIC=",
    ),
    (
        "tolerance-one",
        "relevance_tolerance = 1",
        f"relevance_tolerance: tolerance '1' {ABOVE_ONE}",
    ),
    (
        "tolerance-two-defaults",
        "relevance_tolerance = 0.005 0.5",
        "relevance_tolerance: tolerance '0.005 0.5' gives two defaults (0.005 and 0.5); write one, e.g. 0.005 tail=0.02",
    ),
    ("alpha-zero", "relevance_alpha = 0", "relevance_alpha: '0' is out of range: it must be in (0, 1)"),
    ("alpha-negative", "relevance_alpha = -1", "relevance_alpha: '-1' is out of range: it must be in (0, 1)"),
    ("alpha-two", "relevance_alpha = 2", "relevance_alpha: '2' is out of range: it must be in (0, 1)"),
    ("alpha-one", "relevance_alpha = 1", "relevance_alpha: '1' is out of range: it must be in (0, 1)"),
    ("alpha-nan", "relevance_alpha = nan", "relevance_alpha: 'nan' is out of range: it must be in (0, 1)"),
    ("alpha-word", "relevance_alpha = abc", "relevance_alpha: 'abc' is not a number"),
    (
        "alpha-scope",
        "relevance_alpha_scope = suite",
        "relevance_alpha_scope: 'suite' is not one of test, comparison: test bounds a test's chance of any false "
        "regression verdict by relevance_alpha, comparison each stratum x metric's",
    ),
    ("alpha-unreachable", "relevance_alpha = 5e-5", f"relevance_alpha: '5e-5' {UNREACHABLE}"),
    ("metrics-empty", "relevance_metrics = ,", "relevance_metrics: no metrics given"),
    (
        "metrics-at-zero",
        "relevance_metrics = ndcg@0",
        "relevance_metrics: bad cut-off '0' in 'ndcg@0': a cut-off is a whole number >= 1",
    ),
    (
        "metrics-at-negative",
        "relevance_metrics = ndcg@-5",
        "relevance_metrics: bad cut-off '-5' in 'ndcg@-5': a cut-off is a whole number >= 1",
    ),
    (
        "metrics-unknown",
        "relevance_metrics = nddcg@10",
        "relevance_metrics: unknown metric 'nddcg' in 'nddcg@10'; known metrics: age, alpha_ndcg, coverage, distinct, err, exposure_gini, fresh, hit, ild, judged, map, mrr, ndcg, novelty, p, recall, rprec",
    ),
    ("metrics-twice", "relevance_metrics = ndcg@10 ndcg@10", "relevance_metrics: metric 'ndcg@10' is listed twice"),
    ("min-judged-word", "relevance_min_judged = abc", "relevance_min_judged: 'abc' is not a number"),
    (
        "min-judged-range",
        "relevance_min_judged = 1.5",
        "relevance_min_judged: '1.5' is out of range: it must be in [0, 1]",
    ),
    (
        "floor-margin-nan",
        "relevance_floor_margin = nan",
        "relevance_floor_margin: 'nan' is out of range: it must be in [0, 1]",
    ),
    (
        "now-word",
        "relevance_now = tomorrow",
        "relevance_now: 'tomorrow' is not an ISO 8601 instant; write e.g. 2026-01-15T12:00:00Z",
    ),
    ("unused-mode", "relevance_unused = maybe", "relevance_unused: 'maybe' is not one of warn, fail"),
    (
        "max-cost-counter",
        "relevance_max_cost = docs_score=1.5x",
        "relevance_max_cost: 'docs_score=1.5x': no counter 'docs_score' (the counters: docs_matched, docs_scored, "
        "postings_read, expansions, rescored)",
    ),
    (
        "max-cost-form",
        "relevance_max_cost = docs_scored<2",
        "relevance_max_cost: 'docs_scored<2' is not COUNTER=FACTORx [median|p95]; write e.g. 'docs_scored=1.5x p95'",
    ),
    ("snapshot-depth-zero", "relevance_snapshot_depth = 0", "relevance_snapshot_depth: 0 must be >= 1"),
    ("max-churn-range", "relevance_max_churn = 2", "relevance_max_churn: '2' is out of range: it must be in (0, 1]"),
    ("max-churn-word", "relevance_max_churn = lots", "relevance_max_churn: 'lots' is not a number"),
    ("es-batch-zero", "relevance_es_batch = 0", "relevance_es_batch: 0 must be >= 1"),
    (
        "es-concurrency-word",
        "relevance_es_concurrency = many",
        "relevance_es_concurrency: 'many' is not a whole number",
    ),
]
FLAGS = [
    (
        "es-url-no-scheme",
        ("--relevance-engine=elasticsearch", "--relevance-es-url=localhost:9200"),
        "relevance_es_url: not an http(s) URL: write it as http://HOST:PORT or https://HOST[:PORT], e.g. http://localhost:9200",
    ),
    (
        "es-url-ftp",
        ("--relevance-engine=elasticsearch", "--relevance-es-url=ftp://files:21"),
        "relevance_es_url: not an http(s) URL: write it as http://HOST:PORT or https://HOST[:PORT], e.g. http://localhost:9200",
    ),
    ("repeat-zero", ("--relevance-repeat", "0"), "--relevance-repeat: 0 must be >= 1"),
    ("repeat-negative", ("--relevance-repeat=-3",), "--relevance-repeat: -3 must be >= 1"),
    (
        "report-suffix",
        ("--relevance-report", "out.txt"),
        "--relevance-report out.txt: the suffix names the format: .md, .json, .html or .trec (the run)",
    ),
    (
        "tolerance-flag-nan",
        ("--relevance-tolerance", "NaN"),
        "relevance_tolerance: tolerance 'NaN' is not a finite number; a tolerance is an allowed drop, 0-1",
    ),
]
MARKED = """\
import json, pathlib, pytest

@pytest.mark.relevance({args})
def test_quality(relevance_snapshot):
    assert relevance_snapshot == json.loads((pathlib.Path(__file__).parent / "run.json").read_text())
"""
MARKERS = [
    (
        "marker-now",
        "now='yesterday'",
        f"relevance: {NODE}: relevance marker now: 'yesterday' is not an ISO 8601 instant; write e.g. 2026-01-15T12:00:00Z",
    ),
    (
        "marker-metrics",
        "metrics='ndcg@0'",
        f"relevance: {NODE}: relevance marker metrics: bad cut-off '0' in 'ndcg@0': a cut-off is a whole number >= 1",
    ),
    (
        "marker-tolerance",
        "tolerance=float('nan')",
        f"relevance: {NODE}: relevance marker tolerance: tolerance 'nan' is not a finite number; a tolerance is an allowed drop, 0-1",
    ),
    (
        "marker-tolerance-mapping",
        "tolerance={'default': 5}",
        f"relevance: {NODE}: relevance marker tolerance: tolerance '5' {ABOVE_ONE}",
    ),
    (
        "marker-tolerance-huge",
        "tolerance=10**400",
        f"relevance: {NODE}: relevance marker tolerance: tolerance is too large to be a number; a tolerance is an allowed drop, 0-1",
    ),
    (
        "marker-unknown-key",
        "tolerence=0.1",
        f"relevance: {NODE}: @pytest.mark.relevance: unknown argument 'tolerence' (known: judgments, metrics, now, tolerance)",
    ),
    (
        "marker-stratum-typo",
        "tolerance='0.005 tial=0.5'",
        "relevance: relevance_tolerance: override 'tial' names no stratum or metric being gated (strata: all, head, tail; metrics: ndcg@10, mrr); write STRATUM=, METRIC= or STRATUM.METRIC=",
    ),
]
BASELINE = "relevance-baseline.json"
BASELINE_EDITS = [
    (
        "baseline-nan",
        _entry(lambda e: _set(e, "strata.head.ndcg@10", float("nan"))),
        f"relevance: {BASELINE}:*: entry '{NODE}': strata.head.ndcg@10 is NaN, not a number a baseline can hold; the file is left as it is: restore it (git checkout -- FILE) or resolve it, then run again",
    ),
    (
        "baseline-infinity",
        _entry(lambda e: _set(e, "strata.all.mrr", float("inf"))),
        f"relevance: {BASELINE}:*: entry '{NODE}': strata.all.mrr is Infinity, not a number a baseline can hold; *",
    ),
    (
        "baseline-all-nan",
        _entry(lambda e: [v.update({k: float("nan") for k in v if k != "n"}) for v in e["strata"].values()]),
        f"relevance: {BASELINE}:*: entry '{NODE}': strata.all.mrr is NaN, not a number a baseline can hold; *",
    ),
    # json reads 1e999 as an infinity and keeps the last copy of a key: written raw (see _raw), both are refused
    (
        "baseline-overflow",
        _entry(lambda e: _set(e, "strata.head.mrr", _raw("1e999"))),
        f"relevance: {BASELINE}:*: entry '{NODE}': strata.head.mrr is 1e999, not a number a baseline can hold; *",
    ),
    (
        "baseline-negative-overflow",
        _entry(lambda e: _set(e, "queries.h1.ndcg@10", _raw("-1e999"))),
        f"relevance: {BASELINE}:*: entry '{NODE}': queries.h1.ndcg@10 is -1e999, not a number a baseline can hold; *",
    ),
    (
        # an update must not print `updated` and then fail to write the file with exit 0
        "baseline-overflow-other-entry",
        lambda d: d["entries"].update({"other.py::test_x": _overflowed(d["entries"][NODE])}) or d,
        f"relevance: {BASELINE}:*: entry 'other.py::test_x': strata.all.mrr is 1e999, not a number a baseline can hold; *",
    ),
    (
        "baseline-entry-twice",
        lambda d: d["entries"].update({_raw(json.dumps(NODE)): d["entries"][NODE]}) or d,
        f"relevance: {BASELINE}:*: entry '{NODE}': written twice (a hand-resolved merge? one copy would be read and the other ignored); the file is left as it is: *",
    ),
    (
        "baseline-key-twice",
        _entry(lambda e: _set(e, "strata.head.mrr", _raw('0.5, "mrr": 1.0'))),
        f"relevance: {BASELINE}: entry '{NODE}': key 'strata.head.mrr' is written twice (a hand-resolved merge? *",
    ),
    (
        "baseline-negative",
        _entry(lambda e: _set(e, "strata.all.ndcg@10", -1)),
        f"relevance: {BASELINE}: entry '{NODE}': strata.all.ndcg@10 is -1, outside [0, 1], the range of every metric; *",
    ),
    (
        "baseline-above-one",
        _entry(lambda e: _set(e, "queries.t1.mrr", 1.5)),
        f"relevance: {BASELINE}: entry '{NODE}': queries.t1.mrr is 1.5, outside [0, 1], the range of every metric; *",
    ),
    (
        "baseline-count-negative",
        _entry(lambda e: _set(e, "strata.head.n", -2)),
        f"relevance: {BASELINE}: entry '{NODE}': strata.head.n is -2, not a count of queries; *",
    ),
    (
        "baseline-count-fraction",
        _entry(lambda e: _set(e, "strata.head.n", 1.5)),
        f"relevance: {BASELINE}: entry '{NODE}': strata.head.n is 1.5, not a count of queries; *",
    ),
    (
        "baseline-rankings-depth",
        _entry(lambda e: _set(e, "rankings_depth", "10")),
        f"relevance: {BASELINE}: entry '{NODE}': rankings_depth is '10', not a number of ranked ids; *",
    ),
    (
        "baseline-ranking-string",
        _entry(lambda e: _set(e, "rankings.h1", "a b")),
        f"relevance: {BASELINE}: entry '{NODE}': rankings.h1 is not a list of document ids; *",
    ),
    (
        "baseline-metric-removed",
        _entry(lambda e: e["strata"]["tail"].pop("ndcg@10")),
        f"relevance: {BASELINE}: entry '{NODE}' has no strata.tail.ndcg@10: the file was edited by hand; restore it (git checkout -- FILE) or re-baseline with --relevance-update",
    ),
    (
        "baseline-strata-empty",
        _entry(lambda e: _set(e, "strata", {})),
        f"relevance: {BASELINE}: entry '{NODE}' has no strata.all.ndcg@10, strata.all.mrr, strata.head.ndcg@10, ...: the file was edited by hand; *",
    ),
    (
        "baseline-entry-list",
        lambda d: d["entries"].update({NODE: [1, 2]}) or d,
        f"relevance: {BASELINE}: entry '{NODE}': the entry is a list, not an object; *",
    ),
    (
        "baseline-string-value",
        _entry(lambda e: _set(e, "strata.head.mrr", "0.9")),
        f"relevance: {BASELINE}: entry '{NODE}': strata.head.mrr is '0.9', not a number; *",
    ),
    (
        "baseline-bool-value",
        _entry(lambda e: _set(e, "strata.head.mrr", True)),
        f"relevance: {BASELINE}: entry '{NODE}': strata.head.mrr is True, not a number; *",
    ),
    (
        "baseline-no-strata",
        _entry(lambda e: e.pop("strata")),
        f"relevance: {BASELINE}: entry '{NODE}': 'strata' is missing or not an object; *",
    ),
    (
        "baseline-no-tolerance",
        _entry(lambda e: e.pop("tolerance")),
        f"relevance: {BASELINE}: entry '{NODE}': 'tolerance' is missing or not a string; *",
    ),
    (
        "baseline-entries-list",
        lambda d: _set(d, "entries", []),
        f"relevance: {BASELINE}: not a pytest-relevance baseline (format 1); *",
    ),
    (
        "baseline-query-string",
        _entry(lambda e: _set(e, "queries.h1", "high")),
        f"relevance: {BASELINE}: entry '{NODE}': queries.h1 is not an object; *",
    ),
]
RAW_BASELINES = [
    (
        "baseline-not-utf8",
        b'{"pytest-relevance": 1, "entries": {"\xff": 1}}\n',
        f"relevance: {BASELINE}: not UTF-8 text (byte 37); *",
    ),
    (
        "baseline-conflict",
        b'{"pytest-relevance": 1,\n<<<<<<< HEAD\n"entries": {}\n=======\n',
        f"relevance: {BASELINE}:2: merge-conflict markers in the baseline; *",
    ),
    (
        "baseline-truncated",
        b'{"pytest-relevance": 1, "entries": {\n  "x": {',
        f"relevance: {BASELINE}:2: not valid JSON (*); *",
    ),
]
J_EDITS = [
    # (id, old text in JUDGMENTS, new text, the message after "relevance: judgments.yaml:")
    (
        "judgments-tagged-text",
        "text: alpha",
        "text: !!timestamp alpha",
        "3: query 'h1': 'text' is tagged !!timestamp, but it is text as written: remove the tag",
    ),
    (
        "judgments-tagged-grade",
        "{c: 2}",
        "{c: !!binary zz}",
        "4: query 'h2', document 'c': 'zz' cannot be read as !!binary: correct the value or remove the tag",
    ),
    ("judgments-anchored-null-text", "text: beta", "text: &t null", "4: query 'h2': missing 'text' (*)"),
    (
        "judgments-params-list",
        "stratum: tail,",
        "stratum: tail, params: [],",
        "5: query 't1': 'params' must be a mapping of template parameters, not []",
    ),
    (
        "judgments-merge-key",
        "{c: 2}",
        "{<<: {c: 2}}",
        "4: query 'h2': '<<' is a YAML merge key, which judgments do not expand: write the keys out (*)",
    ),
    (
        "judgments-stratum-all",
        "stratum: tail",
        "stratum: all",
        "5: query 't1': stratum 'all' is the name of the row over all queries: name the stratum otherwise",
    ),
    (
        "judgments-stratum-metric",
        "stratum: tail",
        "stratum: ndcg@10",
        "5: query 't1': stratum 'ndcg@10' reads as a metric (a tolerance override of that name would apply to the "
        "stratum and to the metric): name the stratum otherwise",
    ),
]
# an entry that lacks what a setting needs would switch that gate off: refused, with the command that re-baselines
NEEDS = "the file was edited by hand (or predates the setting); restore it (git checkout -- FILE) or re-baseline: "
NEEDS += f"pytest --relevance-update '{NODE}' --relevance-reason '<why>'"
SETTING_NEEDS = [
    (
        "baseline-alpha-no-queries",
        ("-o", "relevance_alpha=0.5"),
        _entry(lambda e: _set(e, "queries", {})),
        f"relevance: {BASELINE}: entry '{NODE}' has no per-query values for 3 of 3 queries (h1, h2, t1), which "
        f"relevance_alpha tests: {NEEDS}",
    ),
    (
        "baseline-alpha-query-value-removed",
        ("-o", "relevance_alpha=0.5"),
        _entry(lambda e: e["queries"]["t1"].pop("mrr")),
        f"relevance: {BASELINE}: entry '{NODE}' has no per-query values for 1 of 3 queries (t1), which relevance_alpha "
        f"tests: {NEEDS}",
    ),
    (
        "baseline-churn-no-rankings",
        ("-o", "relevance_max_churn=0.2"),
        _entry(lambda e: _set(e, "rankings", {})),
        f"relevance: {BASELINE}: entry '{NODE}' has no rankings for 3 of 3 queries (h1, h2, t1), which "
        f"relevance_max_churn compares: {NEEDS}",
    ),
]
CASES = (
    [Case(i, f"ERROR: {m}", ret=4, args=("-o", line.replace(" = ", "=", 1))) for i, line, m in SETTINGS]
    + [Case(i, f"ERROR: {m}", ret=4, args=a) for i, a, m in FLAGS]
    + [Case(i, m, test=MARKED.format(args=a)) for i, a, m in MARKERS]
    + [Case(i, m, edit_baseline=edit, update_repairs="has no" in m) for i, edit, m in BASELINE_EDITS]
    + [Case(i, m, raw_baseline=raw) for i, raw, m in RAW_BASELINES]
    + [Case(i, m, args=a, edit_baseline=edit, update_repairs=True) for i, a, edit, m in SETTING_NEEDS]
    + [
        Case(i, f"relevance: judgments.yaml:{m}", files={"judgments.yaml": JUDGMENTS.replace(old, new, 1)})
        for i, old, new, m in J_EDITS
    ]
)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".yaml", judgments=JUDGMENTS)
    pytester.makeini(INI)
    pytester.makepyfile(test_rel=TEST)
    (pytester.path / "run.json").write_text(json.dumps(RUN))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--relevance-update")
    assert result.ret == 0, result.stdout.str()
    return pytester


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_the_baseline_is_untouched(project: pytest.Pytester, case: Case) -> None:
    path = project.path / BASELINE
    if case.test:
        project.makepyfile(test_rel=case.test)
    if case.edit_baseline:
        path.write_text(_unraw(json.dumps(case.edit_baseline(json.loads(path.read_text())), indent=2, sort_keys=True)))
    if case.raw_baseline is not None:
        path.write_bytes(case.raw_baseline)
    for name, content in case.files.items():
        (project.path / name).write_text(content)
    before = path.read_bytes()
    for args in (case.args, (*case.args, "--relevance-update")):
        result = _run(project, *args)
        output = result.stdout.lines + result.stderr.lines
        assert "Traceback" not in "\n".join(output)
        if case.update_repairs and "--relevance-update" in args:
            assert result.ret == 0
            assert json.loads(path.read_text())["entries"][NODE]["strata"]["tail"]["ndcg@10"] == 0.6309
            continue
        assert result.ret == case.ret, "\n".join(output)
        assert [line for line in output if _matches(line, case.message)], "\n".join(output)
        assert path.read_bytes() == before


def _matches(line: str, pattern: str) -> bool:
    """The whole line equals the pattern, where `*` stands for any text (and nothing else is special)."""
    regex = ".*".join(re.escape(part) for part in pattern.split("*"))
    return re.fullmatch(regex, line.strip()) is not None


# ---------------------------------------------------------------- the embedded engine's inputs, on the demo project

Q = "fixtures/query.yaml"
C = "fixtures/corpus.ndjson"
J = "fixtures/judgments.yaml"
FS = "query.function_score"
DEMO_CASES = [
    # (id, file, old text, new text, the exact line)
    (
        "template-boost-word",
        Q,
        "tie_breaker: 0.3",
        "tie_breaker: 0.3\n        boost: high",
        f"relevance: {Q}: query 'q001': {FS}.query.multi_match.boost: 'high' is not a number",
    ),
    (
        "template-decay-one",
        Q,
        "decay: 0.5",
        "decay: 1",
        f"relevance: {Q}: query 'q001': {FS}.functions[0].gauss.released.decay: 1: the decay must be between 0 and 1 (exclusive)",
    ),
    (
        "template-scale-zero",
        Q,
        "scale: 365d",
        "scale: 0d",
        f"relevance: {Q}: query 'q001': {FS}.functions[0].gauss.released.scale: '0d': the scale must be greater than 0",
    ),
    (
        "template-log-of-zero",
        Q,
        "modifier: ln2p",
        "modifier: log",
        f"relevance: {Q}: query 'q004': {FS}.functions[1].field_value_factor: log(0.0) for document 'p0659' is not a number; choose a modifier defined there (log1p, ln2p, ...) or filter such documents out",
    ),
    (
        "template-match-without-query",
        Q,
        'multi_match:\n        query: "{{query}}"\n        fields: ["title^3", "description"]\n        type: best_fields\n        tie_breaker: 0.3',
        "match:\n        title: {operator: and}",
        f"relevance: {Q}: query 'q001': {FS}.query.match: needs 'query' (the text to search for)",
    ),
    (
        "template-placeholder-typo",
        Q,
        '"{{query}}"',
        '"{{querry}}"',
        f"relevance: {Q}: query 'q001': the template uses {{{{querry}}}} but the query has no param 'querry'; add it under the query's params in the judgments",
    ),
    (
        "template-unknown-body-key",
        Q,
        "query:\n  function_score",
        "query2: {}\nquery:\n  function_score",
        f"relevance: {Q}: query 'q001': query2: Elasticsearch 8 refuses the key: \"Unknown key for a START_OBJECT in [query2].\"",
    ),
    (
        "template-key-twice",
        Q,
        "tie_breaker: 0.3",
        "tie_breaker: 0.3\n        type: most_fields",
        f"relevance: {Q}:11: key 'type' appears twice in {FS}.query.multi_match (first at line 9)",
    ),
    (
        "index-key-twice",
        "fixtures/index.yaml",
        "    brand: {type: keyword}",
        "    brand: {type: keyword}\n    title: {type: keyword}",
        "relevance: fixtures/index.yaml:14: key 'title' appears twice in mappings.properties (first at line 7)",
    ),
    (
        "corpus-number-word",
        C,
        '"popularity": ',
        '"popularity": "lots", "x": ',
        f"relevance: {C}:1: document 'p0001': field 'popularity' is mapped as number but holds \"lots\" (could not convert string to float: 'lots')",
    ),
    (
        "corpus-object-for-text",
        C,
        '"title": ',
        '"title": {"en": "x"}, "y": ',
        f"relevance: {C}:1: document 'p0001': field 'title' is mapped as text but holds {{\"en\": \"x\"}} (an object)",
    ),
    (
        "corpus-bad-date",
        C,
        '"released": "',
        '"released": "yesterday", "z": "',
        f"relevance: {C}:1: document 'p0001': field 'released' is mapped as date but holds \"yesterday\" (*)",
    ),
    (
        "grade-infinite",
        J,
        "grades: {p0043: 2",
        "grades: {p0043: .inf",
        f"relevance: {J}:4: query 'q001', document 'p0043': grade inf is not a grade; grades are finite numbers from 0 to 1000",
    ),
    (
        "grade-nan",
        J,
        "grades: {p0043: 2",
        "grades: {p0043: .nan",
        f"relevance: {J}:4: query 'q001', document 'p0043': grade nan is not a grade; grades are finite numbers from 0 to 1000",
    ),
    (
        "grade-huge",
        J,
        "grades: {p0043: 2",
        "grades: {p0043: 1e308",
        f"relevance: {J}:4: query 'q001', document 'p0043': grade '1e308' is not a number (use 0, 1, 2, 3...)",
    ),
    (
        "grade-negative",
        J,
        "grades: {p0043: 2",
        "grades: {p0043: -2",
        f"relevance: {J}:4: query 'q001', document 'p0043': grade -2 is negative; grades are >= 0 (0 = irrelevant)",
    ),
]
RAW_DEMO_CASES = [
    ("corpus-not-utf8", C, b"\xff\xfe\n", f"relevance: {C}:1123: not UTF-8 text (byte 0xff): save the file as UTF-8"),
    (
        "judgments-not-utf8",
        J,
        b'  - {id: q999, text: "caf\xe9", grades: {p0001: 1}}\n',
        f"relevance: {J}:169: not UTF-8 text (byte 0xe9): save the file as UTF-8",
    ),
]


@pytest.fixture
def demo_project(demo: pytest.Pytester) -> pytest.Pytester:
    demo.makepyfile(
        test_gate="def test_demo_search_quality(relevance_index, relevance_snapshot):\n"
        "    assert relevance_snapshot == relevance_index.run()\n"
    )
    assert _run(demo, "--relevance-update").ret == 0
    return demo


def _check_demo(project: pytest.Pytester, message: str) -> None:
    path = project.path / BASELINE
    before = path.read_bytes()
    for args in ((), ("--relevance-update",)):
        result = _run(project, *args)
        output = result.stdout.lines + result.stderr.lines
        assert result.ret == 1, "\n".join(output)
        assert [line for line in output if _matches(line, message)], "\n".join(output)
        assert "Traceback" not in "\n".join(output)
        assert path.read_bytes() == before


@pytest.mark.parametrize(("file", "old", "new", "message"), [c[1:] for c in DEMO_CASES], ids=[c[0] for c in DEMO_CASES])
def test_bad_engine_input_is_one_line(
    demo_project: pytest.Pytester, file: str, old: str, new: str, message: str
) -> None:
    path = demo_project.path / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    _check_demo(demo_project, message)


@pytest.mark.parametrize(
    ("file", "tail", "message"), [c[1:] for c in RAW_DEMO_CASES], ids=[c[0] for c in RAW_DEMO_CASES]
)
def test_undecodable_files_name_the_file_and_line(
    demo_project: pytest.Pytester, file: str, tail: bytes, message: str
) -> None:
    with (demo_project.path / file).open("ab") as handle:
        handle.write(tail)
    _check_demo(demo_project, message)


def test_the_suite_covers_at_least_sixty_distinct_cases() -> None:
    ids = [c.id for c in CASES] + [c[0] for c in DEMO_CASES] + [c[0] for c in RAW_DEMO_CASES]
    assert len(set(ids)) == len(ids) >= 60
