"""Lucene's SloppyMath.haversinMeters, bit for bit, and geo_point doc values as Lucene stores them.

Elasticsearch measures a geo decay's distance with GeoUtils.arcDistance, which is SloppyMath.haversinMeters:
table-driven cos and asin (with fdlibm's asin near 1), not the platform's libm. The tables are Lucene's own
(`sloppy_math.npz`, read out of Lucene 9.9.1 by tests/lucene_extra/sloppy_math.py), since Lucene fills them with
StrictMath, which a libm does not match to the last bit. Document points are decoded from GeoEncodingUtils' 32-bit
encoding first: doc values hold that, not the source's decimals.
"""

from __future__ import annotations

import functools
import math
import struct
from pathlib import Path

import numpy as np


def _double(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


_TO_METERS = 6_371_008.7714
_PIO2_HI, _PIO2_LO = _double(0x3FF921FB54400000), _double(0x3DD0B4611A626331)
_TABS = (1 << 11) + 1
_DELTA_HI, _DELTA_LO = 4 * _PIO2_HI / (_TABS - 1), 4 * _PIO2_LO / (_TABS - 1)
_INDEXER = 1 / (_DELTA_HI + _DELTA_LO)
_MAX_FOR_MODULO = ((2**31 - 1) >> 9) / _INDEXER * 0.99
_ASIN_MAX = math.sin(math.radians(73.0))  # StrictMath's value (checked against Lucene by the tests)
_ASIN_TABS = (1 << 13) + 1
_ASIN_DELTA = _ASIN_MAX / (_ASIN_TABS - 1)
_ASIN_INDEXER = 1 / _ASIN_DELTA
_ASIN_PIO2_HI, _ASIN_PIO2_LO = _double(0x3FF921FB54442D18), _double(0x3C91A62633145C07)
_PS = [_double(b) for b in (0x3FC5555555555555, 0xBFD4D61203EB6F7D, 0x3FC9C1550E884455, 0xBFA48228B5688F3B,
                            0x3F49EFE07501B288, 0x3F023DE10DFDF709)]  # fmt: skip
_QS = [_double(b) for b in (0xC0033A271C8A2D4B, 0x40002AE59C598AC8, 0xBFE6066C1B8D0159, 0x3FB3B8C5B12E9282)]


@functools.cache
def _tables() -> tuple[np.ndarray, ...]:
    """sinTab, cosTab, asinTab as Lucene computes them, and the asin derivative tables derived from asinTab's
    abscissas exactly as Lucene's static initializer does (IEEE arithmetic and sqrt, which every platform shares)."""
    with np.load(Path(__file__).with_name("sloppy_math.npz")) as saved:
        sin_tab, cos_tab, asin_tab = saved["sinTab"], saved["cosTab"], saved["asinTab"]
    x = np.arange(_ASIN_TABS, dtype=np.float64) * _ASIN_DELTA
    inv = 1.0 / (1 - x * x)
    inv05 = np.sqrt(inv)
    inv15 = inv05 * inv
    inv25 = inv15 * inv
    inv35 = inv25 * inv
    der1 = inv05
    der2 = (x * inv15) * (1 / 2.0)
    der3 = ((1 + 2 * x * x) * inv25) * (1 / 6.0)
    der4 = ((5 + 2 * x * (2 + x * (5 - 2 * x))) * inv35) * (1 / 24.0)
    return sin_tab, cos_tab, asin_tab, der1, der2, der3, der4


def cos(a: np.ndarray) -> np.ndarray:
    """SloppyMath.cos over an array of angles (radians)."""
    sin_tab, cos_tab = _tables()[:2]
    a = np.abs(a)
    index = (a * _INDEXER + 0.5).astype(np.int64)
    delta = (a - index * _DELTA_HI) - index * _DELTA_LO
    index &= _TABS - 2
    c, s = cos_tab[index], sin_tab[index]
    out = c + delta * (-s + delta * (-c * (1 / 2.0) + delta * (s * (1 / 6.0) + delta * c * (1 / 24.0))))
    huge = a > _MAX_FOR_MODULO
    return np.where(huge, np.cos(a), out) if huge.any() else out


def asin(a: np.ndarray) -> np.ndarray:
    """SloppyMath.asin over an array in [0, 1] (all a haversine needs): tables up to sin(73 degrees), fdlibm's
    rational approximation above."""
    asin_tab, der1, der2, der3, der4 = _tables()[2:]
    out = np.empty_like(a)
    low = a <= _ASIN_MAX
    x = a[low]
    index = (x * _ASIN_INDEXER + 0.5).astype(np.int64)
    delta = x - index * _ASIN_DELTA
    out[low] = asin_tab[index] + delta * (der1[index] + delta * (der2[index] + delta * (der3[index] + delta
                                                                                        * der4[index])))  # fmt: skip
    high = ~low
    t = (1.0 - a[high]) * 0.5
    p = t * (_PS[0] + t * (_PS[1] + t * (_PS[2] + t * (_PS[3] + t * (_PS[4] + t * _PS[5])))))
    q = 1.0 + t * (_QS[0] + t * (_QS[1] + t * (_QS[2] + t * _QS[3])))
    s = np.sqrt(t)
    z = s + s * (p / q)
    out[high] = np.where(a[high] == 1.0, math.pi / 2, _ASIN_PIO2_HI - ((z + z) - _ASIN_PIO2_LO))
    return out


def haversin_meters(lat1: float, lon1: float, lat2: np.ndarray, lon2: np.ndarray) -> np.ndarray:
    """SloppyMath.haversinMeters from one point to many, in metres."""
    x1, x2 = math.radians(lat1), np.radians(lat2)
    h1 = 1 - cos(x1 - x2)
    h2 = 1 - cos(np.radians(lon1 - lon2))
    h = h1 + cos(np.array([x1]))[0] * cos(x2) * h2
    key = (h.view(np.int64) & np.int64(-8)).view(np.float64)  # the sort key's last three bits cleared, as Lucene
    return _TO_METERS * 2 * asin(np.minimum(1.0, np.sqrt(key * 0.5)))


_LAT_DECODE = 1 / ((1 << 32) / 180.0)
_LON_DECODE = 1 / ((1 << 32) / 360.0)


def latitude_code(lat: np.ndarray) -> np.ndarray:
    """GeoEncodingUtils.encodeLatitude: the 32-bit int geo_point doc values hold."""
    lat = np.where(lat == 90.0, np.nextafter(90.0, 0.0), lat)
    return np.floor(lat / _LAT_DECODE).astype(np.int32)


def longitude_code(lon: np.ndarray) -> np.ndarray:
    """GeoEncodingUtils.encodeLongitude."""
    lon = np.where(lon == 180.0, np.nextafter(180.0, 0.0), lon)
    return np.floor(lon / _LON_DECODE).astype(np.int32)


def stored_latitude(lat: np.ndarray) -> np.ndarray:
    """GeoEncodingUtils.decodeLatitude(encodeLatitude(lat)): the latitude geo_point doc values give back."""
    return latitude_code(lat) * _LAT_DECODE


def stored_longitude(lon: np.ndarray) -> np.ndarray:
    """GeoEncodingUtils.decodeLongitude(encodeLongitude(lon))."""
    return longitude_code(lon) * _LON_DECODE


_EARTH_MEAN_RADIUS = 6_371_008.7714  # GeoUtils.EARTH_MEAN_RADIUS


def plane_meters(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """GeoUtils.planeDistance: the tangential-plane approximation, with Math.toRadians (one multiplication by
    pi / 180, as math.radians) and Math.cos."""
    x = math.radians(lon2 - lon1) * math.cos(math.radians((lat2 + lat1) / 2.0))
    y = math.radians(lat2 - lat1)
    return math.sqrt(x * x + y * y) * _EARTH_MEAN_RADIUS


_BASE_32 = "0123456789bcdefghjkmnpqrstuvwxyz"
_MASK_64 = (1 << 64) - 1
_MAGIC = (0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF,
          0x00000000FFFFFFFF)  # fmt: skip
_LAT_SCALE, _LON_SCALE = (1 << 31) / 180.0, (1 << 31) / 360.0


def _deinterleave(bits: int) -> int:
    """BitUtil.deinterleave: the even bits of a 64-bit value, packed."""
    bits &= _MAGIC[0]
    for shift, magic in zip((1, 2, 4, 8, 16), _MAGIC[1:], strict=True):
        bits = (bits ^ (bits >> shift)) & magic
    return bits


def geohash_point(geohash: str) -> tuple[float, float]:
    """Geohash.decodeLatitude / decodeLongitude: the south-west corner of the cell (at most 12 characters are
    read), through Elasticsearch's morton encoding; ValueError for what Geohash.mortonEncode refuses."""
    if not geohash:
        raise ValueError("empty geohash")
    morton, level = 0, 11
    for char in geohash:
        value = _BASE_32.find(char)
        if value < 0:
            raise ValueError(f"unsupported symbol [{char}] in geohash [{geohash}]")
        morton |= (value << (level * 5 + 2)) & _MASK_64  # MORTON_OFFSET - 2 = 2
        level -= 1
        if level < 0:
            break
    morton = ((morton & 0xAAAAAAAAAAAAAAAA) >> 1) | ((morton & _MAGIC[0]) << 1) & _MASK_64  # BitUtil.flipFlop
    return _deinterleave(morton >> 1) / _LAT_SCALE - 90, _deinterleave(morton) / _LON_SCALE - 180
