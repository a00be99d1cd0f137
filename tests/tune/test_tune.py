"""`pytest-relevance tune`: the space, the split, the corrected paired test, and the command on generated projects."""

from __future__ import annotations

import itertools
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pytest_relevance.cli.commands import main
from pytest_relevance.errors import RelevanceInputError
from pytest_relevance.inputs.templates import bind, placeholders
from pytest_relevance.judgments.model import Judgments, Query
from pytest_relevance.tune.correction import family_test, holm
from pytest_relevance.tune.space import parse_space
from pytest_relevance.tune.split import split

# ---------------------------------------------------------------- the space


def test_ranges_lists_and_current_values_are_read(tmp_path: Path) -> None:
    space = parse_space("title_boost=1..3 step 0.5; tie=0,0.3,0.7 current 0.3; msm=1,2,75%; n=2..4", "x", tmp_path)
    boost, tie, msm, n = space.params
    assert boost.values == (1.0, 1.5, 2.0, 2.5, 3.0) and boost.current is None
    assert tie.values == (0, 0.3, 0.7) and tie.current == 0.3
    assert msm.values == (1, 2, "75%")
    assert n.values == (2, 3, 4) and all(isinstance(v, int) for v in n.values)
    assert space.size == 5 * 3 * 3 * 3
    assert [space.point(i) for i in range(space.size)] == list(space.grid())
    assert space.placeholders() == {"tie": 0.3}


