"""Errors about what the user gave kgroup; each renders as one line naming the file, field and problem."""

from __future__ import annotations


class InputError(Exception):
    """Bad input: a fixture, a scenario, a flag value. The CLI prints `str(err)` and exits 2."""

    def __init__(self, message: str, source: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line
        self.field = field

    def __str__(self) -> str:
        where = ""
        if self.source:
            where = f"{self.source}:{self.line}: " if self.line else f"{self.source}: "
        field = f"{self.field}: " if self.field else ""
        text = f"{where}{field}{self.message}"
        # One line, whatever the input held: a value echoed in the message may contain line breaks.
        return text.replace("\r", "\\r").replace("\n", "\\n")


class RunError(Exception):
    """Something ran and failed (an assignor threw, a user assignor returned nonsense). Exit 1."""
