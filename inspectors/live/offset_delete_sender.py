"""OffsetDelete through kgroup's own transport (`inspectors.live.wire`), with its failures as kgroup's errors:
the cluster lost (exit 4), the credentials refused (exit 7), a setting the transport cannot honour (exit 2),
an answer it cannot use (exit 1)."""

from __future__ import annotations

from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.live.connection_settings import ConnectionSettings
from kgroup.inspectors.live.wire.describe_groups import probe_api_versions
from kgroup.inspectors.live.transport_failures import authorization_failure, is_authorization_error, own_transport_call
from kgroup.inspectors.live.wire.offset_delete import OffsetDeleteAnswer, delete_offsets, offers_offset_delete


def offset_delete_unsupported(settings: ConnectionSettings, timeout_s: float) -> str | None:
    """Why the cluster cannot delete offsets (its ApiVersions do not offer OffsetDelete), or None."""
    versions = own_transport_call(
        settings, "ApiVersions", lambda: probe_api_versions(settings.client_config(), timeout_s)
    )
    if offers_offset_delete(versions):
        return None
    return (
        f"the broker at {settings.bootstrap_servers} does not offer OffsetDelete (API 47, Kafka 2.4+), so it "
        "cannot delete a group's offsets for a topic"
    )


def send_offset_delete(
    settings: ConnectionSettings, group_id: str, partitions: list[TopicPartition], timeout_s: float
) -> OffsetDeleteAnswer:
    """The coordinator's answer; an authorization failure (KafkaApis.handleOffsetDeleteRequest: DELETE on the
    group, else GROUP_AUTHORIZATION_FAILED; READ on each topic, else TOPIC_AUTHORIZATION_FAILED per
    partition) is an AuthorizationError, as Kafka's tool fails on the AuthorizationException."""
    what = f"OffsetDelete of {group_id!r}"
    answer = own_transport_call(
        settings,
        what,
        lambda: delete_offsets(
            settings.client_config(), group_id, [(tp.topic, tp.partition) for tp in partitions], timeout_s
        ),
    )
    if answer.error is not None and is_authorization_error(answer.error):
        found_by = "FindCoordinator" if "(FindCoordinator" in answer.error else "OffsetDelete"
        raise authorization_failure(answer.error, f"{found_by} of {group_id!r}", settings=settings)
    denied = sorted(
        (topic, p, error)
        for (topic, p), error in answer.partitions.items()
        if error is not None and is_authorization_error(error)
    )
    if denied:
        failure = authorization_failure(denied[0][2], what, denied[0][0], settings)
        rest = sum(1 for error in answer.partitions.values() if error is None)
        if rest:
            failure.args = (f"{failure}; {rest} other partition(s) were deleted",)
        raise failure
    return answer
