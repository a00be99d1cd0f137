"""The one error type for bad input, so that every entry point can print it as a single line."""

from __future__ import annotations


class RelevanceInputError(ValueError):
    """Bad input from a file the user wrote. The message names the file, the line or key, and what to do."""

    def __init__(self, source: object, problem: str, line: int | None = None) -> None:
        where = f"{_shown(source)}:{line}" if line is not None else _shown(source)
        super().__init__(f"{where}: {problem}")
        self.source = str(source)
        self.line = line
        self.problem = problem


def _shown(source: object) -> str:
    """A file under the working directory by its relative path, as pytest shows test files; anything else as is."""
    from pathlib import Path

    text = str(source)
    if isinstance(source, Path | str) and Path(text).is_absolute():
        try:
            return str(Path(text).relative_to(Path.cwd()))
        except ValueError:
            return text
    return text
