"""A live what-if's input: the group read as `kgroup snapshot` reads it, plus every topic the what-if names."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kgroup.inspectors.fixtures.group_file import Fixture
from kgroup.inspectors.live.admin import LiveAdmin
from kgroup.inspectors.live.snapshot import read_for_what_if
from kgroup.inspectors.simulation.whatif_run import WhatIfFlags


@dataclass(frozen=True)
class LiveWhatIf:
    fixture: Fixture
    document: dict[str, Any]  # the fixture as a `kgroup/v1` document, for --save-plan
    source: str
    client_reason: str | None  # why the leader's client is the one the members' bytes name
    flags: WhatIfFlags  # the flags given, told which subscribed topics the cluster does not have


def read_live(admin: LiveAdmin, group_id: str, flags: WhatIfFlags) -> LiveWhatIf:
    """The live group with the metadata of every topic the flags name (a newcomer's, a new subscription's, a
    topic created or grown). A subscribed topic the cluster lacks is then known not to exist, and the what-if
    runs with it (Kafka assigns nothing of it) instead of asking for its size as an offline one does."""
    fixture, document, source, reason, absent = read_for_what_if(admin, group_id, flags.named_topics())
    created = set(flags.created_topics())
    subscribed = set(flags.subscribed_topics())
    missing = tuple(t for t in absent if t in subscribed and t not in created)
    return LiveWhatIf(
        fixture,
        document,
        source,
        reason,
        replace(flags, absent_topics=tuple(dict.fromkeys(flags.absent_topics + missing))),
    )
