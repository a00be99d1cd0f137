"""Reference values for Painless's geo_point doc values: GeoUtils.planeDistance and Geohash decoding on a JVM.

    python tests/lucene_extra/geo_script.py --jar anserini-1.7.1-fatjar.jar

`doc['f'].arcDistance` is SloppyMath.haversinMeters, whose reference is sloppy_math_pairs.npz. planeDistance is
Elasticsearch's GeoUtils formula on java.lang.Math (toRadians, cos, sqrt), and geohashDistance decodes the geohash
with Elasticsearch's Geohash.mortonEncode and BitUtil (Lucene's BitUtil.flipFlop and deinterleave are the same
code); neither class is in the fat jar, so this runs their few lines with the JVM's Math and Lucene's BitUtil, on
seeded random document points decoded as doc values store them (GeoEncodingUtils). It writes geo_script.json.gz
beside this file: `plane` rows (query lat, lon, point lat, lon, metres; half of them near, where the plane is
meant to be used) and `geohash` rows (geohash, point lat, lon, decoded lat, lon, haversinMeters between them).
tests/engines/test_painless_geo.py reads it. Runs in the Lucene oracle's environment
(../shared/tools/lucene-oracle/make_golden.sh sets it up).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from pathlib import Path

import jpype
import jpype.imports
from oracle import start_jvm

HERE = Path(__file__).resolve().parent
BASE_32 = "0123456789bcdefghjkmnpqrstuvwxyz"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    args = parser.parse_args()
    start_jvm(args.jar)
    from java.lang import Math
    from org.apache.lucene.geo import GeoEncodingUtils
    from org.apache.lucene.util import BitUtil, SloppyMath

    radius = 6371008.7714  # GeoUtils.EARTH_MEAN_RADIUS

    def plane(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
        x = float(Math.toRadians(lon2 - lon1)) * float(Math.cos(float(Math.toRadians((lat2 + lat1) / 2.0))))
        y = float(Math.toRadians(lat2 - lat1))
        return float(Math.sqrt(x * x + y * y)) * radius

    def decode(geohash: str) -> tuple[float, float]:
        morton, level = 0, 11
        for char in geohash:
            morton |= BASE_32.index(char) << (level * 5 + 2)
            level -= 1
            if level < 0:
                break
        signed = jpype.JLong(morton - (1 << 64) if morton >= 1 << 63 else morton)
        hashed = int(BitUtil.flipFlop(signed)) & ((1 << 64) - 1)
        lat_bits = int(BitUtil.deinterleave(jpype.JLong(hashed >> 1)))
        lon_bits = int(BitUtil.deinterleave(jpype.JLong(hashed - (1 << 64) if hashed >= 1 << 63 else hashed)))
        return lat_bits / ((1 << 31) / 180.0) - 90, lon_bits / ((1 << 31) / 360.0) - 180

    rng = random.Random(20261203)

    def stored() -> tuple[float, float]:
        lat, lon = rng.uniform(-90, 90), rng.uniform(-180, 180)
        return (
            float(GeoEncodingUtils.decodeLatitude(GeoEncodingUtils.encodeLatitude(lat))),
            float(GeoEncodingUtils.decodeLongitude(GeoEncodingUtils.encodeLongitude(lon))),
        )

    rows = []
    for i in range(300):
        lat, lon = stored()
        if i % 2:
            lat0, lon0 = rng.uniform(-90, 90), rng.uniform(-180, 180)
        else:
            lat0, lon0 = max(-90.0, min(90.0, lat + rng.uniform(-1, 1))), lon + rng.uniform(-1, 1)
        rows.append([lat0, lon0, lat, lon, plane(lat, lon, lat0, lon0)])
    hashes = []
    for i in range(200):
        size = 1 + i % 14  # past 12 characters Geohash reads the first 12
        geohash = "".join(rng.choice(BASE_32) for _ in range(size))
        glat, glon = decode(geohash)
        lat, lon = stored()
        hashes.append([geohash, lat, lon, glat, glon, float(SloppyMath.haversinMeters(lat, lon, glat, glon))])
    out = HERE / "geo_script.json.gz"
    with gzip.open(out, "wt", encoding="utf-8") as handle:
        json.dump({"plane": rows, "geohash": hashes}, handle)
    print(f"wrote {out}: {len(rows)} plane distances, {len(hashes)} geohashes")


if __name__ == "__main__":
    main()
