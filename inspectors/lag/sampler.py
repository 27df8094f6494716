"""One poll of a cluster as offset-history samples (docs/lag.md): what `lag record` appends and `triage` reads.

Kafka's OffsetFetch does not return when a commit was made, so a polled history dates a commit by the
first poll that saw its offset; an offset seen again keeps that first time. That is what lets Burrow's
STOP rule see a consumer that stopped committing (lag_samples.CommitSample.commit_ts).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from kgroup.assignors.lag.samples import CommitSample, LogSample
from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.errors import InputError, NotFoundError
from kgroup.inspectors.live.admin import (
    READ_COMMITTED,
    READ_UNCOMMITTED,
    LiveAdmin,
    chosen_group_ids,
    group_pattern,
    read_groups,
)


@dataclass
class GroupChooser:
    """--group (exact, must exist) and -r (regex over the listed groups, re-read at every poll)."""

    groups: tuple[str, ...] = ()
    regex: str | None = None

    def __post_init__(self) -> None:
        if not self.groups and self.regex is None:
            raise InputError("name the groups: --group G (repeatable) or -r REGEX", field="--group")
        self._pattern = group_pattern(self.regex)

    def choose(self, admin: LiveAdmin) -> list[str]:
        return chosen_group_ids(
            list(self.groups), False, self._pattern, lambda: [g.group_id for g in admin.list_groups()]
        )


@dataclass
class Sampler:
    admin: LiveAdmin
    chooser: GroupChooser
    # (cluster, group, topic, partition) -> (offset, when first seen); a resumed recording starts from what
    # the data set saw last (lag_dataset.newest_commits), so unchanged offsets are not re-dated
    first_seen: dict[tuple[str, str, str, int], tuple[int, int]] = field(default_factory=dict)
    cluster: str | None = None

    def poll(self, now_ms: int | None = None) -> tuple[list[CommitSample], list[LogSample]]:
        """Commits and log bounds of the chosen groups' partitions, stamped with one observation time."""
        group_ids = self.chooser.choose(self.admin)
        if not group_ids:
            return [], []
        if self.cluster is None:
            metadata = self.admin.metadata()
            self.cluster = getattr(metadata, "cluster_id", None) or self.admin.settings.bootstrap_servers
        else:
            self.admin.forget_metadata()  # topics created during a long recording
        now = int(time.time() * 1000) if now_ms is None else now_ms
        try:
            read = read_groups(self.admin, group_ids, READ_UNCOMMITTED)
        except NotFoundError:
            if self.chooser.regex is None:
                raise
            return [], []  # a group matched by -r went away between the listing and the describe
        commits, bounds = [], {}
        for live in read.groups:
            group = live.group
            owner = {tp: m for m in group.members for tp in group.assignment.partitions_of(m.member_id)}
            for offsets in group.offsets:
                tp, member = offsets.tp, owner.get(offsets.tp)
                if offsets.log_start is not None and offsets.log_end is not None:
                    bounds[tp] = (offsets.log_start, offsets.log_end)  # read_groups read them (high watermark)
                commits.append(
                    CommitSample(
                        self.cluster,
                        group.group_id,
                        tp.topic,
                        tp.partition,
                        offsets.committed,
                        self._commit_time(group.group_id, tp, offsets.committed, now),
                        member.member_id if member else None,
                        member.client_id if member else None,
                        member.host if member else None,
                        group.generation,
                        now,
                    )
                )
        stable = self.admin.log_ends(sorted(bounds), READ_COMMITTED)
        logs = [
            LogSample(self.cluster, tp.topic, tp.partition, start, end, stable.get(tp), now)
            for tp, (start, end) in sorted(bounds.items())
        ]
        return commits, logs

    def _commit_time(self, group: str, tp: TopicPartition, offset: int | None, now: int) -> int:
        key = (self.cluster or "", group, tp.topic, tp.partition)
        seen = self.first_seen.get(key)
        if offset is None:
            self.first_seen.pop(key, None)
            return now
        if seen is None or seen[0] != offset:
            self.first_seen[key] = (offset, now)
            return now
        return seen[1]
