"""Date `format`s as Elasticsearch 8 reads them, so a date field, a range bound or a decay origin means the same
instant here as there.

A format is a `||` list tried in order (`DateFormatter.forPattern`); each entry is a named format
(`DateFormatters.forPattern`: `strict_date_optional_time`, `epoch_millis`, `basic_date`, ...) or a java.time pattern
(`yyyy-MM-dd HH:mm:ss`, `dd/MM/uuuu'T'HH[:mm]XXX`) built as `DateTimeFormatterBuilder.appendPattern` builds it and
parsed as java.time parses with a strict context: numbers by width with adjacent-value parsing (`yyyyMMdd`),
optional sections all or nothing, the whole text consumed, then `DateFormatters.from`'s defaults (no time: start of
day; no zone: UTC). Range bounds go through `JavaDateMathParser`: `now`/`||` anchored math, `/unit` rounding, and
the round-up parser (missing fields filled with their largest value) for `gt` and `lte`.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from typing import Any, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

DEFAULT_FORMAT = "strict_date_optional_time||epoch_millis"
DEFAULT_NANOS_FORMAT = "strict_date_optional_time_nanos||epoch_millis"  # a date_nanos field's
DEFAULT_DYNAMIC_DATE_FORMATS = ("strict_date_optional_time", "yyyy/MM/dd HH:mm:ss Z||yyyy/MM/dd Z")
_LONG_MAX = 2**63 - 1
_NS = 1_000_000_000


class DateFormatError(ValueError):
    """A format Elasticsearch refuses when the mapping or query is read (or one this module cannot read)."""


class DateParseError(ValueError):
    """A value the format cannot read: Elasticsearch's `failed to parse date field [...] with format [...]`."""


# ----------------------------------------------------------------------------------------------- printer-parsers
# Each element parses `text` at `pos` into the `fields` dict and returns the new position, or -1 on failure.


@dataclass
class _Value:
    """NumberPrinterParser in a strict context: `subsequent` is the width adjacent fixed-width values reserve."""

    name: str
    low: int
    high: int
    sign: str = "NOT_NEGATIVE"  # SignStyle: NORMAL, NOT_NEGATIVE, NEVER or EXCEEDS_PAD
    subsequent: int = 0
    reduced_base: int | None = None  # ReducedPrinterParser (yy, uu): two digits read as 2000 to 2099

    def fixed(self) -> bool:
        return self.low == self.high and self.sign == "NOT_NEGATIVE"

    def parse(self, text: str, pos: int, fields: dict[str, Any]) -> int:
        n = len(text)
        if pos >= n:
            return -1
        positive, negative = False, False
        if text[pos] == "+":
            if self.sign != "EXCEEDS_PAD":  # SignStyle.parse(positive, strict=true, ...)
                return -1
            positive, pos = True, pos + 1
        elif text[pos] == "-":
            if self.sign not in ("NORMAL", "EXCEEDS_PAD"):
                return -1
            negative, pos = True, pos + 1
        if pos + self.low > n:
            return -1
        width = self.high + max(self.subsequent, 0)
        for second_pass in (False, True):
            end, limit = pos, min(pos + width, n)
            while end < limit and "0" <= text[end] <= "9":
                end += 1
            if end - pos < self.low:
                return -1
            if self.subsequent > 0 and not second_pass:
                width = max(self.low, end - pos - self.subsequent)
                continue
            break
        digits = end - pos
        value = int(text[pos:end])
        if negative:
            if value == 0:
                return -1  # minus zero is not allowed in a strict parse
            value = -value
        elif self.sign == "EXCEEDS_PAD" and (digits <= self.low if positive else digits > self.low):
            return -1  # '+' exactly when the width exceeds the minimum
        if self.reduced_base is not None and digits == self.low and value >= 0:
            span = 10**self.low
            value += self.reduced_base - self.reduced_base % span
            if value < self.reduced_base:
                value += span
        return _set(fields, self.name, value, end)


@dataclass
class _Fraction:
    """FractionPrinterParser: up to `high` digits of a second's fraction, after a '.' when `point`."""

    low: int
    high: int
    point: bool
    name: str = "nano"

    def parse(self, text: str, pos: int, fields: dict[str, Any]) -> int:
        if self.point:
            if pos >= len(text) or text[pos] != ".":
                return -1 if self.low > 0 else pos
            pos += 1
        end = pos
        while end < min(pos + self.high, len(text)) and "0" <= text[end] <= "9":
            end += 1
        if end - pos < self.low:
            return -1
        if end == pos:
            return _set(fields, self.name, 0, end) if self.point else pos
        return _set(fields, self.name, int(text[pos:end].ljust(9, "0")[:9]), end)


@dataclass
class _Literal:
    text: str
    insensitive: bool = False

    def parse(self, text: str, pos: int, fields: dict[str, Any]) -> int:
        part = text[pos : pos + len(self.text)]
        same = part.lower() == self.text.lower() if self.insensitive else part == self.text
        return pos + len(self.text) if same else -1


@dataclass
class _Text:
    """TextPrinterParser with Locale.ROOT's English names; the longest name matching wins."""

    name: str
    names: tuple[tuple[str, int], ...]

    def parse(self, text: str, pos: int, fields: dict[str, Any]) -> int:
        for label, value in self.names:
            if text.startswith(label, pos):
                return _set(fields, self.name, value, pos + len(label))
        return -1


@dataclass
class _Offset:
    """OffsetIdPrinterParser: `+HH`, `+HHmm`, `+HH:MM`, ... (lower case: optional), or `no_offset` for zero."""

    pattern: str
    no_offset: str

    def parse(self, text: str, pos: int, fields: dict[str, Any]) -> int:
        n = len(text)
        if self.no_offset:
            if pos >= n:
                return -1
            if text.startswith(self.no_offset, pos):
                return _set(fields, "offset", 0, pos + len(self.no_offset))
        elif pos >= n:
            return _set(fields, "offset", 0, pos)
        if text[pos] in "+-":
            parsed = self._signed(text, pos + 1)
            if parsed is not None:
                seconds, end = parsed
                return _set(fields, "offset", -seconds if text[pos] == "-" else seconds, end)
        return _set(fields, "offset", 0, pos) if not self.no_offset else -1

    def _signed(self, text: str, pos: int) -> tuple[int, int] | None:
        colon = ":" in self.pattern
        parts = [0, 0, 0]
        two = _two_digits(text, pos)
        if two is None:
            return None
        parts[0], pos = two, pos + 2
        for index, letter in ((1, "m"), (2, "s")):
            if letter.upper() * 2 in self.pattern:
                required = True
            elif letter * 2 in self.pattern:
                required = False
            else:
                break
            at = pos + 1 if colon else pos
            value = _two_digits(text, at) if (not colon or text[pos : pos + 1] == ":") else None
            if value is None:
                if required:
                    return None
                break
            parts[index], pos = value, at + 2
        if parts[0] > 23 or parts[1] > 59 or parts[2] > 59:
            return None  # java.time: "Value out of range: Hour[0-23], Minute[0-59], Second[0-59]"
        return parts[0] * 3600 + parts[1] * 60 + parts[2], pos


