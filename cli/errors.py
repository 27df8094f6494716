"""Exit codes and the one mapping from kgroup's exceptions to them."""

from __future__ import annotations

import functools
import sys
from enum import IntEnum
from typing import Any, Callable, TypeVar

import typer

from kgroup.inspectors.errors import InputError, RunError

F = TypeVar("F", bound=Callable[..., Any])


class ExitCode(IntEnum):
    OK = 0
    RUNTIME_ERROR = 1  # an assignor failed at run time (e.g. a user assignor returned nonsense)
    BAD_INPUT = 2  # usage errors and bad input files or flag values
    CHECK_FAILED = 3  # `kgroup check`: a policy did not hold
    NOT_REACHABLE = 4  # reserved: a broker could not be reached within --timeout
    INTERRUPTED = 130


def handle_errors(command: F) -> F:
    """Turn kgroup's own errors into one line on stderr and the documented exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except InputError as exc:
            sys.stderr.write(f"kgroup: error: {exc}\n")
            raise typer.Exit(ExitCode.BAD_INPUT) from None
        except RunError as exc:
            sys.stderr.write(f"kgroup: error: {exc}\n")
            raise typer.Exit(ExitCode.RUNTIME_ERROR) from None
        except KeyboardInterrupt:
            sys.stderr.write("kgroup: interrupted\n")
            raise typer.Exit(ExitCode.INTERRUPTED) from None

    return wrapper  # type: ignore[return-value]
