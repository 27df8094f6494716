"""Exit codes and the one mapping from kgroup's exceptions to them."""

from __future__ import annotations

import functools
import os
import sys
from enum import IntEnum
from typing import Any, Callable, TypeVar

import typer

from kgroup.inspectors.errors import (
    AuthenticationError,
    AuthorizationError,
    InputError,
    NotFoundError,
    NotReachableError,
    RunError,
    one_line,
)

F = TypeVar("F", bound=Callable[..., Any])


class ExitCode(IntEnum):
    OK = 0
    RUNTIME_ERROR = 1  # an assignor failed at run time (e.g. a user assignor returned nonsense)
    BAD_INPUT = 2  # usage errors and bad input files or flag values
    CHECK_FAILED = 3  # `kgroup check`: a policy did not hold
    NOT_REACHABLE = 4  # the cluster was lost: refused, unresolvable, or no answer within --timeout
    NOT_FOUND = 5  # a named group or topic does not exist on the cluster
    REFUSED = 6  # `offsets reset`: a group has active members, so Kafka would refuse the change too
    AUTHENTICATION_FAILED = (
        7  # the cluster answered but refused the credentials (SASL/SSL), or its TLS certificate is not trusted
    )
    # Authenticated, but an ACL is missing (*_AUTHORIZATION_FAILED). Not 7: the remedy differs (ask for an ACL,
    # not fix the password), as Kafka's own AuthenticationException and AuthorizationException differ.
    NOT_AUTHORIZED = 8
    INTERRUPTED = 130


_EXIT_FOR: dict[type, ExitCode] = {
    InputError: ExitCode.BAD_INPUT,
    RunError: ExitCode.RUNTIME_ERROR,
    NotReachableError: ExitCode.NOT_REACHABLE,
    NotFoundError: ExitCode.NOT_FOUND,
    AuthenticationError: ExitCode.AUTHENTICATION_FAILED,
    AuthorizationError: ExitCode.NOT_AUTHORIZED,
}


def _say(message: str) -> None:
    sys.stderr.write(f"kgroup: error: {one_line(message)}\n")


def handle_errors(command: F) -> F:
    """Turn kgroup's own errors into one line on stderr and the documented exit code.

    Anything unexpected is a kgroup bug: one line too, with the traceback only under KGROUP_DEBUG=1.
    """

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (InputError, RunError, NotReachableError, NotFoundError, AuthenticationError, AuthorizationError) as exc:
            _say(str(exc))
            raise typer.Exit(next(code for kind, code in _EXIT_FOR.items() if isinstance(exc, kind))) from None
        except KeyboardInterrupt:
            sys.stderr.write("kgroup: interrupted\n")
            raise typer.Exit(ExitCode.INTERRUPTED) from None
        except typer.Exit:
            raise
        except Exception as exc:
            if os.environ.get("KGROUP_DEBUG"):
                raise
            _say(f"internal error: {type(exc).__name__}: {exc} (a kgroup bug; KGROUP_DEBUG=1 shows the traceback)")
            raise typer.Exit(ExitCode.RUNTIME_ERROR) from None

    return wrapper  # type: ignore[return-value]