@lru_cache(maxsize=1)
def _zone_ids() -> frozenset[str]:
    return frozenset(available_timezones())


_ZONE_CHARS = re.compile(r"[A-Za-z0-9/_+\-]+")


@dataclass
class _Zone:
    """ZoneIdPrinterParser (appendZoneOrOffsetId, VV): an offset, `Z`, UTC/GMT/UT with an offset, or a region."""

    def parse(self, text: str, pos: int, fields: dict[str, Any]) -> int:
        if pos >= len(text):
            return -1
        if text[pos] in "+-":
            return _Offset("+HH:MM:ss", "Z").parse(text, pos, fields)
        for prefix in ("UTC", "GMT", "UT"):
            if text.startswith(prefix, pos):
                end = pos + len(prefix)
                if prefix == "GMT" and text.startswith("0", end):
                    return _set(fields, "offset", 0, end + 1)
                probe: dict[str, Any] = {}
                if end < len(text) and text[end] in "+-":
                    after = _Offset("+HH:MM:ss", "0").parse(text, end, probe)
                    if after >= 0:
                        return _set(fields, "offset", probe["offset"], after)
                return _set(fields, "offset", 0, end)
        run = _ZONE_CHARS.match(text, pos)
        ids = _zone_ids()
        for end in range(run.end() if run else pos, pos, -1):  # the longest region ID, as java.time's prefix tree
            if text[pos:end] in ids:
                return _set(fields, "zone", text[pos:end], end)
        return _set(fields, "offset", 0, pos + 1) if text[pos] == "Z" else -1


@dataclass
class _Seq:
    """A composite; `optional` ones ([...], optionalStart) restore the fields and position when any part fails."""

    items: list[Any]
    optional: bool = False

    def parse(self, text: str, pos: int, fields: dict[str, Any]) -> int:
        # a failed mandatory part fails the whole parse or the enclosing optional section, which restores its copy
        trial = dict(fields) if self.optional else fields
        at = pos
        for item in self.items:
            at = item.parse(text, at, trial)
            if at < 0:
                return pos if self.optional else -1
        if self.optional:
            fields.update(trial)
        return at


def _two_digits(text: str, pos: int) -> int | None:
    pair = text[pos : pos + 2]
    return int(pair) if len(pair) == 2 and pair.isascii() and pair.isdigit() else None


def _set(fields: dict[str, Any], name: str, value: Any, end: int) -> int:
    """DateTimeParseContext.setParsedField: the same field parsed twice with two values fails."""
    if name in fields and fields[name] != value:
        return -1
    fields[name] = value
    return end


def _adjacent(items: list[Any]) -> list[Any]:
    """DateTimeFormatterBuilder.appendValue's adjacent value parsing: fixed-width values after a value reserve their
    width from it (so `yyyyMMdd` reads a four-digit year); any other element ends the run."""
    active: _Value | None = None
    for item in items:
        follower = (isinstance(item, _Value) and item.fixed()) or (
            isinstance(item, _Fraction) and item.low == item.high and not item.point
        )
        if active is not None and follower:
            if active.subsequent >= 0:
                active.subsequent += item.high
            if isinstance(item, _Value):
                item.subsequent = -1
        elif isinstance(item, _Value):
            if active is not None:
                active.subsequent = -1
            active = item
        else:
            active = None
    return items


def seq(*items: Any, optional: bool = False) -> _Seq:
    return _Seq(_adjacent(list(items)), optional)


def opt(*items: Any) -> _Seq:
    return seq(*items, optional=True)


# ----------------------------------------------------------------------------------------------- java.time patterns

_MONTHS = tuple(calendar.month_name)[1:]
_DAYS = tuple(calendar.day_name)  # Monday first, as DayOfWeek's values 1..7


def _names(full: tuple[str, ...], short: bool, start: int = 1) -> tuple[tuple[str, int], ...]:
    labels = [(name[:3] if short else name, i + start) for i, name in enumerate(full)]
    return tuple(sorted(labels, key=lambda item: len(item[0]), reverse=True))


_OFFSET_X = {1: ("+HHmm", "Z"), 2: ("+HHMM", "Z"), 3: ("+HH:MM", "Z"), 4: ("+HHMMss", "Z"), 5: ("+HH:MM:ss", "Z")}
_OFFSET_LOWER_X = {1: ("+HHmm", "+00"), 2: ("+HHMM", "+0000"), 3: ("+HH:MM", "+00:00"), 4: ("+HHMMss", "+0000"),
                   5: ("+HH:MM:ss", "+00:00")}  # fmt: skip
_SIMPLE = {"d": "day", "H": "hour", "m": "minute", "s": "second", "h": "clock_ampm", "K": "hour_ampm",
           "k": "clock_day"}  # fmt: skip
_REFUSED = {
    "G": "an era",
    "W": "a week of month",
    "F": "an aligned week of month",
    "Q": "a quarter",
    "q": "a quarter",
    "z": "a time-zone name",
    "v": "a generic time-zone name",
    "O": "a localized offset",
    "n": "a nano of second",
    "N": "a nano of day",
    "A": "a milli of day",
    "B": "a day period",
    "g": "a modified Julian day",
}


def compile_pattern(pattern: str) -> _Seq:
    """DateTimeFormatterBuilder.appendPattern: letters by their count, 'quoted' text ('' is a quote), [optional]
    sections, any other character a literal; a letter java.time refuses is refused here with the same cause."""
    stack: list[list[Any]] = [[]]
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if "A" <= ch <= "Z" or "a" <= ch <= "z":
            count = 1
            while i + count < len(pattern) and pattern[i + count] == ch:
                count += 1
            stack[-1].append(_letter(ch, count, pattern))
            i += count
        elif ch == "'":
            end = i + 1
            chunk = []
            while True:
                if end >= len(pattern):
                    raise DateFormatError(f"Pattern ends with an incomplete string literal: {pattern}")
                if pattern[end] == "'":
                    if pattern[end + 1 : end + 2] == "'":
                        chunk.append("'")
                        end += 2
                        continue
                    break
                chunk.append(pattern[end])
                end += 1
            stack[-1].append(_Literal("".join(chunk) if end > i + 1 else "'"))
            i = end + 1
        elif ch == "[":
            stack.append([])
            i += 1
        elif ch == "]":
            if len(stack) == 1:
                raise DateFormatError(f"Pattern invalid as it contains ] without previous [: {pattern}")
            inner = stack.pop()
            stack[-1].append(opt(*inner))
            i += 1
        elif ch in "{}#":
            raise DateFormatError(f"Pattern includes reserved character: '{ch}'")
        else:
            stack[-1].append(_Literal(ch))
            i += 1
    while len(stack) > 1:  # optionalEnd is implied at the end of the pattern
        inner = stack.pop()
        stack[-1].append(opt(*inner))
    return seq(*stack[0])


