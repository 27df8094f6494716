"""Exact time lag for a few partitions: the timestamp of the record at the committed offset.

softwaremill/klag-exporter's "timestamp sampling": one fetch per partition with a consumer that joins no group and
commits nothing. A read_committed consumer fetches only up to the last stable offset.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from kgroup.assignors.lag.group_lag import LagRow
from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.live.connection_settings import ConnectionSettings
from kgroup.inspectors.live.admin import READ_COMMITTED


def record_timestamps(
    settings: ConnectionSettings, wanted: dict[TopicPartition, int], isolation: str, timeout_s: float
) -> dict[TopicPartition, int]:
    """Per partition, the timestamp (ms) of the record at the offset; absent where none was read in time."""
    if not wanted:
        return {}
    from confluent_kafka import Consumer
    from confluent_kafka import TopicPartition as KafkaTopicPartition

    consumer = Consumer(
        {
            **settings.client_config(),
            "group.id": "kgroup-triage-peek",  # never joins or commits
            "enable.auto.commit": False,
            "enable.partition.eof": False,
            "isolation.level": "read_committed" if isolation == READ_COMMITTED else "read_uncommitted",
            "fetch.max.bytes": 1_048_576,
        }
    )
    found: dict[TopicPartition, int] = {}
    try:
        consumer.assign([KafkaTopicPartition(tp.topic, tp.partition, offset) for tp, offset in wanted.items()])
        deadline = time.monotonic() + timeout_s
        while len(found) < len(wanted) and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None or message.error():
                continue
            tp = TopicPartition(message.topic(), message.partition())
            if tp in wanted and tp not in found and message.offset() >= wanted[tp]:
                kind, ts = message.timestamp()
                if kind != 0 and ts >= 0:  # TIMESTAMP_NOT_AVAILABLE is 0
                    found[tp] = ts
                consumer.pause([KafkaTopicPartition(tp.topic, tp.partition)])
    finally:
        consumer.close()
    return found


def exact_time_lags(
    settings: ConnectionSettings,
    unread: dict[TopicPartition, int | None],
    isolation: str,
    timeout_s: float,
    now_ms: int,
) -> dict[TopicPartition, int]:
    """The exact time lag: now minus the timestamp of the first unread record, given per partition
    the offset of that record, or None when nothing is unread (time lag 0). A partition whose record could
    not be read in time is left out: its time lag is unknown, not 0."""
    stamps = record_timestamps(settings, {tp: o for tp, o in unread.items() if o is not None}, isolation, timeout_s)
    lags = {tp: 0 for tp, offset in unread.items() if offset is None}
    lags.update({tp: max(0, now_ms - ts) for tp, ts in stamps.items()})
    return lags


def described_time_lags(
    settings: ConnectionSettings, rows: Iterable[LagRow], isolation: str, timeout_s: float
) -> dict[TopicPartition, int]:
    """Exact time lag, as of now, of each committed partition of a described group. The first unread record
    is at log end - lag, which already clamps a commit below the log start (partition_lag)."""
    now_ms = int(time.time() * 1000)
    unread = {
        r.tp: (r.offsets.log_end - r.lag.lag if r.lag.lag and r.offsets.log_end is not None else None)
        for r in rows
        if r.lag.lag is not None
    }
    return exact_time_lags(settings, unread, isolation, timeout_s, now_ms)
