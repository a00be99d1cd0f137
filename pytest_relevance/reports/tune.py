"""The sweep's model (`tune.sweep.decide`, plain data) as a terminal table and as one Markdown pull-request comment.

Both put the in-sample gain beside the held-out one: the distance between them is what choosing the best of many
variants on the same queries would have claimed, and the held-out number with its corrected p is the one to trust.
"""

from __future__ import annotations

from typing import Any


def _signed(value: float) -> str:
    return f"{value:+.4f}"


def _ci(ci: list[float]) -> str:
    return f"[{_signed(ci[0])}, {_signed(ci[1])}]"


def _table(model: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows: the current template, then every trial; the objective's metric per group on the tune part
    (what the winner was chosen by), the objective on the held-out part, and judged@k per group."""
    stratum, _, spec = model["objective"].partition(".")
    groups = list(model["current"]["values"]["tune"])
    k = model["judged_k"]
    header = ["#", "params", *(f"{g} {spec}" for g in groups), f"held-out {model['objective']}",
              *(f"{g} judged@{k}" for g in groups)]  # fmt: skip

    def row(mark: str, label: str, entry: dict[str, Any]) -> list[str]:
        tune, held = entry["values"]["tune"], entry["values"]["held_out"]
        return [mark, label, *(f"{tune[g][spec]:.4f}" for g in groups), f"{held[stratum][spec]:.4f}",
                *(f"{entry['judged'][g]:.2f}" for g in groups)]  # fmt: skip

    winner = model["winner"]["trial"]
    current = model["current"]
    label = " ".join(f"{k}={v}" for k, v in current["params"].items()) or "(the project's template)"
    rows = [row("now", label, current)]
    rows += [row(f"{t['trial']}{'*' if t['trial'] == winner else ''}", t["label"], t) for t in model["trials"]]
    return header, rows


def _verdict(model: dict[str, Any]) -> str:
    trials, family = len(model["trials"]), model["family"]
    how = "max-T" if model["correction"] == "max-t" else "Holm"
    if model["better"]:
        return (
            f"better: yes, on held-out queries after {how} over {trials} variants ({family} tests), at alpha "
            f"{model['alpha']:g}"
        )
    return (
        f"better: no, the winner's held-out gain is not significant after {how} over {trials} variants ({family} "
        f"tests) at alpha {model['alpha']:g}; keep the current template, or grade the pool and tune again"
    )


def _gains(model: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    winner, queries = model["winner"], model["queries"]
    out = []
    for part, key in (("in-sample (tune)", "in_sample"), ("held-out", "held_out")):
        tested = winner[key]
        n = queries["tune" if key == "in_sample" else "held_out"]
        out.append(
            (f"{part}, {n} queries", _signed(tested["delta"]), _ci(tested["ci"]), f"{tested['p']:.4f}",
             f"{tested['p_adjusted']:.4f}")
        )  # fmt: skip
    return out


def tune_lines(model: dict[str, Any]) -> list[str]:
    """The terminal report: the table of trials, the winner's gains, the verdict, the rows and the patch."""
    header, rows = _table(model)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        f"tune: {len(model['trials'])} variants ({model['strategy']}), objective {model['objective']}, "
        f"{model['queries']['tune']} queries to tune on and {model['queries']['held_out']} held out (seed "
        f"{model['seed']})",
        "",
    ]
    queries = model["queries"]
    lines.append(
        f"per group: {model['objective'].partition('.')[2]} on the {queries['tune']} tune queries (what chose the "
        f"winner); held-out: the objective on the {queries['held_out']} others; judged@{model['judged_k']}: all "
        "queries"
    )
    for r in [header, *rows]:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
    winner = model["winner"]
    lines += [
        "",
        f"winner (trial {winner['trial']}): {winner['label']}, {model['objective']} against the current template",
    ]
    lines += [
        f"  {part:<28} {delta}  {ci}  p {p}  p adjusted {adjusted}" for part, delta, ci, p, adjusted in _gains(model)
    ]
    lines += ["  " + _verdict(model), "", "held-out, every group and metric (p adjusted over the whole family):"]
    width = max(len(f"{r['stratum']}.{r['metric']}") for r in winner["rows"])
    for r in winner["rows"]:
        name = f"{r['stratum']}.{r['metric']}"
        lines.append(f"  {name:<{width}}  {_signed(r['delta'])}  {_ci(r['ci'])}  p adjusted {r['p_adjusted']:.4f}")
    if "pool" in model:
        pool = model["pool"]
        lines += [
            "",
            f"wrote {pool['path']}: {pool['pairs']} unjudged (query, document) pairs of the best {pool['variants']} "
            f"variants' top {model['judged_k']} to grade, then `pytest-relevance merge`",
        ]
    if model["patch"]:
        lines += ["", "patch (the winner as the project's files; apply with `git apply`):", model["patch"].rstrip("\n")]
    return lines


def render_tune(model: dict[str, Any]) -> str:
    """One Markdown comment: the verdict and the winner's gains first, the trial table folded."""
    winner = model["winner"]
    out = [
        f"### pytest-relevance tune: {'a better query' if model['better'] else 'no better query'} "
        f"({len(model['trials'])} variants, {model['strategy']})",
        "",
        f"Winner (trial {winner['trial']}): `{winner['label']}`, {model['objective']} against the current template.",
        "",
        "| part | delta | interval | p | p adjusted |",
        "|---|---:|---|---:|---:|",
        *(f"| {part} | {delta} | {ci} | {p} | {adjusted} |" for part, delta, ci, p, adjusted in _gains(model)),
        "",
        _verdict(model) + ".",
        "",
    ]
    if "pool" in model:
        pool = model["pool"]
        out += [f"Grade `{pool['path']}` ({pool['pairs']} unjudged pairs of the best {pool['variants']} variants) "
                "before trusting a winner.", ""]  # fmt: skip
    header, rows = _table(model)
    out += [
        f"<details><summary>every trial ({len(model['trials'])})</summary>",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |" for r in rows),
        "",
        "</details>",
        "",
    ]
    if model["patch"]:
        out += [
            "<details><summary>patch</summary>",
            "",
            "```diff",
            model["patch"].rstrip("\n"),
            "```",
            "",
            "</details>",
            "",
        ]
    return "\n".join(out)
