"""One poll of a cluster as offset-history samples (docs/lag.md): what `lag record` appends and `triage` reads.

Kafka's OffsetFetch does not return when a commit was made, so a polled history dates a commit by the
first poll that saw its offset; an offset seen again keeps that first time. That is what lets Burrow's
STOP rule see a consumer that stopped committing (lag_samples.CommitSample.commit_ts).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from kgroup.assignors.lag.samples import CommitSample, LogSample, ShareSample
from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.errors import InputError, NotFoundError
from kgroup.inspectors.live.admin import READ_COMMITTED, READ_UNCOMMITTED, LiveAdmin
from kgroup.inspectors.live.consumer_groups import chosen_group_ids, group_pattern, read_groups
from kgroup.inspectors.live.share_groups import ShareGroup, read_share_groups


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
        # -r matches consumer groups (as LiveAdmin.list_groups keeps them) and share groups (KIP-932)
        return chosen_group_ids(
            list(self.groups),
            False,
            self._pattern,
            lambda: [
                g.group_id
                for g in admin.list_groups(every_type=True)
                if g.type == "share"
                or g.protocol in ("consumer", "")
                or (g.protocol is None and g.type not in ("share", "streams"))
            ],
        )


@dataclass(frozen=True)
class Poll:
    """One poll: consumer groups' commits, share groups' share-partitions (KIP-932), the log bounds of both,
    and what to tell the user once (a share group whose broker sends no lag)."""

    commits: list[CommitSample]
    logs: list[LogSample]
    shares: list[ShareSample] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Sampler:
    admin: LiveAdmin
    chooser: GroupChooser
    # (cluster, group, topic, partition) -> (offset, when first seen); a resumed recording starts from what
    # the data set saw last (lag_dataset.newest_commits), so unchanged offsets are not re-dated
    first_seen: dict[tuple[str, str, str, int], tuple[int, int]] = field(default_factory=dict)
    cluster: str | None = None
    share_ids: set[str] = field(default_factory=set)  # the chosen groups found to be share groups
    noted: set[str] = field(default_factory=set)  # notes already returned (each is said once)

    def poll(self, now_ms: int | None = None) -> tuple[list[CommitSample], list[LogSample]]:
        """Commits and log bounds of the chosen consumer groups' partitions (poll_all has share groups too)."""
        got = self.poll_all(now_ms)
        return got.commits, got.logs

    def poll_all(self, now_ms: int | None = None) -> Poll:
        """Commits, share-partitions and log bounds of the chosen groups' partitions, stamped with one
        observation time."""
        group_ids = self.chooser.choose(self.admin)
        # -r chose from a listing, which is short of the groups whose `__consumer_offsets` partition has no leader
        unlisted = self.admin.groups_not_listed() if self.chooser.regex is not None else None
        listing_notes = self._once([unlisted] if unlisted is not None else [])
        if not group_ids:
            return Poll([], [], notes=listing_notes)
        if self.cluster is None:
            metadata = self.admin.metadata()
            self.cluster = getattr(metadata, "cluster_id", None) or self.admin.settings.bootstrap_servers
        else:
            self.admin.forget_metadata()  # topics created during a long recording
        now = int(time.time() * 1000) if now_ms is None else now_ms
        try:
            shared, read = self._read(group_ids)
        except NotFoundError:
            if self.chooser.regex is None:
                raise
            return Poll([], [], notes=listing_notes)  # a group matched by -r went away since the listing
        commits, bounds = [], {}
        for live in read.groups if read is not None else []:
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
        shares = [s for group in shared.values() for s in self._share_samples(group, now)]
        unbounded = sorted({TopicPartition(s.topic, s.partition) for s in shares} - bounds.keys())
        bounds |= self.admin.log_bounds(unbounded, READ_UNCOMMITTED) if unbounded else {}
        stable = self.admin.log_ends(sorted(bounds), READ_COMMITTED)
        logs = [
            LogSample(self.cluster, tp.topic, tp.partition, start, end, stable.get(tp), now)
            for tp, (start, end) in sorted(bounds.items())
        ]
        notes = [f"group {g.group_id}: {note}" for g in shared.values() for note in g.notes]
        return Poll(commits, logs, shares, listing_notes + self._once(notes))

    def _once(self, notes: list[str]) -> list[str]:
        """Those of `notes` not returned before."""
        new_notes = [n for n in notes if n not in self.noted]
        self.noted.update(new_notes)
        return new_notes

    def _read(self, group_ids: list[str]) -> tuple[dict[str, ShareGroup], Any]:
        """The chosen share groups and the consumer groups' read. DescribeGroups describes a share group as
        Dead (not found), so, as `describe` does, the groups the consumer-group read does not find are looked
        for among share groups, and one found is read as a share group from then on. Raises NotFoundError for
        a group that is neither."""
        rest = [g for g in group_ids if g not in self.share_ids]
        shared: dict[str, ShareGroup] = {}
        try:
            read = read_groups(self.admin, rest, READ_UNCOMMITTED) if rest else None
        except NotFoundError:
            shared = read_share_groups(self.admin, rest)
            if not shared:
                raise
            self.share_ids |= shared.keys()
            rest = [g for g in rest if g not in shared]
            read = read_groups(self.admin, rest, READ_UNCOMMITTED) if rest else None
        known = [g for g in group_ids if g in self.share_ids and g not in shared]
        shared |= read_share_groups(self.admin, known) if known else {}
        for group_id in known:
            if group_id not in shared:
                raise NotFoundError(f"group {group_id!r} does not exist (it was read as a share group before)")
        return shared, read

    def _share_samples(self, group: ShareGroup, now: int) -> list[ShareSample]:
        """Each share-partition the coordinator has a state for, with the members assigned it at this poll."""
        assert self.cluster is not None
        samples = []
        for p in group.partitions:
            tp = TopicPartition(p.topic, p.partition)
            readers = tuple(m.member_id for m in group.members if (p.topic, p.partition) in m.assignment)
            samples.append(
                ShareSample(
                    self.cluster,
                    group.group_id,
                    p.topic,
                    p.partition,
                    p.start_offset,
                    p.lag,
                    self._commit_time(group.group_id, tp, p.start_offset, now),
                    readers,
                    group.group_epoch,
                    now,
                )
            )
        return samples

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
