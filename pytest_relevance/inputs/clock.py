"""The frozen clock: `relevance_now` is the only "now" a relevance run ever sees.

Queries reach "now" three ways, and each is pinned to the frozen instant: the `{{now}}` placeholder, date math in the
rendered query (`now-7d/d` becomes `2026-01-15T12:00:00Z||-7d/d`, Elasticsearch's own anchored syntax), and Python
code under test (time-machine, in the `relevance_clock` fixture). A recency boost then ranks the same on any day.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta
from typing import Any

# date math on now, whole: `now`, `now-7d/d`, `now+1M-1d`; "now-playing" or "nowhere" are text, never moved in time
NOW = re.compile(r"^now(?:[+\-]\d+[yMwdhHms]|/[yMwdhHms])*$")
_MATH = re.compile(r"([+\-]\d+[yMwdhHms]|/[yMwdhHms])")
_UNITS = {"w": "weeks", "d": "days", "h": "hours", "H": "hours", "m": "minutes", "s": "seconds"}


def parse_instant(value: str | datetime) -> datetime:
    """An ISO 8601 instant; a naive one is taken as UTC so that the same setting means the same moment anywhere."""
    instant = value if isinstance(value, datetime) else datetime.fromisoformat(str(value).strip())
    return instant if instant.tzinfo else instant.replace(tzinfo=UTC)


def iso(instant: datetime) -> str:
    text = instant.astimezone(UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z").replace(".000Z", "Z")


def anchor(value: Any, instant: datetime) -> Any:
    """Rewrite every string that is date math on `now` to the same math on the frozen instant (values only: a
    mapping's keys are names, and a script's `params.now` stays a name)."""
    if isinstance(value, dict):
        return {k: anchor(v, instant) for k, v in value.items()}
    if isinstance(value, list):
        return [anchor(v, instant) for v in value]
    if isinstance(value, str) and NOW.match(value):
        rest = value[3:]
        return f"{iso(instant)}||{rest}" if rest else iso(instant)
    return value


def resolve_date(value: object, instant: datetime | None = None) -> datetime:
    """A date, epoch milliseconds, or anchored date math (`2026-01-15T12:00:00Z||-7d/d`) as an aware datetime. Any
    other value is read as its text (a YAML date is one), so a corpus field of any type can be tried: ValueError
    when the text is no date."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value / 1000, UTC)
    text = str(value)
    if instant is not None and NOW.match(text):
        text = str(anchor(text, instant))
    base, _, math = text.partition("||")
    moment = parse_instant(base.replace("Z", "+00:00") if base.endswith("Z") else base)
    if math and _MATH.sub("", math):
        raise ValueError(f"cannot read date math {math!r} in {value!r}")
    for op in _MATH.findall(math):
        moment = _round(moment, op[1]) if op[0] == "/" else _shift(moment, int(op[:-1]), op[-1])
    return moment


def _shift(moment: datetime, amount: int, unit: str) -> datetime:
    if unit in ("y", "M"):  # clamped to the month's last day, as Java (and so Elasticsearch) does: 03-31 -1M = 02-28
        months = moment.month - 1 + amount * (12 if unit == "y" else 1)
        year, month = moment.year + months // 12, months % 12 + 1
        return moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))
    return moment + timedelta(**{_UNITS[unit]: amount})


def _round(moment: datetime, unit: str) -> datetime:
    """Round down, as Elasticsearch does for `/d` in gte/lt bounds."""
    if unit == "y":
        return moment.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    if unit == "M":
        return moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    if unit == "w":
        start = moment - timedelta(days=moment.weekday())
        return start.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "d":
        return moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit in ("h", "H"):
        return moment.replace(minute=0, second=0, microsecond=0)
    if unit == "m":
        return moment.replace(second=0, microsecond=0)
    return moment.replace(microsecond=0)  # "s", the last unit NOW admits
