"""Numbers as every report shows them: four decimals, a signed delta, a dash for a value that is absent."""

from __future__ import annotations


def number(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def delta(value: float | None) -> str:
    return "—" if value is None else f"{value:+.4f}"