def test_a_step_of_a_tenth_lands_on_the_written_values(tmp_path: Path) -> None:
    """Decimal steps: 0.1 * 3 is 0.30000000000000004 in floats; the grid holds 0.3, as the user wrote it."""
    (param,) = parse_space("tie=0..1 step 0.1", "x", tmp_path).params
    assert param.values[3] == 0.3 and param.values[-1] == 1.0 and len(param.values) == 11


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no parameters to tune"),
        ("boost", "is not NAME=SPEC"),
        ("boost=1..2; boost=3,4", "given twice"),
        ("query=1,2", "filled per query by the gate"),
        ("boost=1.5..3", "needs a step"),
        ("boost=3..1", "is empty"),
        ("boost=1..2 step 0", "is empty"),
        ("boost=0..1 step 0.00001", "has 100,001 values"),
        ("boost=a..b step 1", "'a' is not a number"),
        ("tie=1,2,1", "lists a value twice"),
        ("template=missing.yaml", "file missing.yaml not found"),
    ],
)
def test_a_bad_space_names_the_parameter_and_what_to_write(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(RelevanceInputError, match=message):
        parse_space(text, "relevance_tune", tmp_path)


def test_bind_fills_the_named_placeholders_with_their_type_and_leaves_the_rest() -> None:
    template = {
        "query": {"match": {"title": {"query": "{{query}}", "boost": "{{ b }}", "minimum_should_match": "{{msm}}"}}},
        "_name": "boost {{b}} for {{who}}",
    }
    bound = bind(template, {"b": 2.5, "msm": "75%"})
    assert bound["query"]["match"]["title"] == {"query": "{{query}}", "boost": 2.5, "minimum_should_match": "75%"}
    assert bound["_name"] == "boost 2.5 for {{who}}"
    assert placeholders(template) == {"query", "b", "msm", "who"}
    assert template["query"]["match"]["title"]["boost"] == "{{ b }}"  # the template itself is left as it was


def test_the_patch_text_writes_numbers_bare_and_text_in_its_quotes() -> None:
    from pytest_relevance.cli.tune import substitute

    text = 'boost: "{{b}}"\nmsm: "{{msm}}"\nname: "x {{b}} y"\nraw: {{b}}\n'
    assert substitute(text, {"b": 2.5, "msm": "75%"}) == 'boost: 2.5\nmsm: "75%"\nname: "x 2.5 y"\nraw: 2.5\n'


def test_the_patch_changes_only_the_values_when_the_variant_is_a_commented_copy() -> None:
    from pytest_relevance.cli.tune import carried

    current = "# the live template\nquery:\n  fields: ['title^3', body]\n  tie_breaker: 0.3\n  other: 1\n"
    variant = "# a copy to tune\nquery:\n  fields: ['title^{{b}}', body]\n  tie_breaker: '{{tie}}'\n  other: 2\n"
    assert carried(current, variant, {"b": 5, "tie": 0.7}) == current.replace("^3", "^5").replace("0.3", "0.7")
    # a placeholder line the current file has no counterpart of: the whole variant, filled
    assert carried("query: {}\n", variant, {"b": 5, "tie": 0.7}).startswith("# a copy to tune\n")


# ---------------------------------------------------------------- the split


def _judgments(n: int, strata: dict[str, int]) -> Judgments:
    names = [name for name, count in strata.items() for _ in range(count)]
    return Judgments(tuple(Query(f"q{i}", f"t{i}", names[i], {}, {"a": 1}) for i in range(n)), "v1", "j.yaml")


def test_the_split_is_seeded_disjoint_and_has_every_stratum_on_both_sides() -> None:
    judgments = _judgments(23, {"head": 20, "tail": 3})
    parts = split(judgments, 0.5, 7)
    assert parts == split(judgments, 0.5, 7) and parts != split(judgments, 0.5, 8)
    assert parts.tune.isdisjoint(parts.held_out) and len(parts.tune | parts.held_out) == 23
    for stratum in ("head", "tail"):
        ids = {q.id for q in judgments.queries if q.stratum == stratum}
        assert ids & parts.tune and ids & parts.held_out
    assert len(parts.tune & {q.id for q in judgments.queries if q.stratum == "head"}) == 10


@pytest.mark.parametrize(("n", "fraction", "message"), [(10, 1.0, "strictly between"), (3, 0.5, "at least 2")])
def test_a_split_that_leaves_a_part_empty_is_refused(n: int, fraction: float, message: str) -> None:
    with pytest.raises(RelevanceInputError, match=message):
        split(_judgments(n, {"all": n}), fraction, 0)


# ---------------------------------------------------------------- the corrected test


def _exact_sign_flip_p(deltas: list[float]) -> float:
    """The two-sided sign-flip p by enumerating every sign pattern: an independent reference."""
    observed = abs(sum(deltas)) - 1e-12
    patterns = list(itertools.product((1, -1), repeat=len(deltas)))
    return sum(abs(sum(s * d for s, d in zip(signs, deltas, strict=True))) >= observed for signs in patterns) / len(
        patterns
    )


def test_one_column_is_the_gate_sign_flip_test() -> None:
    deltas = [0.3, 0.1, -0.05, 0.2, 0.15, 0.0, 0.25, -0.1, 0.05, 0.12]
    tested = family_test(np.array(deltas)[:, None], np.array([10]), 0.05, "max-t", 1)
    assert tested.p[0] == pytest.approx(_exact_sign_flip_p(deltas), abs=0.01)
    assert tested.p_adjusted[0] == tested.p[0]
    assert tested.delta[0] == pytest.approx(sum(deltas) / 10)


def test_max_t_pays_nothing_for_a_duplicate_variant_and_holm_pays_double() -> None:
    """Max-T keeps the dependence between variants: a variant tried twice is one test, not two."""
    rng = random.Random(3)
    column = [rng.gauss(0.04, 0.1) for _ in range(30)]
    deltas = np.array([column, column]).T
    max_t = family_test(deltas, np.array([30, 30]), 0.05, "max-t", 1)
    by_holm = family_test(deltas, np.array([30, 30]), 0.05, "holm", 1)
    assert max_t.p_adjusted[0] == max_t.p[0]
    assert by_holm.p_adjusted[0] == pytest.approx(min(1.0, 2 * by_holm.p[0]))


def test_holm_matches_a_hand_computed_step_down() -> None:
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted 0.005, 0.01, 0.03, 0.04 -> 4 * 0.005, 3 * 0.01, 2 * 0.03, 1 * 0.04, made non-decreasing
    assert holm(p).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_the_interval_excludes_zero_where_the_adjusted_p_is_below_alpha() -> None:
    rng = np.random.default_rng(5)
    deltas = rng.normal(0.0, 0.1, size=(40, 30)) + np.linspace(0, 0.08, 30)[None, :]
    tested = family_test(deltas, np.full(30, 40), 0.05, "max-t", 2)
    excludes = (tested.delta - tested.half_width > 0) | (tested.delta + tested.half_width < 0)
    agree = excludes == (tested.p_adjusted <= 0.05)
    assert agree.mean() >= 0.9  # the rounds' granularity aside
    assert (tested.p_adjusted >= tested.p - 1e-12).all()


# ---------------------------------------------------------------- the command on a generated project

WORDS = [
    "hiking",
    "boots",
    "trail",
    "shoes",
    "rain",
    "jacket",
    "tent",
    "sleeping",
    "bag",
    "camping",
    "stove",
    "sneakers",
]
FILLER = ["the", "a", "of", "for", "and", "with"]


def _project(root: Path, queries: int = 40) -> None:
    """Titles carry the signal (the document a query wants has both its words in the title), bodies are noise: a
    template that weights the title more is really better."""
    rng = random.Random(11)
    docs, judged = [], []
    for i in range(queries):
        words = rng.sample(WORDS, 2)
        docs.append({"id": f"t{i}", "title": " ".join(words), "body": " ".join(rng.sample(FILLER, 3))})
        docs.append({"id": f"n{i}", "title": " ".join(rng.sample(FILLER, 2)), "body": " ".join(words * 3)})
        judged.append(f"  - {{id: q{i:02d}, text: {' '.join(words)}, grades: {{t{i}: 3, n{i}: 0}}}}")
    rel = root / "rel"
    rel.mkdir()
    (rel / "corpus.ndjson").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (rel / "judgments.yaml").write_text("version: v1\nqueries:\n" + "\n".join(judged) + "\n")
    (rel / "index.yaml").write_text("mappings:\n  properties:\n    title: {type: text}\n    body: {type: text}\n")
    body = "query:\n  bool:\n    should:\n      - match: {{title: {{query: '{{{{query}}}}', boost: {title}}}}}\n" \
        "      - match: {{body: {{query: '{{{{query}}}}', boost: 1}}}}\n"  # fmt: skip
    (rel / "query.yaml").write_text(body.format(title="0.01"))
    (rel / "query.tune.yaml").write_text("# the copy to tune\n" + body.format(title="'{{title_boost}}'"))
    (root / "pytest.ini").write_text(
        "[pytest]\nrelevance_judgments = rel/judgments.yaml\nrelevance_corpus = rel/corpus.ndjson\n"
        "relevance_index_config = rel/index.yaml\nrelevance_query = rel/query.yaml\n"
        "relevance_metrics = ndcg@10 mrr@10\n"
        "relevance_tune = template=rel/query.tune.yaml; title_boost=0.01,1,3,10\n"
    )


def _tune(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["tune", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_tune_finds_a_real_gain_and_reports_it_held_out(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _tune(capsys, "--format", "json", "--seed", "4")
    assert code == 0
    model = json.loads(out)
    assert model["queries"] == {"tune": 20, "held_out": 20}
    assert [t["params"]["title_boost"] for t in model["trials"]] == [0.01, 1, 3, 10]
    assert all(set(t["values"]) == {"tune", "held_out"} and "all" in t["judged"] for t in model["trials"])
    assert (
        model["current"]["values"]["tune"]["all"]["ndcg@10"] == model["trials"][0]["values"]["tune"]["all"]["ndcg@10"]
    )
    winner = model["winner"]
    assert winner["params"]["title_boost"] > 0.01
    for part in ("in_sample", "held_out"):
        assert set(winner[part]) == {"delta", "ci", "p", "p_adjusted"}
        assert winner[part]["ci"][0] <= winner[part]["delta"] <= winner[part]["ci"][1]
    assert winner["held_out"]["delta"] > 0.2 and winner["held_out"]["p_adjusted"] <= 0.05
    assert model["better"] is True
    assert model["family"] == 4 * 1 * 2  # variants x groups x metrics
    assert "-      - match: {title: {query: '{{query}}', boost: 0.01}}" in model["patch"]
    # the same seed, the same report
    assert json.loads(_tune(capsys, "--format", "json", "--seed", "4")[1]) == model


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_patch_applies_to_the_project(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = json.loads(_tune(capsys, "--format", "json")[1])
    (project / "winner.patch").write_text(model["patch"])
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "apply", "winner.patch"], cwd=project, check=True)
    boost = model["winner"]["params"]["title_boost"]
    assert f"boost: {boost}}}" in (project / "rel" / "query.yaml").read_text()
    assert "# the copy to tune" not in model["patch"]  # only the values change


def test_a_sweep_of_noise_is_never_better(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A parameter that changes nothing ranks the same in every variant: nothing to declare."""
    tune = project / "rel" / "query.tune.yaml"
    tune.write_text(
        tune.read_text().replace("'{{title_boost}}'", "0.01").replace("boost: 1}", "boost: 1, _name: '{{x}}'}")
    )
    code, out, _ = _tune(capsys, "--format", "json", "--param", "template=rel/query.tune.yaml", "--param", "x=a,b,c")
    model = json.loads(out)
    assert code == 0 and model["better"] is False
    assert model["winner"]["held_out"] == {"delta": 0.0, "ci": [0.0, 0.0], "p": 1.0, "p_adjusted": 1.0}


def test_the_table_md_and_pool(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _tune(capsys, "--pool", "pool.csv", "--strategy", "random", "--trials", "3", "--seed", "2")
    assert code == 0
    assert out.splitlines()[0].startswith("tune: 3 variants (random), objective all.ndcg@10, 20 queries to tune on")
    assert "in-sample (tune), 20 queries" in out and "held-out, 20 queries" in out and "judged@10" in out
    assert "wrote pool.csv" in out and (project / "pool.csv").read_text().startswith("query_id,query,stratum,doc_id")
    code, out, _ = _tune(capsys, "--format", "md")
    assert out.startswith("### pytest-relevance tune: a better query (4 variants, grid)")
    assert "| held-out, 20 queries |" in out and "```diff" in out


def test_tpe_runs_seeded_within_its_budget(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("optuna")
    args = ("--strategy", "tpe", "--trials", "3", "--format", "json", "--param", "template=rel/query.tune.yaml",
            "--param", "title_boost=0..10 step 0.5")  # fmt: skip
    model = json.loads(_tune(capsys, *args)[1])
    assert len(model["trials"]) == 3 and model["strategy"] == "tpe"
    assert json.loads(_tune(capsys, *args)[1])["trials"] == model["trials"]


def test_tpe_without_optuna_is_one_line(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "optuna", None)
    code, out, err = _tune(capsys, "--strategy", "tpe")
    assert code == 2 and out == ""
    assert err == "pytest-relevance: error: --strategy tpe: needs optuna: pip install 'pytest-relevance[tune]'\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--param", "template=rel/query.tune.yaml", "--param", "tie=0,1"), "parameter 'tie' is no placeholder"),
        (("--param", "title_boost=1,2"), "parameter 'title_boost' is no placeholder of the template (rel/query.yaml"),
        (("--trials", "2"), "--trials: the grid has 4 points and the budget is 2"),
        (("--split", "0"), "--split: 0 is not a share strictly between 0 and 1"),
        (("--objective", "ndcg@5"), "--objective: 'ndcg@5' names no per-query metric"),
        (("--alpha", "0"), "--alpha: 0 is not a level"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    code, out, err = _tune(capsys, *args)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert message in err


def test_a_current_template_with_the_placeholder_needs_its_current_value(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    query = project / "rel" / "query.yaml"
    query.write_text((project / "rel" / "query.tune.yaml").read_text())
    code, _, err = _tune(capsys, "--param", "title_boost=1,3")
    assert code == 2 and "add 'current VALUE' to its spec" in err
    code, _, err = _tune(capsys, "--param", "template=rel/query.tune.yaml", "--param", "title_boost=1,3")
    assert code == 2 and "add 'current VALUE' to its spec" in err  # the variants in a copy: the same need
    code, out, _ = _tune(capsys, "--param", "title_boost=1,3 current 0.01", "--format", "json")
    model = json.loads(out)
    assert code == 0 and model["current"]["params"] == {"title_boost": 0.01} and model["better"] is True


def test_progress_is_one_rewritten_line_on_a_terminal_and_nothing_in_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from pytest_relevance.cli.tune import progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream, shown in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        progress(1, 2, "b=1", 0.5)
        progress(2, 2, "b=2", 0.25)
        text = stream.getvalue()
        assert (
            text == "\rtune: trial 1/2  b=1  tune score 0.5000\033[K\rtune: trial 2/2  b=2  tune score 0.2500\033[K\n"
        ) is shown
        assert shown or text == ""


def test_an_objective_in_a_stratum_chooses_by_that_stratum() -> None:
    """`--objective tail.ndcg@10`: the variant best on the tail wins, though another is best over all queries."""
    from pytest_relevance.evaluation.evaluation import Evaluation
    from pytest_relevance.metrics.ranking import parse_metrics
    from pytest_relevance.tune.sweep import Trial, decide, objective

    judgments = _judgments(8, {"head": 4, "tail": 4})
    metrics = parse_metrics("ndcg@10")

    def evaluation(head: float, tail: float) -> Evaluation:
        values = {q.id: {"ndcg@10": head if q.stratum == "head" else tail} for q in judgments.queries}
        return Evaluation(metrics, values, {}, {}, {})

    space = parse_space("v=1,2", "x", Path())
    trials = [Trial({"v": 1}, evaluation(0.9, 0.2)), Trial({"v": 2}, evaluation(0.5, 0.4))]
    parts = split(judgments, 0.5, 0)
    for text, winner in (("ndcg@10", 1), ("tail.ndcg@10", 2)):
        goal = objective(metrics, text, list(judgments.groups))
        model = decide("grid", space, evaluation(0.5, 0.3), trials, judgments, parts, goal, 0.05, "max-t", 0, 10)
        assert model["winner"]["trial"] == winner and model["objective"] == goal.spec
