"""Reading the files users write (judgments, topics, corpus, index config, query template, pool): one message per
problem, naming the file and the line, and YAML through libyaml's C parser when the installed PyYAML has it (the
same safe loader, about three times faster)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError


def read_text(path: Path) -> str:
    """The file as text: UTF-8, with or without the byte order mark Windows editors add; anything else is one
    message naming the line."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise RelevanceInputError(
            path, f"not UTF-8 text (byte 0x{data[exc.start]:02x}): save the file as UTF-8", line
        ) from None


def load_document(path: Path, text: str) -> Any:
    """The file's one document: JSON for a .json file, YAML (safe loader only) for anything else."""
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise RelevanceInputError(path, f"not valid JSON ({exc.msg})", exc.lineno) from None
    import yaml

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise RelevanceInputError(path, f"YAML syntax error: {exc}", mark.line + 1 if mark else None) from None
