"""Specialized queries: rank_feature, distance_feature and pinned, with Lucene's FeatureField and distance formulas."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_relevance.engines.embedded.geo_point import parse_point
from pytest_relevance.engines.embedded.java import F32
from pytest_relevance.engines.embedded.queries.errors import Invalid, Unsupported
from pytest_relevance.engines.embedded.queries.options import allowed, boost_of, number, unknown_field
from pytest_relevance.engines.embedded.queries.registry import evaluate, query
from pytest_relevance.engines.embedded.queries.values import distance_setting
from pytest_relevance.engines.embedded.scores import Scores

if TYPE_CHECKING:
    from pytest_relevance.engines.embedded.embedded_index import EmbeddedIndex


def _feature_pivot(values: np.ndarray) -> float:
    """Lucene's FeatureField.computePivotFeatureValue: the mean of the stored (15 bits shifted) frequencies, decoded."""
    if values.size == 0:
        return 1.0
    encoded = values.astype(np.float32).view(np.uint32) >> 15
    average = F32(float(encoded.sum()) / values.size)
    return float(np.array([int(average) << 15], dtype=np.uint32).view(np.float32)[0])


# each score function's parser and the keys it declares
_FUNCTION_PARAMS = {"saturation": ("pivot",), "log": ("scaling_factor",), "sigmoid": ("pivot", "exponent"),
                    "linear": ()}  # fmt: skip


