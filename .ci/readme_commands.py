"""Print, as one bash script, the README's commands that CI runs: the fenced bash blocks of the Quickstart and of
the test command, exactly as written, so that the README cannot drift from what CI proves works."""

from __future__ import annotations

import sys
from pathlib import Path

SECTIONS = ("## Quickstart", "## The test command")


def blocks(readme: str, heading: str) -> list[str]:
    """The bash blocks under the level-2 heading that starts with `heading`, up to the next level-2 heading."""
    lines = readme.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(heading)), None)
    if start is None:
        sys.exit(f"README.md has no section starting {heading!r}")
    found: list[str] = []
    inside = False
    for line in lines[start + 1 :]:
        if line.startswith("## ") and not inside:
            break
        if line.strip() == "```bash":
            inside = True
        elif line.strip() == "```" and inside:
            inside = False
        elif inside:
            found.append(line)
    if not found:
        sys.exit(f"README.md's section {heading!r} has no bash block")
    return found


def main() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    for heading in SECTIONS:
        print(f"# README: {heading[3:]}")
        print("\n".join(blocks(readme, heading)))


if __name__ == "__main__":
    main()
