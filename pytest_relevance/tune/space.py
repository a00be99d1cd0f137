"""The space a sweep searches: each parameter is a `{{name}}` placeholder of the query template, with the values it
may take.

Written in `relevance_tune` (or `--param NAME=SPEC`, repeatable), parameters separated by `;`:

    title_boost=1..5 step 0.5; tie=0,0.3,0.7; msm=1,2,75%; template=q_a.yaml,q_b.yaml

A range `A..B step S` is every value from A to B (both included) S apart (S defaults to 1 between whole numbers);
a list is its values, each a number where it reads as one, else text. Two names are files, not placeholders:
`template` (whole query templates to choose from, each with placeholders of its own) and `index_config` (index
configs, e.g. analyzer variants: each is indexed once). A parameter the current template has as a placeholder too
needs its current value, `... current 2`, so that the sweep knows what it is trying to beat.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pytest_relevance.errors import RelevanceInputError

#: parameters whose values are files, not placeholders
FILES = ("template", "index_config")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_RANGE = re.compile(r"^(?P<low>[^.\s][^\s]*?)\s*\.\.\s*(?P<high>[^\s]+)(?:\s+step\s+(?P<step>[^\s]+))?$")
#: values a grid may hold: a guard against a typo'd step (0.0001) making a sweep that never ends
MAX_VALUES = 10_000


@dataclass(frozen=True)
class Param:
    """One parameter: its name, the values it may take in order, and the current template's value (None: the
    current template does not have it)."""

    name: str
    values: tuple[Any, ...]
    current: Any = None
    #: a range's (low, high, step), which TPE searches as numbers; None for a list
    bounds: tuple[float, float, float] | None = None

    @property
    def is_file(self) -> bool:
        return self.name in FILES


@dataclass(frozen=True)
class Space:
    params: tuple[Param, ...]

    @property
    def size(self) -> int:
        return math.prod(len(p.values) for p in self.params)

    def names(self) -> list[str]:
        return [p.name for p in self.params]

    def grid(self) -> Iterator[dict[str, Any]]:
        """Every point, the last parameter varying fastest."""
        for values in itertools.product(*(p.values for p in self.params)):
            yield dict(zip(self.names(), values, strict=True))

    def point(self, index: int) -> dict[str, Any]:
        """The `index`-th point of `grid()`, without walking it."""
        out: dict[str, Any] = {}
        for param in reversed(self.params):
            index, at = divmod(index, len(param.values))
            out[param.name] = param.values[at]
        return {name: out[name] for name in self.names()}

    def placeholders(self) -> dict[str, Any]:
        """The values of the parameters that are placeholders (not files), as the current template has them."""
        return {p.name: p.current for p in self.params if not p.is_file and p.current is not None}


def parse_space(text: str, source: str, root: Path) -> Space:
    """`relevance_tune`'s value (or the --param flags joined by `;`); file values are kept as written, relative to
    `root` (the ini file's directory), and checked to exist there."""
    params: list[Param] = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        name, sep, spec = (s.strip() for s in part.partition("="))
        if not sep or not _NAME.fullmatch(name) or not spec:
            raise RelevanceInputError(
                source, f"{part!r} is not NAME=SPEC; write e.g. 'title_boost=1..5 step 0.5; tie=0,0.3,0.7'"
            )
        if name in {p.name for p in params}:
            raise RelevanceInputError(source, f"parameter {name!r} is given twice; give it once")
        if name in ("query", "now"):
            raise RelevanceInputError(
                source, f"{{{{{name}}}}} is filled per query by the gate; name a parameter of your own"
            )
        params.append(parse_param(name, spec, source, root))
    if not params:
        raise RelevanceInputError(
            source, "no parameters to tune; set relevance_tune or pass --param NAME=SPEC, e.g. 'boost=1..5 step 0.5'"
        )
    return Space(tuple(params))


def parse_param(name: str, spec: str, source: str, root: Path) -> Param:
    spec, _, current_text = spec.partition(" current ")
    spec = spec.strip()
    where = f"parameter {name!r}"
    if name in FILES:
        files = tuple(item.strip() for item in spec.split(",") if item.strip())
        for file in files:
            if not (root / file).is_file():
                raise RelevanceInputError(source, f"{where}: file {file} not found (paths are relative to {root})")
        if current_text:
            raise RelevanceInputError(source, f"{where}: the current {name} is the project's own; drop 'current'")
        return Param(name, files)
    current = _value(current_text.strip()) if current_text.strip() else None
    found = _RANGE.match(spec)
    if found:
        low, high = _number(found["low"], source, where), _number(found["high"], source, where)
        whole = low == low.to_integral_value() and high == high.to_integral_value()
        if found["step"] is None and not whole:
            raise RelevanceInputError(source, f"{where}: {spec!r} needs a step between non-whole ends, e.g. step 0.5")
        step = _number(found["step"], source, where) if found["step"] else Decimal(1)
        if step <= 0 or high < low:
            raise RelevanceInputError(source, f"{where}: {spec!r} is empty; write LOW..HIGH step S with S > 0")
        count = int((high - low) / step) + 1
        if count > MAX_VALUES:
            raise RelevanceInputError(source, f"{where}: {spec!r} has {count:,} values; use a larger step")
        exact = whole and step == step.to_integral_value()
        values = tuple(int(low + i * step) if exact else float(low + i * step) for i in range(count))
        return Param(name, values, current, (float(low), float(low + (count - 1) * step), float(step)))
    values = tuple(_value(item.strip()) for item in spec.split(",") if item.strip())
    if len(set(map(repr, values))) != len(values):
        raise RelevanceInputError(source, f"{where}: {spec!r} lists a value twice")
    return Param(name, values, current)


def _number(text: str, source: str, where: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise RelevanceInputError(source, f"{where}: {text!r} is not a number") from None
    if not value.is_finite():
        raise RelevanceInputError(source, f"{where}: {text!r} is not a finite number")
    return value


def _value(text: str) -> Any:
    """A list item: an int or float where it reads as one (`0.3`, `2`), else the text itself (`75%`, `AUTO`)."""
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        if isinstance(value, float) and not math.isfinite(value):
            return text
        return value
    return text


def label(params: Mapping[str, Any]) -> str:
    """A variant's parameters as one short text: files by name, numbers as written."""
    return " ".join(f"{k}={Path(v).name if k in FILES else show(v)}" for k, v in params.items())


def show(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def check_placeholders(space: Space, templates: Sequence[tuple[str, set[str]]], current: set[str], source: str) -> None:
    """Every placeholder parameter appears in some template it may be bound to (else it changes nothing and the
    sweep would count noise as variants), and the current template's own placeholders have current values."""
    used = set().union(*(names for _, names in templates))
    for param in space.params:
        if not param.is_file and param.name not in used:
            files = ", ".join(path for path, _ in templates)
            raise RelevanceInputError(
                source,
                f"parameter {param.name!r} is no placeholder of the template ({files}); write {{{{{param.name}}}}} "
                "where its value goes",
            )
    for param in space.params:
        if not param.is_file and param.name in current and param.current is None:
            raise RelevanceInputError(
                source,
                f"parameter {param.name!r}: the current template has {{{{{param.name}}}}}, so the sweep needs the "
                f"value it runs with today: add 'current VALUE' to its spec (e.g. '{param.name}=1..5 step 0.5 "
                "current 2'), or keep the placeholders in a copy named with template=FILE",
            )
