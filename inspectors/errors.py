"""Errors about what the user gave kgroup; each renders as one line naming the file, field and problem."""

from __future__ import annotations


def one_line(text: str) -> str:
    """Fold line breaks, so a message that echoes user input still prints as one line."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


class InputError(Exception):
    """Bad input: a fixture, a scenario, a flag value. The CLI prints `str(err)` and exits 2."""

    def __init__(
        self, message: str, source: str | None = None, line: int | None = None, field: str | None = None
    ) -> None:
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


class CoordinatorUnavailableError(NotReachableError):
    """The cluster answered, but named no coordinator for the group within the timeout (FindCoordinator kept
    answering COORDINATOR_NOT_AVAILABLE or COORDINATOR_LOAD_IN_PROGRESS). Exit 4, like an unreachable cluster:
    the command could not be done within the timeout."""


class NotFoundError(Exception):
    """A named group (or topic) does not exist on the cluster. Exit 5."""


class AuthenticationError(Exception):
    """The cluster answered but refused kgroup's credentials (SASL/SSL), or kgroup did not trust the broker's
    certificate (Kafka's clients count an SslAuthenticationException as an authentication failure). Exit 7."""


class AuthorizationError(Exception):
    """Authenticated, but an ACL is missing: the broker answered *_AUTHORIZATION_FAILED for a request. Exit 8.

    One line naming the ACL operation, the resource and Kafka's error, as Kafka's tools name the resource
    (ConsumerGroupCommand prints the GroupAuthorizationException / TopicAuthorizationException message).
    """

    def __init__(
        self,
        operation: str,
        resource_type: str,
        resource: str | None,
        error: str,
        request: str,
        detail: str = "",
        principal: str | None = None,
    ) -> None:
        self.operation, self.resource_type, self.resource = operation, resource_type, resource
        self.error, self.request, self.principal = error, request, principal
        named = f"{resource_type} {resource!r}" if resource else f"a {resource_type} {detail or ''}".rstrip()
        acl = (
            f"--operation {operation.capitalize()} --{resource_type} {resource}"
            if resource
            else f"--operation {operation.capitalize()} --{resource_type} ..."
        )
        super().__init__(
            one_line(
                f"not authorized to {operation} {named} ({error}, {request}): ask the cluster's "
                f"administrator for an ACL allowing it for your principal (kafka-acls.sh --add "
                f"--allow-principal {principal or 'User:...'} {acl})"
            )
        )