def _letter(ch: str, count: int, pattern: str) -> Any:
    too_many = DateFormatError(f"Too many pattern letters: {ch}")
    if ch in "yu":
        name = "year_of_era" if ch == "y" else "year"
        if count == 2:
            return _Value(name, 2, 2, "NOT_NEGATIVE", reduced_base=2000)
        return _Value(name, count, 19, "NORMAL" if count < 4 else "EXCEEDS_PAD")
    if ch == "Y":  # Locale.ROOT's week-based year, which Elasticsearch makes ISO's (IsoCalendarDataProvider)
        if count == 2:
            return _Value("week_year", 2, 2, "NOT_NEGATIVE", reduced_base=2000)
        return _Value("week_year", count, 19, "NORMAL" if count < 4 else "EXCEEDS_PAD")
    if ch == "w":
        if count > 2:
            raise too_many
        return _Value("week", 1, 19, "NORMAL") if count == 1 else _Value("week", 2, 2)
    if ch in "ec" and count <= 2:  # the localized day of week: Monday is 1 in the ISO week
        return _Value("week_day", count, count)
    if ch in "ec" and count <= 4:
        return _Text("day_of_week", _names(_DAYS, count < 4))
    if ch in "ML":
        if count == 1:
            return _Value("month", 1, 19, "NORMAL")
        if count == 2:
            return _Value("month", 2, 2)
        if count in (3, 4):
            return _Text("month", _names(_MONTHS, count == 3))
        raise DateFormatError(f"pattern letter {ch!r} x{count} (a narrow month name) is not supported")
    if ch in _SIMPLE:
        if count > 2:
            raise too_many
        return _Value(_SIMPLE[ch], 1, 19, "NORMAL") if count == 1 else _Value(_SIMPLE[ch], 2, 2)
    if ch == "D":
        if count == 1:
            return _Value("day_of_year", 1, 19, "NORMAL")
        if count <= 3:
            return _Value("day_of_year", count, 3)
        raise too_many
    if ch == "S":
        return _Fraction(count, count, False)
    if ch == "E" and count <= 4:
        return _Text("day_of_week", _names(_DAYS, count < 4))
    if ch == "a" and count == 1:
        return _Text("ampm", (("AM", 0), ("PM", 1)))
    if ch == "X" and count <= 5:
        return _Offset(*_OFFSET_X[count])
    if ch == "x" and count <= 5:
        return _Offset(*_OFFSET_LOWER_X[count])
    if ch == "Z":
        if count <= 3:
            return _Offset("+HHMM", "+0000")
        if count == 5:
            return _Offset("+HH:MM:ss", "Z")
    if ch == "V" and count == 2:
        return _Zone()
    if ch in _REFUSED:
        raise DateFormatError(
            f"pattern letter {ch!r} ({_REFUSED[ch]}) in {pattern!r} is not read by the embedded engine"
        )
    raise DateFormatError(f"Unknown pattern letter: {ch}")


# ----------------------------------------------------------------------------------------------- named formats

_NN, _EP = "NOT_NEGATIVE", "EXCEEDS_PAD"


def _v(name: str, low: int, high: int | None = None, sign: str = _NN) -> _Value:
    return _Value(name, low, low if high is None else high, sign)


