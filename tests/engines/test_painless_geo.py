"""geo_point doc values in Painless (issue 20 item 5): `doc['f'].arcDistance`, `planeDistance`, their
`WithDefault` forms, `geohashDistance`, `.lat`, `.lon`, `.value`, as ScriptDocValues.GeoPoints computes them.

arcDistance is SloppyMath.haversinMeters, bit for bit against real Lucene 9.9.1 (sloppy_math_pairs.npz); the
plane formula and Geohash decoding against their few lines run on a JVM (geo_script.json.gz, made by
tests/lucene_extra/geo_script.py); the points are the doc values' (GeoEncodingUtils' 32-bit encoding), in
doc-value order.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine
from pytest_relevance.engines.embedded.painless import Context, GeoPoint, GeoPoints, PainlessError, compile_painless
from pytest_relevance.errors import RelevanceInputError

HERE = Path(__file__).parent.parent / "lucene_extra"
PAIRS = np.load(HERE / "sloppy_math_pairs.npz")["pairs"]
JVM = json.loads(gzip.decompress((HERE / "geo_script.json.gz").read_bytes()))
MAPPING = {"mappings": {"properties": {"loc": {"type": "geo_point"}}}}


def run(source: str, points: list[tuple[float, float]], **params: object) -> object:
    """One script run on a document whose `loc` holds `points` (already as doc values decode them)."""
    values = GeoPoints([GeoPoint(lat, lon) for lat, lon in points], "loc")
    return compile_painless(source, {}).run(Context(params, doc=lambda field: values))


def test_arc_distance_is_lucenes_haversine_to_the_stored_point_bit_for_bit() -> None:
    script = "doc['loc'].arcDistance(params.lat, params.lon)"
    for lat0, lon0, _, _, lat, lon, meters in PAIRS[:400]:
        assert run(script, [(lat, lon)], lat=float(lat0), lon=float(lon0)) == meters
    with_default = "doc['loc'].arcDistanceWithDefault(params.lat, params.lon, 7)"
    lat0, lon0, _, _, lat, lon, meters = PAIRS[0]
    assert run(with_default, [(lat, lon)], lat=float(lat0), lon=float(lon0)) == meters


def test_plane_distance_is_elasticsearchs_formula_on_the_jvm() -> None:
    """GeoUtils.planeDistance with java.lang.Math: equal to the last bit but where the JVM's Math.cos intrinsic and
    the platform's libm round one ulp apart (1 of the 300 here; about 0.2% of angles)."""
    exact = 0
    for lat0, lon0, lat, lon, meters in JVM["plane"]:
        got = run("doc['loc'].planeDistance(params.lat, params.lon)", [(lat, lon)], lat=lat0, lon=lon0)
        assert abs(got - meters) <= math.ulp(meters), (lat0, lon0, lat, lon)
        exact += got == meters
    assert exact >= 0.99 * len(JVM["plane"])


def test_geohash_distance_decodes_the_cells_south_west_corner() -> None:
    for geohash, lat, lon, _, _, meters in JVM["geohash"]:
        assert run("doc['loc'].geohashDistance(params.h)", [(lat, lon)], h=geohash) == meters, geohash
    # hand-derived corners: ezs42 is 13 longitude and 12 latitude bits, cells of 360 / 2^13 and 180 / 2^12 degrees
    assert run("doc['loc'].geohashDistance('ezs42')", [(42.5830078125, -5.625)]) == 0.0
    assert run("doc['loc'].geohashDistance('s')", [(0.0, 0.0)]) == 0.0
    with pytest.raises(PainlessError, match=r"unsupported symbol \[a\] in geohash \[ua\]"):
        run("doc['loc'].geohashDistance('ua')", [(0.0, 0.0)])


def test_a_document_without_a_point_needs_the_default_forms() -> None:
    assert run("doc['loc'].arcDistanceWithDefault(1, 2, 7)", []) == 7.0
    assert run("doc['loc'].planeDistanceWithDefault(1, 2, -1.5)", []) == -1.5
    assert run("doc['loc'].geohashDistanceWithDefault('u33', 3)", []) == 3.0
    assert run("doc['loc'].getDimensionalType()", []) == -1
    for script in ("doc['loc'].arcDistance(1, 2)", "doc['loc'].lat", "doc['loc'].value"):
        with pytest.raises(PainlessError, match="doesn't have a value"):
            run(script, [])
    with pytest.raises(PainlessError, match=r"Cannot cast from \[java.lang.String\] to \[double\]"):
        run("doc['loc'].arcDistance('1', 2)", [(0.0, 0.0)])


def test_points_read_as_doc_values_store_and_order_them() -> None:
    """LatLonDocValuesField keeps the 32-bit encodings, sorted as longs: latitude's int first, then longitude's int
    read unsigned, so at one latitude 5 degrees east sorts before 5 degrees west."""
    docs = [{"id": "a", "loc": [[-5.0, 10.0], [5.0, 10.0], [1.0, -20.0]]}, {"id": "b", "loc": "48.8566,2.3522"}]
    index = EmbeddedEngine().open(docs, MAPPING, "id")

    def scores(source: str) -> dict[str, float]:
        body = {"query": {"script_score": {"query": {"match_all": {}}, "script": {"source": source}}}}
        return dict(index.search_many({"q": body}, 10, "query.yaml")["q"])

    assert scores("doc['loc'].value.lat + 90") == {"a": pytest.approx(70.0), "b": pytest.approx(138.8566)}
    second = "doc['loc'].size() < 3 ? 0 : doc['loc'][1].lon + 10 + doc['loc'].get(2).getLat()"
    assert scores(second) == {"a": pytest.approx(25.0), "b": 0.0}
    assert scores("doc['loc'].lat == 48.8566 ? 0 : 1")["b"] == 1.0  # the decoded latitude, not the source's
    assert scores("doc['loc'].size()") == {"a": 3.0, "b": 1.0}


def test_a_distance_script_ranks_the_nearest_first() -> None:
    rows = PAIRS[::3][:30]
    docs = [{"id": f"d{i}", "loc": {"lat": float(r[2]), "lon": float(r[3])}} for i, r in enumerate(rows)]
    index = EmbeddedEngine().open(docs, MAPPING, "id")
    origin = {"lat": float(rows[0, 0]), "lon": float(rows[0, 1])}
    script = {"source": "1e6 / (1 + doc['loc'].arcDistance(params.lat, params.lon))", "params": origin}
    body = {"query": {"script_score": {"query": {"match_all": {}}, "script": script}}}
    got = dict(index.search_many({"q": body}, 100, "query.yaml")["q"])
    from pytest_relevance.engines.embedded.sloppy_math import haversin_meters

    meters = haversin_meters(origin["lat"], origin["lon"], rows[:, 4], rows[:, 5])
    for i, value in enumerate((1e6 / (1 + meters)).astype(np.float32)):
        assert got[f"d{i}"] == float(value)


def test_a_geo_method_painless_lacks_is_its_error() -> None:
    with pytest.raises(RelevanceInputError, match="not found"):
        index = EmbeddedEngine().open([{"id": "a", "loc": "1,2"}], MAPPING, "id")
        body = {"query": {"script_score": {"query": {"match_all": {}}, "script": "doc['loc'].distanceTo(1, 2)"}}}
        index.search_many({"q": body}, 10, "query.yaml")
