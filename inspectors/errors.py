"""Errors about what the user gave kgroup; each renders as one line naming the file, field and problem."""

from __future__ import annotations


def one_line(text: str) -> str:
    """Fold line breaks, so a message that echoes user input still prints as one line."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


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
        return one_line(f"{where}{field}{self.message}")


class RunError(Exception):
    """Something ran and failed (an assignor threw, a user assignor returned nonsense). Exit 1."""


class NotReachableError(Exception):
    """No broker answered within the timeout: which address, from where, and why. Exit 4."""


class NotFoundError(Exception):
    """A named group (or topic) does not exist on the cluster. Exit 5."""


class AuthenticationError(Exception):
    """The cluster answered but refused kgroup's credentials (SASL/SSL): which address and what. Exit 7."""