def _named() -> dict[str, list[_Seq]]:
    """DateFormatters' built-in formats, each as its list of parsers (tried in order; a JavaDateFormatter's first
    formatter is its printer and parses only when it is alone), built as Elasticsearch builds them; every element
    is a fresh object, so adjacent-value widths never leak between formats."""
    lit = _Literal

    def no_colon() -> _Seq:
        return seq(_Offset("+HHmm", "Z"))

    def zone_variants(base: Any) -> list[_Seq]:
        return [seq(base(), _Zone()), seq(base(), no_colon())]

    def strict_ymd() -> _Seq:
        return seq(_v("year", 4, 10, _EP), opt(lit("-"), _v("month", 2), opt(lit("-"), _v("day", 2))))

    def strict_hms() -> _Seq:
        return seq(_v("hour", 2), lit(":"), _v("minute", 2), lit(":"), _v("second", 2))

    def iso_local_date() -> _Seq:
        return seq(_v("year", 4, 10, _EP), lit("-"), _v("month", 2), lit("-"), _v("day", 2))

    def date_formatter() -> _Seq:
        return seq(
            _v("year", 1, 5, "NORMAL"),
            opt(lit("-"), _v("month", 1, 2), opt(lit("-"), _v("day", 1, 2))),
        )

    def hour_minute() -> _Seq:
        return seq(_v("hour", 1, 2), lit(":"), _v("minute", 1, 2))

    def hour_minute_second() -> _Seq:
        return seq(hour_minute(), lit(":"), _v("second", 1, 2))

    def time_no_millis() -> _Seq:
        return seq(_v("hour", 1, 2), lit(":"), _v("minute", 1, 2), lit(":"), _v("second", 1, 2))

    def time_prefix() -> _Seq:
        return seq(time_no_millis(), _Fraction(1, 9, True))

    def strict_time_base() -> _Seq:
        return seq(strict_hms(), _Fraction(1, 9, True))

    def basic_time_base() -> _Seq:
        return seq(_v("hour", 2), _v("minute", 2), _v("second", 2))

    def basic_time() -> _Seq:
        return seq(basic_time_base(), _Fraction(1, 9, True))

    def basic_ymd() -> _Seq:
        return seq(_v("year", 4, 4, "NORMAL"), _v("month", 2), _v("day", 2))

    def ordinal(low: int) -> _Seq:
        return seq(_v("year", 4, 10, _EP), lit("-"), _v("day_of_year", low, 3))

    def iso_week(week_low: int, insensitive: bool) -> _Seq:
        return seq(_v("week_year", 4, 10, _EP), lit("-W", insensitive), _v("week", week_low, 2), lit("-"),
                   _v("week_day", 1))  # fmt: skip

    def basic_week(strict: bool) -> _Seq:
        year = _v("week_year", 4) if strict else _v("week_year", 1, 19, "NORMAL")
        return seq(year, lit("W"), _v("week", 1, 2, "NEVER"), _v("week_day", 1, 19, "NORMAL"))

    def fraction_or_comma() -> list[_Seq]:
        return [opt(_Fraction(1, 9, True)), opt(lit(","), _Fraction(1, 9, False))]

    def date_optional_time(strict: bool) -> _Seq:
        if strict:
            return iso8601()
        clock = opt(
            _v("hour", 1, 2),
            opt(lit(":"), _v("minute", 1, 2), opt(lit(":"), _v("second", 1, 2)), *fraction_or_comma(),
                opt(_Zone()), opt(_Offset("+HHmm", "Z"))),
        )  # fmt: skip
        return seq(date_formatter(), opt(lit("T"), clock))

    def iso8601() -> _Seq:
        seconds = opt(lit(":"), _v("second", 2), *fraction_or_comma())
        clock = opt(_v("hour", 2), opt(lit(":"), _v("minute", 2), seconds))
        return seq(strict_ymd(), opt(lit("T"), clock, opt(_Zone()), opt(no_colon())))

    def date_time_formatter() -> _Seq:
        return seq(date_formatter(), lit("T"), hour_minute(),
                   opt(lit(":"), _v("second", 1, 2), _Fraction(1, 9, True)))  # fmt: skip

    def date_time_prefix() -> _Seq:
        return seq(date_formatter(), lit("T"), hour_minute(), opt(lit(":"), _v("second", 1, 2)))

    def strict_date_formatter() -> _Seq:
        return seq(strict_ymd(), lit("T"), strict_hms(), opt(_Fraction(1, 9, True)))

    def strict_ordinal_base(fraction: bool) -> _Seq:
        return seq(ordinal(3), lit("T"), _v("hour", 2), lit(":"), _v("minute", 2),
                   opt(lit(":"), _v("second", 2), _Fraction(1, 9, True)) if fraction else seq())  # fmt: skip

    def ordinal_base() -> _Seq:
        return seq(ordinal(1), lit("T"), hour_minute(), opt(lit(":"), _v("second", 1, 2), _Fraction(1, 9, True)))

    def with_millis(time: Any) -> Any:
        return lambda: seq(time(), _Fraction(1, 9, True))

    def pattern(text: str) -> list[_Seq]:
        return [compile_pattern(text)]

    week_t = lambda: seq(iso_week(2, True), lit("T"))  # noqa: E731
    return {
        "iso8601": [iso8601()],
        "basic_date": [seq(_v("year", 1, 4, "NORMAL"), _v("month", 1, 2), _v("day", 1, 2))],
        "basic_date_time": zone_variants(lambda: seq(basic_ymd(), lit("T"), basic_time())),
        "basic_date_time_no_millis": zone_variants(lambda: seq(basic_ymd(), lit("T"), basic_time_base())),
        "basic_ordinal_date": pattern("uuuuDDD"),
        "basic_ordinal_date_time": zone_variants(lambda: seq(compile_pattern("yyyyDDD"), lit("T"), basic_time())),
        "basic_ordinal_date_time_no_millis": zone_variants(
            lambda: seq(compile_pattern("uuuuDDD"), lit("T"), basic_time_base())
        ),
        "basic_time": zone_variants(basic_time),
        "basic_time_no_millis": zone_variants(basic_time_base),
        "basic_t_time": zone_variants(lambda: seq(lit("T"), basic_time())),
        "basic_t_time_no_millis": zone_variants(lambda: seq(lit("T"), basic_time_base())),
        "basic_week_date": [basic_week(False)],
        "basic_week_date_time": zone_variants(lambda: seq(basic_week(False), lit("T"), basic_time())),
        "basic_week_date_time_no_millis": zone_variants(lambda: seq(basic_week(False), lit("T"), basic_time_base())),
        "date": [date_formatter()],
        "date_hour": [seq(date_formatter(), lit("T"), _v("hour", 1, 2))],
        "date_hour_minute": [seq(date_formatter(), lit("T"), hour_minute())],
        "date_hour_minute_second": [seq(date_formatter(), lit("T"), hour_minute_second())],
        "date_hour_minute_second_fraction": [seq(date_formatter(), lit("T"), time_prefix())],
        "date_hour_minute_second_millis": [seq(date_formatter(), lit("T"), time_no_millis(), _Fraction(1, 3, True))],
        "date_optional_time": [date_optional_time(False)],
        "date_time": [seq(date_time_formatter(), _Offset("+HH:MM", "Z")), seq(date_time_formatter(), no_colon())],
        "date_time_no_millis": [
            seq(date_time_prefix(), _Offset("+HH:MM", "Z")),
            seq(date_time_prefix(), no_colon()),
            seq(date_time_prefix(), opt(_Zone())),
            seq(date_time_prefix(), opt(no_colon())),
        ],
        "hour": [seq(_v("hour", 1, 2))],
        "hour_minute": [hour_minute()],
        "hour_minute_second": [hour_minute_second()],
        "hour_minute_second_fraction": [time_prefix()],
        "hour_minute_second_millis": [seq(time_no_millis(), _Fraction(1, 3, True))],
        "ordinal_date": [ordinal(1)],
        "ordinal_date_time": zone_variants(ordinal_base),
        "ordinal_date_time_no_millis": zone_variants(lambda: seq(ordinal(1), lit("T"), hour_minute_second())),
        "time": zone_variants(time_prefix),
        "time_no_millis": zone_variants(time_no_millis),
        "t_time": zone_variants(lambda: seq(lit("T"), time_prefix())),
        "t_time_no_millis": zone_variants(lambda: seq(lit("T"), time_no_millis())),
        "week_date": [iso_week(1, False)],
        "week_date_time": zone_variants(lambda: seq(iso_week(1, False), lit("T"), time_prefix())),
        "week_date_time_no_millis": zone_variants(lambda: seq(iso_week(1, False), lit("T"), time_no_millis())),
        "week_year": [seq(_v("week_year", 1, 19, "NORMAL"))],
        "weekyear_week": [seq(_v("week_year", 1, 19, "NORMAL"), lit("-W"), _v("week", 1, 19, "NORMAL"))],
        "weekyear_week_day": [
            seq(
                _v("week_year", 1, 19, "NORMAL"),
                lit("-W"),
                _v("week", 1, 19, "NORMAL"),
                lit("-"),
                _v("week_day", 1, 19, "NORMAL"),
            ),
        ],
        "year": [seq(_v("year", 1, 19, "NORMAL"))],
        "year_month": [
            seq(_v("year", 1, 19, "NORMAL"), lit("-"), _v("month", 1, 19, "NORMAL")),
        ],
        "year_month_day": [
            seq(
                _v("year", 1, 19, "NORMAL"),
                lit("-"),
                _v("month", 1, 19, "NORMAL"),
                lit("-"),
                _v("day", 1, 19, "NORMAL"),
            ),
        ],
        "strict_basic_week_date": [basic_week(True)],
        "strict_basic_week_date_time": zone_variants(lambda: seq(basic_week(True), lit("T"), basic_time())),
        "strict_basic_week_date_time_no_millis": zone_variants(
            lambda: seq(basic_week(True), lit("T"), basic_time_base())
        ),
        "strict_date": [iso_local_date()],
        "strict_date_hour": pattern("uuuu-MM-dd'T'HH"),
        "strict_date_hour_minute": pattern("uuuu-MM-dd'T'HH:mm"),
        "strict_date_hour_minute_second": pattern("uuuu-MM-dd'T'HH:mm:ss"),
        "strict_date_hour_minute_second_fraction": [seq(strict_ymd(), lit("T"), strict_hms(), _Fraction(1, 9, True))],
        "strict_date_hour_minute_second_millis": [seq(strict_ymd(), lit("T"), strict_hms(), _Fraction(1, 9, True))],
        "strict_date_optional_time": [date_optional_time(True)],
        "strict_date_optional_time_nanos": [
            seq(
                strict_ymd(),
                opt(
                    lit("T"),
                    strict_hms(),
                    opt(_Fraction(3, 9, True)),
                    opt(lit(","), _Fraction(3, 9, False)),
                    opt(_Zone()),
                    opt(no_colon()),
                ),
            )
        ],
        "strict_date_time": zone_variants(strict_date_formatter),
        "strict_date_time_no_millis": zone_variants(lambda: seq(strict_ymd(), lit("T"), strict_hms())),
        "strict_hour": pattern("HH"),
        "strict_hour_minute": pattern("HH:mm"),
        "strict_hour_minute_second": [strict_hms()],
        "strict_hour_minute_second_fraction": [with_millis(strict_hms)()],
        "strict_hour_minute_second_millis": [with_millis(strict_hms)()],
        "strict_ordinal_date": [seq(_v("year", 4, 10, _EP), lit("-"), _v("day_of_year", 3))],
        "strict_ordinal_date_time": zone_variants(lambda: strict_ordinal_base(True)),
        "strict_ordinal_date_time_no_millis": zone_variants(lambda: seq(ordinal(3), lit("T"), strict_hms())),
        "strict_time": zone_variants(strict_time_base),
        "strict_time_no_millis": zone_variants(strict_hms),
        "strict_t_time": zone_variants(lambda: seq(lit("T"), strict_time_base())),
        "strict_t_time_no_millis": zone_variants(lambda: seq(lit("T"), strict_hms())),
        "strict_week_date": [iso_week(2, True)],
        "strict_week_date_time": zone_variants(lambda: seq(week_t(), strict_time_base())),
        "strict_week_date_time_no_millis": zone_variants(lambda: seq(week_t(), strict_hms())),
        "strict_weekyear": [seq(_v("week_year", 4, 10, _EP))],
        "strict_weekyear_week": [seq(_v("week_year", 4, 10, _EP), lit("-W"), _v("week", 2))],
        "strict_weekyear_week_day": [
            seq(_v("week_year", 4, 10, _EP), lit("-W"), _v("week", 2), lit("-"), _v("week_day", 1, 19, "NORMAL"))
        ],
        "strict_year": [seq(_v("year", 4, 10, _EP))],
        "strict_year_month": [seq(_v("year", 4, 10, _EP), lit("-"), _v("month", 2))],
        "strict_year_month_day": [strict_ymd()],
    }


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join("T" if part == "t" else part.capitalize() for part in rest)


