"""OffsetDelete through kgroup's own transport (`inspectors.live.wire`), with its failures as kgroup's errors:
the cluster lost (exit 4), the credentials refused (exit 7), a setting the transport cannot honour (exit 2),
an answer it cannot use (exit 1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.errors import InputError, RunError
from kgroup.inspectors.live.connection import ConnectionSettings
from kgroup.inspectors.live.wire.describe_groups import probe_api_versions
from kgroup.inspectors.live.transport_failures import cluster_failures
from kgroup.inspectors.live.wire.errors import KafkaClientError, UnsupportedConfig
from kgroup.inspectors.live.wire.offset_delete import OffsetDeleteAnswer, delete_offsets, offers_offset_delete

T = TypeVar("T")


def _run(settings: ConnectionSettings, what: str, call: Callable[[], T]) -> T:
    try:
        with cluster_failures(settings, f"during {what}"):
            return call()
    except UnsupportedConfig as exc:
        raise InputError(f"{exc} (needed for {what})", field="--command-config") from None
    except KafkaClientError as exc:
        raise RunError(f"{what}: {exc}") from None


def offset_delete_unsupported(settings: ConnectionSettings, timeout_s: float) -> str | None:
    """Why the cluster cannot delete offsets (its ApiVersions do not offer OffsetDelete), or None."""
    versions = _run(settings, "ApiVersions", lambda: probe_api_versions(settings.client_config(), timeout_s))
    if offers_offset_delete(versions):
        return None
    return (f"the broker at {settings.bootstrap_servers} does not offer OffsetDelete (API 47, Kafka 2.4+), so it "
            "cannot delete a group's offsets for a topic")


def send_offset_delete(settings: ConnectionSettings, group_id: str, partitions: list[TopicPartition],
                       timeout_s: float) -> OffsetDeleteAnswer:
    return _run(settings, f"OffsetDelete of {group_id!r}", lambda: delete_offsets(
        settings.client_config(), group_id, [(tp.topic, tp.partition) for tp in partitions], timeout_s))
