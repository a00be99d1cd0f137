"""A clause's options as Elasticsearch 8 reads them: unknown keys refused with its messages, numbers, boosts,
field specs and minimum_should_match."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pytest_relevance.engines.embedded.java import F32, utf16
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unsupported

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex

# Elasticsearch's case-insensitive term, prefix and wildcard queries fold ASCII letters only
# (AutomatonQueries.toCaseInsensitiveChar leaves code points above 128 as they are)
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def allowed(
    options: Any,
    keys: Iterable[str],
    path: str,
    every: str | None = None,
    parser: str | None = None,
    unsupported: Iterable[str] = (),
) -> dict[str, Any]:
    """The options mapping, after refusing keys the handler does not know (`_name` is always accepted). `every`:
    the query whose every option Elasticsearch reads is among `keys` and `unsupported`, so that another key is its
    hand-written parser's refusal (`[match] query does not support [x]`); `parser`: the same where Elasticsearch
    reads the options with an ObjectParser of that name (`[ids] unknown field [x] did you mean [values]?`).
    `unsupported`: options Elasticsearch reads that the embedded engine does not run (the Elasticsearch engine
    would). A key nobody reads is refused before one the engine does not run, as the parser fails first."""
    if not isinstance(options, dict):
        raise Invalid(path, f"expected a mapping of options, got {options!r}"[:200])
    known = {*keys, *unsupported, "_name"}
    extra = [key for key in options if key not in keys and key != "_name"]
    unknown = [key for key in extra if key not in known]
    if unknown and parser is not None:
        raise Invalid(path, f"{unknown_field(parser, unknown[0], known)}, as Elasticsearch 8 refuses it")
    if unknown and every is not None:
        raise Invalid(path, f"[{every}] query does not support [{unknown[0]}], as Elasticsearch 8 refuses it")
    if extra:
        raise Unsupported(f"{path.rsplit('.', 1)[-1]}.{extra[0]}", path, sorted(set(keys) | {"_name"}))
    return options


def value_tokens(options: Any, name: str, path: str, lists: Iterable[str] = ()) -> None:
    """A hand-written parser that reads only values (and the arrays in `lists`) refuses an object or another array
    by its token: `[exists] unknown token [START_OBJECT] after [field]`."""
    for key, value in options.items() if isinstance(options, dict) else ():
        if isinstance(value, dict) or (isinstance(value, list) and key not in lists):
            token = "START_OBJECT" if isinstance(value, dict) else "START_ARRAY"
            raise Invalid(path, f"[{name}] unknown token [{token}] after [{key}], as Elasticsearch 8 refuses it")


def unknown_field(parser: str, key: str, candidates: Iterable[str]) -> str:
    """ObjectParser's refusal of a key it does not declare, with SuggestingErrorOnUnknown's suggestions: the
    declared names within a Levenshtein similarity above 0.5, the closest first (ties by name)."""
    scored = [(_similarity(key, name), name) for name in candidates]
    close = [name for _, name in sorted((-score, name) for score, name in scored if score > F32(0.5))]
    if not close:
        return f"[{parser}] unknown field [{key}]"
    shown = f"[{close[0]}]" if len(close) == 1 else f"any of [{', '.join(close)}]"
    return f"[{parser}] unknown field [{key}] did you mean {shown}?"


def _similarity(target: str, other: str) -> F32:
    """Lucene's spell.LevenshteinDistance.getDistance: 1 - edits / the longer length (UTF-16 units), in float32."""
    from rapidfuzz.distance import Levenshtein  # the fuzzy queries' edit distance, here over UTF-16 units

    sa, tb = utf16(target), utf16(other)
    if not sa or not tb:
        return F32(1.0) if len(sa) == len(tb) else F32(0.0)
    return F32(1.0) - F32(Levenshtein.distance(sa, tb)) / F32(max(len(sa), len(tb)))


def number(options: dict[str, Any], key: str, path: str, default: float | None = None) -> float:
    """A finite number option, or one message naming the template key."""
    value = options.get(key, default)
    if value is None:
        raise Invalid(path, f"needs {key!r}")
    try:
        result = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        result = math.nan
    if not math.isfinite(result):
        raise Invalid(f"{path}.{key}", f"{value!r} is not a number")
    return result


def boost_of(options: dict[str, Any], path: str, inherited: float) -> float:
    """The clause's own boost times the inherited one, in float32 as Lucene's BoostQuery multiplies them."""
    own = number(options, "boost", path, 1.0)
    if own < 0:
        raise Invalid(f"{path}.boost", f"{own!r}: negative boosts are not allowed")
    return float(F32(own) * F32(inherited))


def clause_list(spec: dict[str, Any], key: str) -> list[Any]:
    items = spec.get(key)
    if items is None:
        return []
    return items if isinstance(items, list) else [items]


def field_spec(
    index: EmbeddedIndex, spec: Any, path: str, key: str, beside: tuple[str, ...] = ()
) -> tuple[str, dict[str, Any]]:
    """`{field: value}` or `{field: {key: value, ...}}`, with the field checked against the mappings. The query
    (the last part of `path`) takes one key, as its parser does: another, `boost` beside the field too, is its
    refusal (`[prefix] query doesn't support multiple fields, found [a] and [b]`). `beside`: keys that may sit
    next to the field and apply to it (the decay functions' form)."""
    if isinstance(spec, dict):
        fields = [k for k in spec if k not in beside]
        if len(fields) > 1:
            name = path.rsplit(".", 1)[-1]
            raise Invalid(path, f"[{name}] query doesn't support multiple fields, found [{fields[0]}] and "
                                f"[{fields[1]}], as Elasticsearch 8 refuses it")  # fmt: skip
        if len(fields) == 1:
            field, value = fields[0], spec[fields[0]]
            index.check_field(field, path)
            options = dict(value) if isinstance(value, dict) else {key: value}
            for shared in beside:
                if shared in spec:
                    options.setdefault(shared, spec[shared])
            return field, options
    raise Invalid(path, f"expected {{field: ...}} with one field, got {spec!r}"[:200])


def last_of(options: dict[str, Any], key: str, names: tuple[str, ...]) -> dict[str, Any]:
    """The options with `key` set to the last of its synonyms `names` given, as a parser that reads each into the
    same variable keeps the one it meets last."""
    given = [name for name in options if name in names]
    if not given:
        return options
    return {**{k: v for k, v in options.items() if k not in names}, key: options[given[-1]]}


def minimum_should_match(spec: Any, optional: int, path: str) -> int:
    """Elasticsearch's `Queries.calculateMinShouldMatch`: integers, percentages (float32, truncated), negatives,
    and conditional forms such as `3<-25% 9<75%`; never below 0, and (as Elasticsearch) not capped at `optional`."""
    text = str(spec).strip()
    try:
        if "<" in text:
            result = optional
            for part in " ".join(text.replace(" <", "<").replace("< ", "<").split()).split(" "):
                bound, _, rest = part.partition("<")
                if optional <= int(bound):
                    return result
                result = minimum_should_match(rest, optional, path)
            return result
        if text.endswith("%"):
            calc = F32(optional * int(text[:-1])) * F32(1 / 100)
            result = optional + int(calc) if calc < 0 else int(calc)
        else:
            calc_int = int(text)
            result = optional + calc_int if calc_int < 0 else calc_int
    except ValueError:
        raise Invalid(f"{path}.minimum_should_match", f"cannot read {spec!r} (e.g. 2, -1, 75%, 3<90%)") from None
    return max(result, 0)