_NAMED = frozenset(_named())
# FormatNames' camelCase spellings (deprecated in 8 but still read), with Joda's capital T and `weekyear`
_ALIASES = {
    **{_camel(n): n for n in _NAMED},
    "weekyear": "week_year",
    "weekyearWeek": "weekyear_week",
    "weekyearWeekDay": "weekyear_week_day",
    "strictWeekyear": "strict_weekyear",
    "strictWeekyearWeek": "strict_weekyear_week",
    "strictWeekyearWeekDay": "strict_weekyear_week_day",
}
#: strict_date is built on ISO_LOCAL_DATE with ResolverStyle.LENIENT (2020-02-30 is March 1st there)
_LENIENT = frozenset({"strict_date"})


# ----------------------------------------------------------------------------------------------- resolving


def _month_days(year: int, month: int) -> int:
    if not 1 <= month <= 12:
        raise ValueError(f"Invalid value for MonthOfYear: {month}")
    return 29 if month == 2 and calendar.isleap(year) else (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]


def _days(year: int, month: int, day: int) -> int:
    """LocalDate.of(...).toEpochDay() for any year (java.time goes far beyond Python's 9999)."""
    if not 1 <= day <= _month_days(year, month):
        raise ValueError(f"Invalid date '{year}-{month}-{day}'")
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def _weekday(days: int) -> int:
    """DayOfWeek's value (Monday 1 .. Sunday 7) of an epoch day; 1970-01-01 was a Thursday."""
    return (days + 3) % 7 + 1


def _iso_week_day(year: int, week: int, weekday: int) -> int:
    """The epoch day of an ISO week date (IsoFields and Locale.ROOT's week fields, as Elasticsearch sets them:
    Monday first, at least four days in week one)."""
    jan4 = _days(year, 1, 4)
    weeks = 53 if _weekday(_days(year, 1, 1)) == 4 or _weekday(_days(year, 12, 31)) == 4 else 52
    if not 1 <= week <= weeks or not 1 <= weekday <= 7:
        raise ValueError(f"Invalid week date {year}-W{week}-{weekday}")
    return jan4 - (_weekday(jan4) - 1) + (week - 1) * 7 + weekday - 1


