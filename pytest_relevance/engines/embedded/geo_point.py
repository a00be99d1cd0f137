"""A geo_point value in any of the forms Elasticsearch reads, for documents and queries alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def parse_point(value: Any) -> tuple[float, float]:
    """(lat, lon) from the geo_point forms Elasticsearch reads: {lat, lon}, [lon, lat], "lat,lon", "POINT (lon lat)"."""
    if isinstance(value, Mapping):
        lat, lon = float(value["lat"]), float(value["lon"])
    elif isinstance(value, list | tuple) and len(value) >= 2:
        lon, lat = float(value[0]), float(value[1])
    elif isinstance(value, str) and value.strip().upper().startswith("POINT"):
        lon, lat = (float(x) for x in value.strip()[5:].strip(" ()").split()[:2])
    elif isinstance(value, str) and "," in value:
        lat, lon = (float(x) for x in value.split(",")[:2])
    else:
        raise ValueError("expected {lat, lon}, [lon, lat], 'lat,lon' or 'POINT (lon lat)'")
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        raise ValueError("latitude or longitude out of range")
    return lat, lon
