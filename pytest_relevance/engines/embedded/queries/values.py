"""Durations and distances as Elasticsearch reads them in queries and scripts: the one reader that function_score's
decays, distance_feature and the Painless decay functions share, so none of them imports another."""

from __future__ import annotations

import re
from typing import Any

from pytest_relevance.engines.embedded.queries.errors import Invalid

# TimeValue.parseTimeValue's units in the order it tries them, as (suffix, milliseconds per unit or, below one,
# how many units make one millisecond); weeks and fractions are not durations there
_TIME_UNITS = (("nanos", -1_000_000), ("micros", -1_000), ("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000),
               ("d", 86_400_000))  # fmt: skip
_LONG_MAX = 2**63 - 1
_JAVA_BLANKS = "".join(map(chr, range(33)))  # what Java's String.trim removes: every character <= ' '


def time_value_millis(text: str, path: str) -> float:
    """Elasticsearch's TimeValue.parseTimeValue(...).getMillis(), which reads the scale and offset of date decays:
    a whole number and a unit (nanos, micros, ms, s, m, h, d; `m` only in lower case, as `M` would be months), or
    a bare 0 or -1; anything else (weeks, fractions, a number without a unit) is its error."""
    normalized = text.lower().strip(_JAVA_BLANKS)
    for suffix, per_unit in _TIME_UNITS:
        if (text if suffix == "m" else normalized).endswith(suffix):
            digits = normalized[: -len(suffix)].strip(_JAVA_BLANKS)
            if re.fullmatch(r"[+-]?\d+", digits) and abs(int(digits)) <= _LONG_MAX:
                value = int(digits)
                if value < -1:
                    raise Invalid(path, f"{text!r}: negative durations are not supported")
                if per_unit > 0:
                    return float(value * per_unit)
                return float(abs(value) // -per_unit * (1 if value >= 0 else -1))
            try:
                float(digits)
            except ValueError:
                raise Invalid(path, f"cannot read the duration {text!r} (e.g. 30d, 12h)") from None
            raise Invalid(path, f"{text!r}: fractional time values are not supported (e.g. 36h, not 1.5d)")
    if re.fullmatch(r"-0*1", normalized):
        return -1.0
    if re.fullmatch(r"0+", normalized):
        return 0.0
    raise Invalid(path, f"{text!r}: the unit is missing or unrecognized (e.g. 30d, 12h; a bare number only as 0 or -1)")


def distance_setting(value: Any, date: bool, path: str) -> float:
    """A decay's or distance_feature's scale, offset or pivot: a duration for dates, a number otherwise."""
    if date:
        # Elasticsearch reads the JSON token's text, so a number is read as a duration too: 0 works, 10 does not
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        return time_value_millis(text, path)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise Invalid(path, f"{value!r} is not a number") from None