def _local_date(f: dict[str, Any], lenient: bool) -> int | None:
    """DateFormatters.LOCAL_DATE_QUERY as an epoch day: a year (or year of era) with month and day, or with a day
    of year, or an ISO week date; None when the fields make no date. strict_date resolves leniently (month 13 is
    next January, February 30 is March 1 or 2)."""
    year = f.get("year", f.get("year_of_era"))
    if "week_year" in f and "week" in f and "week_day" in f:
        return _iso_week_day(f["week_year"], f["week"], f["week_day"])
    if year is None:
        return None
    if "month" in f and "day" in f:
        if lenient:
            months = year * 12 + f["month"] - 1
            return _days(months // 12, months % 12 + 1, 1) + f["day"] - 1
        return _days(year, f["month"], f["day"])
    if "day_of_year" in f:
        if not 1 <= f["day_of_year"] <= (366 if calendar.isleap(year) else 365):
            raise ValueError(f"Invalid date 'DayOfYear {f['day_of_year']}'")
        return _days(year, 1, 1) + f["day_of_year"] - 1
    return None


def _local_time(f: dict[str, Any]) -> tuple[int, int, int, int] | None:
    """Parsed.resolveTimeFields/resolveTimeLenient: the hour of day from a clock hour (and am/pm), then minutes,
    seconds and nanos defaulted to 0, unless a smaller unit is given without a larger one."""
    hour = f.get("hour")
    if hour is None and "clock_day" in f:
        if not 1 <= f["clock_day"] <= 24:
            raise ValueError("Invalid value for ClockHourOfDay")
        hour = f["clock_day"] % 24
    if hour is None and "ampm" in f and ("clock_ampm" in f or "hour_ampm" in f):
        within = f["clock_ampm"] % 12 if "clock_ampm" in f else f["hour_ampm"]
        hour = f["ampm"] * 12 + within
    if hour is None:
        return None
    minute, second, nano = f.get("minute"), f.get("second"), f.get("nano")
    if (minute is None and (second is not None or nano is not None)) or (
        minute is not None and second is None and nano is not None
    ):
        return None
    minute, second, nano = minute or 0, second or 0, nano or 0
    if not (0 <= hour <= 23 and 0 <= minute <= 59 and 0 <= second <= 59):
        raise ValueError("Invalid value for a time field")
    return hour, minute, second, nano


@dataclass(frozen=True)
class Instant:
    """An instant in epoch nanoseconds, with the zone it was read in (None: none was written)."""

    nanos: int
    zone: tzinfo | None = None


def _zone_of(f: dict[str, Any]) -> tzinfo | None:
    if "zone" in f:
        return ZoneInfo(f["zone"])
    if "offset" in f:
        return timezone(timedelta(seconds=f["offset"])) if f["offset"] else UTC
    return None


def _resolve(f: dict[str, Any], lenient: bool, default_zone: tzinfo) -> Instant:
    """DateFormatters.from, then ZonedDateTime.toInstant: the fields as an instant in their zone (or the default):
    a date and a time; a date at the start of its day; a time on 1970-01-01; a year (and month) on its first day;
    a week-based year on the Monday of its first week."""
    written = _zone_of(f)
    zone = written or default_zone
    day = _local_date(f, lenient)
    clock = _local_time(f)
    if day is None:
        year = f.get("year", f.get("year_of_era"))
        if clock is not None or ("month" in f and year is None):
            day = _fallback_date(f, year)
        elif year is not None:
            day = _days(year, f.get("month", 1), 1)
        elif "week_year" in f:
            day = _iso_week_day(f["week_year"], f.get("week", 1), 1)
        else:
            raise ValueError("the text holds no date")
    if "day_of_week" in f and "year" in f and _weekday(day) != f["day_of_week"]:
        raise ValueError("Conflict found: the day of week does not match the date")
    hour, minute, second, nano = clock or (0, 0, 0, 0)
    seconds = day * 86400 + hour * 3600 + minute * 60 + second
    return Instant((seconds - _offset_seconds(seconds, zone)) * _NS + nano, written)


def _fallback_date(f: dict[str, Any], year: int | None) -> int:
    """DateFormatters.getLocalDate: the week's Monday, else the month's day (1970 and the 1st by default)."""
    if "week_year" in f:
        return _iso_week_day(f["week_year"], f.get("week", 1), 1)
    if "month" in f:
        return _days(1970 if year is None else year, f["month"], f.get("day", 1))
    return 0


def _offset_seconds(local_seconds: int, zone: tzinfo) -> int:
    """The zone's offset at a local date-time (ZonedDateTime.of: the earlier offset in an overlap, the one before
    a gap); a fixed offset anywhere, a region's only within Python's years 1..9999."""
    if isinstance(zone, timezone):
        return int(zone.utcoffset(None).total_seconds())
    local = datetime(1970, 1, 1) + timedelta(seconds=local_seconds)
    offset = local.replace(tzinfo=zone).utcoffset()
    return int(offset.total_seconds()) if offset else 0


# ----------------------------------------------------------------------------------------------- epoch formats

_EPOCH = re.compile(r"(-)?(\d{1,19})(?:\.(\d*))?")


@dataclass(frozen=True)
class _Epoch:
    """EpochTime.MILLIS_FORMATTER / SECONDS_FORMATTER: a whole number (with a sign for times before 1970) and up to
    six (millis) or nine (seconds) fraction digits, a trailing '.' allowed; round-up fills the fraction."""

    unit: int  # nanoseconds per unit
    digits: int

    def read(self, text: str, round_up: bool) -> int | None:
        found = _EPOCH.fullmatch(text)
        if not found or int(found.group(2)) > _LONG_MAX:
            return None
        sign, whole, fraction = found.groups()
        if fraction is not None and len(fraction) > self.digits:
            return None
        if fraction:
            part = int(fraction.ljust(self.digits, "0")) * (self.unit // 10**self.digits)
        else:
            part = self.unit - self.unit // 10**self.digits if round_up else 0
        nanos = int(whole) * self.unit + part
        return -nanos if sign else nanos


_EPOCH_FORMATS = {"epoch_millis": _Epoch(1_000_000, 6), "epoch_second": _Epoch(_NS, 9)}


# ----------------------------------------------------------------------------------------------- formatters

_ROUND_UP = (("hour", 23), ("minute", 59), ("second", 59), ("nano", 999_999_999))


@dataclass
class _Parser:
    """One java.time parser of a format, with what its round-up twin fills in when a field is missing."""

    grammar: _Seq | _Epoch
    lenient: bool = False
    round_up_fields: tuple[tuple[str, int], ...] = ()
    iso_shortcut: bool = False  # strict_date_optional_time: its commonest texts read by one regular expression

    def read(self, text: str, round_up: bool, zone: tzinfo) -> Instant | None:
        if isinstance(self.grammar, _Epoch):
            nanos = self.grammar.read(text, round_up)
            return None if nanos is None else Instant(nanos)
        parsed: dict[str, Any] = {}
        shortcut = _ISO_SHORTCUT.fullmatch(text) if self.iso_shortcut else None
        if shortcut is not None:
            parsed = _iso_fields(shortcut)
        elif self.grammar.parse(text, 0, parsed) != len(text):
            return None
        if round_up:
            for name, value in self.round_up_fields:
                parsed.setdefault(name, value)
        try:
            return _resolve(parsed, self.lenient, zone)
        except (ValueError, OverflowError, KeyError):
            return None


# yyyy-MM-dd, optionally with THH:mm:ss[.fraction] and Z or a valid +HH:MM: every such text strict_date_optional_time's
# grammar reads into exactly these fields (test_dates.py checks the two agree); any other text takes the grammar
_ISO_SHORTCUT = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(?:(Z)|([+-])([01]\d|2[0-3]):([0-5]\d))?)?",
    re.ASCII,
)


