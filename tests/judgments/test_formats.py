"""`pytest-relevance import` / `export`: other tools' judgment formats, read as each tool reads them, round-tripped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_relevance.cli.commands import main
from pytest_relevance.judgments.clicks import query_id
from pytest_relevance.judgments.model import load_judgments

DATA = Path(__file__).parent.parent / "data" / "formats"
ESCI = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "ubi-esci" / "esci_us_judgments.json"
FIXTURES = {
    "quepid": "quepid_ratings.csv",
    "rre": "rre_ratings.json",
    "rank-eval": "rank_eval.json",
    "srw": "srw_judgments.json",
    "trec": "trec.qrels",
}


def imported(tmp_path: Path, fmt: str, source: Path, name: str = "j.yaml", *extra: str) -> dict:
    out = tmp_path / name
    topics = ("--topics", str(DATA / "trec_topics.tsv")) if fmt == "trec" and not extra else extra
    assert main(["import", fmt, str(source), "-o", str(out), *topics]) == 0
    return {q.id: (q.text, q.stratum, dict(q.grades)) for q in load_judgments(out).queries}


EXPECTED = {
    "quepid": {
        query_id("star wars"): ("star wars", None, {"11": 3, "1891": 2, "1892": 0}),
        query_id("-1 thing"): ("-1 thing", None, {"42": 1}),  # Quepid's make_csv_safe space taken off
        query_id("star trek, the motion picture"): ("star trek, the motion picture", None, {"152": 3}),
        query_id("star trek"): ("star trek", None, {}),
    },
    "rre": {
        query_id("fender"): ("fender", None, {"1": 3, "2": 3}),
        query_id("Fender bass"): ("Fender bass", None, {"1": 3, "2": 3}),
        query_id("jazz"): ("jazz", None, {"5": 2}),  # the group's relevant documents
        query_id("Jazz Bass"): ("Jazz Bass", None, {"5": 3, "6": 3, "7": 1}),  # its own, gain -> [docs]
    },
    "rank-eval": {
        "amsterdam_query": ("amsterdam", None, {"doc1": 0, "doc2": 3, "doc3": 1}),
        "berlin_query": ("berlin", None, {"doc1": 1}),  # the template's query_string param
    },
    "srw": {
        query_id("metal frame"): ("metal frame", None, {"B071XJXHPN": 1, "B097Q69V1B": 0.9, "B078GJZ7G4": 0}),
        query_id("t towels kitchen"): ("t towels kitchen", None, {"B07NCQWCQS": 100}),
    },
    "trec": {"q1": ("cheap flights", "head", {"d1": 2, "d2": 0}), "q2": ("late night ramen", "tail", {"d3": 1})},
}


@pytest.mark.parametrize("fmt", list(FIXTURES))
def test_each_format_imports_as_its_tool_reads_it_and_round_trips(tmp_path: Path, fmt: str) -> None:
    first = imported(tmp_path, fmt, DATA / FIXTURES[fmt])
    assert first == EXPECTED[fmt]
    exported = tmp_path / f"exported.{fmt}"
    extra = ["--topics-output", str(tmp_path / "topics.tsv")] if fmt == "trec" else []
    assert main(["export", fmt, "--judgments", str(tmp_path / "j.yaml"), "-o", str(exported), *extra]) == 0
    again = imported(tmp_path, fmt, exported, "again.yaml", *(["--topics", extra[1]] if extra else []))
    assert again == first
    assert (tmp_path / "again.yaml").read_text().split("\n", 1)[1] == (tmp_path / "j.yaml").read_text().split("\n", 1)[
        1
    ]


def test_exports_are_the_tools_shapes(tmp_path: Path) -> None:
    imported(tmp_path, "rank-eval", DATA / "rank_eval.json")
    out = tmp_path / "body.json"
    assert main(["export", "rank-eval", "--judgments", str(tmp_path / "j.yaml"), "--index", "ix", "-o", str(out)]) == 0
    body = json.loads(out.read_text())
    assert body["requests"][1] == {
        "id": "berlin_query",
        "request": {"query": {"query_string": {"query": "berlin"}}},
        "ratings": [{"_index": "ix", "_id": "doc1", "rating": 1}],
    }
    imported(tmp_path, "srw", DATA / "srw_judgments.json")
    assert main(["export", "srw", "--judgments", str(tmp_path / "j.yaml"), "-o", str(out)]) == 0
    body = json.loads(out.read_text())
    assert body["type"] == "IMPORT_JUDGMENT"
    assert body["judgmentRatings"][0]["ratings"][1] == {"docId": "B097Q69V1B", "rating": "0.9"}  # strings
    assert main(["export", "quepid", "--judgments", str(tmp_path / "j.yaml"), "-o", str(out)]) == 0
    assert out.read_text().splitlines()[:2] == ["query,docid,rating", "metal frame,B071XJXHPN,1"]


@pytest.mark.parametrize(
    ("fmt", "fixture", "message"),
    [
        ("srw", "rre_ratings.json", "rre_ratings.json:1: no judgmentRatings list: a workbench judgment import has"),
        ("rre", "srw_judgments.json", "srw_judgments.json:1: no topics, query_groups or queries: an RRE ratings"),
        ("rank-eval", "quepid_ratings.csv", "quepid_ratings.csv:1: not JSON (Expecting value): a _rank_eval body"),
        ("quepid", "srw_judgments.json", "srw_judgments.json:1: the header is {: a Quepid ratings CSV has the header"),
    ],
)
def test_a_file_of_another_format_is_one_line_exit_2_nothing_written(
    tmp_path: Path, capsys, fmt: str, fixture: str, message: str
) -> None:
    shutil.copy(DATA / fixture, tmp_path / fixture)
    out = tmp_path / "j.yaml"
    assert main(["import", fmt, str(tmp_path / fixture), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert message in err
    assert not out.exists()


def test_srw_ratings_must_be_strings_and_fractional_grades_do_not_export_to_rre(tmp_path: Path, capsys) -> None:
    body = {"judgmentRatings": [{"query": "q", "ratings": [{"docId": "d1", "rating": 1}]}]}
    source = tmp_path / "numbers.json"
    source.write_text(json.dumps(body, indent=1))
    assert main(["import", "srw", str(source), "-o", str(tmp_path / "j.yaml")]) == 2
    assert "numbers.json:7: query 'q', document 'd1': rating 1 is not a string" in capsys.readouterr().err
    imported(tmp_path, "srw", DATA / "srw_judgments.json")
    assert main(["export", "rre", "--judgments", str(tmp_path / "j.yaml"), "-o", str(tmp_path / "r.json")]) == 2
    assert "grade 0.9 is not a whole number, which rre ratings must be" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


@pytest.mark.skipif(not ESCI.is_file(), reason="the shared ESCI judgments (../shared/data/ubi-esci) are absent")
def test_the_esci_judgments_import_and_drive_a_relevance_test(pytester: pytest.Pytester) -> None:
    assert main(["import", "srw", str(ESCI), "-o", str(pytester.path / "judgments.yaml")]) == 0
    judgments = load_judgments(pytester.path / "judgments.yaml")
    assert len(judgments) > 100
    # a small corpus from the judged ids of the first 5 queries: each document's title is its query's text when it
    # is graded 100 (exact), so BM25 on the title finds the exact products first
    chosen = judgments.queries[:5]
    lines = []
    for q in chosen:
        for doc, grade in q.grades.items():
            title = q.text if grade == 100 else "unrelated product"
            lines.append(json.dumps({"id": doc, "title": title}))
    pytester.makefile(".ndjson", corpus="\n".join(lines))
    kept = "\n".join(line for line in (pytester.path / "judgments.yaml").read_text().splitlines()[:7])
    (pytester.path / "judgments.yaml").write_text(kept + "\n")
    pytester.makefile(".json", index=json.dumps({"mappings": {"properties": {"title": {"type": "text"}}}}))
    pytester.makefile(".json", query=json.dumps({"query": {"match": {"title": "{{query}}"}}, "size": 100}))
    pytester.makeini(
        "[pytest]\nrelevance_judgments = judgments.yaml\nrelevance_corpus = corpus.ndjson\n"
        "relevance_index_config = index.json\nrelevance_query = query.json\nrelevance_metrics = ndcg@10\n"
    )
    pytester.makepyfile(
        "def test_esci(relevance_index, relevance_snapshot):\n    assert relevance_snapshot == relevance_index.run()\n"
    )
    result = pytester.runpytest("--relevance-update", "--relevance-reason", "ESCI judgments")
    result.assert_outcomes(passed=1)
    (entry,) = json.loads((pytester.path / "relevance-baseline.json").read_text())["entries"].values()
    assert set(entry["queries"]) == {q.id for q in chosen}
    assert pytester.runpytest().ret == 0


# ---------------------------------------------------------------- hostile files (issue #36)

QUEPID = "query,docid,rating\nshoes,a,1\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            QUEPID + '"boots,b,2\nhats,c,3\nsocks,d,1\nbelts,e,2\n',
            "r.csv:3: a quote opened on this line is never closed",
        ),
        (QUEPID + '"boots,b,2\nhats,c,3\nsocks",d,1\nbelts,e,2\n', "r.csv:3: column 1 is a quoted field that runs on"),
        (QUEPID + "x" * 200_000 + ",d,1\n", "r.csv:3: a field longer than 131,072 characters"),
        (QUEPID + 'boots,"b"x,2\n', "r.csv:3: not CSV"),
    ],
    ids=["quote-to-the-end", "quote-closed-rows-later", "200kB-field", "stray-quote"],
)
def test_a_quepid_csv_that_would_lose_rows_is_refused_at_its_line(tmp_path: Path, capsys, text: str, message: str):
    source = tmp_path / "r.csv"
    source.write_text(text)
    assert main(["import", "quepid", str(source), "-o", str(tmp_path / "j.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


@pytest.mark.parametrize("fmt", ["rre", "rank-eval", "srw"])
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "r.json:1: not JSON (nested 100000 levels deep"),
        ('{"requests": [\n' + "1" * 5000 + "]}", "r.json:2: not JSON (a number of 5000 digits"),
    ],
    ids=["deep", "huge-number"],
)
def test_json_too_deep_or_a_number_too_long_is_one_line(tmp_path: Path, capsys, fmt: str, text: str, message: str):
    source = tmp_path / "r.json"
    source.write_text(text)
    assert main(["import", fmt, str(source), "-o", str(tmp_path / "j.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_judgments_csv_with_a_quote_left_open_is_refused_at_its_line(tmp_path: Path) -> None:
    from pytest_relevance.errors import RelevanceInputError

    path = tmp_path / "j.csv"
    path.write_text('query_id,query,stratum,doc_id,grade\nq1,shoes,,a,1\nq2,"boots,,b,2\nq3,hats,,c,3\n')
    with pytest.raises(RelevanceInputError, match=r"j.csv:3: a quote opened on this line is never closed"):
        load_judgments(path)
    path.write_text('query_id,query,stratum,doc_id,grade\nq1,shoes,,a,1\nq2,"boots,,b,2\nq3,hats",,c,3\n')
    with pytest.raises(RelevanceInputError, match=r"j.csv:3: column 2 is a quoted field that runs on to line 4"):
        load_judgments(path)


@pytest.mark.parametrize("output", ["folder.yaml", "missing/j.yaml"])
def test_import_and_export_to_a_path_that_cannot_be_written(tmp_path: Path, capsys, output: str) -> None:
    (tmp_path / "folder.yaml").mkdir()
    target = str(tmp_path / output)
    assert main(["import", "quepid", str(DATA / "quepid_ratings.csv"), "-o", target]) == 2
    assert main(["import", "quepid", str(DATA / "quepid_ratings.csv"), "-o", str(tmp_path / "ok.yaml")]) == 0
    assert main(["export", "rre", "--judgments", str(tmp_path / "ok.yaml"), "-o", target]) == 2
    assert main(["export", "trec", "--judgments", str(tmp_path / "ok.yaml"), "-o", str(tmp_path / "q.txt"),
                 "--topics-output", target]) == 2  # fmt: skip
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("pytest-relevance: error: ") for line in err), err
    assert all(("is a folder" if output == "folder.yaml" else "does not exist") in line for line in err)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["folder.yaml", "ok.yaml"]  # no temporary file left
