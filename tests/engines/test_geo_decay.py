"""Decay functions on geo_point fields, as Elasticsearch 8 computes them: Lucene's SloppyMath.haversinMeters from the
origin to each point as doc values store it (GeoEncodingUtils' 32-bit encoding), bit for bit against real Lucene
9.9.1 (tests/lucene_extra/sloppy_math_pairs.npz, made by sloppy_math.py beside it)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from pytest_relevance.engines.embedded import EmbeddedEngine
from pytest_relevance.engines.embedded.sloppy_math import haversin_meters, stored_latitude, stored_longitude
from pytest_relevance.errors import RelevanceInputError

PAIRS = np.load(Path(__file__).parent.parent / "lucene_extra" / "sloppy_math_pairs.npz")["pairs"]
MAPPING = {"mappings": {"properties": {"loc": {"type": "geo_point"}}}}


def test_stored_points_and_distances_equal_lucenes_bit_for_bit() -> None:
    assert np.array_equal(stored_latitude(PAIRS[:, 2]), PAIRS[:, 4])
    assert np.array_equal(stored_longitude(PAIRS[:, 3]), PAIRS[:, 5])
    mine = np.array([haversin_meters(r[0], r[1], r[4:5], r[5:6])[0] for r in PAIRS])
    assert np.array_equal(mine, PAIRS[:, 6])
    exact = np.array([_exact_haversine(r[0], r[1], r[4], r[5]) for r in PAIRS])
    assert not np.array_equal(mine, exact)  # the sloppy tables are not the platform's libm: exactness is Lucene's


def _exact_haversine(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6371008.7714 * math.asin(min(1.0, math.sqrt(a)))


def _scores(docs: list[dict], function: dict) -> dict[str, float]:
    index = EmbeddedEngine().open(docs, MAPPING, "id")
    body = {"query": {"function_score": {"query": {"match_all": {}}, **function, "boost_mode": "replace"}}}
    return dict(index.search_many({"q": body}, 100, "query.yaml")["q"])


@pytest.mark.parametrize("kind", ["gauss", "exp", "linear"])
def test_each_decay_of_lucenes_distances(kind: str) -> None:
    """DecayFunctionBuilder's formulas over Lucene's own distances (the near pairs, a city's scale)."""
    rows = PAIRS[::3][:40]
    origin = {"lat": float(rows[0, 0]), "lon": float(rows[0, 1])}
    points = [(float(r[2]), float(r[3])) for r in rows]
    docs = [{"id": f"d{i}", "loc": {"lat": lat, "lon": lon}} for i, (lat, lon) in enumerate(points)]
    scale, offset, decay = 60_000.0, 2_000.0, 0.4
    got = _scores(docs, {kind: {"loc": {"origin": origin, "scale": "60km", "offset": "2km", "decay": decay}}})
    meters = haversin_meters(origin["lat"], origin["lon"], stored_latitude(rows[:, 2]), stored_longitude(rows[:, 3]))
    distance = np.maximum(0.0, meters - offset)
    if kind == "gauss":
        expected = np.exp(0.5 * distance**2 / (0.5 * scale**2 / math.log(decay)))
    elif kind == "exp":
        expected = np.exp(math.log(decay) / scale * distance)
    else:
        expected = np.maximum(0.0, (scale / (1.0 - decay) - distance) / (scale / (1.0 - decay)))
    for i, value in enumerate(expected.astype(np.float32)):
        assert got[f"d{i}"] == float(value), i


def test_the_nearest_point_counts_and_a_document_without_one_scores_1() -> None:
    docs = [
        {"id": "far", "loc": "48.8566,2.3522"},
        {"id": "both", "loc": [[2.3522, 48.8566], [13.4, 52.5]]},
        {"id": "none"},
    ]
    got = _scores(docs, {"gauss": {"loc": {"origin": "52.5,13.4", "scale": "100km"}}})
    assert got["none"] == 1.0 and got["both"] == 1.0
    assert got["far"] < 1e-6


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"origin": "north", "scale": "1km"}, "query.function_score.gauss.loc.origin: cannot read the point 'north'"),
        ({"origin": "1,2", "scale": "wide"}, "query.function_score.gauss.loc.scale: cannot read the distance 'wide'"),
        ({"origin": "1,2"}, "query.function_score.gauss: needs 'scale' (for a geo_point: a distance, e.g. 2km)"),
    ],
)
def test_bad_geo_decay_parameters_are_named(params: dict, message: str) -> None:
    with pytest.raises(RelevanceInputError) as caught:
        _scores([{"id": "a", "loc": "1,2"}], {"gauss": {"loc": params}})
    assert message in str(caught.value)