def _iso_fields(found: re.Match[str]) -> dict[str, Any]:
    year, month, day, hour, minute, second, fraction, z, sign, off_h, off_m = found.groups()
    fields: dict[str, Any] = {"year": int(year), "month": int(month), "day": int(day)}
    if hour is not None:
        fields.update(hour=int(hour), minute=int(minute), second=int(second))
    if fraction is not None:
        fields["nano"] = int(fraction.ljust(9, "0"))
    if z is not None:
        fields["offset"] = 0
    elif sign is not None:
        seconds = int(off_h) * 3600 + int(off_m) * 60
        fields["offset"] = -seconds if sign == "-" else seconds
    return fields


def _round_up_fields(grammar: _Seq) -> tuple[tuple[str, int], ...]:
    """JavaDateFormatter's DEFAULT_ROUND_UP: day of year (or month and day, unless week based) 1, then
    23:59:59.999999999 (a clock hour of am-pm 11 and PM instead of the hour of day when the parser reads one)."""
    names = _field_names(grammar)
    out: list[tuple[str, int]] = []
    if "day_of_year" in names:
        out.append(("day_of_year", 1))
    elif "week_year" not in names:
        out += [("month", 1), ("day", 1)]
    if "clock_ampm" in names:
        out += [("clock_ampm", 11), ("ampm", 1)]
    else:
        out.append(("hour", 23))
    return (*out, *_ROUND_UP[1:])


def _field_names(item: Any) -> set[str]:
    if isinstance(item, _Seq):
        return set().union(*(_field_names(i) for i in item.items)) if item.items else set()
    name = getattr(item, "name", None)
    return {name} if isinstance(name, str) else set()


@dataclass
class DateFormat:
    """A compiled `format`: its parsers in the order Elasticsearch tries them."""

    text: str
    parsers: list[_Parser] = field(default_factory=list)

    def instant(self, text: str, round_up: bool = False, zone: tzinfo = UTC) -> Instant:
        """JavaDateFormatter.parse (or its round-up parser) then DateFormatters.from; the first parser that reads
        the whole text wins."""
        if text:
            for parser in self.parsers:
                found = parser.read(text, round_up, zone)
                if found is not None:
                    return found
        raise DateParseError(f"failed to parse date field [{text}] with format [{self.text}]")

    def reads_names(self) -> bool:
        """Whether a pattern reads month or day names or am/pm, which a mapping's `locale` would change."""
        return any(_has_text(parser.grammar) for parser in self.parsers)

    def millis(self, text: str, nanos: bool = False) -> float:
        """A document's value as the date field stores it: epoch milliseconds (a date_nanos field keeps the
        fraction of a millisecond)."""
        return _to_millis(self.instant(text).nanos, nanos)


def _has_text(item: Any) -> bool:
    return isinstance(item, _Text) or (isinstance(item, _Seq) and any(_has_text(i) for i in item.items))


def _to_millis(epoch_nanos: int, nanos: bool) -> float:
    """Resolution.MILLISECONDS.convert is Instant.toEpochMilli, which floors; date_nanos keeps the fraction."""
    return epoch_nanos / 1_000_000 if nanos else float(epoch_nanos // 1_000_000)


@lru_cache(maxsize=256)
def date_format(spec: str) -> DateFormat:
    """DateFormatter.forPattern: a `||` list of named formats and java.time patterns (an `8` prefix, the 6.x way of
    asking for java.time, is dropped); an empty element or an unknown letter is Elasticsearch's refusal."""
    text = str(spec)
    if not text:
        raise DateFormatError("No date pattern provided")
    body = text[1:] if text.startswith("8") else text
    named = _named()
    parsers: list[_Parser] = []
    for part in body.split("||"):
        if not part:
            raise DateFormatError(f"Cannot have empty element in multi date format pattern: {text}")
        name = _ALIASES.get(part.strip(), part.strip())
        if name in _EPOCH_FORMATS:
            parsers.append(_Parser(_EPOCH_FORMATS[name]))
            continue
        if name in named:
            grammars = named[name]
        else:
            try:
                grammars = [compile_pattern(part.strip())]
            except DateFormatError as exc:
                raise DateFormatError(f"Invalid format: [{part}]: {exc}") from None
        for grammar in grammars:
            shortcut = name in ("strict_date_optional_time", "iso8601")
            parsers.append(_Parser(grammar, name in _LENIENT, _round_up_fields(grammar), shortcut))
    return DateFormat(text, parsers)


# ----------------------------------------------------------------------------------------------- time zones, math


def time_zone(text: str) -> tzinfo:
    """ZoneId.of as Elasticsearch reads a `time_zone`: `Z`, an offset (`+01:00`, `-0800`, `+5`), UTC/GMT/UT with an
    offset, or a region (`Europe/Paris`)."""
    value = str(text)
    if value == "Z":
        return UTC
    for prefix in ("UTC", "GMT", "UT"):
        if value.startswith(prefix) and (len(value) == len(prefix) or value[len(prefix)] in "+-"):
            rest = value[len(prefix) :]
            return _fixed_offset(rest, text) if rest else UTC
    if value[:1] in "+-":
        return _fixed_offset(value, text)
    try:
        return ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise DateFormatError(f"Unknown time-zone ID: {text}") from None


def _fixed_offset(value: str, original: str) -> tzinfo:
    found = re.fullmatch(r"([+-])(\d{1,2})(?::?(\d{2})(?::?(\d{2}))?)?", value)
    if not found:
        raise DateFormatError(f"Invalid ID for offset-based ZoneId: {original}")
    hours, minutes, seconds = (int(g or 0) for g in found.groups()[1:])
    total = hours * 3600 + minutes * 60 + seconds
    if hours > 18 or minutes > 59 or seconds > 59 or total > 18 * 3600:
        raise DateFormatError(f"Zone offset not in valid range: {original}")
    return timezone(timedelta(seconds=-total if found.group(1) == "-" else total)) if total else UTC


_CLOCK_ANCHOR = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{3})?Z")


def parse_math(
    text: str, fmt: DateFormat, round_up: bool, zone: tzinfo | None = None, now_millis: int | None = None
) -> Instant:
    """JavaDateMathParser.parse: `now` or `date||` followed by math (`+1d`, `-2h`, `/M`), or a date alone read by
    the round-up parser when `round_up`; math and rounding run in `zone` (UTC by default). The frozen clock writes
    `now` as its instant in ISO 8601 (`2026-01-15T12:00:00Z||-1d`); a field whose format cannot read that is given
    the instant itself, as Elasticsearch would read `now`."""
    if text.startswith("now"):
        if now_millis is None:
            raise DateParseError(f"[{text}]: `now` is resolved by the frozen clock before the query reaches here")
        base, math = Instant(now_millis * 1_000_000), text[3:]
    elif "||" in text:
        head, math = text.split("||", 1)
        base = _date_time(head, fmt, False, zone)
    else:
        return _date_time(text, fmt, round_up, zone)
    return _math(math, base, round_up, zone or UTC)


