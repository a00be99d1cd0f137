"""Reading the files users write (judgments, topics, corpus, index config, query template, pool): one message per
problem, naming the file and the line, and YAML through libyaml's C parser when the installed PyYAML has it (the
same safe loader, about three times faster)."""

from __future__ import annotations

import csv
import json
import os
import re
import secrets
import sys
from collections.abc import Callable, Container, Iterable, Iterator
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError


def read_text(path: Path) -> str:
    """The file as text: UTF-8, with or without the byte order mark Windows editors add; anything else is one
    message naming the line."""
    return decode_text(path, path.read_bytes())


def decode_text(path: Path, data: bytes) -> str:
    """`read_text` of bytes already read (a caller that also fingerprints them reads the file once)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise RelevanceInputError(
            path, f"not UTF-8 text (byte 0x{data[exc.start]:02x}): save the file as UTF-8", line
        ) from None


def parse_json(
    path: Path | str, text: str, line: int | None = None, what: str = "not valid JSON", hint: str = "", **options: Any
) -> Any:
    """json.loads whose every failure is one message, `what (why)hint`, naming the file and the line (`line`: the
    text's own, for one line of NDJSON). Besides bad syntax, json.loads refuses two things with errors of their own:
    an integer of more digits than int() converts (sys.get_int_max_str_digits, a plain ValueError) and nesting
    deeper than the recursion limit (a RecursionError); an input file can hold either."""
    at: int | None
    try:
        return json.loads(text, **options)
    except json.JSONDecodeError as exc:
        why, at = exc.msg, exc.lineno
    except ValueError:
        limit = sys.get_int_max_str_digits()
        found = re.search(rf"\d{{{limit + 1},}}", text)
        digits = len(found[0]) if found else limit + 1
        why = f"a number of {digits} digits, more than the {limit} a number here may have"
        at = text.count("\n", 0, found.start()) + 1 if found else None
    except RecursionError:
        depth, at = _deepest(text)
        why = f"nested {depth} levels deep, deeper than can be read"
    raise RelevanceInputError(path, f"{what} ({why}){hint}", at if line is None else line)


_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[{\]}]')


def _deepest(text: str) -> tuple[int, int]:
    """How deep the brackets of a JSON text nest, and the line where they first reach that depth."""
    depth = deepest = where = 0
    for token in _NESTING.finditer(text):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > deepest:
                deepest, where = depth, token.start()
        elif bracket in "]}":
            depth -= 1
    return deepest, text.count("\n", 0, where) + 1


def csv_rows(
    path: Path | str, lines: Iterable[str], multiline: Container[int] = (), start: int = 1
) -> Iterator[tuple[int, list[str]]]:
    """(line where the row starts, row) of a CSV text, refusing what the csv module would let through or raise:

    - a quote never closed: csv (non-strict) reads the rest of the file into that one field, so later rows vanish;
    - a quoted field running over lines in a column that holds no line break (only columns in `multiline` may:
      titles shown to a rater; ids, query texts and grades never do): a quote closed lines later, by another
      row's, swallows the rows between;
    - a field larger than csv.field_size_limit, or a stray quote, which csv raises as a bare csv.Error.

    Each is one message naming the line the row (and its quote) starts on; `start` is the first line's number
    (lines already read, such as a header, are not counted by the reader)."""
    reader = csv.reader(lines, strict=True)
    skipped = start - 1
    try:
        for row in reader:
            if reader.line_num + skipped != start:
                spanning = [i for i, cell in enumerate(row) if ("\n" in cell or "\r" in cell) and i not in multiline]
                if spanning:
                    raise RelevanceInputError(
                        path,
                        f"column {spanning[0] + 1} is a quoted field that runs on to line {reader.line_num + skipped}: "
                        'close its quote on this line (or double a quote inside it: "")',
                        start,
                    )
            yield start, row
            start = reader.line_num + skipped + 1
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            problem = 'a quote opened on this line is never closed: close it (or double a quote inside it: "")'
        elif "field larger than field limit" in str(exc):
            problem = f"a field longer than {csv.field_size_limit():,} characters; is a quote left open?"
        else:
            problem = f"not CSV ({exc}): quote a field that holds a comma or a quote, and double a quote inside it"
        raise RelevanceInputError(path, problem, start) from None


def check_output(path: Path) -> None:
    """Refuse an output path that cannot be written, before any work is done for it: a folder, or a file in a
    folder that does not exist."""
    if path.is_dir():
        raise RelevanceInputError(path, "is a folder: give the path of a file to write")
    if not path.parent.is_dir():
        raise RelevanceInputError(
            path, f"cannot be written: the folder {path.parent} does not exist; create it, or write elsewhere"
        )


def write_output(path: Path | str, text: str, check: Callable[[Path], object] | None = None) -> None:
    """Write an output file atomically: `text` into a hidden file beside it (same suffix), read back by `check`
    (which raises to refuse it), then renamed over `path`. Whatever fails (a folder in the way, a missing folder,
    a full disk, `check`), the old file is left as it was and the hidden one removed; an OSError is one message
    naming the path."""
    target = Path(path)
    check_output(target)
    temporary = target.with_name(f".{target.stem}.{secrets.token_hex(4)}.tmp{target.suffix}")
    try:
        with open(temporary, "x", encoding="utf-8", newline="") as handle:
            handle.write(text)
        if check is not None:
            check(temporary)
        os.replace(temporary, target)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise RelevanceInputError(target, f"cannot be written ({exc.strerror or exc})") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def load_document(path: Path, text: str) -> Any:
    """The file's one document: JSON for a .json file, YAML (safe loader only) for anything else.

    A key given twice in one mapping is refused, as Elasticsearch refuses a body or document with a field given
    twice; a plain load keeps the last copy silently (a `bool` with `must:` twice loses the first clause).
    """
    if path.suffix.lower() == ".json":
        try:
            return parse_json(path, text, object_pairs_hook=_unique_pairs)
        except _DuplicateKey:
            _json_duplicate_key(path, text)
            raise
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_duplicate_keys(path, node)
        return construct(path, loader, node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())  # one line: the mark is the line
        raise RelevanceInputError(path, f"YAML syntax error: {problem}", mark.line + 1 if mark else None) from None
    finally:
        loader.dispose()


def construct(path: Path, constructor: Any, node: Any, where: str = "") -> Any:
    """The node's Python value with the safe constructors; a value its tag cannot read (`!!timestamp x`,
    `!!binary zz`, `!!bool maybe`) is one message naming the innermost such node and its line.

    The constructors say so with a ConstructorError or, for some tags, with whatever their parsing raises first
    (KeyError for `!!bool maybe`, AttributeError for `!!timestamp x`, IndexError for `!!int ''`).
    """
    import yaml

    unreadable = (yaml.YAMLError, ValueError, LookupError, AttributeError)
    try:
        return constructor.construct_document(node)
    except unreadable as exc:
        culprit, problem = node, exc
    while not isinstance(culprit, yaml.ScalarNode):  # only walked once construction failed
        for child in (part for item in culprit.value for part in (item if isinstance(item, tuple) else (item,))):
            # a failed construction leaves its state behind (the nodes it was inside count as recursive): reset it
            constructor.constructed_objects, constructor.recursive_objects, constructor.state_generators = {}, {}, []
            try:
                constructor.construct_document(child)
            except unreadable as inner:
                culprit, problem = child, inner
                break
        else:
            break
    tag = short_tag(culprit.tag)
    if isinstance(culprit, yaml.ScalarNode):
        text = f"{culprit.value!r} cannot be read as {tag}: correct the value or remove the tag"
    else:
        text = f"a value tagged {tag} cannot be read ({getattr(problem, 'problem', None) or problem})"
    prefix = f"{where}: " if where else ""
    raise RelevanceInputError(path, prefix + text, culprit.start_mark.line + 1) from None


def short_tag(tag: str) -> str:
    """`tag:yaml.org,2002:bool` as it is written, `!!bool`."""
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag


def check_duplicate_keys(path: Path, node: Any, where: str = "") -> None:
    """Refuses a YAML node tree with a key twice in one mapping, naming the key path and both lines (a plain YAML
    load would keep only the last copy). `where` names the node's own place, for a subtree. A node an alias
    repeats is walked once (a billion aliases of one mapping are one mapping to check)."""
    import yaml

    walked: set[int] = set()
    pending = [(node, where)]
    while pending:
        node, where = pending.pop()
        if id(node) in walked:
            continue
        walked.add(id(node))
        children = []
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key, value in node.value:
                name = str(key.value)
                if name in seen:
                    _twice(path, name, where, seen[name], key.start_mark.line + 1)
                seen[name] = key.start_mark.line + 1
                children.append((value, f"{where}.{name}" if where else name))
        elif isinstance(node, yaml.SequenceNode):
            children = [(item, f"{where}[{index}]") for index, item in enumerate(node.value)]
        pending.extend(reversed(children))  # in the file's order: the first duplicate is the one named


def _twice(path: Path, name: str, where: str, first: int, line: int) -> None:
    raise RelevanceInputError(
        path, f"key {name!r} appears twice in {where or 'one mapping'} (first at line {first})", line
    )


class _DuplicateKey(Exception):
    """Raised from inside json.loads when an object repeats a key; the file is then walked to say where."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _DuplicateKey
    return result


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+')


