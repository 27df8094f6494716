"""The writes kgroup makes to share groups (KIP-932) through its own transport (`inspectors.live.wire`), with
their failures as kgroup's errors: which of some groups are share groups, AlterShareGroupOffsets and
DeleteShareGroupOffsets. A cluster lost is exit 4, refused credentials exit 7, a setting the transport cannot
honour exit 2, an answer it cannot use exit 1, an authorization failure exit 8 (as Kafka's tool fails on the
AuthorizationException)."""

from __future__ import annotations

from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.live.admin import LiveAdmin
from kgroup.inspectors.live.connection_settings import ConnectionSettings
from kgroup.inspectors.live.transport_failures import own_transport_call
from kgroup.inspectors.live.transport_failures import authorization_failure, cluster_failures, is_authorization_error
from kgroup.inspectors.live.wire.describe_groups import probe_api_versions
from kgroup.inspectors.live.wire.errors import KafkaClientError, UnsupportedConfig
from kgroup.inspectors.live.wire.share_group_alter_offsets import AlterShareOffsetsAnswer, alter_share_group_offsets
from kgroup.inspectors.live.wire.share_group_delete_offsets import (
    DeleteShareOffsetsAnswer,
    delete_share_group_offsets,
)
from kgroup.inspectors.live.wire.share_group_describe import describe_share_group, offers_share_group_describe


def share_group_ids(admin: LiveAdmin, group_ids: list[str]) -> list[str]:
    """Those of `group_ids` the cluster describes as share groups, in the order given.

    ShareGroupDescribe answers GROUP_ID_NOT_FOUND for a group that is not a share group
    (GroupMetadataManager.shareGroup), so a consumer group, a group that does not exist, and any group on a
    cluster without share groups (no ShareGroupDescribe v1 in ApiVersions; UNSUPPORTED_VERSION where share
    groups are off) are left out: the consumer-group path then handles them, and says what it says today.
    Any other error is left to that path too, which needs the group's ACLs anyway. A cluster that cannot be
    reached is exit 4; settings kgroup's transport cannot honour (GSSAPI) mean no share groups."""
    admin.metadata()  # first through the admin client: a cluster that does not answer is reported as everywhere
    config = admin.settings.client_config()
    try:
        with cluster_failures(admin.settings, "during ApiVersions"):
            if not offers_share_group_describe(probe_api_versions(config, admin.timeout_s)):
                return []
        found = []
        for group_id in dict.fromkeys(group_ids):
            what = f"ShareGroupDescribe of {group_id!r}"
            with admin.group_coordinator(group_id, what), cluster_failures(admin.settings, f"during {what}"):
                described = describe_share_group(config, group_id, admin.timeout_s)
            if described.error is None and described.state not in (None, "Dead"):
                found.append(group_id)
        return found
    except UnsupportedConfig:
        return []
    except KafkaClientError:  # an answer the transport cannot read: not known to be a share group
        return []


def send_alter_share_offsets(
    settings: ConnectionSettings, group_id: str, offsets: dict[TopicPartition, int], timeout_s: float
) -> AlterShareOffsetsAnswer:
    """The coordinator's answer to AlterShareGroupOffsets; READ on the group and on each topic are needed
    (KafkaApis.handleAlterShareGroupOffsetsRequest)."""
    what = f"AlterShareGroupOffsets of {group_id!r}"
    answer = own_transport_call(
        settings,
        what,
        lambda: alter_share_group_offsets(
            settings.client_config(), group_id, {(tp.topic, tp.partition): o for tp, o in offsets.items()}, timeout_s
        ),
    )
    _authorized(settings, group_id, what, answer.error, {t: e for (t, _), e in answer.partitions.items()})
    return answer


def send_delete_share_offsets(
    settings: ConnectionSettings, group_id: str, topics: list[str], timeout_s: float
) -> DeleteShareOffsetsAnswer:
    """The coordinator's answer to DeleteShareGroupOffsets; DELETE on the group and READ on each topic are
    needed (KafkaApis.handleDeleteShareGroupOffsetsRequest)."""
    what = f"DeleteShareGroupOffsets of {group_id!r}"
    answer = own_transport_call(
        settings, what, lambda: delete_share_group_offsets(settings.client_config(), group_id, topics, timeout_s)
    )
    _authorized(settings, group_id, what, answer.error, answer.topics)
    return answer


def _authorized(
    settings: ConnectionSettings, group_id: str, what: str, error: str | None, per_topic: dict[str, str | None]
) -> None:
    """Raise the AuthorizationError of a group or topic the principal may not write."""
    if error is not None and is_authorization_error(error):
        found_by = "FindCoordinator" if "(FindCoordinator" in error else what.split(" ")[0]
        raise authorization_failure(error, f"{found_by} of {group_id!r}", settings=settings)
    denied = sorted((topic, e) for topic, e in per_topic.items() if e is not None and is_authorization_error(e))
    if denied:
        raise authorization_failure(denied[0][1], what, denied[0][0], settings)