def _date_time(text: str, fmt: DateFormat, round_up: bool, zone: tzinfo | None) -> Instant:
    if not text:
        raise DateParseError("cannot parse empty datetime")
    try:
        found = fmt.instant(text, round_up, zone or UTC)
    except DateParseError:
        if not _CLOCK_ANCHOR.fullmatch(text):
            raise
        found = date_format("strict_date_optional_time").instant(text)
    if zone is not None and found.zone is None and _is_epoch(text, fmt):
        # DateFormatters.from(accessor).withZoneSameLocal(timeZone): an epoch value is read as UTC's local time
        # and that local time is then taken in the time zone, so Elasticsearch 8 shifts it (fixed after 8 by
        # elastic/elasticsearch#148663, "Don't apply time zones to epoch-based timestamps")
        local = (datetime(1970, 1, 1) + timedelta(microseconds=found.nanos // 1000)).replace(tzinfo=zone)
        shift = int(cast(timedelta, local.utcoffset()).total_seconds())  # a zoned datetime has an offset
        return Instant(found.nanos - shift * _NS)
    return found


def _is_epoch(text: str, fmt: DateFormat) -> bool:
    """Whether the first parser of `fmt` that reads `text` is an epoch one."""
    for parser in fmt.parsers:
        if parser.read(text, False, UTC) is not None:
            return isinstance(parser.grammar, _Epoch)
    return False


_MATH_UNITS = "yMwdhHms"


def _math(math: str, base: Instant, round_up: bool, zone: tzinfo) -> Instant:
    """JavaDateMathParser.parseMath: each `+n`/`-n`/`/` and a unit on the ZonedDateTime in `zone`; calendar units
    move the local date, hours and smaller move the instant; rounding up lands on the unit's last millisecond."""
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=base.nanos // 1000)
    moment = moment.astimezone(zone)
    sub_micro = base.nanos % 1000
    i = 0
    while i < len(math):
        op = math[i]
        i += 1
        if op not in "+-/":
            raise DateParseError(f"operator not supported for date math [{math}]")
        if i >= len(math):
            raise DateParseError(f"truncated date math [{math}]")
        start = i
        while i < len(math) and math[i].isdigit():
            i += 1
        if i > start and i >= len(math):
            raise DateParseError(f"truncated date math [{math}]")
        amount = int(math[start:i]) if i > start else 1
        if op == "/" and amount != 1:
            raise DateParseError(f"rounding `/` can only be used on single unit types [{math}]")
        unit = math[i]
        i += 1
        if unit not in _MATH_UNITS:
            raise DateParseError(f"unit [{unit}] not supported for date math [{math}]")
        if op == "/":
            moment, sub_micro = _round(moment, unit, zone), 0
            if round_up:
                moment = _plus(moment, 1, unit, zone) - timedelta(milliseconds=1)
                moment = moment.astimezone(zone)
        else:
            moment = _plus(moment, amount if op == "+" else -amount, unit, zone)
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return Instant((delta.days * 86400 + delta.seconds) * _NS + delta.microseconds * 1000 + sub_micro)


def _plus(moment: datetime, amount: int, unit: str, zone: tzinfo) -> datetime:
    if unit in "hHms":
        step = {"h": timedelta(hours=1), "H": timedelta(hours=1), "m": timedelta(minutes=1), "s": timedelta(seconds=1)}
        return (moment.astimezone(UTC) + step[unit] * amount).astimezone(zone)
    local = moment.replace(tzinfo=None)
    if unit in "yM":
        months = local.month - 1 + amount * (12 if unit == "y" else 1)
        year, month = local.year + months // 12, months % 12 + 1
        local = local.replace(year=year, month=month, day=min(local.day, calendar.monthrange(year, month)[1]))
    else:
        local += timedelta(days=amount * (7 if unit == "w" else 1))
    return _in_zone(local, zone)


def _round(moment: datetime, unit: str, zone: tzinfo) -> datetime:
    local = moment.replace(tzinfo=None)
    if unit in "hH":
        return moment.replace(minute=0, second=0, microsecond=0)
    if unit == "m":
        return moment.replace(second=0, microsecond=0)
    if unit == "s":
        return moment.replace(microsecond=0)
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "y":
        midnight = midnight.replace(month=1, day=1)
    elif unit == "M":
        midnight = midnight.replace(day=1)
    elif unit == "w":
        midnight -= timedelta(days=midnight.weekday())
    return _in_zone(midnight, zone)


def _in_zone(local: datetime, zone: tzinfo) -> datetime:
    """ZonedDateTime.ofLocal: a local time in a gap moves forward by the gap's length (what fold=0 gives)."""
    return local.replace(tzinfo=zone).astimezone(UTC).astimezone(zone)


def query_millis(value: Any, fmt: DateFormat, round_up: bool, zone: tzinfo | None = None, nanos: bool = False) -> float:
    """DateFieldType.parseToLong: a query value (a bound, a term, an origin) as text through the date math parser,
    in the field's resolution."""
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return _to_millis(parse_math(text, fmt, round_up, zone).nanos, nanos)


def index_millis(value: Any, fmt: DateFormat, nanos: bool = False) -> float:
    """DateFieldMapper.parseCreateField: a document value's text read by the field's format (no date math)."""
    if isinstance(value, bool):
        raise DateParseError(f"failed to parse date field [{str(value).lower()}] with format [{fmt.text}]")
    return fmt.millis(str(value), nanos)  # a number is read as its text


_JAVA_NUMBER = re.compile(r"[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)")


def looks_like_number(text: str) -> bool:
    """Long.parseLong or Double.parseDouble would read it (hexadecimal floats aside): dynamic date detection
    leaves such strings alone."""
    return bool(_JAVA_NUMBER.fullmatch(text.strip()))


def detect_date(text: str, formats: tuple[str, ...]) -> str | None:
    """DynamicFieldsBuilder's date detection: the first of `dynamic_date_formats` that reads a string (never a
    number), which becomes the new date field's format."""
    if looks_like_number(text):
        return None
    for spec in formats:
        try:
            date_format(spec).instant(text)
        except DateParseError:
            continue
        return spec
    return None


__all__ = [
    "DEFAULT_DYNAMIC_DATE_FORMATS",
    "DEFAULT_FORMAT",
    "DEFAULT_NANOS_FORMAT",
    "DateFormat",
    "DateFormatError",
    "DateParseError",
    "Instant",
    "compile_pattern",
    "date_format",
    "detect_date",
    "index_millis",
    "parse_math",
    "query_millis",
    "time_zone",
]