@query("rank_feature")
def rank_feature(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    # RankFeatureQueryBuilder's ConstructingObjectParser is named "feature", which its refusals print
    options = allowed(spec, {"field", "boost", "saturation", "log", "sigmoid", "linear"}, path, parser="feature")
    field = index.check_field(options.get("field"), path)
    if index.kinds[field] != "rank_feature":
        raise Unsupported(f"rank_feature on the {index.kinds[field]} field {field!r}", path)
    if index.fields[field].params.get("positive_score_impact") is False:
        raise Unsupported("rank_feature on a field with positive_score_impact: false", path)
    functions = [k for k in ("saturation", "log", "sigmoid", "linear") if k in options]
    if len(functions) > 1:
        raise Invalid(path, "Can only specify one of [log], [saturation], [sigmoid] and [linear], as Elasticsearch "
                            f"8 refuses it (got {' and '.join(functions)})")  # fmt: skip
    kind = functions[0] if functions else "saturation"
    params = options.get(kind) or {}
    if not isinstance(params, dict):
        raise Invalid(f"{path}.{kind}", f"expected a mapping of options, got {params!r}"[:200])
    unknown = [key for key in params if key not in _FUNCTION_PARAMS[kind]]
    if unknown:
        problem = unknown_field(kind, unknown[0], _FUNCTION_PARAMS[kind])
        raise Invalid(f"{path}.{kind}", f"[feature] failed to parse field [{kind}]: {problem}, as Elasticsearch 8 "
                                        "refuses it")  # fmt: skip
    column = index.numeric[field]
    docs = np.flatnonzero(column.has_value)
    value = column.first[docs].astype(F32)
    weight = F32(boost_of(options, path, boost))
    if kind == "saturation":
        pivot = F32(number(params, "pivot", f"{path}.{kind}", _feature_pivot(column.values)))
        score = weight * (F32(1) - pivot / (value + pivot))
    elif kind == "log":
        factor = number(params, "scaling_factor", f"{path}.{kind}")
        score = (float(weight) * np.log(factor + value.astype(np.float64))).astype(F32)
    elif kind == "sigmoid":
        midpoint = number(params, "pivot", f"{path}.{kind}")
        exponent = number(params, "exponent", f"{path}.{kind}")
        ratio = np.power(value.astype(np.float64) / midpoint, exponent)
        score = (float(weight) * (1 - 1 / (1 + ratio))).astype(F32)
    else:
        score = weight * value
    return Scores.of(index.n, docs, score.astype(F32))


@query("distance_feature")
def distance_feature(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    """boost x pivot / (pivot + distance), the closest value of each document counting (Lucene's
    LongDistanceFeatureQuery); dates in milliseconds."""
    options = allowed(spec, {"field", "origin", "pivot", "boost"}, path, parser="distance_feature")
    field = index.check_field(options.get("field"), path)
    kind = index.kinds[field]
    if kind not in ("date", "number"):
        raise Unsupported(f"distance_feature on the {kind} field {field!r}", path)
    if options.get("origin") is None or options.get("pivot") is None:
        raise Invalid(path, "needs 'origin' and 'pivot'")
    if kind == "date":  # DateFieldType.distanceFeatureQuery reads the origin with the round-up parser
        origin = index.date_query_value(field, options["origin"], f"{path}.origin", round_up=True)
    else:
        origin = index.convert_query_value(field, options["origin"], f"{path}.origin")
    pivot = distance_setting(options["pivot"], kind == "date", f"{path}.pivot")
    if pivot <= 0:
        raise Invalid(f"{path}.pivot", "must be greater than 0")
    column = index.numeric[field]
    distance = column.min_per_doc(np.abs(column.values - origin))
    docs = np.flatnonzero(column.has_value)
    weight = boost_of(options, path, boost)
    return Scores.of(index.n, docs, (weight * (pivot / (pivot + distance[docs]))).astype(F32))


@query("pinned")
def pinned(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    """The pinned documents first, in the order given, above every organic result."""
    options = allowed(spec, {"ids", "docs", "organic", "boost"}, path, parser="pinned")
    wanted = options.get("ids")
    if wanted is None and isinstance(options.get("docs"), list):
        for i, doc in enumerate(options["docs"]):
            unknown = [key for key in doc if key not in ("_id", "_index")] if isinstance(doc, dict) else []
            if unknown:  # SpecifiedDocument's parser, inside the pinned parser's `docs`
                problem = unknown_field("specified_document", unknown[0], ("_id", "_index"))
                raise Invalid(f"{path}.docs[{i}]", f"[pinned] failed to parse field [docs]: {problem}, as "
                                                   "Elasticsearch 8 refuses it")  # fmt: skip
        wanted = [d.get("_id") for d in options["docs"] if isinstance(d, dict)]
    if not isinstance(wanted, list):
        raise Invalid(path, "needs 'ids' (or 'docs'), a list of document ids")
    if options.get("organic") is None:
        raise Invalid(path, "needs 'organic', the query ranked after the pinned documents")
    organic = evaluate(index, options["organic"], f"{path}.organic", boost_of(options, path, boost))
    score = organic.score.copy()
    top = F32(math.ldexp(1.0, 120))  # far above any organic score, still a finite float32
    seen = set()
    for rank, doc_id in enumerate(str(w) for w in wanted):
        if doc_id in index.ordinal and doc_id not in seen:
            seen.add(doc_id)
            score[index.ordinal[doc_id]] = top / F32(1 + rank)
    matched = organic.matched.copy()
    matched[np.array([index.ordinal[d] for d in seen], dtype=np.int64)] = True
    return Scores(matched, score)


_EARTH_RADIUS = 6371008.7714  # metres, Lucene's GeoUtils.EARTH_MEAN_RADIUS
_UNITS = {"mi": 1609.344, "miles": 1609.344, "yd": 0.9144, "yards": 0.9144, "ft": 0.3048, "feet": 0.3048,
          "in": 0.0254, "inch": 0.0254, "km": 1000.0, "kilometers": 1000.0, "m": 1.0, "meters": 1.0, "cm": 0.01,
          "centimeters": 0.01, "mm": 0.001, "millimeters": 0.001, "nmi": 1852.0, "NM": 1852.0}  # fmt: skip


def metres(value: Any, path: str) -> float:
    text = str(value).strip()
    number_part = text.rstrip("abcdefghijklmnopqrstuvwxyzNM ")
    unit = text[len(number_part) :].strip() or "m"
    try:
        return float(number_part) * _UNITS[unit]
    except (KeyError, ValueError):
        raise Invalid(path, f"cannot read the distance {value!r} (e.g. 10km, 500m, 3mi)") from None


def _geo_field(options: Any, keys: set[str], name: str, path: str) -> tuple[str | None, Any]:
    """The field and its point (or box) as GeoDistanceQueryBuilder and GeoBoundingBoxQueryBuilder read them, in
    order: an object is the field (a second one, for geo_distance, its refusal); a value that is no option is,
    for geo_distance, the field as a "lat,lon" string when none came before, else the parser's refusal."""
    if not isinstance(options, dict):
        raise Invalid(path, f"expected a mapping of options, got {options!r}"[:200])
    field, value = None, None
    for key, given in options.items():
        if key in keys or key == "_name":
            continue
        if name == "geo_distance" and key.endswith((".lat", ".lon")):
            raise Unsupported(f"geo_distance with the point as {key!r}", path, [f"{{{key[:-4]}: point}}"])
        if isinstance(given, dict) and name == "geo_distance" and field is not None:
            raise Invalid(path, f"[geo_distance] query doesn't support multiple fields, found [{field}] and [{key}], "
                                "as Elasticsearch 8 refuses it")  # fmt: skip
        if isinstance(given, dict) and name == "geo_distance":
            unknown = [k for k in given if k not in ("lat", "lon", "geohash")]
            if unknown:  # its message names the field, not the key
                raise Invalid(path, f"[geo_distance] query does not support [{key}], as Elasticsearch 8 refuses it")
        if isinstance(given, dict | list) or (name == "geo_distance" and field is None):
            field, value = key, given
            continue
        raise Invalid(path, f"failed to parse [{name}] query. unexpected field [{key}], as Elasticsearch 8 refuses it")
    return field, value


def _geo_point_field(index: EmbeddedIndex, field: str, path: str) -> None:
    index.check_field(field, path)
    if field not in index.geo:
        raise Invalid(path, f"{field!r} is not a geo_point field")


def haversine(lat: np.ndarray, lon: np.ndarray, lat0: float, lon0: float) -> np.ndarray:
    """Great-circle distance in metres (haversine on Lucene's mean earth radius)."""
    p1, p2 = np.radians(lat), math.radians(lat0)
    a = np.sin((p2 - p1) / 2) ** 2 + np.cos(p1) * math.cos(p2) * np.sin(np.radians(lon0 - lon) / 2) ** 2
    return 2 * _EARTH_RADIUS * np.arcsin(np.minimum(1.0, np.sqrt(a)))


@query("geo_distance")
def geodistance(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    keys = {"distance", "unit", "distance_type", "validation_method", "ignore_unmapped", "boost"}
    field, origin = _geo_field(spec, keys, "geo_distance", path)
    options = spec
    if options.get("distance") is None:
        raise Invalid(path, "geo_distance requires 'distance' to be specified, as Elasticsearch 8 refuses it "
                            "(e.g. 10km)")  # fmt: skip
    if field is None:
        raise Invalid(path, "expected one geo_point field")
    _geo_point_field(index, field, path)
    try:
        lat0, lon0 = parse_point(origin)
    except (TypeError, ValueError, KeyError) as exc:
        raise Invalid(f"{path}.{field}", f"cannot read the point {origin!r} ({exc})") from None
    distance = str(options["distance"]).strip()
    if distance.rstrip("abcdefghijklmnopqrstuvwxyzNM ") == distance:  # no unit of its own: `unit` (metres)
        distance += str(options.get("unit", "m"))
    limit = metres(distance, f"{path}.distance")
    geo = index.geo[field]
    return Scores.constant(geo.any(haversine(geo.lat, geo.lon, lat0, lon0) <= limit), boost_of(options, path, boost))


@query("geo_bounding_box")
def geo_bounding_box(index: EmbeddedIndex, spec: Any, path: str, boost: float) -> Scores:
    keys = {"validation_method", "ignore_unmapped", "boost"}
    field, box = _geo_field(spec, keys, "geo_bounding_box", path)
    options = spec
    if field is None:
        raise Invalid(path, "failed to parse [geo_bounding_box] query. bounding box not provided, as Elasticsearch 8 "
                            "refuses it")  # fmt: skip
    _geo_point_field(index, field, path)
    try:
        if isinstance(box, dict) and "top_left" in box:
            top, left = parse_point(box["top_left"])
            bottom, right = parse_point(box["bottom_right"])
        else:
            top, left, bottom, right = (float(box[k]) for k in ("top", "left", "bottom", "right"))
    except (TypeError, ValueError, KeyError) as exc:
        raise Invalid(f"{path}.{field}", f"cannot read the box {box!r} ({exc})") from None
    geo = index.geo[field]
    inside_lat = (geo.lat <= top) & (geo.lat >= bottom)
    inside_lon = (geo.lon >= left) & (geo.lon <= right) if left <= right else (geo.lon >= left) | (geo.lon <= right)
    return Scores.constant(geo.any(inside_lat & inside_lon), boost_of(options, path, boost))
