"""Java's semantics where the engine must reproduce them to the bit: String as UTF-16 code units (lengths, chars,
order, hashCode, trim), int and long overflow, and float32 arithmetic.

Python strings hold code points and Python integers do not overflow; Lucene and Painless see UTF-16 chars and
wrap at 32 or 64 bits, so a term's length, a truncation, a sort order or a hash differs the moment a character lies
beyond the BMP or a number leaves the int range. Every module that needs Java's answer takes it from here.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = [
    "F32",
    "INT_MAX",
    "INT_MIN",
    "from_utf16",
    "string_hash",
    "to_float",
    "trim",
    "utf16",
    "utf16_key",
    "utf16_length",
    "utf16_offsets",
    "utf16_prefix",
    "wrap_int",
    "wrap_long",
]

F32 = np.float32  # Java's float: Lucene scores, boosts and norms are float32
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def wrap_int(value: int) -> int:
    """An int's overflow: the value modulo 2**32, as a signed 32-bit int."""
    return (value + 2**31) % 2**32 - 2**31


def wrap_long(value: int) -> int:
    """A long's overflow: the value modulo 2**64, as a signed 64-bit int."""
    return (value + 2**63) % 2**64 - 2**63


def to_float(value: float) -> np.float32:
    """Java's (float) of a double, rounded to nearest: one beyond float's range is an infinity, without a word
    (numpy warns of the overflow)."""
    if abs(value) < 3.4e38:  # within float's range (its largest is 3.4028235e38)
        return F32(value)
    with np.errstate(over="ignore"):
        return F32(value)


def utf16_length(text: str) -> int:
    """String.length(): UTF-16 code units (a character beyond the BMP counts two)."""
    return len(text) if text.isascii() else len(text) + sum(1 for c in text if ord(c) >= 0x10000)


def utf16(text: str) -> str:
    """A Java String's chars: UTF-16 code units, one a character (a character beyond the BMP is two surrogates)."""
    if text.isascii() or all(ord(c) < 0x10000 for c in text):
        return text
    units = text.encode("utf-16-le", "surrogatepass")
    return "".join(chr(units[i] | units[i + 1] << 8) for i in range(0, len(units), 2))


def from_utf16(units: str) -> str:
    """The text of UTF-16 chars (the inverse of `utf16`): each surrogate pair joined into its character."""
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def utf16_prefix(text: str, size: int) -> str:
    """The first `size` UTF-16 units of a text (which can split a character beyond the BMP in half)."""
    if text.isascii():
        return text[:size]
    return text.encode("utf-16-le", "surrogatepass")[: 2 * size].decode("utf-16-le", "surrogatepass")


def utf16_key(text: str) -> bytes:
    """A sort key in String.compareTo's order (by UTF-16 unit, so a surrogate sorts below U+E000..U+FFFF)."""
    return text.encode("utf-16-be", "surrogatepass")


def utf16_offsets(text: str) -> Callable[[int], int] | None:
    """Code-point offset -> UTF-16 offset for texts with non-BMP characters; None when they coincide."""
    if text.isascii() or all(ord(c) < 0x10000 for c in text):
        return None
    table = [0]
    for c in text:
        table.append(table[-1] + (2 if ord(c) >= 0x10000 else 1))
    return lambda index: table[index] if index < len(table) else table[-1] + index - len(text)


def string_hash(text: str) -> int:
    """String.hashCode: 31 * h + char over the UTF-16 chars, as a signed int."""
    value = 0
    for unit in utf16(text):
        value = (31 * value + ord(unit)) & 0xFFFFFFFF
    return wrap_int(value)


def trim(text: str) -> str:
    """String.trim: every character up to U+0020 off both ends (Python's strip knows other spaces)."""
    start, stop = 0, len(text)
    while start < stop and text[start] <= " ":
        start += 1
    while stop > start and text[stop - 1] <= " ":
        stop -= 1
    return text[start:stop]
