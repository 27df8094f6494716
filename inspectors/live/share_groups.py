"""Share groups (KIP-932, production-ready in Kafka 4.2) as `kafka-share-groups.sh --describe` reads them.

A share group is described by its coordinator with ShareGroupDescribe (state, group epoch, assignment epoch,
members with their epoch, client, subscription and assignment) and its share-partition offsets with
DescribeShareGroupOffsets (START-OFFSET, LEADER-EPOCH and, from v1, LAG as KIP-1226 defines it: the broker
counts it). kgroup does not count a lag the broker did not send: ShareGroupCommand prints `-` for a lag the
Admin client has not (SharePartitionOffsetInfo.lag() empty), and so does kgroup (None).

The consumer-group path never sends these requests: describe reads a group as a share group only when the
consumer-group read found no such group (Kafka's DescribeGroups describes a share group as Dead).
"""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.inspectors.errors import RunError
from kgroup.inspectors.live.admin import Coordinator, LiveAdmin
from kgroup.inspectors.live.transport_failures import authorization_failure, cluster_failures, is_authorization_error
from kgroup.inspectors.live.wire.errors import KafkaClientError, UnsupportedConfig
from kgroup.inspectors.live.wire.share_group_describe import ShareMember, describe_share_group
from kgroup.inspectors.live.wire.share_group_offsets import SharePartitionOffset, describe_share_group_offsets


@dataclass(frozen=True)
class ShareGroup:
    group_id: str
    state: str  # Empty, Stable (a Dead share group is not found)
    group_epoch: int
    assignment_epoch: int
    assignor: str | None  # the share assignor the coordinator uses (`simple`)
    coordinator: Coordinator | None
    members: tuple[ShareMember, ...]  # by member id, as ShareGroupCommand.printMembers sorts them
    partitions: tuple[SharePartitionOffset, ...]  # by topic, partition, as ShareGroupCommand.printOffsets sorts
    offsets_version: int | None  # DescribeShareGroupOffsets' version: 0 has no lag
    notes: tuple[str, ...] = ()
    member_order: tuple[str, ...] = ()  # member ids as the coordinator listed them (its own iteration order)


def read_share_groups(admin: LiveAdmin, group_ids: list[str]) -> dict[str, ShareGroup]:
    """Each of `group_ids` that is a share group, read; the others (not found, or not share groups) are left
    out. Nothing at all when kgroup's own transport cannot use the connection settings (GSSAPI, PKCS#12).
    A group the principal may not DESCRIBE is exit 8 (AuthorizationError); a lost cluster exit 4."""
    config = admin.settings.client_config()
    found: dict[str, ShareGroup] = {}
    for group_id in dict.fromkeys(group_ids):
        try:
            what = f"ShareGroupDescribe of {group_id!r}"
            with admin.group_coordinator(group_id, what), cluster_failures(admin.settings, f"during {what}"):
                described = describe_share_group(config, group_id, admin.timeout_s)
        except UnsupportedConfig:
            return {}
        except KafkaClientError as exc:  # a broker without share groups (no API 77) has none to describe
            if "does not offer ShareGroupDescribe" in str(exc):
                return {}
            raise RunError(f"ShareGroupDescribe: {exc}") from None
        if described.error is not None:
            _refuse(described.error, "ShareGroupDescribe", group_id, admin)
            continue  # GROUP_ID_NOT_FOUND: no group, or not a share group (GroupMetadataManager.shareGroup)
        if described.state == "Dead":
            continue
        try:
            what = f"DescribeShareGroupOffsets of {group_id!r}"
            with admin.group_coordinator(group_id, what), cluster_failures(admin.settings, f"during {what}"):
                offsets = describe_share_group_offsets(config, group_id, admin.timeout_s)
        except KafkaClientError as exc:
            raise RunError(f"DescribeShareGroupOffsets: {exc}") from None
        if offsets.error is not None:
            _refuse(offsets.error, "DescribeShareGroupOffsets", group_id, admin)
            raise RunError(f"DescribeShareGroupOffsets of {group_id!r}: {offsets.error}")
        notes = tuple(
            f"offsets of {skipped} not read (Kafka's admin client leaves such a partition out)"
            for skipped in offsets.skipped
        )
        if offsets.api_version == 0:
            notes += (
                "the broker's DescribeShareGroupOffsets is v0, which has no lag (KIP-1226 adds it in v1): "
                "LAG is unknown",
            )
        found[group_id] = ShareGroup(
            group_id,
            described.state or "Unknown",
            described.group_epoch or 0,
            described.assignment_epoch or 0,
            described.assignor,
            _coordinator(admin, described.coordinator),
            described.members,
            offsets.partitions,
            offsets.api_version,
            notes,
            described.broker_order,
        )
    return found


def total_lag(group: ShareGroup) -> int | None:
    """The sum of the share-partition lags the broker sent; None when it sent none."""
    lags = [p.lag for p in group.partitions if p.lag is not None]
    return sum(lags) if lags else None


def _refuse(error: str, request: str, group_id: str, admin: LiveAdmin) -> None:
    """Raise for a group-level error other than GROUP_ID_NOT_FOUND (which returns)."""
    name = error.split(":")[0].split(" ")[0]
    if name == "GROUP_ID_NOT_FOUND":
        return
    if is_authorization_error(name):
        found_by = "FindCoordinator" if "(FindCoordinator" in error else request
        raise authorization_failure(name, f"{found_by} of {group_id!r}", settings=admin.settings)
    raise RunError(f"{request} of {group_id!r}: {error}")


def _coordinator(admin: LiveAdmin, address: str | None) -> Coordinator | None:
    """The coordinator that answered, with its node id from the cluster's metadata."""
    if address is None:
        return None
    host, _, port = address.rpartition(":")
    for node_id, broker in admin.metadata().brokers.items():
        if broker.host == host and broker.port == int(port):
            return Coordinator(node_id, host, int(port))
    return Coordinator(-1, host, int(port))
