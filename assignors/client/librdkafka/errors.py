"""How librdkafka's leader fails where Kafka's Java assignor would not."""

from __future__ import annotations

from kgroup.assignors.base import AssignorError

LIBRDKAFKA = "librdkafka 2.16.0"


class LibrdkafkaCrash(AssignorError):
    """The real librdkafka crashes (SIGSEGV or SIGABRT) on this input instead of assigning.

    librdkafka: rdkafka_sticky_assignor.c `PartitionMovements_getTheActualPartitionToBeMoved` returns a
    pointer into a list that the caller then shrinks or frees, and stale movement records trip `rd_assert`.
    """

    def __init__(self, why: str) -> None:
        super().__init__(
            f"{LIBRDKAFKA} crash",
            f"real {LIBRDKAFKA} crashes on this input ({why}): the leader's process dies "
            "(SIGSEGV or SIGABRT) instead of assigning",
        )


class UnsupportedAssignor(AssignorError):
    """librdkafka: rdkafka_assignor.c `rd_kafka_assignors_init` registers only range, roundrobin and
    cooperative-sticky; any other strategy makes `rd_kafka_new` fail."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"{LIBRDKAFKA} has no {name!r} assignor",
            f'rd_kafka_new fails with "Unsupported partition.assignment.strategy: {name}", so a '
            "librdkafka consumer never leads a group on it: its leader is a Java member "
            "(use --client java)",
        )