def _json_duplicate_key(path: Path, text: str) -> None:
    """Walks valid JSON (only once json.loads met a key twice) to name that key, its path and both lines."""
    stack: list[list[Any]] = []  # per open object ["{", key, {key: line}]; per open array ["[", index]
    tokens = list(_JSON_TOKEN.finditer(text))
    for number, token in enumerate(tokens):
        value = token.group()
        if value in ("{", "["):
            stack.append(["{", None, {}] if value == "{" else ["[", 0])
        elif value in ("}", "]"):
            stack.pop()
        elif value == "," and stack[-1][0] == "[":
            stack[-1][1] += 1
        elif value[0] == '"' and stack and stack[-1][0] == "{" and tokens[number + 1].group() == ":":
            name, line = json.loads(value), text.count("\n", 0, token.start()) + 1
            where = "".join(f"[{entry[1]}]" if entry[0] == "[" else f".{entry[1]}" for entry in stack[:-1])
            if name in stack[-1][2]:
                _twice(path, name, where.removeprefix("."), stack[-1][2][name], line)
            stack[-1][1], stack[-1][2][name] = name, line


def read_json(path: Path) -> Any:
    """A baseline file or JSON report, parsed; a missing or malformed one is an error naming it (and the line)."""
    if not path.is_file():
        raise RelevanceInputError(path, "no such file")
    return parse_json(path, read_text(path))
